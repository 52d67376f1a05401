package slipway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
)

// lostRetries is how many times a submit whose response was lost is sent
// again, with the identical outcome file.
const lostRetries = 2

// submit sends an accepted Outcome through the submit-outcome-file
// variant. The file is kept until the CLI acknowledges it, so a retry
// after a lost response resends the exact bytes; a committed mutation
// whose output failed is never replayed but recovered through status.
func (h *host) submit(ctx context.Context, st *State, raw []byte) (*State, error) {
	v, ok := st.Next.Variant("submit-outcome-file")
	if st.Next.Operation != "action" || !ok {
		return nil, fmt.Errorf("%w: an active Run without a submit-outcome-file variant", ErrDefect)
	}
	file, err := h.private("outcome-*.json", raw)
	if err != nil {
		return nil, err
	}
	defer os.Remove(file)
	argv, err := v.Resolve(map[string]string{"outcome_file": file})
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrDefect, err)
	}
	for try := 0; ; try++ {
		r, err := h.cli.call(ctx, argv)
		if err != nil {
			return nil, err
		}
		next, err := h.state(r)
		var ce *CLIError
		switch {
		case errors.Is(err, ErrLostResponse) && try < lostRetries:
			continue
		case errors.As(err, &ce) && ce.Code == CodeMutationCommittedOutputFailed && ce.ExitCode == 3:
			return h.recoverCommitted(ctx, ce, st.Action.ActionID)
		}
		return next, err
	}
}

// recoverCommitted follows a mutation_committed_output_failed error's
// targeted status recovery and continues from what it says. The CLI's
// recovery is the text status command (variant inspect-run); the host
// adds --json, the one flag that makes it a machine answer.
func (h *host) recoverCommitted(ctx context.Context, ce *CLIError, submitted string) (*State, error) {
	v := statusVariant(&ce.Next)
	if v == nil {
		return nil, fmt.Errorf("%w: %s without a status recovery", ErrDefect, ce.Code)
	}
	h.emit.progress("the submit committed but its response was lost; reading the Run's status")
	argv := v.BaseArgv
	if !slices.Contains(argv, "--json") {
		argv = append(append([]string(nil), argv...), "--json")
	}
	st, err := h.status(ctx, argv)
	if err != nil {
		return nil, err
	}
	if st.Action != nil && st.Action.ActionID == submitted {
		return nil, fmt.Errorf("%w: status still shows the submitted action %s after a committed submit", ErrDefect, submitted)
	}
	return st, nil
}

// statusVariant returns the inputless `slipway status RUN` variant of a
// command next (inspect-run), or nil.
func statusVariant(n *Next) *Variant {
	if n.Operation != "command" {
		return nil
	}
	for i := range n.Variants {
		v := &n.Variants[i]
		if len(v.BaseArgv) > 2 && v.BaseArgv[1] == "status" && v.Inputless() {
			return v
		}
	}
	return nil
}

// status runs a status argv (with --json) and returns it as a State. The
// journal's records give back what an earlier attempt saw: the question
// of the pending pause and every finding reported so far.
func (h *host) status(ctx context.Context, argv []string) (*State, error) {
	r, err := h.cli.call(ctx, argv)
	if err != nil {
		return nil, err
	}
	var rs RunStatus
	if err := r.decode(&rs); err != nil {
		return nil, noRetry(err)
	}
	var raw struct {
		CurrentAction json.RawMessage `json:"current_action"`
	}
	if err := json.Unmarshal(r.stdout, &raw); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrDefect, err)
	}
	st := &State{ContractVersion: rs.ContractVersion, RunID: rs.ID, State: rs.State, PauseReason: rs.PauseReason,
		Summary: rs.Summary, Action: rs.CurrentAction, Next: rs.Next, actionRaw: raw.CurrentAction}
	h.recall(&rs)
	return st, h.checkRun(st)
}

// recall takes the findings and the pending question from the Run's
// journal, replacing what this attempt remembered: the journal has all.
func (h *host) recall(rs *RunStatus) {
	h.findings = nil
	for _, rec := range rs.Actions {
		o := rec.Outcome
		if o == nil {
			continue
		}
		if o.Review != nil {
			h.findings = append(h.findings, o.Review.Findings...)
		}
		if o.Pause != nil && rs.CurrentAction != nil && rec.Action.ActionID == rs.CurrentAction.ActionID {
			h.pause = o.Pause
		}
	}
}

// state decodes a mutation's reply as a State, keeping the Action's exact
// bytes for the agent.
func (h *host) state(r *reply) (*State, error) {
	var st State
	if err := r.decode(&st); err != nil {
		return nil, err
	}
	var raw struct {
		Action json.RawMessage `json:"action"`
	}
	if err := json.Unmarshal(r.stdout, &raw); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrDefect, err)
	}
	st.actionRaw = raw.Action
	return &st, h.checkRun(&st)
}

// checkRun records the Run id and holds every later answer to it.
func (h *host) checkRun(st *State) error {
	if h.runID == "" {
		h.runID = st.RunID
	}
	if st.RunID != h.runID || (st.Action != nil && st.Action.RunID != h.runID) {
		return fmt.Errorf("%w: an answer about run %q while driving %q", ErrDefect, st.RunID, h.runID)
	}
	return nil
}
