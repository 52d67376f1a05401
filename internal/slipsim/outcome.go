package slipsim

import (
	"encoding/json"
	"fmt"
	"slices"

	"kusaw.dev/step/protocol"
	"kusaw.dev/step/slipway"
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

// checkOutcome is the simulator's own validation of submitted bytes, as
// the page states it; it shares no checking code with the host.
func checkOutcome(data []byte, act *slipway.Action) (*slipway.Outcome, error) {
	if len(data) > 1<<20 {
		return nil, runtime("outcome_too_large", nil, "outcome has %d bytes, over 1 MiB", len(data))
	}
	parsed, err := protocol.Parse(data)
	if err != nil {
		return nil, runtime("outcome_invalid", nil, "outcome: %v", err)
	}
	obj, _ := parsed.(map[string]any)
	if err := shape(obj, "outcome"); err != nil {
		return nil, err
	}
	var o slipway.Outcome
	if err := json.Unmarshal(data, &o); err != nil {
		return nil, runtime("outcome_invalid", nil, "outcome: %v", err)
	}
	if o.ContractVersion != 2 || o.ActionID != act.ActionID || o.ActionKind != act.Kind {
		return nil, runtime("outcome_action_mismatch", nil, "outcome for %s %s (v%d), the action is %s %s",
			o.ActionKind, o.ActionID, o.ContractVersion, act.Kind, act.ActionID)
	}
	if why := illegal(&o); why != "" {
		return nil, runtime("outcome_illegal_combination", nil, "%s %s: %s", o.ActionKind, o.Status, why)
	}
	return &o, nil
}

// shape checks obj has exactly the fields of kind, recursively.
func shape(obj map[string]any, kind string) error {
	if obj == nil {
		return runtime("outcome_invalid", nil, "%s is not an object", kind)
	}
	want := outcomeShape[kind]
	for _, f := range want {
		if _, ok := obj[f]; !ok {
			return runtime("outcome_invalid", nil, "%s: missing field %q", kind, f)
		}
	}
	for f, v := range obj {
		if !slices.Contains(want, f) && !(kind == "pause" && f == "supersedes_answer_action_id") {
			return runtime("outcome_invalid", nil, "%s: unknown field %q", kind, f)
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
	if list, ok := v.([]any); ok && kind == "outcome" && field == "suggested_actions" {
		for _, s := range list {
			m, _ := s.(map[string]any)
			if err := shape(m, "suggestion"); err != nil {
				return err
			}
		}
	}
	return nil
}

// illegal returns why o is not in the page's table, or "".
func illegal(o *slipway.Outcome) string {
	impl, rev, pause := "null", "null", "null"
	if o.Implementation != nil {
		impl = o.Implementation.Result
	}
	if o.Review != nil {
		rev = o.Review.Result
	}
	if o.Pause != nil {
		pause = o.Pause.Reason
	}
	nSugg := len(o.SuggestedActions)
	key := o.ActionKind + "/" + o.Status
	var ok bool
	switch key {
	case "orient/completed", "orient/partial", "orient/error", "clarify/completed", "clarify/error":
		ok = impl == "null" && rev == "null" && pause == "null" && nSugg <= 1
		for _, sg := range o.SuggestedActions {
			ok = ok && slices.Contains([]string{"clarify", "implement", "summarize"}, sg.Kind) && sg.Brief != ""
		}
	case "orient/needs_input", "clarify/needs_input":
		ok = impl == "null" && rev == "null" && (pause == slipway.PauseDecision || pause == slipway.PauseEnvironment) && nSugg == 0
	case "implement/completed", "implement/partial", "implement/error":
		want := map[string][]string{"completed": {"applied", "not_needed"}, "partial": {"partial"}, "error": {"unable"}}[o.Status]
		ok = slices.Contains(want, impl) && rev == "null" && pause == "null" && nSugg == 0 && o.Implementation.Attempts >= 1
	case "implement/needs_input":
		ok = impl == "null" && rev == "null" && pause != "null" && nSugg == 0
	case "review/completed":
		n := len(o.Review.Findings)
		ok = (rev == "no_findings_reported" && n == 0) || (rev == "findings_reported" && n > 0)
		ok = ok && impl == "null" && pause == "null" && nSugg == 0
	case "review/partial", "review/error":
		want := map[string]string{"partial": "inconclusive", "error": "error"}[o.Status]
		ok = rev == want && impl == "null" && pause == "null" && nSugg == 0
	case "summarize/completed", "summarize/error":
		ok = impl == "null" && rev == "null" && pause == "null" && nSugg == 0
	}
	if !ok {
		return fmt.Sprintf("not a legal combination (implementation=%s review=%s pause=%s suggestions=%d)", impl, rev, pause, nSugg)
	}
	return pauseRules(o.Pause)
}

func pauseRules(p *slipway.Pause) string {
	switch {
	case p == nil:
		return ""
	case p.Question == "":
		return "a pause needs a question"
	case (p.Reason == slipway.PauseDestructive) != (p.DestructiveRequest != nil):
		return "destructive_request goes exactly with destructive_confirmation_required"
	case p.SupersedesAnswerActionID != "" && p.Reason != slipway.PauseDecision:
		return "supersedes_answer_action_id is legal only with decision_required"
	}
	return ""
}
