package slipway_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kusaw.dev/step/internal/slipsim"
	"kusaw.dev/step/protocol"
	"kusaw.dev/step/slipway"
)

// The defects of issue 12, each against the simulator (which now behaves
// as the real CLI does); TestScenariosRealCLIAndSimulator runs the same
// stories against the real CLI.

// Item 1: resume reads the status as JSON (the CLI prints text without
// --json), after budget exhaustion and after an answered decision.
func TestItem1ResumeReadsStatusAsJSON(t *testing.T) {
	h := newHarness(t, "happy")
	h.config["budget"] = 3
	run := sessionOf(t, h.attempt(""))
	want(t, h.attempt(run), protocol.StatusOK, slipway.ReasonSummarized)
	for _, a := range h.calls("status") {
		if !slices.Contains(a, "--json") {
			t.Errorf("status call %q without --json: the CLI answers it with text", a)
		}
	}
	if len(h.calls("status")) == 0 {
		t.Fatal("the resume read no status")
	}
}

// Item 2: the recovery of mutation_committed_output_failed is the text
// status command (inspect-run): the host adds --json and the Run goes on.
func TestItem2CommittedOutputFailedFollowsInspectRun(t *testing.T) {
	h := newHarness(t, "happy")
	h.scenario = slipsim.ScenarioCommitOutputFails
	want(t, h.attempt(""), protocol.StatusOK, slipway.ReasonSummarized)
	st := h.calls("status")
	if len(st) != 1 || !slices.Equal(st[0][len(st[0])-3:], []string{"--root", h.root, "--json"}) {
		t.Fatalf("status calls %q; want the inspect-run argv and --json", st)
	}
}

// Item 3: a CLI exit 2 is the environment's or the config's problem, not
// a protocol_error: a fitting reason, the CLI's code in the message, its
// recovery kept; a missing binary is dependency_missing before any Run.
func TestItem3ExitTwoAndMissingBinary(t *testing.T) {
	t.Run("non-git worktree", func(t *testing.T) {
		h := newHarness(t, "happy")
		h.root = t.TempDir()
		rec := h.attempt("")
		want(t, rec, protocol.StatusFail, slipway.ReasonDependency)
		if !strings.Contains(rec.Message, "git_repository_required: ") {
			t.Errorf("message %q; want the CLI's code", rec.Message)
		}
		recoveryNamed(t, rec.Recovery, "make the worktree a Git checkout")
	})
	t.Run("invalid source", func(t *testing.T) {
		h := newHarness(t, "happy")
		src := filepath.Join(t.TempDir(), "source.json")
		os.WriteFile(src, []byte(strings.Replace(sourceEnvelope(t), "slipway-level", "slipway-levels", 1)), 0o600)
		h.config["source_file"] = src
		rec := h.attempt("")
		want(t, rec, protocol.StatusFail, slipway.ReasonConfigInvalid)
		if !strings.Contains(rec.Message, "invalid_source: ") {
			t.Errorf("message %q; want the CLI's code", rec.Message)
		}
	})
	for name, bin := range map[string]string{"missing": "/nonexistent/slipway", "not executable": "README"} {
		t.Run("binary "+name, func(t *testing.T) {
			h := newHarness(t, "happy")
			if bin == "README" {
				bin = filepath.Join(t.TempDir(), "slipway")
				os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o644)
			}
			h.config["slipway"] = bin
			rec := h.attempt("")
			want(t, rec, protocol.StatusFail, slipway.ReasonDependency)
			if !strings.Contains(rec.Message, bin) || !strings.Contains(rec.Message, "config.slipway") {
				t.Errorf("message %q; want the path and the fix", rec.Message)
			}
		})
	}
}

// Item 5: resume.fork starts a fresh Run and never reports resumed_from.
func TestItem5ForkStartsAFreshRun(t *testing.T) {
	h := newHarness(t, "happy")
	h.config["budget"] = 3
	run := sessionOf(t, h.attempt(""))
	h.fork = true
	rec := h.attempt(run)
	if rec.Session == nil || rec.Session.ID == run || rec.Session.ResumedFrom != "" {
		t.Fatalf("session %+v; want a new Run, not resumed from %s", rec.Session, run)
	}
	if n := len(h.calls("protocol", "resume")); n != 0 {
		t.Errorf("%d resume calls; a fork leaves the old Run unchanged", n)
	}
}

// Item 6: a Run a person stopped is not taken over without
// config.resume_stopped; the result gives the explicit resume command.
func TestItem6StoppedRunNotTakenOver(t *testing.T) {
	h := newHarness(t, "decision")
	run := sessionOf(t, h.attempt(""))
	runCommand(t, slipway.ShellText(simBin, []string{"slipway", "stop", run, "--root", h.root}))
	rec := h.attempt(run)
	want(t, rec, protocol.StatusReject, slipway.ReasonStopped)
	if c := recoveryNamed(t, rec.Recovery, "resume"); !strings.Contains(c, " protocol resume "+run+" ") {
		t.Errorf("resume command %q", c)
	}
	if n := len(h.calls("protocol", "resume")); n != 0 {
		t.Fatalf("%d resume calls: the stopped Run was taken over", n)
	}
	h.config["resume_stopped"] = true
	h.attempt(run)
	if n := len(h.calls("protocol", "resume")); n != 1 {
		t.Fatalf("%d resume calls with resume_stopped; want one", n)
	}
}

// Item 7: resuming keeps the context: a pending question, the findings
// of an ended Run.
func TestItem7ResumeKeepsQuestionAndFindings(t *testing.T) {
	h := newHarness(t, "decision")
	run := sessionOf(t, h.attempt(""))
	rec := h.attempt(run)
	want(t, rec, protocol.StatusReject, slipway.PauseDecision)
	if rec.Message != "English or French?" {
		t.Errorf("message %q on resume; want the pending question", rec.Message)
	}
	h = newHarness(t, "happy")
	run = sessionOf(t, h.attempt(""))
	rec = h.attempt(run)
	want(t, rec, protocol.StatusOK, slipway.ReasonSummarized)
	if f := outputs(t, rec.Outputs)["findings"].([]any); len(f) != 1 {
		t.Errorf("findings %v on resuming the ended Run; want the Review's one", f)
	}
}

// Item 8: an interrupted attempt, or a failed agent, leaves the Run
// resumable, and the result says how: resume (a retry with the session)
// and skip.
func TestItem8InterruptedRunKeepsItsRecovery(t *testing.T) {
	t.Run("cancelled", func(t *testing.T) {
		h := newHarness(t, "hang")
		h.cancelAt = func(p *protocol.Progress) bool { return strings.HasPrefix(p.Message, "implement ") }
		rec := h.attempt("")
		want(t, rec, protocol.StatusFail, slipway.ReasonCancelled)
		if !strings.Contains(rec.Message, "resuming it asks the same action again") {
			t.Errorf("message %q", rec.Message)
		}
		recoveryNamed(t, rec.Recovery, "resume: retry with session "+rec.Session.ID)
		recoveryNamed(t, rec.Recovery, "skip this action")
	})
	t.Run("agent crash", func(t *testing.T) {
		h := newHarness(t, "crash")
		rec := h.attempt("")
		want(t, rec, protocol.StatusFail, slipway.ReasonAgentFailed)
		recoveryNamed(t, rec.Recovery, "resume: retry with session")
		recoveryNamed(t, rec.Recovery, "skip this action")
	})
}

// Items 9 and 10: CheckOutcome refuses what the CLI refuses. Each case
// is submitted to the CLI too (the simulator, and the real CLI when
// KUSAW_SLIPWAY_BIN names one), which must refuse it with
// invalid_outcome, exit 3.
func TestItems9And10CheckOutcomeAsTheCLI(t *testing.T) {
	bins := map[string]string{"simulator": simBin}
	if realCLI != "" {
		bins["real CLI"] = realCLI
	}
	destructive := func(o *slipway.Outcome, req *slipway.DestructiveRequest) {
		o.Status, o.Implementation = "needs_input", nil
		o.Pause = &slipway.Pause{Reason: slipway.PauseDestructive, Question: "May I?", DestructiveRequest: req}
	}
	req := func() *slipway.DestructiveRequest {
		r := &slipway.DestructiveRequest{RequestID: "6f1c2d3e-4a5b-4c6d-8e7f-8091a2b3c4d5",
			Targets: []slipway.Target{{Kind: "path", Value: "a/"}, {Kind: "path", Value: "b/"}}, Impact: "deletes a/ and b/ <&>"}
		r.ScopeSHA256 = slipway.ScopeSHA256(r)
		return r
	}
	cases := []struct {
		item, name string
		edit       func(o *slipway.Outcome)
	}{
		{"9", "whitespace-only summary", func(o *slipway.Outcome) { o.Summary = " \n\t" }},
		{"9", "control character in files_changed", func(o *slipway.Outcome) { o.Implementation.FilesChanged = []string{"greet\u0007.go"} }},
		{"9", "tab in files_changed", func(o *slipway.Outcome) { o.Implementation.FilesChanged = []string{"a\tb.go"} }},
		{"9", "blank activity command", func(o *slipway.Outcome) { o.Implementation.Activities[0].Command = "  " }},
		{"9", "unknown activity kind", func(o *slipway.Outcome) { o.Implementation.Activities[0].Kind = "deploy" }},
		{"9", "escape in an observation", func(o *slipway.Outcome) { o.Observations = []string{"red \u001b[31m"} }},
		{"10", "scope digest without scope_version", func(o *slipway.Outcome) {
			r := req()
			r.ScopeSHA256 = legacyDigest(r)
			destructive(o, r)
		}},
		{"10", "unsorted targets", func(o *slipway.Outcome) {
			r := req()
			r.Targets[0], r.Targets[1] = r.Targets[1], r.Targets[0]
			r.ScopeSHA256 = slipway.ScopeSHA256(r)
			destructive(o, r)
		}},
	}
	for name, bin := range bins {
		t.Run(name, func(t *testing.T) {
			w := startAtImplement(t, bin)
			for _, c := range cases {
				o := plainOutcome(w.action)
				c.edit(o)
				raw, _ := json.Marshal(o)
				if _, err := slipway.CheckOutcome(raw, w.action); !errors.Is(err, slipway.ErrOutcomeInvalid) {
					t.Errorf("item %s, %s: CheckOutcome = %v; want it refused", c.item, c.name, err)
				}
				if exit, stderr := w.submit(raw); exit != 3 || !strings.Contains(stderr, `"code":"invalid_outcome"`) {
					t.Errorf("item %s, %s: the CLI exit %d %s; want invalid_outcome (the case is wrong)", c.item, c.name, exit, stderr)
				}
			}
			o := plainOutcome(w.action)
			destructive(o, req())
			raw, _ := json.Marshal(o)
			if _, err := slipway.CheckOutcome(raw, w.action); err != nil {
				t.Fatalf("item 10: CheckOutcome refused a request with ScopeSHA256's digest: %v", err)
			}
			if exit, stderr := w.submit(raw); exit != 0 {
				t.Fatalf("item 10: the CLI refused ScopeSHA256's digest: exit %d %s", exit, stderr)
			}
		})
	}
}

// legacyDigest is the digest the old simulator accepted: the JSON of
// request_id, targets and impact, without scope_version.
func legacyDigest(r *slipway.DestructiveRequest) string {
	data, _ := json.Marshal(struct {
		RequestID string           `json:"request_id"`
		Targets   []slipway.Target `json:"targets"`
		Impact    string           `json:"impact"`
	}{r.RequestID, r.Targets, r.Impact})
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// implementRun is a Run of a CLI, at its first Implement.
type implementRun struct {
	t      *testing.T
	bin    string
	action *slipway.Action
	argv   []string // the submit-outcome-file variant, resolved but for the file
}

// startAtImplement starts a Run with bin and walks it to an Implement.
func startAtImplement(t *testing.T, bin string) *implementRun {
	t.Helper()
	root := gitWorktree(t)
	goal := filepath.Join(t.TempDir(), "goal.txt")
	os.WriteFile(goal, []byte("Add a greeting."), 0o600)
	w := &implementRun{t: t, bin: bin}
	st := w.state(exec.Command(bin, "run", "--budget", "8", "--json", "--root", root, "--goal-file", goal))
	o := plainOutcome(st.Action)
	o.SuggestedActions = []slipway.Suggestion{{Kind: "implement", Brief: "write it"}}
	raw, _ := json.Marshal(o)
	if exit, stderr := w.submit(raw); exit != 0 {
		t.Fatalf("submit the orient: exit %d %s", exit, stderr)
	}
	if w.action.Kind != slipway.KindImplement {
		t.Fatalf("after the orient: %s; want implement", w.action.Kind)
	}
	return w
}

func (w *implementRun) state(cmd *exec.Cmd) *slipway.State {
	w.t.Helper()
	out, err := cmd.Output()
	if err != nil {
		w.t.Fatalf("%s: %v", cmd.Args, err)
	}
	var st slipway.State
	if err := json.Unmarshal(out, &st); err != nil || st.Action == nil {
		w.t.Fatalf("%s: %v\n%s", cmd.Args, err, out)
	}
	w.action = st.Action
	v, _ := st.Next.Variant("submit-outcome-file")
	w.argv = v.BaseArgv
	return &st
}

// submit submits raw for the current Action; on success the Run's next
// Action becomes current.
func (w *implementRun) submit(raw []byte) (int, string) {
	file := filepath.Join(w.t.TempDir(), "outcome.json")
	os.WriteFile(file, raw, 0o600)
	cmd := exec.Command(w.bin, append(w.argv[1:], "--outcome-file", file)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), stderr.String()
	}
	var st slipway.State
	if json.Unmarshal(out, &st) == nil && st.Action != nil {
		w.action = st.Action
		if v, ok := st.Next.Variant("submit-outcome-file"); ok {
			w.argv = v.BaseArgv
		}
	}
	return 0, ""
}

// Item 10: the provider prompt gives the exact canonical form of the
// scope digest.
func TestItem10PromptGivesTheScopeDigestForm(t *testing.T) {
	if !strings.Contains(slipway.OutcomeContract(), `{"impact":IMPACT,"request_id":REQUEST_ID,"scope_version":1,"targets":[{"kind":KIND,"value":VALUE}]}`) {
		t.Errorf("the prompt does not give the canonical scope:\n%s", slipway.OutcomeContract())
	}
}
