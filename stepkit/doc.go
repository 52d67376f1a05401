// Package stepkit is a small kit for writing a step of the Kusaw step
// protocol v2 in Go: it answers the handshake, decodes the request, emits
// events one flushed line each and writes the result.
//
// # To be a step, a program must:
//
//  1. When KUSAW_HANDSHAKE=1, print exactly one line on stdout, the
//     handshake (type, name, version, interactive, protocol_versions
//     listing 2), without reading stdin or writing any file, and exit 0.
//  2. Otherwise read the request, one JSON object, from stdin (from the
//     file KUSAW_REQUEST names when it runs interactively), and ignore the
//     fields it does not know.
//  3. Print each event as one JSON line on stdout as it happens, and flush
//     it (to the file KUSAW_EVENTS names when interactive).
//  4. Print nothing else on stdout: logs go to stderr.
//  5. Write artifacts as regular files under KUSAW_ARTIFACTS_DIR and give
//     their paths relative to it.
//  6. Print the result, one JSON line, last (to the file KUSAW_RESULT names
//     when interactive), with outputs within limits.outputs_max_bytes and
//     valid against its outputs_schema, and exit within
//     completion_grace_seconds.
//  7. Stop promptly on SIGTERM, leave no process behind, and write nothing
//     outside the worktree, KUSAW_ARTIFACTS_DIR and its TMPDIR.
//
// [Program.Main] does 1, 2, 3, 4 and 6 for the function it is given, and
// [Step] helps with 5; 7 is the step's own to keep: watch the context,
// which is done on SIGTERM when Main's caller uses signal.NotifyContext.
// `kusaw-step conform STEP` checks all of it, and package steptest runs a
// Program in-process in tests.
//
// The kit prints nothing of its own on stdout and never exits the
// process; it returns errors to main.
package stepkit
