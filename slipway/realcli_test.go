package slipway_test

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	step "kusaw.dev/step"
	"kusaw.dev/step/protocol"
	"kusaw.dev/step/slipway"
)

// A scenario drives the step through one story (one or more attempts)
// and returns, per attempt, the shape of the step's result: what must be
// the same whether the step runs the real Slipway CLI or the simulator.
type scenario struct {
	name  string
	agent string
	run   func(t *testing.T, h *harness) []string
}

// shape is the comparable part of a record: status and reason, the
// recovery titles, whether the session is the first attempt's and was
// resumed, the findings, and the Action kinds the attempt asked the agent.
func shape(h *harness, rec *step.Record, first string) string {
	var titles []string
	for _, r := range rec.Recovery {
		title := r.Title
		if first != "" {
			title = strings.ReplaceAll(title, first, "RUN")
		}
		titles = append(titles, title)
	}
	session, resumed := "none", false
	if rec.Session != nil {
		session = "new"
		if rec.Session.ID == first {
			session = "same"
		}
		resumed = rec.Session.ResumedFrom != ""
	}
	findings := -1
	if len(rec.Outputs) > 0 {
		findings = len(outputs(h.t, rec.Outputs)["findings"].([]any))
	}
	return fmt.Sprintf("%s/%s recovery=%q session=%s resumed=%v findings=%d kinds=%v",
		rec.Status, rec.ReasonCode, titles, session, resumed, findings, h.kinds())
}

// kinds are the Action kinds of the last attempt's progress events.
func (h *harness) kinds() []string {
	var out []string
	for _, ev := range h.eventsOf("progress") {
		word, _, _ := strings.Cut(ev.(*protocol.Progress).Message, " ")
		if slices.Contains([]string{"orient", "clarify", "implement", "review", "summarize"}, word) {
			out = append(out, word)
		}
	}
	return out
}

// scenarios are the stories of issue 12's "Done when", and the pauses
// and errors around them.
var scenarios = []scenario{
	{"happy path", "happy", func(t *testing.T, h *harness) []string {
		rec := h.attempt("")
		return []string{shape(h, rec, "")}
	}},
	{"budget exhausted, retry, resume, ok on the same Run", "happy", func(t *testing.T, h *harness) []string {
		h.config["budget"] = 3
		first := h.attempt("")
		run := sessionOf(t, first)
		out := []string{shape(h, first, run)}
		second := h.attempt(run)
		return append(out, shape(h, second, run))
	}},
	{"decision, answer command, resume, ok", "decision", func(t *testing.T, h *harness) []string {
		first := h.attempt("")
		run := sessionOf(t, first)
		out := []string{shape(h, first, run)}
		answer := recoveryNamed(t, first.Recovery, "answer")
		file := answer[strings.LastIndex(answer, " ")+1:]
		if err := os.WriteFile(file, []byte("English"), 0o600); err != nil {
			t.Fatal(err)
		}
		runCommand(t, answer)
		return append(out, shape(h, h.attempt(run), run))
	}},
	{"SIGINT mid-Action, resume, the same Action re-asked, ok", "hang", func(t *testing.T, h *harness) []string {
		h.cancelAt = func(p *protocol.Progress) bool { return strings.HasPrefix(p.Message, "implement ") }
		return stoppedThenResumed(t, h)
	}},
	{"timeout mid-Action, resume, the same Action re-asked, ok", "hang", func(t *testing.T, h *harness) []string {
		// The agent hangs at the Implement until the runner's timeout
		// stops the attempt. The test waits the whole timeout, so it is
		// no longer than it must be; the steps before the Implement take
		// about a second on a quiet machine, and 90s leaves room for one
		// many times slower.
		h.timeout = 90 * time.Second
		return stoppedThenResumed(t, h)
	}},
	{"non-git worktree", "happy", func(t *testing.T, h *harness) []string {
		h.root = t.TempDir()
		rec := h.attempt("")
		if !strings.Contains(rec.Message, "git_repository_required: ") {
			t.Errorf("message %q; want the CLI's code in it", rec.Message)
		}
		return []string{shape(h, rec, "")}
	}},
	{"environment unavailable, resumed", "environment", func(t *testing.T, h *harness) []string {
		first := h.attempt("")
		run := sessionOf(t, first)
		out := []string{shape(h, first, run)}
		if first.Message != "Docker is not running; start it?" {
			t.Errorf("message %q; want the question", first.Message)
		}
		h.unhang() // the environment is ready now
		runCommand(t, recoveryNamed(t, first.Recovery, "resume"))
		return append(out, shape(h, h.attempt(run), run))
	}},
	{"a stopped Run is resumed only explicitly", "decision", func(t *testing.T, h *harness) []string {
		first := h.attempt("")
		run := sessionOf(t, first)
		out := []string{shape(h, first, run)}
		runCommand(t, slipway.ShellText(h.bin, []string{"slipway", "stop", run, "--root", h.root}))
		second := h.attempt(run)
		out = append(out, shape(h, second, run))
		if n := len(h.calls("protocol", "resume")); n != 0 {
			t.Errorf("%d resume calls for a stopped Run without resume_stopped; want none", n)
		}
		h.config["resume_stopped"] = true
		out = append(out, shape(h, h.attempt(run), run))
		if n := len(h.calls("protocol", "resume")); n != 1 {
			t.Errorf("%d resume calls with resume_stopped; want one", n)
		}
		return out
	}},
	{"resume.fork starts a fresh Run", "happy", func(t *testing.T, h *harness) []string {
		h.config["budget"] = 3
		first := h.attempt("")
		run := sessionOf(t, first)
		out := []string{shape(h, first, run)}
		h.fork = true
		return append(out, shape(h, h.attempt(run), run))
	}},
	{"decision pending on resume keeps its question", "decision", func(t *testing.T, h *harness) []string {
		first := h.attempt("")
		run := sessionOf(t, first)
		out := []string{shape(h, first, run)}
		second := h.attempt(run)
		if second.Message != "English or French?" {
			t.Errorf("message %q on resume; want the pending question", second.Message)
		}
		return append(out, shape(h, second, run))
	}},
	{"an ended Run resumed keeps its findings", "happy", func(t *testing.T, h *harness) []string {
		first := h.attempt("")
		run := sessionOf(t, first)
		out := []string{shape(h, first, run)}
		return append(out, shape(h, h.attempt(run), run))
	}},
	{"issue-backed Run from a source file", "issue", func(t *testing.T, h *harness) []string {
		src := h.t.TempDir() + "/source.json"
		if err := os.WriteFile(src, []byte(sourceEnvelope(t)), 0o644); err != nil {
			t.Fatal(err)
		}
		h.config["source_file"] = src
		return []string{shape(h, h.attempt(""), "")}
	}},
}

// TestScenariosRealCLIAndSimulator runs every scenario through the real
// Slipway CLI and through the simulator, and requires the same step
// results from both. Without KUSAW_SLIPWAY_BIN only the simulator runs.
func TestScenariosRealCLIAndSimulator(t *testing.T) {
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			sim := sc.run(t, newHarness(t, sc.agent))
			t.Logf("simulator: %q", sim)
			if realCLI == "" {
				t.Log(skipRealCLI)
				return
			}
			real := sc.run(t, newRealHarness(t, sc.agent))
			t.Logf("real CLI:  %q", real)
			if !slices.Equal(sim, real) {
				t.Errorf("the simulator and the real CLI differ:\nreal CLI:  %q\nsimulator: %q", real, sim)
			}
		})
	}
}

// TestRealCLIRequiresABinary says plainly why the real-CLI half is
// skipped.
func TestRealCLIRequiresABinary(t *testing.T) {
	if realCLI == "" {
		t.Skip(skipRealCLI)
	}
	out, err := exec.Command(realCLI, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("%s --version: %v\n%s", realCLI, err, out)
	}
	t.Logf("real Slipway CLI: %s", strings.TrimSpace(string(out)))
}

// stoppedThenResumed runs a story whose first attempt h stops at the
// Implement (h.cancelAt or h.timeout is set), then resumes the Run: the
// resumed attempt must ask the interrupted Implement again.
func stoppedThenResumed(t *testing.T, h *harness) []string {
	first := h.attempt("")
	asked := h.implementID()
	h.cancelAt, h.timeout = nil, 0
	h.unhang()
	run := sessionOf(t, first)
	out := []string{shape(h, first, run)}
	second := h.attempt(run)
	if again := h.implementID(); again != asked || asked == "" {
		t.Errorf("the resumed attempt asked implement %q; want the interrupted %q again", again, asked)
	}
	return append(out, shape(h, second, run))
}
