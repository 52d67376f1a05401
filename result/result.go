// Package result checks a step's result: its schema, and the protocol's
// rules on outputs, effects, recovery, phase, retry_after_ms, resets_at,
// provenance and artifacts. It returns the verdict, the warnings and the
// effect problems; it reads no pipes and runs nothing.
//
// # Verdict
//
// A result that is not strict JSON or breaks the result schema gives
// fail/protocol_error and nothing else is checked. Otherwise every rule is
// checked, each rule that fails adds a [Failure], and the first failure in
// this order of precedence gives the verdict:
//
//  1. protocol_error: the result breaks its schema;
//  2. artifact_invalid (fail): an artifact path is not a regular file
//     inside the artifacts dir, or evidence lacks its caption;
//  3. outputs_too_large (fail): outputs over limits.outputs_max_bytes;
//  4. outputs_invalid (fail): outputs break outputs_schema, the mode's
//     built-in outputs schema, or a rule of the mode's outputs that needs
//     the request (a classify workflow that is configured, a select choice
//     among the candidates, match indexes into the request's findings and
//     one to one, triage groups and assessments that cover every item
//     once, atlas_embed vectors of dims numbers for the request's texts,
//     atlas_map pages inside out_dir), each a problem at its JSON pointer;
//  5. effects_invalid (retry): the effects plan is invalid; see
//     [Verdict.EffectsFeedback].
//
// The order puts what the runner can least trust first: a bad path may
// point anywhere, an oversized document is not worth validating, and an
// invalid plan is the step's to fix on a retry. The verdict's message names
// the other failures too. When no rule fails, the step's own status,
// reason_code and message stand.
//
// Values the protocol ignores rather than fails on (recovery items,
// phase, retry_after_ms, resets_at, provenance) are cleared or dropped with
// a warning each, whatever the verdict; a phase or recovery item of the
// wrong JSON type too (phase 5, a numeric title): the spec calls them
// ignored, so the result schema is checked without them. An atlas_scan
// result keeps only the rule_id and location fields of its findings
// ([FindingFields]) and warns when its scanner has no version.
//
// [CheckArtifact] applies the artifact rule alone, for artifact events.
// The package does not decide what the runner does with a verdict, and it
// does not apply effects.
package result

import (
	stdjson "encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"kusaw.dev/step/protocol"
	"kusaw.dev/step/schemas"
)

// Options are what the checks need to know of the attempt.
type Options struct {
	// Request is the attempt's request: its mode, limits, effects and
	// context.triage. Nil means the spec's defaults, mode unknown and no
	// effects allowed.
	Request *protocol.Request
	// OutputsSchema is the handshake's outputs_schema, compiled; nil when
	// the step declared none.
	OutputsSchema *schemas.Schema
	// ArtifactsDir is KUSAW_ARTIFACTS_DIR, absolute. "" means the request's
	// artifacts_dir.
	ArtifactsDir string
	// Artifacts, when not nil, is the artifacts folder the runner opened
	// before the step ran: artifacts resolve beneath it, and ArtifactsDir
	// is not used.
	Artifacts *ArtifactsDir
}

// Verdict is the outcome of a result's checks.
type Verdict struct {
	Status     string
	ReasonCode string
	Message    string
	// Result is the decoded result as accepted: ignored values cleared,
	// dropped recovery items and invalid artifacts removed, evidence media
	// sniffed, rejected outputs removed, provenance as kept. Nil when the
	// result broke its schema.
	Result *protocol.Result
	// Problems say why the result broke its schema (protocol_error) or why
	// its outputs broke theirs (outputs_invalid, pointers from the result's
	// root, e.g. /outputs/score). ReasonCode and Failures tell which.
	Problems []schemas.Problem
	// Failures are the rules the result broke, in order of precedence; the
	// first one gave Status, ReasonCode and Message.
	Failures []Failure

	// The accepted parts of the result.
	Outputs         jsontext.Value      // nil when absent, too large or invalid
	Artifacts       []protocol.Artifact // the valid ones, evidence media sniffed
	Feedback        []protocol.Feedback
	Effects         *Plan           // the accepted plan; nil when none or invalid
	EffectsFeedback []EffectProblem // why the plan is invalid; nil when it is not
	Recovery        []protocol.Recovery
	Phase           string
	RetryAfterMS    *int64 // nil when absent or ignored
	ResetsAt        string
	Session         *protocol.Session
	Cost            *protocol.Cost
	Provenance      *Provenance // what was kept; nil when nothing was

	// Warnings are every value the checks ignored or dropped.
	Warnings []protocol.Warning

	// Line is the result as the runner keeps it in result.json: the
	// step's bytes, except when a rule removed part of the outputs (the
	// fields of an atlas_scan finding past [FindingFields]); then the
	// result re-encoded with the outputs as kept. Nil when the result
	// broke its schema (keep the step's bytes then).
	Line []byte
}

// Failure is one rule a result broke.
type Failure struct {
	ReasonCode string
	Message    string
}

// rank orders the reason codes a rule gives by precedence; lower wins.
func rank(code string) int {
	switch code {
	case protocol.ReasonArtifactInvalid:
		return 1
	case protocol.ReasonOutputsTooLarge:
		return 2
	case protocol.ReasonOutputsInvalid:
		return 3
	default: // effects_invalid
		return 4
	}
}

// Check checks raw, one result line (or the KUSAW_RESULT file), against
// the result schema and the protocol's rules; see the package comment for
// the order of precedence. It never returns nil.
func Check(raw []byte, opts Options) *Verdict {
	doc, err := protocol.Parse(raw)
	if err != nil {
		return invalid(err)
	}
	obj, _ := doc.(map[string]any)
	if err := schemas.Validate("result", relax(obj, doc)); err != nil {
		return invalid(err)
	}
	res, err := decode(raw)
	if err != nil {
		return invalid(err)
	}
	c := &checker{opts: opts, doc: obj, res: res, v: &Verdict{Result: res}}
	c.checkArtifacts()
	c.checkOutputs()
	c.checkEffects()
	c.checkRecovery()
	c.checkPhase()
	c.checkRetryAfter()
	c.checkResetsAt()
	c.checkProvenance()
	c.checkUnknownFields()
	c.decide()
	c.v.Line = raw
	if c.replaced {
		c.v.Line = c.keptLine(obj)
	}
	return c.v
}

// keptLine is the step's result document with the outputs the runner
// kept, re-encoded.
func (c *checker) keptLine(obj map[string]any) []byte {
	kept := make(map[string]any, len(obj))
	for k, v := range obj {
		kept[k] = v
	}
	kept["outputs"] = stdjson.RawMessage(c.res.Outputs)
	data, err := stdjson.Marshal(kept)
	if err != nil {
		return nil
	}
	return data
}

// relax returns the document the result schema checks: obj without the
// values the spec says to ignore rather than fail on when their type is
// wrong (spec rows phase and recovery: "ignored with a warning, not a
// protocol_error"): a phase that is not a string, a recovery that is not
// an array, recovery items that are not objects of string title and
// command. checkPhase and checkRecovery warn of them. doc is returned when
// obj is nil (a result that is no object, for the schema to refuse).
func relax(obj map[string]any, doc any) any {
	if obj == nil {
		return doc
	}
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		out[k] = v
	}
	if _, ok := out["phase"].(string); !ok {
		delete(out, "phase")
	}
	items, ok := out["recovery"].([]any)
	if !ok {
		delete(out, "recovery")
		return out
	}
	var kept []any
	for _, it := range items {
		if _, why := recoveryItem(it); why == "" {
			kept = append(kept, it)
		}
	}
	out["recovery"] = append([]any{}, kept...)
	return out
}

// checker holds one result while its rules are checked.
type checker struct {
	opts     Options
	doc      map[string]any // the result as protocol.Parse gave it, values of the wrong type ignored (relax)
	res      *protocol.Result
	v        *Verdict
	replaced bool // a rule replaced res.Outputs with what the runner keeps
}

func (c *checker) fail(code, msg string) {
	c.v.Failures = append(c.v.Failures, Failure{ReasonCode: code, Message: msg})
}

func (c *checker) warn(code, msg string) {
	c.v.Warnings = append(c.v.Warnings, protocol.Warning{Code: code, Message: msg})
}

// decide fills the verdict from the failures, or from the step's own
// result when there are none.
func (c *checker) decide() {
	v, res := c.v, c.res
	v.Feedback, v.Session, v.Cost = res.Feedback, res.Session, res.Cost
	if len(v.Failures) == 0 {
		v.Status, v.ReasonCode, v.Message = res.Status, res.ReasonCode, res.Message
		return
	}
	slices.SortStableFunc(v.Failures, func(a, b Failure) int { return rank(a.ReasonCode) - rank(b.ReasonCode) })
	first := v.Failures[0]
	v.Status, v.ReasonCode, v.Message = protocol.StatusFail, first.ReasonCode, first.Message
	if first.ReasonCode == protocol.ReasonEffectsInvalid {
		v.Status = protocol.StatusRetry
	}
	if len(v.Failures) > 1 {
		also := make([]string, 0, len(v.Failures)-1)
		for _, f := range v.Failures[1:] {
			also = append(also, f.ReasonCode+": "+f.Message)
		}
		v.Message += " (also " + strings.Join(also, "; ") + ")"
	}
}

// wire decodes a result. retry_after_ms is taken from the parsed document
// instead (see checkRetryAfter): the schema's integer takes 1e3, 1000.0
// and values past int64, which must be ignored with a warning, not fail
// the decode.
//
// phase and recovery are taken from the relaxed document too (see relax):
// a value of the wrong type there is ignored with a warning, so it must
// not fail the decode either.
type wire struct {
	protocol.Result
	RetryAfterMS jsontext.Value `json:"retry_after_ms,omitzero"`
	Phase        jsontext.Value `json:"phase,omitzero"`
	Recovery     jsontext.Value `json:"recovery,omitzero"`
}

func decode(raw []byte) (*protocol.Result, error) {
	var w wire
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, err
	}
	return &w.Result, nil
}

// invalid is the verdict on a result that is not strict JSON, breaks the
// result schema, or cannot be decoded.
func invalid(err error) *Verdict {
	v := &Verdict{Status: protocol.StatusFail, ReasonCode: protocol.ReasonProtocolError}
	var ve *schemas.Error
	var se *protocol.SyntaxError
	var de *json.SemanticError
	switch {
	case errors.As(err, &ve):
		v.Problems = ve.Problems
	case errors.As(err, &se):
		v.Problems = []schemas.Problem{{Pointer: se.Pointer, Message: fmt.Sprintf("byte offset %d: %s", se.Offset, se.Reason)}}
	case errors.As(err, &de):
		// The schema passed but the value does not fit its Go type: an
		// integer written as 1e3 or 1.0, or one past 64 bits.
		v.Problems = []schemas.Problem{{Pointer: string(de.JSONPointer), Message: decodeText(de)}}
	default:
		v.Problems = []schemas.Problem{{Message: err.Error()}}
	}
	v.Message = "the result is invalid: " + problemsText(v.Problems)
	v.Failures = []Failure{{ReasonCode: v.ReasonCode, Message: v.Message}}
	return v
}

// problemsText gives the first problem and how many more there are.
func problemsText(ps []schemas.Problem) string {
	s := ps[0].String()
	if n := len(ps); n > 1 {
		s += fmt.Sprintf(" (and %d more)", n-1)
	}
	return s
}

func decodeText(de *json.SemanticError) string {
	if len(de.JSONValue) == 0 || de.GoType == nil {
		return de.Error()
	}
	return fmt.Sprintf("%s does not fit Go type %s; write integers as plain digits within 64 bits", de.JSONValue, de.GoType)
}
