package slipway_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kusaw.dev/step/protocol"
	"kusaw.dev/step/slipway"
)

func TestHappyPathThroughAllFiveKinds(t *testing.T) {
	h := newHarness(t, "happy")
	rec := h.attempt("")
	want(t, rec, protocol.StatusOK, slipway.ReasonSummarized)
	out := outputs(t, rec.Outputs)
	summary, _ := out["summary"].(string)
	if !strings.HasPrefix(summary, "The automatic action queue has ended.\n") || !strings.Contains(summary, "- summarize: greeting added\n") ||
		out["run_id"] == "" || len(out["findings"].([]any)) != 1 || rec.Message != "greeting added" {
		t.Errorf("outputs %v, message %q; want the CLI's end report as the summary, the agent's as the message, the run id and the review's finding", out, rec.Message)
	}
	if rec.Session == nil || rec.Session.Provider != "slipway" || rec.Session.ID != out["run_id"] || rec.Session.Dir != h.root {
		t.Errorf("session %+v; want the run %v, provider slipway", rec.Session, out["run_id"])
	}
	var kinds []string
	for _, ev := range h.eventsOf("progress") {
		kinds = append(kinds, strings.Fields(ev.(*protocol.Progress).Message)[0])
	}
	if got := strings.Join(kinds, " "); got != "orient clarify implement review summarize" {
		t.Errorf("progress kinds %q; want all five in order", got)
	}
	if n := len(h.eventsOf("agent_action")); n != 5 {
		t.Errorf("%d agent_action events; want 5", n)
	}
	if u := h.eventsOf("usage"); len(u) != 5 || *u[4].(*protocol.Usage).TokensInput != 50 {
		t.Errorf("usage events %d; want 5, cumulative to 50 input tokens", len(u))
	}
	if n := len(h.calls("protocol", "submit")); n != 5 {
		t.Errorf("%d submits; want 5", n)
	}
	h.validateRun(rec.Session.ID)
}

func TestGoalNeverOnArgv(t *testing.T) {
	h := newHarness(t, "happy")
	want(t, h.attempt(""), protocol.StatusOK, slipway.ReasonSummarized)
	for _, a := range h.argv() {
		if strings.Contains(strings.Join(a, "\x00"), "secret-goal-7f3a") {
			t.Fatalf("the goal is on argv: %q", a)
		}
	}
	runs := h.calls("run")
	if len(runs) != 1 {
		t.Fatalf("%d run calls; want 1", len(runs))
	}
	i := slices.Index(runs[0], "--goal-file")
	if i < 0 || !slices.Equal(runs[0][:6], []string{"run", "--budget", "8", "--json", "--root", h.root}) {
		t.Fatalf("run argv %q; want run --budget 8 --json --root ROOT … --goal-file F", runs[0])
	}
	if _, err := os.Stat(runs[0][i+1]); !os.IsNotExist(err) {
		t.Errorf("the goal file %s is still there (%v); want it removed", runs[0][i+1], err)
	}
}

func TestClarifyDecisionRejectsWithTheAnswerCommand(t *testing.T) {
	h := newHarness(t, "decision")
	rec := h.attempt("")
	want(t, rec, protocol.StatusReject, slipway.PauseDecision)
	if rec.Message != "English or French?" {
		t.Errorf("message %q; want the question", rec.Message)
	}
	answer := recoveryNamed(t, rec.Recovery, "answer")
	if !strings.HasPrefix(answer, simBin+" protocol answer --run ") || !strings.Contains(answer, " --text-file ") {
		t.Fatalf("answer command %q", answer)
	}
	// A person answers with exactly that command; the next attempt continues.
	file := answer[strings.LastIndex(answer, " ")+1:]
	if err := os.WriteFile(file, []byte("English"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("sh", "-c", answer).CombinedOutput(); err != nil {
		t.Fatalf("run the answer command: %v\n%s", err, out)
	}
	rec = h.attempt(rec.Session.ID)
	want(t, rec, protocol.StatusOK, slipway.ReasonSummarized)
	if n := len(h.calls("protocol", "resume")); n != 0 {
		t.Errorf("%d resume calls on an active Run; want none (status, then continue)", n)
	}
}

func TestDestructiveNeverGranted(t *testing.T) {
	h := newHarness(t, "destructive")
	rec := h.attempt("")
	want(t, rec, protocol.StatusReject, slipway.PauseDestructive)
	grant := recoveryNamed(t, rec.Recovery, "grant")
	if !strings.Contains(grant, "--confirm-destructive --scope-sha256 sha256:") || !strings.Contains(rec.Message, "legacy/") {
		t.Errorf("grant %q, message %q", grant, rec.Message)
	}
	for _, a := range h.argv() {
		if slices.Contains(a, "--confirm-destructive") {
			t.Fatalf("the wrapper granted a destructive confirmation: %q", a)
		}
	}
}

func TestBudgetExhaustedRetriesThenResumes(t *testing.T) {
	h := newHarness(t, "happy")
	h.config["budget"] = 3
	rec := h.attempt("")
	want(t, rec, protocol.StatusRetry, slipway.PauseBudgetExhausted)
	run := rec.Session.ID
	rec = h.attempt(run)
	want(t, rec, protocol.StatusOK, slipway.ReasonSummarized)
	resumes := h.calls("protocol", "resume")
	if len(resumes) != 1 || !slices.Equal(resumes[0], []string{"protocol", "resume", run, "--root", h.root, "--budget", "3"}) {
		t.Fatalf("resume calls %q; want one protocol resume %s --root ROOT --budget 3", resumes, run)
	}
	if rec.Session.ID != run || rec.Session.ResumedFrom != run {
		t.Errorf("session %+v; want %s resumed from itself", rec.Session, run)
	}
}

func TestExitStatusMappings(t *testing.T) {
	cases := []struct{ scenario, status, reason, message string }{
		{"crash", protocol.StatusFail, slipway.ReasonDefect, "exit 1"},
		{"usage-error", protocol.StatusFail, slipway.ReasonConfigInvalid, "goal_required: "},
		{"runtime-error", protocol.StatusFail, "runtime_error", "simulated runtime failure"},
	}
	for _, c := range cases {
		t.Run(c.scenario, func(t *testing.T) {
			h := newHarness(t, "happy")
			h.scenario = c.scenario
			rec := h.attempt("")
			want(t, rec, c.status, c.reason)
			if !strings.Contains(rec.Message, c.message) {
				t.Errorf("message %q; want %q in it", rec.Message, c.message)
			}
		})
	}
}

func TestCommittedOutputFailedRecoversWithoutReplay(t *testing.T) {
	h := newHarness(t, "happy")
	h.scenario = "commit-output-fails"
	want(t, h.attempt(""), protocol.StatusOK, slipway.ReasonSummarized)
	seen := map[string]int{}
	for _, a := range h.calls("protocol", "submit") {
		seen[a[5]]++
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("action %s submitted %d times; want once", id, n)
		}
	}
	if n := len(h.calls("status")); n != 1 {
		t.Errorf("%d status calls; want the one targeted recovery", n)
	}
}

func TestIllegalOutcomeNeverSubmitted(t *testing.T) {
	h := newHarness(t, "illegal")
	rec := h.attempt("")
	want(t, rec, protocol.StatusFail, slipway.ReasonOutcomeInvalid)
	if !strings.Contains(rec.Message, "legal_combination") {
		t.Errorf("message %q; want the rule broken", rec.Message)
	}
	if n := len(h.calls("protocol", "submit")); n != 0 {
		t.Errorf("%d submits; want none", n)
	}
}

func TestAgentFailureFails(t *testing.T) {
	h := newHarness(t, "crash")
	rec := h.attempt("")
	want(t, rec, protocol.StatusFail, slipway.ReasonAgentFailed)
	if !strings.Contains(rec.Message, "the model is unreachable") || rec.Session == nil {
		t.Errorf("message %q, session %+v; want the agent's stderr and the Run recorded", rec.Message, rec.Session)
	}
}

func TestLostResponseRetriedWithIdenticalBytes(t *testing.T) {
	h := newHarness(t, "happy")
	h.scenario = "lose-submit-response"
	want(t, h.attempt(""), protocol.StatusOK, slipway.ReasonSummarized)
	submits := h.calls("protocol", "submit")
	if len(submits) != 6 || !slices.Equal(submits[0], submits[1]) {
		t.Fatalf("submits %q; want the first sent twice, identically (the simulator replays only identical bytes)", submits)
	}
}

func TestIssueBackedRunReadsMaterial(t *testing.T) {
	h := newHarness(t, "issue")
	src := filepath.Join(t.TempDir(), "source.json")
	if err := os.WriteFile(src, []byte(sourceEnvelope(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	h.config["source_file"] = src
	rec := h.attempt("")
	want(t, rec, protocol.StatusOK, slipway.ReasonSummarized)
	h.validateRun(rec.Session.ID)
	reads := h.calls("protocol", "material", "--root", h.root, "--run")
	if len(reads) != 25 {
		t.Fatalf("%d material reads; want 5 sections × 5 actions", len(reads))
	}
	if got := reads[0][8:]; !slices.Equal(got, []string{"--section", "outcome"}) {
		t.Errorf("first read ends %q; want --section outcome after the pinned nine", got)
	}
	run := h.calls("run")[0]
	i := slices.Index(run, "--source-file")
	if i < 0 || run[i+1] == src {
		t.Errorf("run argv %q; want a private copy of the source passed with --source-file", run)
	}
}

// recoveryNamed returns the command of the recovery whose title starts
// with prefix.
func recoveryNamed(t *testing.T, rs []protocol.Recovery, prefix string) string {
	t.Helper()
	for _, r := range rs {
		if strings.HasPrefix(r.Title, prefix) {
			return r.Command
		}
	}
	t.Fatalf("no %q recovery in %+v", prefix, rs)
	return ""
}
