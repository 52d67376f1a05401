package slipsim

import (
	"encoding/json"
	"fmt"
	"strings"

	"kusaw.dev/step/slipway"
)

// ScopeDigest is the digest Slipway binds a destructive grant to: sha256
// over the canonical JSON of request_id, targets and impact.
func ScopeDigest(requestID string, targets []slipway.Target, impact string) string {
	canon, _ := json.Marshal(struct {
		RequestID string           `json:"request_id"`
		Targets   []slipway.Target `json:"targets"`
		Impact    string           `json:"impact"`
	}{requestID, targets, impact})
	return digest(canon)
}

// issue makes the next Action of kind current, or pauses the Run when the
// budget is spent.
func (r *run) issue(kind, brief, context string, grant any) {
	if r.Remaining == 0 {
		r.State, r.PauseReason, r.Action = "paused", slipway.PauseBudgetExhausted, nil
		return
	}
	r.Remaining--
	r.Seq++
	if context == "" {
		context = fmt.Sprintf("Run %s, action %d.", r.ID, r.Seq)
	}
	a := &slipway.Action{ContractVersion: 2, RunID: r.ID, ActionID: fmt.Sprintf("%s-a%d", r.ID, r.Seq),
		Kind: kind, Goal: r.Goal, Brief: brief, Context: context, RemainingBudget: r.Remaining}
	if grant != nil {
		a.DestructiveAuthorization, _ = json.Marshal(grant)
	}
	if len(r.Sections) > 0 {
		a.Source = r.Source
		a.Requirements = r.requirements(a.ActionID)
	}
	r.State, r.PauseReason, r.Action, r.Pending = "active", "", a, nil
}

// advance moves the Run on after an Action ended without a pause (an
// accepted Outcome, or a skip): Review is interposed while code changed
// since the last Review, then the suggestion, then the default.
func (r *run) advance(kind string, o *slipway.Outcome) {
	if o != nil {
		if impl := o.Implementation; impl != nil && len(impl.FilesChanged) > 0 {
			r.ReviewPending = true
		}
		if len(o.SuggestedActions) == 1 {
			r.Suggested = &o.SuggestedActions[0]
		}
	}
	if kind == slipway.KindReview {
		r.ReviewPending = false
	}
	if kind == slipway.KindSummarize && o != nil {
		r.State, r.Summary, r.Action, r.PauseReason = "ended", o.Summary, nil, ""
		return
	}
	switch {
	case r.Review && r.ReviewPending:
		r.issue(slipway.KindReview, "Review the changes made so far.", "", nil)
	case r.Suggested != nil:
		s := r.Suggested
		r.Suggested = nil
		r.issue(s.Kind, s.Brief, "", nil)
	case kind == slipway.KindOrient || kind == slipway.KindClarify:
		r.issue(slipway.KindImplement, "Implement the goal.", "", nil)
	default:
		r.issue(slipway.KindSummarize, "Summarize the Run.", "", nil)
	}
}

// pause records a needs_input Outcome: the Action stays answerable.
func (r *run) pause(p *slipway.Pause) error {
	if d := p.DestructiveRequest; d != nil {
		if want := ScopeDigest(d.RequestID, d.Targets, d.Impact); d.ScopeSHA256 != want {
			return runtime("destructive_scope_mismatch", r.next(), "scope_sha256 %s does not match the scope (%s)", d.ScopeSHA256, want)
		}
		r.Pending = d
	}
	r.State, r.PauseReason = "paused", p.Reason
	return nil
}

// sectionRoles are the five roles an issue-backed Run must have, in order.
var sectionRoles = []string{"outcome", "requirements", "acceptance_examples", "constraints", "non_goals"}

// importSource reads a source envelope: its comments, in order, are the
// five sections. Nothing else of the envelope is interpreted.
func (r *run) importSource(data []byte) error {
	var env struct {
		SourceVersion int    `json:"source_version"`
		IssueID       string `json:"issue_id"`
		CanonicalURL  string `json:"canonical_url"`
		Comments      []struct {
			Body string `json:"body"`
		} `json:"comments"`
	}
	if err := strictObject(data, &env); err != nil || env.SourceVersion != 2 || len(env.Comments) != len(sectionRoles) {
		return runtime("source_invalid", nil, "the source envelope is not a version 2 envelope with %d sections", len(sectionRoles))
	}
	for i, role := range sectionRoles {
		r.Sections = append(r.Sections, section{Key: strings.ReplaceAll(role, "_", "-"), Role: role,
			Title: strings.ReplaceAll(role, "_", " "), Markdown: env.Comments[i].Body})
	}
	rev := digest(data)
	r.Source, _ = json.Marshal(map[string]any{"kind": "change_issue", "canonical_url": env.CanonicalURL,
		"issue_id": env.IssueID, "source_revision": rev, "manifest_revision": rev, "requirements_revision": r.requirementsRevision()})
	return nil
}

func (r *run) requirementsRevision() string {
	data, _ := json.Marshal(r.Sections)
	return digest(data)
}

// requirements is an issue-backed Action's catalog and pinned reader.
func (r *run) requirements(actionID string) *slipway.Requirements {
	req := &slipway.Requirements{RequirementsRevision: r.requirementsRevision(), Sections: []slipway.RequirementSection{},
		Reader: slipway.MaterialReader{Operation: "read_material",
			BaseArgv: []string{"slipway", "protocol", "material", "--root", r.Root, "--run", r.ID, "--action", actionID},
			Input:    slipway.Input{Name: "section", Type: "enum", Flag: "--section", Required: true}}}
	for _, s := range r.Sections {
		req.Sections = append(req.Sections, slipway.RequirementSection{Key: s.Key, Role: s.Role, Title: s.Title,
			SectionRevision: digest([]byte(s.Key + "\x00" + s.Markdown)), MaterialSHA256: digest([]byte(s.Markdown)), Bytes: len(s.Markdown)})
		req.RequiredForAction = append(req.RequiredForAction, s.Key)
	}
	req.Reader.Input.Choices = req.RequiredForAction
	return req
}
