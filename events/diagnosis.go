package events

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"kusaw.dev/step/protocol"
	"kusaw.dev/step/schemas"
)

// Conditions of a [ProtocolError] that no other package names. Match them
// with errors.Is on [ProtocolError.Err] (or on the ProtocolError itself).
var (
	// ErrNotObject: the line is one JSON value, but not an object.
	ErrNotObject = errors.New("events: not a JSON object")
	// ErrAfterResult: a line came after the result line.
	ErrAfterResult = errors.New("events: a line after the result")
	// ErrSecondResult: a second result line came after the first.
	ErrSecondResult = errors.New("events: a second result")
	// errMismatch: the fast checker rejected a line the schema accepts.
	// FuzzFastPath keeps this from happening; if it ever does, the line is
	// still rejected (fail closed) and the diagnosis asks for a bug report.
	errMismatch = errors.New("events: the fast checker and the schema disagree")
)

// bytesMax is how many bytes of the offending line a [ProtocolError] keeps.
const bytesMax = 1 << 10

// ProtocolError is one stdout line that breaks the protocol.
type ProtocolError struct {
	Line  int    // 1-based line number, blank lines counted
	Size  int64  // the line's size in bytes, without its "\n" and one trailing "\r"
	Cause string // what is wrong, e.g. `duplicate object key "type" at byte 17`
	Hint  string // the likely cause and what to do about it
	Bytes []byte // the offending bytes, cut to 1 KiB (a too-long line: its first 256 bytes)

	// Err is the condition, for errors.Is and errors.As: a
	// *protocol.SyntaxError (protocol.ErrSyntax: not JSON, a BOM, invalid
	// UTF-8, a duplicate key, trailing data), a *LineTooLongError
	// (ErrLineTooLong), ErrNotObject, an error wrapping
	// protocol.ErrUnknownEvent (no "type", or not an event type), a
	// *schemas.Error (the event breaks its type's schema), ErrAfterResult or
	// ErrSecondResult.
	Err error
}

// Error returns "stdout line N: CAUSE".
func (p *ProtocolError) Error() string {
	return fmt.Sprintf("stdout line %d: %s", p.Line, p.Cause)
}

// Unwrap returns p.Err.
func (p *ProtocolError) Unwrap() error { return p.Err }

// Diagnosis renders p the way Bazel reports a failure: the cause with the
// line number, the offending bytes between "---8<---" markers (invisible
// and invalid bytes escaped), the hint, then stderrTail, the last lines of
// the step's stderr (left out when "").
func (p *ProtocolError) Diagnosis(stderrTail string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", p.Error())
	shown := fmt.Sprintf("%d bytes", p.Size)
	if int64(len(p.Bytes)) < p.Size {
		shown += fmt.Sprintf(", the first %d shown", len(p.Bytes))
	}
	fmt.Fprintf(&b, "---8<--- stdout line %d (%s)\n%s\n---8<---\n", p.Line, shown, Visible(p.Bytes))
	if p.Hint != "" {
		fmt.Fprintf(&b, "Hint: %s\n", p.Hint)
	}
	if stderrTail != "" {
		fmt.Fprintf(&b, "The last lines of stderr:\n%s\n", strings.TrimSuffix(stderrTail, "\n"))
	}
	return b.String()
}

// Visible returns bytes a step printed as text for a person: invalid
// UTF-8 and invisible characters (controls other than tab and newline, a
// BOM, other format characters) are escaped as \xNN or \uNNNN.
func Visible(b []byte) string {
	var s strings.Builder
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&s, `\x%02x`, b[0])
		case r == '\t' || r == '\n' || unicode.IsPrint(r):
			s.Write(b[:n])
		case r < utf8.RuneSelf:
			fmt.Fprintf(&s, `\x%02x`, r)
		default:
			fmt.Fprintf(&s, `\u%04x`, r)
		}
		b = b[n:]
	}
	return s.String()
}

// cut returns a copy of at most bytesMax bytes of b. A valid UTF-8
// sequence that the limit would split is left out whole.
func cut(b []byte) []byte {
	if len(b) <= bytesMax {
		return append([]byte(nil), b...)
	}
	end := bytesMax
	for i := end; i > end-utf8.UTFMax; i-- {
		if !utf8.RuneStart(b[i]) {
			continue
		}
		if r, n := utf8.DecodeRune(b[i:]); i < end && (r != utf8.RuneError || n > 1) {
			end = i // the sequence at i runs past the limit
		}
		break
	}
	return append([]byte(nil), b[:end]...)
}

// Hints, by condition.
const (
	hintNotJSON      = "did the step print to stdout? Logs go to stderr; stdout carries only protocol lines, one JSON object each"
	hintBOM          = "the step wrote a UTF-8 byte order mark; write JSON without one (PowerShell's UTF8 encoding and some editors add it)"
	hintUTF8         = "the step wrote bytes that are not UTF-8 (binary data, or text in another encoding); JSON text must be UTF-8, with binary data encoded (base64) or put in an artifact file"
	hintDuplicate    = "the step's JSON writer put the same key twice in one object (perhaps spelled with an escape, \"\\u0074ype\" is \"type\"); build each line from one map or struct"
	hintTrailing     = "two JSON values on one line? Print exactly one JSON object per line, each ending with \"\\n\""
	hintTooLong      = "a stdout line is limited to max_line_bytes (%d bytes); write big data to a file under KUSAW_ARTIFACTS_DIR and publish it with an artifact event or in the result's artifacts"
	hintNotObject    = "each stdout line must be a JSON object with a \"type\"; did the step print a bare value to stdout? Logs go to stderr"
	hintType         = "event types are agent_action, artifact, note_ack, progress, tool_call and usage, and the last line is the result (\"type\":\"result\"); did the step print its own JSON to stdout? Logs go to stderr"
	hintSchema       = "the %[1]s event's fields are listed by `kusaw-step schema event:%[1]s` and in the step protocol reference"
	hintAfterResult  = "the result must be the step's last stdout line: print every event before it, and logs to stderr"
	hintSecondResult = "a step prints exactly one result, as its last stdout line"
	hintMismatch     = "kusaw-step's fast event checker rejected this line but its schema accepts it: a bug in kusaw-step; please report it with this line"
)

// explain is the slow path: it finds why a line the fast checker rejected
// breaks the protocol, with protocol.Parse and the event schemas, and
// returns the cause, the hint and the condition.
func explain(line []byte, rules *ruleSet) (cause, hint string, err error) {
	doc, err := protocol.Parse(line)
	if err != nil {
		cause, hint = syntaxCause(err)
		if hint == hintNotJSON && LooksLikePythonRepr(line) {
			hint = HintPythonRepr
		}
		return cause, hint, err
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return "not a JSON object: got " + protocol.TypeName(doc), hintNotObject, ErrNotObject
	}
	return explainType(obj, rules)
}

// explainType explains the "type" of an object the fast checker rejected,
// or, when it is an event type, the event's schema violation.
func explainType(obj map[string]any, rules *ruleSet) (cause, hint string, err error) {
	typ, ok := obj["type"].(string)
	_, has := obj["type"]
	spec := rules.lookup([]byte(typ))
	switch {
	case !has:
		return `no "type"`, hintType, fmt.Errorf(`%w: no "type"`, protocol.ErrUnknownEvent)
	case !ok:
		return fmt.Sprintf(`"type" is %s, want a string`, protocol.TypeName(obj["type"])), hintType, fmt.Errorf(`%w: "type" is not a string`, protocol.ErrUnknownEvent)
	case typ == "result": // a well-formed result is never rejected
		return "the result line was rejected", hintMismatch, errMismatch
	case spec == nil:
		return fmt.Sprintf("unknown event type %q", typ), hintType, fmt.Errorf("%w %q", protocol.ErrUnknownEvent, typ)
	}
	return explainSchema(spec, obj)
}

// explainSchema explains why obj breaks the schema of its event type.
func explainSchema(spec *eventSpec, obj map[string]any) (cause, hint string, err error) {
	hint = fmt.Sprintf(hintSchema, spec.name) + meantFields(spec.name, obj)
	// The validator panics on a number big.Rat does not parse when it
	// compares it with a bound (github.com/santhosh-tekuri/jsonschema/v6
	// v6.0.3): name it before calling the validator.
	if e := unparsableBound(spec, obj); e != nil {
		return eventCause(spec, e), hint, e
	}
	err = schemas.Validate("event", obj)
	var se *schemas.Error
	if !errors.As(err, &se) {
		return "the event is valid, yet was rejected", hintMismatch, errMismatch
	}
	return eventCause(spec, se), hint, se
}

// eventCause words a schema error: "progress event: /percent: maximum: got
// 120, want 100".
func eventCause(spec *eventSpec, e *schemas.Error) string {
	probs := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		probs[i] = p.String()
	}
	return spec.name + " event: " + strings.Join(probs, "; ")
}

// unparsableBound returns a schema error for a property with a minimum or
// maximum whose number the validator cannot parse, or nil.
func unparsableBound(spec *eventSpec, obj map[string]any) *schemas.Error {
	for _, p := range spec.props {
		lit, ok := obj[p.name].(json.Number)
		if !ok || p.rule.min == nil && p.rule.max == nil {
			continue
		}
		if n := parseNumber([]byte(lit)); !n.ratOK() {
			msg := fmt.Sprintf("number %.40s is beyond what the schema checker handles (decimal exponent over %d)", lit, int(maxRatExp))
			return &schemas.Error{Kind: "event", Problems: []schemas.Problem{{Pointer: "/" + p.name, Message: msg}}}
		}
	}
	return nil
}

// syntaxCause words a protocol.Parse error and picks its hint.
func syntaxCause(err error) (cause, hint string) {
	var se *protocol.SyntaxError
	if !errors.As(err, &se) {
		return "not JSON: " + err.Error(), hintNotJSON
	}
	reason, _, _ := strings.Cut(se.Reason, "; ") // the rest is advice, for the hint
	at := fmt.Sprintf(" at byte %d", se.Offset)
	switch {
	case strings.HasPrefix(reason, "UTF-8 byte order mark"):
		return "a UTF-8 byte order mark (BOM) before the JSON value", hintBOM
	case strings.HasPrefix(reason, "invalid UTF-8"):
		return "invalid UTF-8" + at, hintUTF8
	case strings.HasPrefix(reason, "duplicate object key"):
		return reason + at, hintDuplicate
	case strings.HasPrefix(reason, "trailing data"):
		return reason + at, hintTrailing
	case strings.HasPrefix(reason, "no JSON value"):
		return "no JSON value: the line holds only white space", hintNotJSON
	}
	return fmt.Sprintf("not JSON: byte %d: %s", se.Offset, reason), hintNotJSON
}
