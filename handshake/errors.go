package handshake

import (
	"errors"
	"fmt"
	"strings"

	"kusaw.dev/step/protocol"

	"kusaw.dev/step/events"
)

// The conditions [Run] reports. Each one is the Err of an [*Error], whose
// Reason is the reason code named here.
var (
	// ErrStart: the step could not be started (start_failed): no such
	// file, not executable, not a program for this machine, not in PATH.
	ErrStart = errors.New("handshake: the step could not be started")

	// ErrFailed: the step did not answer with one valid handshake line
	// (handshake_failed): no line, more than one, a line over the limit,
	// not strict JSON, a schema violation, a non-zero exit or a timeout.
	ErrFailed = errors.New("handshake: failed")

	// ErrProtocolUnsupported: the step's protocol_versions lack 2
	// (protocol_unsupported).
	ErrProtocolUnsupported = errors.New("handshake: protocol version not supported")

	// ErrOutputsSchemaInvalid: the step's outputs_schema cannot be read or
	// does not compile, error code E4 (outputs_schema_invalid).
	ErrOutputsSchemaInvalid = errors.New("handshake: outputs_schema invalid (E4)")
)

// Error is a failed handshake: what happened, what to do, and the evidence.
// It unwraps to one of the sentinels (or, when the caller cancelled, to the
// context's error).
type Error struct {
	Reason string // the protocol reason code, e.g. protocol.ReasonHandshakeFailed
	Cause  string // what happened, e.g. "the step printed 2 lines on stdout; ..."
	Hint   string // what to do about it; "" when there is nothing to do
	Path   string // the step's resolved path, or argv[0] when it did not resolve
	Line   []byte // the offending stdout bytes, cut to 2 KiB; nil when none
	Stderr string // the last lines the step wrote on stderr; "" when none
	Err    error  // ErrStart, ErrFailed, ErrProtocolUnsupported, ErrOutputsSchemaInvalid, or ctx.Err()
}

// Error returns a diagnosis over several lines: the condition, the reason
// code and the cause on the first, then the step, what to do, and the
// offending stdout and the stderr tail between ---8<--- markers.
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v [%s]: %s", e.Err, e.Reason, e.Cause)
	if e.Path != "" {
		fmt.Fprintf(&b, "\n  step: %s", e.Path)
	}
	if e.Hint != "" {
		fmt.Fprintf(&b, "\n  what to do: %s", e.Hint)
	}
	quote(&b, "stdout", events.Visible(e.Line))
	quote(&b, "stderr, last lines", e.Stderr)
	return b.String()
}

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// reasonFor returns the reason code of a condition; a context error means
// the caller cancelled.
func reasonFor(err error) string {
	switch err {
	case ErrStart:
		return protocol.ReasonStartFailed
	case ErrFailed:
		return protocol.ReasonHandshakeFailed
	case ErrProtocolUnsupported:
		return protocol.ReasonProtocolUnsupported
	case ErrOutputsSchemaInvalid:
		return protocol.ReasonOutputsSchemaInvalid
	}
	return protocol.ReasonCancelled
}

// Hints: what to do, for the failures that share one.
const (
	hintLine    = "when KUSAW_HANDSHAKE=1, print exactly one JSON line on stdout and exit 0; logs go to stderr"
	hintTimeout = "when KUSAW_HANDSHAKE=1, print the handshake line and exit at once, before any other work; or allow the handshake more time with --handshake-timeout (kusaw-step handshake: --timeout)"
	hintSchema  = "fix the fields listed; the Handshake table of the step protocol v2 describes them all"
	hintOutputs = "make outputs_schema a JSON Schema that compiles: an object inline, or the path of a JSON file relative to the step's folder"
)

// lineCut is how much of an offending line an [Error] keeps.
const lineCut = 2 << 10

// cut returns at most lineCut bytes of b.
func cut(b []byte) []byte {
	return b[:min(len(b), lineCut)]
}

// quote writes text under title between ---8<--- markers, if there is any.
func quote(b *strings.Builder, title, text string) {
	if text == "" {
		return
	}
	fmt.Fprintf(b, "\n  %s:\n---8<---\n%s\n---8<---", title, strings.TrimSuffix(text, "\n"))
}
