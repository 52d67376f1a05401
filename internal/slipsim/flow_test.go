package slipsim_test

import (
	"encoding/json"
	"strings"
	"testing"

	"kusaw.dev/step/internal/slipsim"
	"kusaw.dev/step/slipway"
)

func TestFlowInterposesReviewAndEnds(t *testing.T) {
	w := newWorld(t)
	st := w.start()
	var kinds []string
	for st.State == "active" {
		kinds = append(kinds, st.Action.Kind)
		o := outcome(st.Action)
		switch st.Action.Kind {
		case slipway.KindOrient:
			o.SuggestedActions = []slipway.Suggestion{{Kind: "clarify", Brief: "ask"}}
		case slipway.KindClarify:
			o.SuggestedActions = []slipway.Suggestion{{Kind: "implement", Brief: "write it"}}
		case slipway.KindImplement:
			w.write("main.go", "package main\n")
		}
		r := w.submit(st, o)
		if r.exit != 0 {
			t.Fatalf("submit %s: exit %d: %s", st.Action.Kind, r.exit, r.stderr)
		}
		st = decodeState(t, r.stdout)
	}
	want := "orient clarify implement review summarize"
	if got := strings.Join(kinds, " "); got != want || st.State != "ended" || !strings.HasPrefix(st.Summary, "The automatic action queue has ended.\n") {
		t.Fatalf("kinds %q, state %s %q; want %q, ended", got, st.State, st.Summary, want)
	}
	if r := w.call("status", st.RunID, "--root", w.root, "--json"); r.exit != 0 {
		t.Fatalf("status: exit %d: %s", r.exit, r.stderr)
	}
}

func TestRunRefusesGoalOutsideAPrivateFile(t *testing.T) {
	w := newWorld(t)
	base := []string{"run", "--budget", "8", "--json", "--root", w.root}
	wantError(t, w.call(append(base, "Add a greeting.")...), 2, "goal_not_in_file")
	wantError(t, w.call(append(base, "--goal-stdin")...), 2, "goal_not_in_file")
	public := w.private("goal.txt", "x")
	if err := chmod(public, 0o644); err != nil {
		t.Fatal(err)
	}
	wantError(t, w.call(append(base, "--goal-file", public)...), 3, "input_file_not_private")
	wantError(t, w.call("run", "--budget", "8", "--root", w.root, "--goal-file", w.goalFile), 2, "json_required")
	wantError(t, w.call(append(base, "--goal-file", w.goalFile, "--goal-file", w.goalFile)...), 2, "duplicate_flag")
}

func TestSubmitIdempotencyConflictAndStaleness(t *testing.T) {
	w := newWorld(t)
	st := w.start()
	data, _ := json.Marshal(outcome(st.Action))
	first := w.submitBytes(st, data)
	if first.exit != 0 {
		t.Fatalf("submit: %s", first.stderr)
	}
	again := w.submitBytes(st, data)
	if again.exit != 0 || string(again.stdout) != string(first.stdout) {
		t.Fatalf("identical retry: exit %d, %s; want the first response replayed", again.exit, again.stdout)
	}
	other, _ := json.MarshalIndent(outcome(st.Action), "", " ")
	wantError(t, w.submitBytes(st, other), 3, "outcome_conflict")
	next := decodeState(t, first.stdout)
	v, _ := next.Next.Variant("skip-action")
	argv := append([]string(nil), v.BaseArgv...)
	argv[6] = "not-the-action"
	wantError(t, w.call(argv[1:]...), 3, "stale_action")
}

func TestSubmitRefusesIllegalAndNonStrictOutcomes(t *testing.T) {
	w := newWorld(t)
	st := w.start()
	legal, _ := json.Marshal(outcome(st.Action))
	cases := map[string]string{
		"trailing data":  string(legal) + " {}",
		"bom":            "\xef\xbb\xbf" + string(legal),
		"duplicate key":  strings.Replace(string(legal), `"status":"completed"`, `"status":"completed","status":"error"`, 1),
		"unknown field":  strings.Replace(string(legal), `"status"`, `"mood":"ok","status"`, 1),
		"missing field":  strings.Replace(string(legal), `,"review":null`, ``, 1),
		"orient impl":    strings.Replace(string(legal), `"implementation":null`, `"implementation":{"result":"applied","files_changed":[],"activities":[],"uncertainties":[],"attempts":1}`, 1),
		"kind mismatch":  strings.Replace(string(legal), `"action_kind":"orient"`, `"action_kind":"review"`, 1),
		"orient partial": strings.Replace(string(legal), `"status":"completed"`, `"status":"needs_input"`, 1),
	}
	for name, body := range cases {
		r := w.submitBytes(st, []byte(body))
		if r.exit != 3 {
			t.Errorf("%s: exit %d, stderr %s; want a runtime refusal", name, r.exit, r.stderr)
		}
	}
	if r := w.submitBytes(st, legal); r.exit != 0 {
		t.Fatalf("the legal outcome after the refusals: exit %d: %s", r.exit, r.stderr)
	}
}

func TestDestructiveGrantBoundToScope(t *testing.T) {
	w := newWorld(t)
	st := w.start()
	o := outcome(st.Action)
	o.SuggestedActions = []slipway.Suggestion{{Kind: "implement", Brief: "delete the old tree"}}
	st = decodeState(t, w.submit(st, o).stdout)
	req := &slipway.DestructiveRequest{RequestID: "6f1c2d3e-4a5b-4c6d-8e7f-8091a2b3c4d5",
		Targets: []slipway.Target{{Kind: "path", Value: "old/"}}, Impact: "removes old/"}
	req.ScopeSHA256 = slipsim.ScopeDigest(req.RequestID, [][2]string{{"path", "old/"}}, req.Impact)
	pause := outcome(st.Action)
	pause.Status, pause.Implementation = "needs_input", nil
	pause.Pause = &slipway.Pause{Reason: slipway.PauseDestructive, Question: "delete old/?", DestructiveRequest: req}
	r := w.submit(st, pause)
	if r.exit != 0 {
		t.Fatalf("pause: %s", r.stderr)
	}
	st = decodeState(t, r.stdout)
	v, ok := st.Next.Variant("confirm-destructive")
	if !ok || st.PauseReason != slipway.PauseDestructive || v.BaseArgv[11] != req.ScopeSHA256 {
		t.Fatalf("paused %s with %+v; want a confirm-destructive variant for %s", st.PauseReason, st.Next, req.ScopeSHA256)
	}
	wrong := append([]string(nil), v.BaseArgv...)
	wrong[11] = "sha256:" + strings.Repeat("0", 64)
	wantError(t, w.call(wrong[1:]...), 3, "destructive_scope_mismatch")
	wantError(t, w.call("protocol", "resume", st.RunID, "--root", w.root), 3, "resume_not_allowed")
	r = w.call(v.BaseArgv[1:]...)
	if r.exit != 0 {
		t.Fatalf("grant: %s", r.stderr)
	}
	if st = decodeState(t, r.stdout); st.Action.DestructiveAuthorization == nil {
		t.Fatalf("the re-issued implement has no destructive_authorization: %+v", st.Action)
	}
}

func TestBudgetExhaustedThenResumed(t *testing.T) {
	w := newWorld(t)
	r := w.call("run", "--budget", "1", "--json", "--root", w.root, "--goal-file", w.goalFile)
	st := decodeState(t, r.stdout)
	st = decodeState(t, w.submit(st, outcome(st.Action)).stdout)
	if st.State != "paused" || st.PauseReason != slipway.PauseBudgetExhausted || st.Next.Operation != "resume" {
		t.Fatalf("after the only action: %s %s, next %s; want paused budget_exhausted, resume", st.State, st.PauseReason, st.Next.Operation)
	}
	r = w.call("protocol", "resume", st.RunID, "--root", w.root)
	if r.exit != 0 {
		t.Fatalf("resume: %s", r.stderr)
	}
	if st = decodeState(t, r.stdout); st.Action == nil || st.Action.Kind != "orient" || st.Action.RemainingBudget != 2 {
		t.Fatalf("resumed: %+v; want a fresh orient with budget max(1,3)-1 = 2", st.Action)
	}
}

func TestCheckerRejects(t *testing.T) {
	w := newWorld(t)
	if w.checker == nil {
		t.Skip("the published schemas are not present")
	}
	st := w.start()
	data, _ := json.Marshal(outcome(st.Action))
	bad := strings.Replace(string(data), `"status"`, `"mood":1,"status"`, 1)
	if err := w.checker.Validate("outcome", []byte(bad)); err == nil {
		t.Fatalf("the schema accepted an outcome with an unknown field")
	}
}
