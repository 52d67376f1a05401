package slipsim

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// The briefs the simulator gives; a host must not depend on their text.
const (
	briefOrient        = "Investigate repository facts, relevant code, Git state, and build/test/lint conventions before deciding what to do."
	briefReorient      = "Re-orient after the user's decision before selecting further work."
	briefResume        = "Re-investigate the current worktree after interruption before choosing the next action."
	briefReview        = "Inspect intent and quality against the run-start Git baseline; report findings and uncertainties only, without modifying code."
	briefSummarize     = "Summarize observed facts and the remaining uncertainty."
	briefGranted       = "Carry out exactly the confirmed destructive scope."
	observedSinceStart = "observed_since_start: the current Git observation differs from the run-start snapshot."
)

// isWork reports whether an Action of kind may change the worktree, so
// the CLI looks at Git after it.
func isWork(kind string) bool {
	return kind == kindOrient || kind == kindClarify || kind == kindImplement
}

// issue makes the next Action of kind current, or pauses the Run when the
// budget is spent.
func (r *run) issue(kind, brief string, grant any) {
	if r.Remaining < 1 {
		r.State, r.PauseReason, r.Action, r.Pending = "paused", pauseBudget, nil, nil
		return
	}
	r.Remaining--
	a := &actionBody{ContractVersion: 2, RunID: r.ID, ActionID: newID(), Kind: kind, Goal: r.Goal, Brief: brief,
		Context: r.context(), RemainingBudget: r.Remaining}
	if grant != nil {
		a.DestructiveAuthorization, _ = json.Marshal(grant)
	} else {
		r.Pending = nil
	}
	if len(r.Sections) > 0 {
		a.Source = r.Source
		a.Requirements, _ = json.Marshal(r.requirements(a.ActionID))
	}
	r.State, r.PauseReason, r.Action = "active", "", a
	r.Records = append(r.Records, record{Action: *a})
}

// context is the bounded projection an Action carries: the answers, the
// last Outcome's summary and the earlier ones; a pause's Outcome and a
// voided Action's are not among them.
func (r *run) context() string {
	var b strings.Builder
	b.WriteString("Decisions:\n")
	if len(r.Answers) == 0 {
		b.WriteString("(none)\n")
	}
	for _, a := range r.Answers {
		fmt.Fprintf(&b, "- action %s decision:\n  %s\n", a.ActionID, strings.ReplaceAll(a.Text, "\n", "\n  "))
	}
	var reports []string
	for _, rec := range r.Records {
		var o outcomeBody
		if rec.Outcome != nil && !rec.Voided && json.Unmarshal(rec.Outcome, &o) == nil && o.Status != "needs_input" {
			reports = append(reports, fmt.Sprintf("- %s action %s: %s\n", rec.Action.Kind, rec.Action.ActionID, o.Summary))
		}
	}
	b.WriteString("Recent outcome:\n")
	if len(reports) == 0 {
		b.WriteString("(none)\n")
	} else {
		b.WriteString(reports[len(reports)-1])
	}
	b.WriteString("Earlier outcomes:\n")
	if len(reports) < 2 {
		b.WriteString("(none)\n")
	}
	for _, s := range reports[:max(len(reports)-1, 0)] {
		b.WriteString(s)
	}
	return b.String()
}

// observe looks at Git after a working Action: a worktree that differs
// from the Run's start makes Review due. When Git cannot be observed, the
// Run pauses for the environment.
func (r *run) observe(w *workspace) bool {
	cur, err := w.observe()
	if err != nil {
		r.State, r.PauseReason = "paused", pauseEnvironment
		r.KnownIssues = append(r.KnownIssues, "Git observation failed: "+err.Error())
		return false
	}
	r.Current = cur
	changed := cur.Snapshot != r.Initial.Snapshot
	if changed && !contains(r.Observations, observedSinceStart) {
		r.Observations = append(r.Observations, observedSinceStart)
	}
	r.ReviewPending = r.Review && changed
	return true
}

// accepted moves the Run on after an accepted Outcome.
func (r *run) accepted(w *workspace, o *outcomeBody) {
	kind := r.Action.Kind
	r.KnownIssues = append(r.KnownIssues, o.KnownIssues...)
	if o.Implementation != nil {
		r.Activities = append(r.Activities, o.Implementation.Activities...)
	}
	if o.Status == "needs_input" {
		if isWork(kind) && !r.observe(w) {
			return
		}
		r.State, r.PauseReason = "paused", o.Pause.Reason
		r.Pending = o.Pause.DestructiveRequest
		return
	}
	r.Queue = append(r.Queue, o.SuggestedActions...)
	r.Action = nil
	if isWork(kind) && !r.observe(w) {
		return
	}
	r.transition(w, kind)
}

// transition picks the next Action after one of kind ended: Review when
// Git shows a change since the start (dropping the queue), else the first
// queued suggestion, else Summarize; a Summarize ends the Run.
func (r *run) transition(w *workspace, kind string) {
	if kind == kindReview {
		r.ReviewPending = false
	}
	switch {
	case r.ReviewPending && isWork(kind):
		r.Queue = nil
		r.issue(kindReview, briefReview, nil)
	case len(r.Queue) > 0:
		s := r.Queue[0]
		r.Queue = r.Queue[1:]
		r.issue(s.Kind, s.Brief, nil)
	case kind == kindSummarize:
		r.end(w)
	default:
		r.issue(kindSummarize, briefSummarize, nil)
	}
}

// end ends the Run with the CLI's own report of it.
func (r *run) end(w *workspace) {
	if cur, err := w.observe(); err == nil {
		r.Current, r.FinalObserved = cur, true
	}
	r.State, r.PauseReason, r.Action, r.Pending = "ended", "", nil, nil
	r.Summary = r.report()
}

// report is the end summary: what the Actions reported and what the CLI
// observed, never an agent's text alone.
func (r *run) report() string {
	var b strings.Builder
	b.WriteString("The automatic action queue has ended.\nObserved action reports:\n")
	files := map[string]bool{}
	var findings []finding
	reviewed := false
	for _, rec := range r.Records {
		var o outcomeBody
		if rec.Outcome == nil || json.Unmarshal(rec.Outcome, &o) != nil {
			continue
		}
		fmt.Fprintf(&b, "- %s: %s\n", rec.Action.Kind, o.Summary)
		if o.Implementation != nil {
			for _, f := range o.Implementation.FilesChanged {
				files[strings.TrimSpace(f)] = true
			}
		}
		if o.Review != nil {
			reviewed = true
			findings = append(findings, o.Review.Findings...)
		}
	}
	switch {
	case !r.FinalObserved:
		b.WriteString("CLI Git observation: final worktree state was unavailable; no present-tense change claim is made.\n")
	case r.Current.Snapshot != r.Initial.Snapshot:
		b.WriteString(observedSinceStart + "\n")
	default:
		b.WriteString("CLI Git observation: no difference from the run-start snapshot was observed.\n")
	}
	list := make([]string, 0, len(files))
	for f := range files {
		list = append(list, f)
	}
	sort.Strings(list)
	lines(&b, "Files reported changed by Implement:", list, "No files were reported changed by Implement.\n")
	if len(findings) > 0 {
		b.WriteString("Review findings:\n")
	}
	for _, f := range findings {
		fmt.Fprintf(&b, "- %s: %s — %s\n", f.Location, f.Summary, f.Detail)
	}
	if !reviewed {
		b.WriteString("Review was not run because no changed-code review Action was dispatched.\n")
	}
	lines(&b, "Known issues:", r.KnownIssues, "")
	return b.String()
}

func lines(b *strings.Builder, heading string, list []string, none string) {
	if len(list) == 0 {
		b.WriteString(none)
		return
	}
	b.WriteString(heading + "\n")
	for _, s := range list {
		fmt.Fprintf(b, "- %s\n", s)
	}
}

// skipped moves the Run on after the current Action was skipped.
func (r *run) skipped(w *workspace) {
	kind := r.Action.Kind
	r.Records[len(r.Records)-1].Skipped = true
	r.Action, r.Queue = nil, nil
	switch {
	case kind == kindReview:
		r.ReviewPending = false
		r.issue(kindSummarize, briefSummarize, nil)
	case kind == kindSummarize:
		r.end(w)
	case !r.observe(w):
	case r.ReviewPending:
		r.issue(kindReview, briefReview, nil)
	default:
		r.issue(kindSummarize, briefSummarize, nil)
	}
}

// voidCurrent marks an outstanding Action void, as a resume does.
func (r *run) voidCurrent() {
	if r.Action == nil {
		return
	}
	for i := range r.Records {
		if r.Records[i].Action.ActionID == r.Action.ActionID && r.Records[i].Outcome == nil {
			r.Records[i].Voided = true
		}
	}
	r.Action = nil
}
