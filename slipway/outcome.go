package slipway

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"kusaw.dev/step/protocol"
)

// MaxOutcomeBytes is the largest Outcome the CLI accepts.
const MaxOutcomeBytes = 1 << 20

// ErrOutcomeInvalid is the condition behind every error [CheckOutcome]
// returns: the agent's Outcome must not be submitted.
var ErrOutcomeInvalid = errors.New("agent outcome invalid")

// OutcomeError names the rule an Outcome broke. It matches
// [ErrOutcomeInvalid] with errors.Is.
type OutcomeError struct {
	Rule   string // a stable short name, e.g. "legal_combination"
	Detail string // what was wrong, lower case
}

// Error names the rule and what broke it.
func (e *OutcomeError) Error() string { return "outcome breaks " + e.Rule + ": " + e.Detail }

// Is reports whether target is [ErrOutcomeInvalid].
func (e *OutcomeError) Is(target error) bool { return target == ErrOutcomeInvalid }

func broke(rule, format string, args ...any) error {
	return &OutcomeError{Rule: rule, Detail: fmt.Sprintf(format, args...)}
}

// outcomeFields are the Outcome's fields; every one must be present.
var outcomeFields = []string{"contract_version", "action_id", "action_kind", "status", "summary",
	"observations", "known_issues", "suggested_actions", "pause", "implementation", "review"}

// CheckOutcome decodes raw as the Outcome of act and checks it as the CLI
// will: at most 1 MiB, UTF-8 without a BOM, one JSON object with no
// duplicate, unknown, missing or trailing data, the Action's id and kind,
// a legal combination of status, branches, pause and suggestions, texts
// that are not blank where required and carry no control characters
// (tab and line breaks only in prose), and a destructive request whose
// scope_sha256 is [ScopeSHA256] of it.
// Every error is an [*OutcomeError].
func CheckOutcome(raw []byte, act *Action) (*Outcome, error) {
	if len(raw) > MaxOutcomeBytes {
		return nil, broke("size", "%d bytes, over the 1 MiB limit", len(raw))
	}
	parsed, err := protocol.Parse(raw)
	if err != nil {
		return nil, broke("strict_json", "%v", err)
	}
	obj, ok := parsed.(map[string]any)
	if !ok {
		return nil, broke("strict_json", "not a JSON object")
	}
	for _, f := range outcomeFields {
		if _, ok := obj[f]; !ok {
			return nil, broke("required_field", "field %q is missing", f)
		}
	}
	var o Outcome
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil {
		return nil, broke("shape", "%v", err)
	}
	if err := checkIdentity(&o, act); err != nil {
		return nil, err
	}
	if err := checkLegal(&o); err != nil {
		return nil, err
	}
	if err := checkTexts(&o); err != nil {
		return nil, err
	}
	if d := o.Pause; d != nil && d.DestructiveRequest != nil {
		if err := checkScope(d.DestructiveRequest); err != nil {
			return nil, err
		}
	}
	return &o, nil
}

func checkIdentity(o *Outcome, act *Action) error {
	switch {
	case o.ContractVersion != ContractVersion:
		return broke("contract_version", "contract_version %d, want %d", o.ContractVersion, ContractVersion)
	case o.ActionID != act.ActionID:
		return broke("action_id", "action_id %q, want %q", o.ActionID, act.ActionID)
	case o.ActionKind != act.Kind:
		return broke("action_kind", "action_kind %q, want %q", o.ActionKind, act.Kind)
	case o.Observations == nil || o.KnownIssues == nil || o.SuggestedActions == nil:
		return broke("arrays", "observations, known_issues and suggested_actions must be arrays")
	}
	return nil
}

// legalRow is one row of the page's table of legal Outcome combinations.
type legalRow struct {
	statuses    []string
	impl        []string // allowed implementation.result; nil means the branch is null
	review      []string // allowed review.result; nil means the branch is null
	pauses      []string // allowed pause reasons; nil means pause is null
	suggestions bool     // zero or one Clarify, Implement or Summarize
}

var (
	nonDestructive = []string{PauseDecision, PauseEnvironment}
	anyPause       = []string{PauseDecision, PauseDestructive, PauseEnvironment}
)

// legalTable is the page's "Legal Outcome combinations", by Action kind.
var legalTable = map[string][]legalRow{
	KindOrient: {
		{statuses: []string{"completed", "partial", "error"}, suggestions: true},
		{statuses: []string{"needs_input"}, pauses: nonDestructive},
	},
	KindClarify: {
		{statuses: []string{"completed", "error"}, suggestions: true},
		{statuses: []string{"needs_input"}, pauses: nonDestructive},
	},
	KindImplement: {
		{statuses: []string{"completed"}, impl: []string{"applied", "not_needed"}},
		{statuses: []string{"partial"}, impl: []string{"partial"}},
		{statuses: []string{"error"}, impl: []string{"unable"}},
		{statuses: []string{"needs_input"}, pauses: anyPause},
	},
	KindReview: {
		{statuses: []string{"completed"}, review: []string{"no_findings_reported", "findings_reported"}},
		{statuses: []string{"partial"}, review: []string{"inconclusive"}},
		{statuses: []string{"error"}, review: []string{"error"}},
	},
	KindSummarize: {
		{statuses: []string{"completed", "error"}},
	},
}

// checkLegal finds the table's row for the Outcome's kind and status and
// checks every branch against it.
func checkLegal(o *Outcome) error {
	rows, ok := legalTable[o.ActionKind]
	if !ok {
		return broke("action_kind", "unknown action_kind %q", o.ActionKind)
	}
	for _, row := range rows {
		if slices.Contains(row.statuses, o.Status) {
			return row.check(o)
		}
	}
	return broke("legal_combination", "%s cannot have status %q", o.ActionKind, o.Status)
}

func (row legalRow) check(o *Outcome) error {
	where := o.ActionKind + " " + o.Status
	if err := checkBranch(where, "implementation", row.impl, o.Implementation != nil, implResult(o)); err != nil {
		return err
	}
	if err := checkBranch(where, "review", row.review, o.Review != nil, reviewResult(o)); err != nil {
		return err
	}
	if err := checkPause(where, row.pauses, o.Pause); err != nil {
		return err
	}
	if len(o.SuggestedActions) > 0 && !row.suggestions {
		return broke("legal_combination", "%s allows no suggested action", where)
	}
	if len(o.SuggestedActions) > 1 {
		return broke("legal_combination", "at most one suggested action")
	}
	for _, s := range o.SuggestedActions {
		if !slices.Contains([]string{KindClarify, KindImplement, KindSummarize}, s.Kind) || s.Brief == "" {
			return broke("legal_combination", "suggestion %q: want clarify, implement or summarize with a brief", s.Kind)
		}
	}
	if o.Implementation != nil && o.Implementation.Attempts < 1 {
		return broke("implementation", "implementation.attempts %d, want at least 1", o.Implementation.Attempts)
	}
	return checkFindings(o)
}

func checkBranch(where, name string, allowed []string, present bool, result string) error {
	switch {
	case allowed == nil && present:
		return broke("legal_combination", "%s requires %s=null", where, name)
	case allowed != nil && !present:
		return broke("legal_combination", "%s requires the %s branch", where, name)
	case allowed != nil && !slices.Contains(allowed, result):
		return broke("legal_combination", "%s: %s.result %q, want one of %v", where, name, result, allowed)
	}
	return nil
}

func checkPause(where string, allowed []string, p *Pause) error {
	switch {
	case allowed == nil && p != nil:
		return broke("legal_combination", "%s allows no pause", where)
	case allowed == nil:
		return nil
	case p == nil:
		return broke("legal_combination", "%s requires a pause", where)
	case !slices.Contains(allowed, p.Reason):
		return broke("legal_combination", "%s: pause %q, want one of %v", where, p.Reason, allowed)
	case p.Question == "":
		return broke("pause", "the pause has no question")
	case (p.Reason == PauseDestructive) != (p.DestructiveRequest != nil):
		return broke("pause", "destructive_request is required exactly for %s", PauseDestructive)
	case p.SupersedesAnswerActionID != "" && p.Reason != PauseDecision:
		return broke("pause", "supersedes_answer_action_id is legal only with %s", PauseDecision)
	}
	return nil
}

// checkFindings holds a completed Review to its result: findings_reported
// has findings, no_findings_reported has none.
func checkFindings(o *Outcome) error {
	if o.Review == nil {
		return nil
	}
	n := len(o.Review.Findings)
	if (o.Review.Result == "findings_reported" && n == 0) || (o.Review.Result == "no_findings_reported" && n > 0) {
		return broke("legal_combination", "review.result %q with %d findings", o.Review.Result, n)
	}
	return nil
}

func implResult(o *Outcome) string {
	if o.Implementation == nil {
		return ""
	}
	return o.Implementation.Result
}

func reviewResult(o *Outcome) string {
	if o.Review == nil {
		return ""
	}
	return o.Review.Result
}
