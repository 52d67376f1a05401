package slipsim

import (
	"encoding/json"
	"errors"
	"io"
)

// cmdSubmit accepts an Outcome for the current Action. A retry with the
// identical bytes replays the accepted response; different bytes conflict.
func (s *sim) cmdSubmit(args []string) (err error) {
	r, f, err := s.actionFlags(args, []string{"--outcome-file"}, []string{"--outcome-stdin"})
	if err != nil {
		return err
	}
	defer r.release()
	defer withNext(&err, r)
	data, err := s.outcomeBytes(f)
	if err != nil {
		return err
	}
	id, sha := f.vals["--action"], digest(data)
	if acc, ok := r.Accepted[id]; ok {
		if acc != sha {
			return runtime("outcome_conflict", r.next(), "action %s already has an accepted outcome with other bytes", id)
		}
		_, err := s.stdout.Write(append(r.Responses[id], '\n'))
		return err
	}
	if err := r.current(id, "active"); err != nil {
		return err
	}
	o, err := checkOutcome(data, r.Action)
	if err != nil {
		return err
	}
	return s.accept(r, o, data, sha)
}

// accept journals an accepted Outcome, moves the Run on and answers,
// misbehaving as the scenarios ask.
func (s *sim) accept(r *run, o *outcomeBody, data []byte, sha string) error {
	kind := r.Action.Kind
	rec := &r.Records[len(r.Records)-1]
	rec.Outcome, rec.SHA256 = append(json.RawMessage(nil), data...), sha
	r.accepted(s.ws, o)
	r.Submits++
	if kind == kindImplement {
		r.Implements++
	}
	resp, err := json.Marshal(r.stateBody(nil))
	if err != nil {
		return err
	}
	r.Accepted[o.ActionID], r.Responses[o.ActionID] = sha, resp
	if err := r.save("submit", map[string]any{"action_id": o.ActionID, "sha256": sha}); err != nil {
		return err
	}
	switch {
	case s.has(ScenarioLoseResponse) && r.Submits == 1:
		_, err := s.stdout.Write(resp[:len(resp)/2])
		return err
	case s.has(ScenarioCommitOutputFails) && kind == kindImplement && r.Implements == 1:
		return &cliError{code: "mutation_committed_output_failed", exit: 3, next: r.inspectRun(),
			message: "mutation committed, but its response could not be emitted; do not retry blindly",
			details: map[string]any{"phase": "response_output", "committed": true, "projection_stale": false,
				"namespace_detached": false, "ambiguous": false}}
	}
	_, err = s.stdout.Write(append(resp, '\n'))
	return err
}

// outcomeBytes reads the Outcome from exactly one input.
func (s *sim) outcomeBytes(f *flags) ([]byte, error) {
	file, hasFile := f.vals["--outcome-file"]
	if hasFile == f.bools["--outcome-stdin"] {
		return nil, usage("outcome_input", "give exactly one of --outcome-file and --outcome-stdin")
	}
	if hasFile {
		return readPrivate("--outcome-file", file, 1<<20+1, true)
	}
	return io.ReadAll(io.LimitReader(s.stdin, 1<<20+1))
}

// withNext gives a runtime error without a next the Run's current one.
func withNext(err *error, r *run) {
	var ce *cliError
	if errors.As(*err, &ce) && ce.next == nil && ce.exit == 3 {
		ce.next = r.next()
	}
}

// cmdAnswer answers a paused Action: a decision or feedback text, or a
// destructive grant bound to the exact scope digest.
func (s *sim) cmdAnswer(args []string) (err error) {
	r, f, err := s.actionFlags(args, []string{"--text-file", "--scope-sha256"}, []string{"--confirm-destructive"})
	if err != nil {
		return err
	}
	defer r.release()
	defer withNext(&err, r)
	id := f.vals["--action"]
	if err := r.current(id, "paused"); err != nil {
		return err
	}
	if r.PauseReason != pauseDecision && r.PauseReason != pauseDestructive {
		return runtime("answer_not_allowed", r.next(), "a %s pause is resumed, not answered", r.PauseReason)
	}
	var text []byte
	if path, ok := f.vals["--text-file"]; ok {
		if text, err = readPrivate("--text-file", path, 1<<20, false); err != nil {
			return err
		}
	}
	if f.bools["--confirm-destructive"] {
		return s.grant(r, f.vals["--scope-sha256"])
	}
	if _, ok := f.vals["--scope-sha256"]; ok || len(text) == 0 {
		return usage("answer_input", "an answer needs --text-file; --scope-sha256 only with --confirm-destructive")
	}
	r.Answers = append(r.Answers, answer{ActionID: id, Text: string(text)})
	r.Action = nil
	r.issue(kindOrient, briefReorient, nil)
	if err := r.save("answer", id); err != nil {
		return err
	}
	return s.ok(r.stateBody(nil))
}

// grant authorizes exactly the pending destructive scope.
func (s *sim) grant(r *run, scope string) error {
	if r.PauseReason != pauseDestructive || r.Pending == nil {
		return runtime("no_destructive_request", r.next(), "the current pause is %s", r.PauseReason)
	}
	if scope != r.Pending.ScopeSHA256 {
		return runtime("destructive_scope_mismatch", r.next(), "--scope-sha256 %q is not the pending scope", scope)
	}
	p := r.Pending
	grant := map[string]any{"request_id": p.RequestID, "originating_action_id": r.Action.ActionID, "scope_version": 1,
		"scope_sha256": p.ScopeSHA256, "targets": p.Targets, "impact": p.Impact, "confirmed_at": now()}
	r.issue(kindImplement, briefGranted, grant)
	if err := r.save("grant", p.ScopeSHA256); err != nil {
		return err
	}
	return s.ok(r.stateBody(nil))
}

// cmdResume resumes a Run whose typed next is resume: any outstanding
// Action is voided and a fresh Orient issued. Without --budget a positive
// remaining budget is kept and zero becomes max(initial, 3).
func (s *sim) cmdResume(args []string) error {
	r, f, err := s.openRun("resume", args, []string{"--budget"}, nil)
	if err != nil {
		return err
	}
	defer r.release()
	if op := r.next()["operation"]; op != "resume" {
		return runtime("resume_not_allowed", r.next(), "run %s cannot be resumed while its next is %v", r.ID, op)
	}
	if b, ok := f.vals["--budget"]; ok {
		n, err := parseBudget(b)
		if err != nil {
			return err
		}
		r.Remaining = n
	} else if r.Remaining == 0 {
		r.Remaining = max(r.InitialBudget, 3)
	}
	r.voidCurrent()
	r.Pending = nil
	if cur, err := s.ws.observe(); err == nil {
		r.Current = cur
		r.ReviewPending = r.Review && cur.Snapshot != r.Initial.Snapshot
	}
	r.issue(kindOrient, briefResume, nil)
	r.LastResume = map[string]any{"operation": "ad_hoc_resumed", "budget_applied": true}
	if err := r.save("resume", r.LastResume); err != nil {
		return err
	}
	return s.ok(r.stateBody(map[string]any{"resume_operation": "ad_hoc_resumed", "budget_applied": true}))
}

// cmdMaterial reads one section through the pinned nine-element argv plus
// --section KEY; any other order is refused.
func (s *sim) cmdMaterial(args []string) error {
	if len(args) != 8 || args[0] != "--root" || args[2] != "--run" || args[4] != "--action" || args[6] != "--section" {
		return usage("material_argv_not_pinned", "use the reader's exact base_argv, then --section KEY")
	}
	if err := s.checkRoot(args[1]); err != nil {
		return err
	}
	r, err := load(s.ws, args[3])
	if err != nil {
		return err
	}
	defer r.release()
	if err := r.current(args[5], "active", "paused"); err != nil {
		return err
	}
	for _, sec := range r.Sections {
		if sec.Key == args[7] {
			return s.ok(map[string]any{"contract_version": 2, "message_type": "action_material", "run_id": r.ID,
				"action_id": r.Action.ActionID, "requirements_revision": r.requirementsRevision(),
				"section": map[string]any{"key": sec.Key, "role": sec.Role, "title": sec.Title,
					"section_revision": sec.Revision, "markdown": sec.Markdown}})
		}
	}
	return runtime("unknown_section", r.next(), "run %s has no section %q", r.ID, args[7])
}
