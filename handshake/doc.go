// Package handshake asks a step who it is, under the Kusaw step protocol v2.
//
// [Run] starts the step once with KUSAW_HANDSHAKE=1 and reads the one line
// it prints on stdout. It checks that line strictly, in this order:
//
//  1. the step started, ended within the timeout and exited 0;
//  2. it printed exactly one non-blank line, of at most [Options.MaxLine]
//     bytes (one trailing "\r" is stripped; the line may lack its "\n");
//  3. the line is one strict JSON value (no byte order mark, valid UTF-8, no
//     duplicate key, nothing after the value; see protocol.Parse);
//  4. it is valid against the handshake schema;
//  5. its protocol_versions include 2;
//  6. its outputs_schema, if any, compiles: an inline object, or a path
//     relative to the step's folder (error code E4 when it does not).
//
// What it lets pass (an unknown feature, an interactive step without a
// continue_hint, a stdout its leftovers kept open) comes back as warnings
// in [Info].
//
// # The handshake process
//
// The step reads an empty stdin (/dev/null) and gets the environment [Env]
// builds. It runs in its own process group: when the timeout runs out or
// the caller cancels, the whole group is killed (SIGKILL; a handshake holds
// nothing worth a graceful stop), and once the step has exited the group is
// killed again, so nothing the step started outlives Run. A process that
// keeps stdout or stderr open after the step has exited delays Run by at
// most two seconds. Memory is bounded: stdout is read through a line
// splitter capped at MaxLine, and only the last few KiB of stderr are kept,
// for the diagnosis. Run starts no goroutine that outlives it.
//
// # Errors
//
// Every failure is an [*Error]. Its Reason is the protocol's reason code,
// and it matches one sentinel with errors.Is:
//
//	ErrStart                 start_failed            the step could not be started
//	ErrFailed                handshake_failed        no line, more lines, bad JSON, schema, exit status, timeout
//	ErrProtocolUnsupported   protocol_unsupported    protocol_versions lacks 2
//	ErrOutputsSchemaInvalid  outputs_schema_invalid  outputs_schema does not compile (E4)
//
// When the caller cancels, the reason is cancelled and the error matches
// the context's error instead.
//
// # What it does not do
//
// It does not start an attempt: it writes no request and reads no events or
// result. It does not sandbox the step, and it does not check egress or
// needs_env against an operator's policy: those checks need the policy the
// sandbox package will provide (see the comment in warnings.go for where
// they go). It runs on Unix only.
package handshake
