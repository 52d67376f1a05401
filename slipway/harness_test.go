package slipway_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	step "kusaw.dev/step"
	"kusaw.dev/step/protocol"
	"kusaw.dev/step/request"
)

// harness drives `slipway` steps through step.Run against the simulator.
type harness struct {
	t        *testing.T
	root     string            // the worktree
	base     string            // a folder for attempts and logs
	argvLog  string            // the simulator's recorded argv
	scenario string            // SLIPSIM_SCENARIO
	config   map[string]any    // request.config
	spec     string            // context.task.spec, the goal
	attempts int               // attempts run so far
	mu       sync.Mutex        // guards events
	events   []protocol.Event  // every event of the last attempt
	extraEnv map[string]string // more environment for the step
	// protocolErrorOK: the runner records a result with reason_code
	// protocol_error among the attempt's protocol errors; expected then.
	protocolErrorOK bool
	// interactive runs `slipway --interactive` on a pty: terminal is
	// what the person types and sees.
	interactive bool
	terminal    step.Terminal
	// bin is the Slipway CLI the step runs: the simulator, or the
	// recorder in front of the real CLI (see realCLI).
	bin string
	// cancelAt, when set, cancels the attempt at the first progress
	// event it matches (an Action issued): the runner stops the step
	// mid-Action, as SIGINT does.
	cancelAt func(*protocol.Progress) bool
	// timeout is the request's timeout; 0 means 3 minutes.
	timeout time.Duration
	// fork asks a resuming attempt to fork (resume.fork).
	fork bool
}

func newHarness(t *testing.T, agent string) *harness {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, root: gitWorktree(t), base: t.TempDir(), spec: "Add a greeting; secret-goal-7f3a.", bin: simBin}
	h.argvLog = filepath.Join(h.base, "argv.jsonl")
	h.config = map[string]any{"slipway": simBin, "agent": []string{exe, "fake-agent", agent}}
	return h
}

// newRealHarness is a harness whose step runs the real Slipway CLI (through
// the argv recorder), or nil with the test skipped when there is none.
func newRealHarness(t *testing.T, agent string) *harness {
	t.Helper()
	if realCLI == "" {
		t.Skip(skipRealCLI)
	}
	h := newHarness(t, agent)
	h.bin = recorderBin
	h.config["slipway"] = recorderBin
	return h
}

// gitWorktree is a new Git worktree with one commit, as a factory's is:
// the Slipway CLI observes Git and refuses any other folder.
func gitWorktree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	git(t, root, "init", "-q")
	git(t, root, "-c", "user.name=kusaw", "-c", "user.email=kusaw@example.com", "commit", "-q", "--allow-empty", "-m", "start")
	return root
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// attempt runs one attempt; resume names the session to continue, if any.
func (h *harness) attempt(resume string) *step.Record {
	h.t.Helper()
	h.attempts++
	out := filepath.Join(h.base, fmt.Sprintf("attempt-%d", h.attempts))
	cfg, _ := json.Marshal(h.config)
	timeout := h.timeout
	if timeout == 0 {
		timeout = 3 * time.Minute
	}
	req, err := request.Synthesize(request.Options{Config: cfg, Worktree: h.root, ArtifactsDir: filepath.Join(out, "artifacts"),
		Timeout: timeout, StepName: "slipway"})
	if err != nil {
		h.t.Fatal(err)
	}
	req.Context.Task = &protocol.Task{ID: "task-1", Title: "greeting", Spec: h.spec}
	if resume != "" {
		req.Resume = &protocol.Resume{Provider: "slipway", SessionID: resume, Fork: h.fork}
	}
	raw, err := request.Encode(req)
	if err != nil {
		h.t.Fatal(err)
	}
	h.mu.Lock()
	h.events = nil
	h.mu.Unlock()
	exe, _ := os.Executable()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	observe := h.observe
	if h.cancelAt != nil {
		var once sync.Once
		observe = func(ev protocol.Event) {
			h.observe(ev)
			if p, ok := ev.(*protocol.Progress); ok && h.cancelAt(p) {
				once.Do(cancel)
			}
		}
	}
	rec, err := step.Run(ctx, step.Attempt{Command: []string{exe}, Request: raw, OutDir: out, Env: h.env(),
		HandshakeTimeout: time.Minute, Observer: step.Observer{Event: observe}, Terminal: h.terminal})
	if err != nil {
		h.t.Fatalf("step.Run: %v", err)
	}
	warnings := rec.Warnings
	if h.cancelAt != nil || h.timeout != 0 {
		// Stopped mid-Action: the step gives its result, then ends.
		warnings = slices.DeleteFunc(slices.Clone(warnings), func(w protocol.Warning) bool {
			return w.Code == "cancelled_after_result" || w.Code == "timeout_after_result"
		})
	}
	if (len(rec.ProtocolErrors) > 0 && !h.protocolErrorOK) || len(warnings) > 0 {
		h.t.Errorf("protocol errors %+v, warnings %+v", rec.ProtocolErrors, rec.Warnings)
	}
	return rec
}

func (h *harness) env() []string {
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "SLIPWAY_TEST_ROLE=step",
		"SLIPSIM_ARGV_LOG=" + h.argvLog, "SLIPSIM_SCENARIO=" + h.scenario, "GORACE=atexit_sleep_ms=0",
		recorderEnv + "=" + realCLI, "SLIPWAY_TEST_HANG_UNTIL=" + h.unhangFile()}
	if h.interactive {
		env = append(env, "SLIPWAY_TEST_INTERACTIVE=1")
	}
	for k, v := range h.extraEnv {
		env = append(env, k+"="+v)
	}
	return env
}

// unhangFile is the file whose existence stops the hang agent hanging.
func (h *harness) unhangFile() string { return filepath.Join(h.base, "unhang") }

// unhang lets the hang agent answer from now on.
func (h *harness) unhang() {
	h.t.Helper()
	if err := os.WriteFile(h.unhangFile(), nil, 0o600); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) observe(ev protocol.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.events = append(h.events, ev)
}

// eventsOf returns the last attempt's events of one type.
func (h *harness) eventsOf(typ string) []protocol.Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []protocol.Event
	for _, ev := range h.events {
		if ev.EventType() == typ {
			out = append(out, ev)
		}
	}
	return out
}

// argv returns every argv the simulator recorded, in order.
func (h *harness) argv() [][]string {
	h.t.Helper()
	f, err := os.Open(h.argvLog)
	if err != nil {
		h.t.Fatalf("the simulator recorded no argv: %v", err)
	}
	defer f.Close()
	var all [][]string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var a []string
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			h.t.Fatal(err)
		}
		all = append(all, a)
	}
	return all
}

// calls returns the recorded argv whose leading words are prefix.
func (h *harness) calls(prefix ...string) [][]string {
	var out [][]string
	for _, a := range h.argv() {
		if len(a) >= len(prefix) && strings.Join(a[:len(prefix)], " ") == strings.Join(prefix, " ") {
			out = append(out, a)
		}
	}
	return out
}

// want checks a record's status and reason code.
func want(t *testing.T, rec *step.Record, status, reason string) {
	t.Helper()
	if rec.Status != status || rec.ReasonCode != reason {
		t.Fatalf("status %s/%s %q; want %s/%s\n%s", rec.Status, rec.ReasonCode, rec.Message, status, reason, stderrOf(rec))
	}
}

func stderrOf(rec *step.Record) string {
	data, _ := os.ReadFile(rec.Logs.Stderr.Path)
	return "stderr: " + string(data)
}

// outputs decodes an ok record's outputs.
func outputs(t *testing.T, raw jsontext.Value) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("outputs %s: %v", raw, err)
	}
	return m
}

// sessionOf is a record's Run id.
func sessionOf(t *testing.T, rec *step.Record) string {
	t.Helper()
	if rec.Session == nil {
		t.Fatalf("no session in %s/%s %q", rec.Status, rec.ReasonCode, rec.Message)
	}
	return rec.Session.ID
}

// runCommand runs a recovery command as a person would, in a shell.
func runCommand(t *testing.T, command string) {
	t.Helper()
	if out, err := exec.Command("sh", "-c", command).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", command, err, out)
	}
}

// implementID is the action id of the first implement progress event.
func (h *harness) implementID() string {
	for _, ev := range h.eventsOf("progress") {
		f := strings.Fields(ev.(*protocol.Progress).Message)
		if len(f) > 1 && f[0] == "implement" {
			return f[1]
		}
	}
	return ""
}
