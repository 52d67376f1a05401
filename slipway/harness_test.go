package slipway_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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
}

func newHarness(t *testing.T, agent string) *harness {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, root: t.TempDir(), base: t.TempDir(), spec: "Add a greeting; secret-goal-7f3a."}
	h.argvLog = filepath.Join(h.base, "argv.jsonl")
	h.config = map[string]any{"slipway": simBin, "agent": []string{exe, "fake-agent", agent}}
	return h
}

// attempt runs one attempt; resume names the session to continue, if any.
func (h *harness) attempt(resume string) *step.Record {
	h.t.Helper()
	h.attempts++
	out := filepath.Join(h.base, fmt.Sprintf("attempt-%d", h.attempts))
	cfg, _ := json.Marshal(h.config)
	req, err := request.Synthesize(request.Options{Config: cfg, Worktree: h.root, ArtifactsDir: filepath.Join(out, "artifacts"),
		Timeout: 3 * time.Minute, StepName: "slipway"})
	if err != nil {
		h.t.Fatal(err)
	}
	req.Context.Task = &protocol.Task{ID: "task-1", Title: "greeting", Spec: h.spec}
	if resume != "" {
		req.Resume = &protocol.Resume{Provider: "slipway", SessionID: resume}
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
	rec, err := step.Run(ctx, step.Attempt{Command: []string{exe}, Request: raw, OutDir: out, Env: h.env(),
		HandshakeTimeout: time.Minute, Observer: step.Observer{Event: h.observe}, Terminal: h.terminal})
	if err != nil {
		h.t.Fatalf("step.Run: %v", err)
	}
	if (len(rec.ProtocolErrors) > 0 && !h.protocolErrorOK) || len(rec.Warnings) > 0 {
		h.t.Errorf("protocol errors %+v, warnings %+v", rec.ProtocolErrors, rec.Warnings)
	}
	return rec
}

func (h *harness) env() []string {
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "SLIPWAY_TEST_ROLE=step",
		"SLIPSIM_ARGV_LOG=" + h.argvLog, "SLIPSIM_SCENARIO=" + h.scenario, "GORACE=atexit_sleep_ms=0"}
	if h.interactive {
		env = append(env, "SLIPWAY_TEST_INTERACTIVE=1")
	}
	for k, v := range h.extraEnv {
		env = append(env, k+"="+v)
	}
	return env
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
