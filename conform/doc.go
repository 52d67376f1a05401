// Package conform is the conformance battery for step binaries: it runs a
// step through the real runner (handshake.Run and step.Run, never a copy of
// their logic) and says, check by check, whether it obeys the Kusaw step
// protocol v2.
//
// Each [Check] has a stable id, the spec field or rule it enforces and a
// level. HS checks judge the handshake: two raw runs of it (one with stdin
// held open) and one handshake.Run, all three in the attempts' sandbox
// with the environment run builds for a handshake. AT checks judge
// attempts, in every mode the step takes: pipeline always, the atlas modes
// its features list, and [Options.Modes]. Four attempts run at once in
// each mode: the main one, the same request again, a request with unknown
// fields, and one stopped with SIGTERM at its first event. IA-001 judges
// an interactive step: one attempt on a pseudo-terminal, told
// [Options.Answers], through the request, events and result files (the AT
// checks, which judge stdout, are skipped for it).
//
// A check the step gives nothing to judge (no outputs_schema, no
// artifact) is skipped, as conformance suites do with undeclared
// capabilities. [Report.Passed] is false when a MUST check failed; a failed
// SHOULD check is a warning. [Report.Write] renders the report as a table,
// JSON, JUnit XML or TAP.
//
// What the battery cannot see it does not claim: it watches HOME (set to a
// fresh folder) and the folders beside the worktree for writes, not the
// whole file system; it finds leftover processes through /proc, so only on
// Linux; it judges streaming by event times, so only for attempts that run
// long enough.
package conform
