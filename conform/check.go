package conform

import (
	"fmt"
	"path"
	"strings"
)

// Level says how much a check weighs: a failed MUST check fails the
// battery, a failed SHOULD check is a warning.
type Level string

// The levels of RFC 2119 the battery uses.
const (
	Must   Level = "MUST"
	Should Level = "SHOULD"
)

// Status is the outcome of one check.
type Status string

// The outcomes of a check.
const (
	Pass Status = "pass"
	Fail Status = "fail"
	Skip Status = "skip" // the step does not declare what the check needs, or it could not be told
)

// Check is one rule of the protocol the battery enforces. Its ID is
// stable: reports, --focus and --skip name it.
type Check struct {
	ID    string `json:"id"`    // e.g. "HS-001"; HS handshake, AT attempt, IA interactive, EX explore
	Spec  string `json:"spec"`  // the spec field or rule it enforces, e.g. "handshake.protocol_versions"
	Level Level  `json:"level"` // MUST or SHOULD
	Title string `json:"title"` // what a conforming step does, e.g. "the handshake exits 0 within the timeout"
}

// Checks is the battery, in the order reports list it.
var Checks = []Check{
	{"HS-001", "KUSAW_HANDSHAKE", Must, "the handshake exits 0 within the timeout"},
	{"HS-002", "handshake", Must, "the handshake prints exactly one line on stdout"},
	{"HS-003", "handshake", Must, "the handshake line is strict JSON, valid against the handshake schema"},
	{"HS-004", "handshake.protocol_versions", Must, "protocol_versions lists 2"},
	{"HS-005", "handshake.outputs_schema", Must, "outputs_schema compiles"},
	{"HS-006", "KUSAW_HANDSHAKE", Must, "the handshake needs nothing on stdin"},
	{"HS-007", "handshake", Must, "the handshake gives the same answer twice"},
	{"HS-008", "KUSAW_HANDSHAKE", Must, "the handshake writes nothing to the worktree or artifacts dir"},
	{"HS-009", "handshake.name, handshake.version", Must, "name and version are not empty"},
	{"AT-001", "result", Must, "the result is valid and the last stdout line"},
	{"AT-002", "events", Must, "every event is valid against its schema"},
	{"AT-003", "limits.outputs_max_bytes", Must, "outputs fit within outputs_max_bytes (64 KiB)"},
	{"AT-004", "handshake.outputs_schema", Must, "outputs are valid against the outputs_schema"},
	{"AT-005", "artifacts", Must, "artifacts are files inside the artifacts dir"},
	{"AT-006", "completion_grace_seconds", Must, "the step exits within completion_grace_seconds after its result"},
	{"AT-007", "stdout", Must, "nothing on stdout but protocol lines"},
	{"AT-008", "request", Must, "a request with unknown extra fields is accepted"},
	{"AT-009", "SIGTERM", Must, "the step stops within the grace period on SIGTERM"},
	{"AT-010", "process group", Must, "the step leaves no process behind"},
	{"AT-011", "sandbox.writable", Must, "the step writes nothing outside the worktree, artifacts dir and its tmp"},
	{"AT-012", "events", Should, "events arrive as they happen, not all at exit"},
	{"AT-013", "result.status", Should, "a second run gives the same verdict"},
	{"AT-014", "Score outputs", Should, "score mode outputs follow Score outputs"},
	{"AT-015", "exit status", Must, "the step exits 0 after an ok result"},
	{"AT-016", "result, events", Should, "the result and the events name only fields the protocol defines"},
	{"IA-001", "KUSAW_REQUEST, KUSAW_EVENTS, KUSAW_RESULT", Must, "an interactive step follows the request/events/result file flow on a pty"},
	{"EX-001", "request", Must, "no crash, hang or protocol failure on any valid request (--explore)"},
	{"EX-002", "result.status", Should, "the same generated request gives the same verdict (--explore)"},
}

// lookup returns the check with id; it panics on an unknown id, which is a
// bug in the battery.
func lookup(id string) Check {
	for _, c := range Checks {
		if c.ID == id {
			return c
		}
	}
	panic("conform: no check " + id)
}

// Selection picks checks by id. Each pattern is an id ("AT-009"), a prefix
// ("HS") or a path.Match glob ("AT-00?").
type Selection struct {
	Focus []string // run only the checks these match; empty means all
	Skip  []string // then leave out the checks these match
}

// Selected returns the ids of the checks s selects, or an error when it
// selects none or a pattern is malformed.
func (s Selection) Selected() (map[string]bool, error) {
	out := make(map[string]bool)
	for _, c := range Checks {
		in, err := matchAny(s.Focus, c.ID, true)
		if err != nil {
			return nil, err
		}
		skipped, err := matchAny(s.Skip, c.ID, false)
		if err != nil {
			return nil, err
		}
		if in && !skipped {
			out[c.ID] = true
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: --focus %q and --skip %q leave no check", ErrSelection, strings.Join(s.Focus, ","), strings.Join(s.Skip, ","))
	}
	return out, nil
}

// matchAny reports whether id matches one of the patterns; empty reports
// ifEmpty.
func matchAny(patterns []string, id string, ifEmpty bool) (bool, error) {
	if len(patterns) == 0 {
		return ifEmpty, nil
	}
	for _, p := range patterns {
		p = strings.ToUpper(strings.TrimSpace(p))
		ok, err := path.Match(p, id)
		if err != nil {
			return false, fmt.Errorf("%w: pattern %q: %v", ErrSelection, p, err)
		}
		if ok || strings.HasPrefix(id, p) {
			return true, nil
		}
	}
	return false, nil
}
