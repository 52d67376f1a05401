package slipway

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/go-json-experiment/json"

	"kusaw.dev/step/protocol"
)

// The reason codes of this step's own results. A CLI runtime error gives
// its own code instead.
const (
	ReasonSummarized     = "summarized"
	ReasonOutcomeInvalid = "agent_outcome_invalid"
	ReasonAgentFailed    = "agent_failed"
	ReasonDefect         = "slipway_defect"
	ReasonProtocolError  = "protocol_error"
	ReasonConfigInvalid  = "config_invalid"
	ReasonStopped        = "slipway_stopped"
	ReasonCancelled      = "cancelled"
)

// recovery limits from the step protocol.
const (
	maxRecovery        = 5
	maxRecoveryCommand = 500
)

// Outputs are an ok result's outputs.
type Outputs struct {
	RunID    string    `json:"run_id"`
	Summary  string    `json:"summary"`
	Findings []Finding `json:"findings"`
}

// result returns a result with the Run recorded as the session.
func (h *host) result(status, reason, message string) *protocol.Result {
	res := &protocol.Result{Type: "result", ProtocolVersion: protocol.Version, Status: status, ReasonCode: reason, Message: message}
	if h.runID != "" {
		res.Session = &protocol.Session{ID: h.runID, Provider: "slipway", Dir: h.root, ResumedFrom: h.resumed}
	}
	if h.usage.Provider != nil {
		res.Cost = &protocol.Cost{TokensInput: h.usage.TokensInput, TokensOutput: h.usage.TokensOutput,
			TokensCached: h.usage.TokensCached, USD: h.usage.CostUSD, Source: h.usage.CostSource}
	}
	return res
}

// ended is a summarized Run: ok, with the summary and the findings.
func (h *host) ended(st *State) *protocol.Result {
	summary := st.Summary
	if summary == "" {
		summary = h.summary
	}
	if summary == "" {
		summary = "the Slipway Run ended"
	}
	res := h.result(protocol.StatusOK, ReasonSummarized, summary)
	findings := h.findings
	if findings == nil {
		findings = []Finding{}
	}
	res.Outputs, _ = json.Marshal(Outputs{RunID: h.runID, Summary: summary, Findings: findings})
	return res
}

// paused turns a pause into a result: budget exhaustion is a retry (the
// next attempt resumes the Run), every other pause a reject for a person,
// with the question and the exact commands that answer it. Destructive
// confirmation is never granted here.
func (h *host) paused(st *State) *protocol.Result {
	if st.PauseReason == PauseBudgetExhausted {
		res := h.result(protocol.StatusRetry, PauseBudgetExhausted,
			fmt.Sprintf("the Slipway Run %s ran out of budget; the next attempt resumes it", h.runID))
		res.Recovery = h.recovery(&st.Next)
		return res
	}
	msg := fmt.Sprintf("the Slipway Run %s is paused: %s", h.runID, st.PauseReason)
	if h.pause != nil && h.pause.Reason == st.PauseReason {
		msg = h.pause.Question
		if d := h.pause.DestructiveRequest; d != nil {
			msg += fmt.Sprintf(" (destructive scope %s: %s)", d.ScopeSHA256, d.Impact)
		}
	}
	res := h.result(protocol.StatusReject, st.PauseReason, msg)
	res.Recovery = h.recovery(&st.Next)
	return res
}

// stopped is a Run stopped by a person.
func (h *host) stopped(st *State) *protocol.Result {
	res := h.result(protocol.StatusFail, ReasonStopped, fmt.Sprintf("the Slipway Run %s is %s", h.runID, st.State))
	res.Recovery = h.recovery(&st.Next)
	return res
}

// failed maps an error to its result: the one mapping of errors at the edge.
func (h *host) failed(err error) *protocol.Result {
	var oe *OutcomeError
	var ce *CLIError
	switch {
	case errors.As(err, &oe):
		return h.result(protocol.StatusFail, ReasonOutcomeInvalid, "the agent's outcome was not submitted: "+oe.Error())
	case errors.Is(err, ErrUsage):
		return h.result(protocol.StatusFail, ReasonProtocolError, err.Error())
	case errors.As(err, &ce):
		res := h.result(protocol.StatusFail, ce.Code, ce.Message)
		res.Recovery = h.recovery(&ce.Next)
		return res
	case errors.Is(err, ErrAgent):
		return h.result(protocol.StatusFail, ReasonAgentFailed, err.Error())
	case errors.Is(err, ErrConfig):
		return h.result(protocol.StatusFail, ReasonConfigInvalid, err.Error())
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return h.result(protocol.StatusFail, ReasonCancelled, err.Error())
	}
	return h.result(protocol.StatusFail, ReasonDefect, err.Error())
}

// recoveryTitles label the variants a person may run.
var recoveryTitles = map[string]string{
	"answer-decision":     "answer: write your answer to the --text-file, then run",
	"decline-or-feedback": "decline: write your feedback to the --text-file, then run",
	"confirm-destructive": "grant exactly this destructive scope (only if you accept it)",
	"skip-action":         "skip this action",
	"resume-ad-hoc":       "resume the run",
}

// recovery renders the variants a person can run as shell text: inputless
// ones as they are, and those whose only required input is a text_file
// with a concrete answer file path. Nothing unresolved is ever rendered.
func (h *host) recovery(n *Next) []protocol.Recovery {
	var out []protocol.Recovery
	for i := range n.Variants {
		v := &n.Variants[i]
		argv, ok := h.resolveForPerson(v)
		if !ok {
			continue
		}
		text := ShellText(h.cfg.Slipway, argv)
		if len(text) > maxRecoveryCommand || len(out) == maxRecovery {
			continue
		}
		title, ok := recoveryTitles[v.ID]
		if !ok {
			title = v.ID
		}
		out = append(out, protocol.Recovery{Title: title, Command: text})
	}
	return out
}

func (h *host) resolveForPerson(v *Variant) ([]string, bool) {
	values := map[string]string{}
	for _, in := range v.Inputs {
		switch {
		case !in.Required:
		case in.Name == "text_file" && in.Type == "path" && h.artifacts != "":
			values[in.Name] = filepath.Join(h.artifacts, "slipway-answer.txt")
		default:
			return nil, false
		}
	}
	argv, err := v.Resolve(values)
	return argv, err == nil
}
