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
	ReasonConfigInvalid  = "config_invalid"
	ReasonStopped        = "slipway_stopped"
	ReasonCancelled      = "cancelled"
	ReasonDependency     = "dependency_missing"
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

// ended is a summarized Run: ok, with the CLI's own end report as the
// summary (what it observed, not only what the agent said) and the
// findings of every Review in the Run's journal.
func (h *host) ended(st *State) *protocol.Result {
	summary := st.Summary
	if summary == "" {
		summary = h.summary
	}
	if summary == "" {
		summary = "the Slipway Run ended"
	}
	msg := summary
	if h.summary != "" {
		msg = h.summary
	}
	res := h.result(protocol.StatusOK, ReasonSummarized, clip(msg, 4096))
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

// stopped is a Run stopped by a person: it is not taken over here. The
// recovery is the explicit resume a person runs (or config
// resume_stopped for the next attempt).
func (h *host) stopped(st *State) *protocol.Result {
	if st.State == "stopped" {
		res := h.result(protocol.StatusReject, ReasonStopped, fmt.Sprintf(
			"the Slipway Run %s was stopped by a person; it is resumed only explicitly: run the resume command, or set config.resume_stopped", h.runID))
		res.Recovery = h.recovery(&st.Next)
		return res
	}
	res := h.result(protocol.StatusFail, ReasonStopped, fmt.Sprintf("the Slipway Run %s is %s", h.runID, st.State))
	res.Recovery = h.recovery(&st.Next)
	return res
}

// failed maps an error to its result: the one mapping of errors at the
// edge. A Run left with an outstanding Action (an interrupted attempt, a
// failed agent) keeps the way back in its recovery.
func (h *host) failed(err error) *protocol.Result {
	res := h.failure(err)
	if len(res.Recovery) == 0 {
		res.Recovery = h.interrupted()
	}
	return res
}

func (h *host) failure(err error) *protocol.Result {
	var oe *OutcomeError
	var ce *CLIError
	switch {
	case errors.As(err, &oe):
		return h.result(protocol.StatusFail, ReasonOutcomeInvalid, "the agent's outcome was not submitted: "+oe.Error())
	case errors.As(err, &ce) && ce.ExitCode == 2:
		return h.usageFailure(ce)
	case errors.As(err, &ce):
		res := h.result(protocol.StatusFail, ce.Code, ce.Message)
		res.Recovery = h.recovery(&ce.Next)
		return res
	case errors.Is(err, ErrAgent):
		return h.result(protocol.StatusFail, ReasonAgentFailed, err.Error())
	case errors.Is(err, ErrConfig):
		return h.result(protocol.StatusFail, ReasonConfigInvalid, err.Error())
	case errors.Is(err, ErrDependency):
		return h.result(protocol.StatusFail, ReasonDependency, err.Error())
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		msg := "the attempt was interrupted (" + err.Error() + ")"
		if a := h.outstanding(); a != nil {
			msg += fmt.Sprintf(" during %s %s of the Slipway Run %s; the Run is unchanged and resuming it asks the same action again", a.Kind, a.ActionID, h.runID)
		}
		return h.result(protocol.StatusFail, ReasonCancelled, msg)
	}
	return h.result(protocol.StatusFail, ReasonDefect, err.Error())
}

// usageReasons maps the CLI's exit-2 codes (its environment and
// configuration problems, not a broken step protocol) to a reason.
var usageReasons = map[string]string{
	"git_repository_required": ReasonDependency,
}

// usageFailure is a CLI exit 2: the reason fits the code, and the CLI's
// code, message and recovery are kept.
func (h *host) usageFailure(ce *CLIError) *protocol.Result {
	reason, ok := usageReasons[ce.Code]
	if !ok {
		reason = ReasonConfigInvalid
	}
	res := h.result(protocol.StatusFail, reason, fmt.Sprintf("slipway exit 2 %s: %s", ce.Code, ce.Message))
	res.Recovery = h.recovery(&ce.Next)
	if ce.Code == "git_repository_required" {
		res.Recovery = append(res.Recovery, protocol.Recovery{Title: "make the worktree a Git checkout with a commit",
			Command: ShellText("git", []string{"git", "-C", h.root, "init"}) + " && " +
				ShellText("git", []string{"git", "-C", h.root, "commit", "--allow-empty", "-m", "start"})})
	}
	return res
}

// outstanding is the Action the Run was left on, if any.
func (h *host) outstanding() *Action {
	if h.last == nil || h.last.State != "active" {
		return nil
	}
	return h.last.Action
}

// interrupted is the recovery of a Run left active: where it stands, how
// to skip the Action, and the resume (a retry with resume.session_id
// asks the same Action again).
func (h *host) interrupted() []protocol.Recovery {
	a := h.outstanding()
	if a == nil {
		return nil
	}
	out := []protocol.Recovery{{Title: clip("resume: retry with session "+h.runID, 80),
		Command: ShellText(h.cfg.Slipway, []string{"slipway", "status", h.runID, "--root", h.root})}}
	if v, ok := h.last.Next.Variant("skip-action"); ok && v.Inputless() {
		out = append(out, protocol.Recovery{Title: recoveryTitles["skip-action"], Command: ShellText(h.cfg.Slipway, v.BaseArgv)})
	}
	return out
}

// recoveryTitles label the variants a person may run.
var recoveryTitles = map[string]string{
	"answer-decision":     "answer: write your answer to the --text-file, then run",
	"decline-or-feedback": "decline: write your feedback to the --text-file, then run",
	"confirm-destructive": "grant exactly this destructive scope (only if you accept it)",
	"skip-action":         "skip this action",
	"resume-ad-hoc":       "resume the run",
	"inspect-run":         "inspect the run",
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
