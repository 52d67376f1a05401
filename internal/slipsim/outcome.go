package slipsim

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"kusaw.dev/step/protocol"
)

// The fields each object of an Outcome may have (all are required except
// supersedes_answer_action_id).
var outcomeShape = map[string][]string{
	"outcome": {"contract_version", "action_id", "action_kind", "status", "summary", "observations",
		"known_issues", "suggested_actions", "pause", "implementation", "review"},
	"pause":          {"reason", "question", "destructive_request"},
	"destructive":    {"request_id", "targets", "impact", "scope_sha256"},
	"implementation": {"result", "files_changed", "activities", "uncertainties", "attempts"},
	"review":         {"result", "findings", "uncertainties"},
	"suggestion":     {"kind", "brief"},
}

// strictObject decodes data (UTF-8, no BOM, no duplicate keys, no
// trailing data) into v.
func strictObject(data []byte, v any) error {
	if _, err := protocol.Parse(data); err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

// invalid is the CLI's one error for an Outcome it refuses.
func invalid(format string, args ...any) error {
	return runtime("invalid_outcome", nil, format, args...)
}

// checkOutcome is the simulator's validation of submitted bytes, after
// the CLI's: strict JSON with every field, then the rules below. It
// shares no checking code with any host.
func checkOutcome(data []byte, act *actionBody) (*outcomeBody, error) {
	if len(data) > 1<<20 {
		return nil, invalid("decode outcome: payload exceeds %d bytes", 1<<20)
	}
	parsed, err := protocol.Parse(data)
	if err != nil {
		return nil, invalid("decode outcome: %v", err)
	}
	obj, _ := parsed.(map[string]any)
	if err := shape(obj, "outcome"); err != nil {
		return nil, err
	}
	var o outcomeBody
	if err := json.Unmarshal(data, &o); err != nil {
		return nil, invalid("decode outcome: %v", err)
	}
	if why := outcomeRules(&o, act); why != "" {
		return nil, invalid("%s", why)
	}
	return &o, nil
}

// shape checks obj has exactly the fields of kind, recursively.
func shape(obj map[string]any, kind string) error {
	if obj == nil {
		return invalid("decode outcome: %s is not an object", kind)
	}
	want := outcomeShape[kind]
	for _, f := range want {
		if _, ok := obj[f]; !ok {
			return invalid("decode outcome: %s: missing field %q", kind, f)
		}
	}
	for f, v := range obj {
		if !slices.Contains(want, f) && !(kind == "pause" && f == "supersedes_answer_action_id") {
			return invalid("decode outcome: %s: unknown field %q", kind, f)
		}
		if err := shapeChild(kind, f, v); err != nil {
			return err
		}
	}
	return nil
}

func shapeChild(kind, field string, v any) error {
	child := map[string]string{"pause": "pause", "implementation": "implementation", "review": "review",
		"destructive_request": "destructive"}[field]
	if m, ok := v.(map[string]any); ok && child != "" {
		return shape(m, child)
	}
	if kind == "outcome" && (field == "observations" || field == "known_issues" || field == "suggested_actions") {
		list, ok := v.([]any)
		if !ok {
			return invalid("%s must be an array, not null", field)
		}
		for _, s := range list {
			if field != "suggested_actions" {
				continue
			}
			m, _ := s.(map[string]any)
			if err := shape(m, "suggestion"); err != nil {
				return err
			}
		}
	}
	return nil
}

// nonBlank says why a required text is refused: blank, or with a control
// character (tab and line breaks are allowed in prose, not in plain
// fields such as locations, paths and ids).
func nonBlank(name, s string, prose bool) string {
	if !utf8.ValidString(s) {
		return name + " must be valid utf-8"
	}
	if strings.TrimSpace(s) == "" {
		return name + " is required"
	}
	return controls(name, s, prose)
}

func controls(name, s string, prose bool) string {
	for _, r := range s {
		if unicode.IsControl(r) && !(prose && (r == '\t' || r == '\n' || r == '\r')) {
			return fmt.Sprintf("%s contains disallowed control u+%04x", name, r)
		}
	}
	return ""
}

func texts(name string, list []string, prose bool) string {
	for i, s := range list {
		if why := controls(fmt.Sprintf("%s[%d]", name, i), s, prose); why != "" {
			return why
		}
	}
	return ""
}

// outcomeRules returns why o is refused for act, or "".
func outcomeRules(o *outcomeBody, act *actionBody) string {
	switch {
	case o.ContractVersion != 2:
		return fmt.Sprintf("unsupported contract_version %d", o.ContractVersion)
	case o.ActionID != act.ActionID:
		return fmt.Sprintf("outcome action_id %q does not match current action %q", o.ActionID, act.ActionID)
	case o.ActionKind != act.Kind:
		return fmt.Sprintf("outcome action_kind %q does not match current action kind %q", o.ActionKind, act.Kind)
	case !contains([]string{"completed", "needs_input", "partial", "error"}, o.Status):
		return fmt.Sprintf("invalid outcome status %q", o.Status)
	}
	for _, why := range []string{nonBlank("outcome summary", o.Summary, true),
		texts("observations", o.Observations, true), texts("known_issues", o.KnownIssues, true),
		suggestionRules(o), pauseRules(o, act.Kind), branchRules(o, act.Kind)} {
		if why != "" {
			return why
		}
	}
	return ""
}

func suggestionRules(o *outcomeBody) string {
	if len(o.SuggestedActions) > 1 {
		return "suggested_actions may contain at most one item"
	}
	for i, s := range o.SuggestedActions {
		if !contains([]string{kindClarify, kindImplement, kindSummarize}, s.Kind) {
			return fmt.Sprintf("suggested_actions[%d] has invalid kind %q", i, s.Kind)
		}
		if why := nonBlank(fmt.Sprintf("suggested_actions[%d].brief", i), s.Brief, true); why != "" {
			return why
		}
		if len(s.Brief) > 8<<10 {
			return fmt.Sprintf("suggested_actions[%d].brief exceeds %d bytes", i, 8<<10)
		}
	}
	return ""
}

func pauseRules(o *outcomeBody, kind string) string {
	p := o.Pause
	switch {
	case o.Status != "needs_input" && p != nil:
		return "pause is only valid with needs_input"
	case o.Status != "needs_input":
		return ""
	case p == nil:
		return "needs_input requires pause"
	case len(o.SuggestedActions) > 0:
		return "needs_input requires an empty suggested_actions array"
	}
	if why := nonBlank("pause.question", p.Question, true); why != "" {
		return why
	}
	switch p.Reason {
	case pauseDecision, pauseEnvironment:
		if p.DestructiveRequest != nil {
			return "pause.destructive_request is only valid for destructive_confirmation_required"
		}
		if p.Supersedes != nil && p.Reason == pauseEnvironment {
			return "pause.supersedes_answer_action_id is only valid for decision_required"
		}
		if p.Supersedes != nil {
			return nonBlank("pause.supersedes_answer_action_id", *p.Supersedes, false)
		}
	case pauseDestructive:
		switch {
		case kind != kindImplement:
			return "destructive_confirmation_required is only valid for implement actions"
		case p.DestructiveRequest == nil:
			return "destructive_confirmation_required requires destructive_request"
		case p.Supersedes != nil:
			return "pause.supersedes_answer_action_id is only valid for decision_required"
		}
		return checkScope(p.DestructiveRequest)
	default:
		return fmt.Sprintf("needs_input requires a supported host pause reason, got %q", p.Reason)
	}
	return ""
}

// legalResults are the branch results each kind allows, by status.
var legalResults = map[string]map[string][]string{
	kindImplement: {"completed": {"applied", "not_needed"}, "partial": {"partial"}, "error": {"unable"}},
	kindReview:    {"completed": {"no_findings_reported", "findings_reported"}, "partial": {"inconclusive"}, "error": {"error"}},
}

func branchRules(o *outcomeBody, kind string) string {
	switch {
	case kind != kindImplement && o.Implementation != nil:
		return "implementation is only valid for implement actions"
	case kind != kindReview && o.Review != nil:
		return "review is only valid for review actions"
	case (kind == kindImplement || kind == kindReview || kind == kindSummarize) && len(o.SuggestedActions) > 0:
		return kind + " outcomes cannot suggest actions"
	}
	switch kind {
	case kindOrient:
		return statusIn(o, kind, "completed", "partial", "error", "needs_input")
	case kindClarify:
		return statusIn(o, kind, "completed", "error", "needs_input")
	case kindSummarize:
		return statusIn(o, kind, "completed", "error")
	case kindImplement:
		return implRules(o)
	case kindReview:
		return reviewRules(o)
	}
	return fmt.Sprintf("invalid action kind %q", kind)
}

func statusIn(o *outcomeBody, kind string, statuses ...string) string {
	if !contains(statuses, o.Status) {
		return fmt.Sprintf("%s does not support status %q", kind, o.Status)
	}
	return ""
}

func implRules(o *outcomeBody) string {
	im := o.Implementation
	switch {
	case o.Status == "needs_input" && im != nil:
		return "needs_input implement outcome requires implementation null"
	case o.Status == "needs_input":
		return ""
	case im == nil:
		return "non-paused implement outcome requires implementation"
	case !contains([]string{"applied", "partial", "not_needed", "unable"}, im.Result):
		return fmt.Sprintf("implementation has unsupported result %q", im.Result)
	case im.Attempts <= 0:
		return "implementation.attempts must be positive"
	case im.FilesChanged == nil || im.Uncertainties == nil || im.Activities == nil:
		return "implementation arrays must be non-null"
	}
	if why := texts("implementation.files_changed", im.FilesChanged, false); why != "" {
		return why
	}
	if why := texts("implementation.uncertainties", im.Uncertainties, true); why != "" {
		return why
	}
	for i, a := range im.Activities {
		if !contains([]string{"test", "typecheck", "build", "lint"}, a.Kind) {
			return fmt.Sprintf("implementation.activities[%d] has unsupported kind %q", i, a.Kind)
		}
		for _, why := range []string{nonBlank(fmt.Sprintf("implementation.activities[%d].command", i), a.Command, true),
			nonBlank(fmt.Sprintf("implementation.activities[%d].summary", i), a.Summary, true)} {
			if why != "" {
				return why
			}
		}
	}
	if !contains(legalResults[kindImplement][o.Status], im.Result) {
		return fmt.Sprintf("%s implement result must be %s", o.Status, strings.Join(legalResults[kindImplement][o.Status], " or "))
	}
	return ""
}

func reviewRules(o *outcomeBody) string {
	rv := o.Review
	switch {
	case o.Status == "needs_input":
		return "review does not support needs_input"
	case rv == nil:
		return "review outcome requires review"
	case rv.Findings == nil || rv.Uncertainties == nil:
		return "review arrays must be non-null"
	}
	if why := texts("review.uncertainties", rv.Uncertainties, true); why != "" {
		return why
	}
	for i, f := range rv.Findings {
		for _, why := range []string{nonBlank(fmt.Sprintf("review.findings[%d].location", i), f.Location, false),
			nonBlank(fmt.Sprintf("review.findings[%d].summary", i), f.Summary, true),
			nonBlank(fmt.Sprintf("review.findings[%d].detail", i), f.Detail, true)} {
			if why != "" {
				return why
			}
		}
	}
	switch {
	case rv.Result == "findings_reported" && len(rv.Findings) == 0:
		return "findings_reported requires at least one finding"
	case rv.Result == "no_findings_reported" && len(rv.Findings) != 0:
		return "no_findings_reported requires zero findings"
	case !contains(legalResults[kindReview][o.Status], rv.Result):
		return fmt.Sprintf("%s review result must be %s", o.Status, strings.Join(legalResults[kindReview][o.Status], " or "))
	}
	return ""
}
