package step_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	step "kusaw.dev/step"
	"kusaw.dev/step/protocol"
	"kusaw.dev/step/request"
	"kusaw.dev/step/sandbox"
)

func TestMain(m *testing.M) {
	// A sandboxed step runs through the runner's own binary: here, this one.
	if code, ok := sandbox.RunHelper(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr); ok {
		os.Exit(code)
	}
	if len(os.Args) >= 3 && os.Args[1] == fakeArg {
		runFake(os.Args[2])
	}
	if name := os.Getenv("STEP_TEST_FAKE"); name != "" {
		runFake(name)
	}
	code := m.Run()
	if code == 0 && flag.Lookup("test.run").Value.String() == "" && !testing.Short() {
		for name := range fakes {
			if !used[name] {
				fmt.Fprintf(os.Stderr, "fake step %q was never used\n", name)
				code = 1
			}
		}
	}
	os.Exit(code)
}

var (
	usedMu sync.Mutex
	used   = map[string]bool{}
)

// setup says how a test runs its fake.
type setup struct {
	timeout    time.Duration // limits.time_left_ms; default 30 s
	grace      time.Duration // the kill grace; default 1 s
	completion time.Duration // completion_grace_seconds; default 5 s
	keepGoing  bool
	handshake  time.Duration // the handshake timeout; default 20 s
	logCap     int64         // limits.log_cap_bytes; default the spec's
	env        []string
	config     string
	ctx        context.Context
	observer   step.Observer
	sandbox    *sandbox.Options
	mode       string                  // the request's mode; default pipeline
	edit       func(*protocol.Request) // changes the synthesized request
	// requireSandbox makes the request's sandbox.mode "required".
	requireSandbox bool
	// args are the fake's arguments after its name.
	args []string
}

// runFake runs the fake step name through step.Run.
func runAttempt(t *testing.T, name string, s setup) (*step.Record, string) {
	t.Helper()
	usedMu.Lock()
	used[name] = true
	usedMu.Unlock()
	dir := t.TempDir()
	s.timeout = cmpDur(s.timeout, 30*time.Second)
	req, err := request.Synthesize(request.Options{
		Worktree: dir, ArtifactsDir: filepath.Join(dir, "out", "artifacts"), Timeout: s.timeout,
		StepName: name, Mode: s.mode, CompletionGrace: cmpDur(s.completion, 5*time.Second), Config: []byte(cmpStr(s.config, "{}")),
	})
	if err != nil {
		t.Fatal(err)
	}
	if s.requireSandbox {
		req.Sandbox = &protocol.Sandbox{Mode: "required", Network: "open"}
	}
	if s.logCap > 0 {
		req.Limits.LogCapBytes = &s.logCap
	}
	if s.edit != nil {
		s.edit(req)
	}
	raw, err := request.Encode(req)
	if err != nil {
		t.Fatal(err)
	}
	ctx := s.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	out := filepath.Join(dir, "out")
	rec, err := step.Run(ctx, step.Attempt{
		Command: append([]string{os.Args[0], fakeArg, name}, s.args...), Request: raw, OutDir: out,
		Env:   append(os.Environ(), append(s.env, "STEP_TEST_FAKE="+name, "GORACE=atexit_sleep_ms=0")...),
		Grace: cmpDur(s.grace, time.Second), KeepGoing: s.keepGoing, HandshakeTimeout: cmpDur(s.handshake, 20*time.Second),
		Observer: s.observer, Sandbox: s.sandbox,
	})
	if err != nil {
		t.Fatalf("Run(%s) = %v", name, err)
	}
	checkRecordFile(t, rec, out)
	return rec, out
}

// checkRecordFile checks that attempt.json holds the record Run returned.
func checkRecordFile(t *testing.T, rec *step.Record, out string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(out, "attempt.json"))
	if err != nil {
		t.Fatalf("attempt.json: %v", err)
	}
	var got step.Record
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatalf("attempt.json: %v", err)
	}
	if got.Status != rec.Status || got.ReasonCode != rec.ReasonCode || got.Message != rec.Message {
		t.Errorf("attempt.json says %s/%s %q; Run returned %s/%s %q", got.Status, got.ReasonCode, got.Message, rec.Status, rec.ReasonCode, rec.Message)
	}
	checkRecordSchema(t, out)
}

func cmpDur(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

func cmpStr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// verdict is what a scenario must end in.
type verdict struct{ status, reason, message string }

func wantVerdict(t *testing.T, rec *step.Record, want verdict) {
	t.Helper()
	if rec.Status != want.status || rec.ReasonCode != want.reason || !strings.Contains(rec.Message, want.message) {
		t.Errorf("verdict %s/%s %q; want %s/%s containing %q\ndiagnosis:\n%s", rec.Status, rec.ReasonCode, rec.Message, want.status, want.reason, want.message, rec.Diagnosis)
	}
}

func hasWarning(rec *step.Record, code string) bool {
	for _, w := range rec.Warnings {
		if w.Code == code {
			return true
		}
	}
	return false
}

func TestVerdicts(t *testing.T) {
	t.Parallel()
	// ignore-sigterm is stopped once it says it ignores SIGTERM (its first
	// event), not at a time: a loaded machine may start it late (issue 14
	// item 8).
	termCtx, stopTerm := context.WithCancel(context.Background())
	t.Cleanup(stopTerm)
	tests := []struct {
		fake  string
		setup setup
		want  verdict
		check func(t *testing.T, rec *step.Record, out string)
	}{
		{fake: "ok", want: verdict{"ok", "fake", "done"}, check: func(t *testing.T, rec *step.Record, out string) {
			if rec.Events["progress"] != 3 || exitOf(rec) != 0 || rec.Step.Name != "fake" || rec.ResultPath == "" {
				t.Errorf("record: events %v, exit %v, step %+v, result %q", rec.Events, exitOf(rec), rec.Step, rec.ResultPath)
			}
			wantFile(t, filepath.Join(out, "result.json"), resultLine("ok", "done")+"\n")
			wantFile(t, filepath.Join(out, "stdout.jsonl"), "") // checked for presence
		}},
		{fake: "polluted", want: verdict{"fail", "protocol_error", "stdout line 2: not JSON"}, check: func(t *testing.T, rec *step.Record, _ string) {
			if !strings.Contains(rec.Diagnosis, "hello world\n---8<---") || !strings.Contains(rec.Diagnosis, "stderr") {
				t.Errorf("diagnosis lacks the offending line between markers or a word on stderr:\n%s", rec.Diagnosis)
			}
		}},
		{fake: "huge-line", want: verdict{"fail", "protocol_error", "stdout line 1: line over max_line_bytes"}},
		{fake: "no-result", want: verdict{"fail", "no_result", "exited with status 0 without a result"}},
		{fake: "exit-3", want: verdict{"fail", "no_result", "exited with status 3 without a result"}, check: func(t *testing.T, rec *step.Record, _ string) {
			if exitOf(rec) != 3 || !strings.Contains(rec.Diagnosis, "boom: the disk is full") {
				t.Errorf("exit %d, diagnosis %q; want 3 and the stderr tail", exitOf(rec), rec.Diagnosis)
			}
		}},
		{fake: "result-then-hang", setup: setup{completion: time.Second}, want: verdict{"ok", "fake", "done"}, check: func(t *testing.T, rec *step.Record, _ string) {
			if !hasWarning(rec, "lingered_after_result") || rec.Signal != "terminated" {
				t.Errorf("warnings %v, signal %q; want lingered_after_result and SIGTERM", rec.Warnings, rec.Signal)
			}
		}},
		{fake: "grandchild", want: verdict{"ok", "fake", "left a grandchild"}, check: grandchildGone},
		{fake: "daemon", want: verdict{"ok", "fake", "left a grandchild"}, check: func(t *testing.T, rec *step.Record, out string) {
			// Tracked in a cgroup, the daemon is killed (processes_left);
			// otherwise it holds stdout open until the drain delay.
			if !hasWarning(rec, "stdout_held_open") && !hasWarning(rec, step.WarnProcessesLeft) {
				t.Errorf("warnings %v; want processes_left or stdout_held_open", rec.Warnings)
			}
			killPidFile(t, out)
		}},
		{fake: "ignore-sigterm", setup: setup{ctx: termCtx, observer: step.Observer{Event: func(protocol.Event) { stopTerm() }}, grace: 300 * time.Millisecond}, want: verdict{"killed", "cancelled", "cancelled before the step gave a result"}, check: func(t *testing.T, rec *step.Record, _ string) {
			if !hasWarning(rec, "killed") || rec.Signal != "killed" {
				t.Errorf("warnings %v, signal %q; want a killed warning and SIGKILL", rec.Warnings, rec.Signal)
			}
		}},
		{fake: "polite-sigterm", setup: setup{timeout: 500 * time.Millisecond}, want: verdict{"killed", "timeout", "no result"}, check: func(t *testing.T, rec *step.Record, _ string) {
			if hasWarning(rec, "killed") {
				t.Errorf("warnings %v; a polite step needs no SIGKILL", rec.Warnings)
			}
		}},
		{fake: "no-newline", want: verdict{"ok", "fake", "done"}},
		{fake: "crlf", want: verdict{"ok", "fake", "done"}},
		{fake: "invalid-utf8", want: verdict{"fail", "protocol_error", "invalid UTF-8"}},
		{fake: "duplicate-key", want: verdict{"fail", "protocol_error", `duplicate`}},
		{fake: "bom", want: verdict{"fail", "protocol_error", "byte order mark"}},
		{fake: "two-results", want: verdict{"fail", "protocol_error", "stdout line 2: a second result"}},
		{fake: "after-result", want: verdict{"fail", "protocol_error", "stdout line 2: a line after the result"}},
		{fake: "unknown-event", want: verdict{"fail", "protocol_error", `unknown event type "thinking"`}},
		{fake: "missing-field", want: verdict{"fail", "protocol_error", "allowed"}},
		{fake: "bad-result", want: verdict{"fail", "protocol_error", "/status"}},
		{fake: "outputs-invalid", want: verdict{"fail", "outputs_invalid", "/outputs/greeting"}},
		{fake: "never-reads", setup: setup{config: `{"pad":"` + strings.Repeat("p", 100<<10) + `"}`}, want: verdict{"ok", "fake", "did not read"}},
		{fake: "stderr-first", want: verdict{"ok", "fake", "read"}, check: func(t *testing.T, rec *step.Record, _ string) {
			if rec.Logs.Stderr.Bytes != 1<<20 {
				t.Errorf("stderr.log has %d bytes; want 1 MiB", rec.Logs.Stderr.Bytes)
			}
		}},
		{fake: "checks-request", want: verdict{"ok", "fake", "request and environment agree"}},
		{fake: "usage-and-outputs", want: verdict{"ok", "fake", "greeted"}, check: func(t *testing.T, rec *step.Record, _ string) {
			if rec.Usage == nil || *rec.Usage.TokensInput != 200 || string(rec.Outputs) != `{"greeting":"hi"}` || rec.Session == nil || rec.Session.ID != "s1" || rec.Events["usage"] != 2 || rec.Events["agent_action"] != 1 {
				t.Errorf("usage %+v, outputs %s, session %+v, events %v", rec.Usage, rec.Outputs, rec.Session, rec.Events)
			}
		}},
		{fake: "outputs-too-large", want: verdict{"fail", "outputs_too_large", "65536"}},
		{fake: "effects-not-allowed", want: verdict{"retry", "effects_invalid", ""}, check: func(t *testing.T, rec *step.Record, _ string) {
			if len(rec.EffectsFeedback) != 1 || rec.EffectsFeedback[0].Index != 0 || rec.EffectsFeedback[0].Kind != "run.note" {
				t.Errorf("effects_feedback %+v; want one item for effect 0, run.note", rec.EffectsFeedback)
			}
		}},
		{fake: "artifact-missing", want: verdict{"fail", "artifact_invalid", "nope.txt"}},
		{fake: "artifact-escape", want: verdict{"fail", "artifact_invalid", "escape.txt"}},
		{fake: "artifact-evidence", want: verdict{"ok", "fake", "done"}, check: func(t *testing.T, rec *step.Record, _ string) {
			if len(rec.Artifacts) != 1 || rec.Artifacts[0].Media != "image/png" {
				t.Errorf("artifacts %+v; want shot.png sniffed as image/png", rec.Artifacts)
			}
		}},
		// Issue 13 item 9 (resets_at) and item 5 (outputs.findings in the record and result.json).
		{fake: "resets-at", want: verdict{"ok", "fake", "done"}, check: func(t *testing.T, rec *step.Record, _ string) {
			if rec.ResetsAt != "2026-01-02T15:04:05Z" {
				t.Errorf("record resets_at = %q; want the result's", rec.ResetsAt)
			}
		}},
		{fake: "scan-findings", setup: setup{mode: "atlas_scan"}, want: verdict{"ok", "fake", "done"}, check: func(t *testing.T, rec *step.Record, out string) {
			kept, err := os.ReadFile(filepath.Join(out, "result.json"))
			if err != nil || strings.Contains(string(kept), "AKIAFAKE") || strings.Contains(string(rec.Outputs), "AKIAFAKE") {
				t.Errorf("result.json %s (%v), record outputs %s; want no finding snippet in either", kept, err, rec.Outputs)
			}
			if len(rec.Warnings) == 0 || rec.Warnings[len(rec.Warnings)-1].Code != "scanner_version_missing" {
				t.Errorf("warnings %v; want scanner_version_missing", rec.Warnings)
			}
		}},
		{fake: "hs-two-lines", want: verdict{"fail", "handshake_failed", "2 lines"}},
		{fake: "hs-not-json", want: verdict{"fail", "handshake_failed", "JSON"}},
		{fake: "hs-hang", setup: setup{handshake: time.Second}, want: verdict{"fail", "handshake_failed", "timeout"}},
		{fake: "hs-v1", want: verdict{"fail", "protocol_unsupported", "[1]"}},
		{fake: "hs-bad-schema", want: verdict{"fail", "outputs_schema_invalid", "outputs_schema"}},
	}
	for _, tt := range tests {
		t.Run(tt.fake, func(t *testing.T) {
			t.Parallel()
			rec, out := runAttempt(t, tt.fake, tt.setup)
			wantVerdict(t, rec, tt.want)
			if tt.check != nil {
				tt.check(t, rec, out)
			}
		})
	}
}

func wantFile(t *testing.T, path, want string) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("%v", err)
		return
	}
	if want != "" && string(got) != want {
		t.Errorf("%s = %q; want %q", path, got, want)
	}
}

// grandchildGone checks that the grandchild the fake left is dead.
func grandchildGone(t *testing.T, rec *step.Record, out string) {
	pid := readPid(t, out)
	if err := processGone(pid); err != nil {
		t.Errorf("grandchild %d: %v", pid, err)
	}
}

func TestCancel(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	var once sync.Once
	go func() {
		<-started
		cancel()
	}()
	rec, _ := runAttempt(t, "polite-sigterm", setup{ctx: ctx, observer: step.Observer{Event: func(protocol.Event) { once.Do(func() { close(started) }) }}})
	wantVerdict(t, rec, verdict{"killed", "cancelled", "cancelled"})
}

// TestFloods pushes hundreds of megabytes through stdout and stderr: the
// logs stay within log_cap_bytes and the runner's memory stays flat.
func TestFloods(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping the floods in -short mode")
	}
	for _, f := range []struct {
		fake  string
		bytes int
	}{{"stdout-flood", 300 << 20}, {"stderr-flood", 150 << 20}} {
		t.Run(f.fake, func(t *testing.T) {
			size := f.bytes
			if raceEnabled {
				size /= 10 // the race detector slows the pump tenfold
			}
			peak := watchHeap(t)
			const logCap = 8 << 20
			rec, _ := runAttempt(t, f.fake, setup{logCap: logCap, env: []string{fmt.Sprintf("FAKE_FLOOD_BYTES=%d", size)}})
			high := peak()
			wantVerdict(t, rec, verdict{"ok", "fake", "flooded"})
			logFile := rec.Logs.Stdout
			if f.fake == "stderr-flood" {
				logFile = rec.Logs.Stderr
			}
			if !logFile.Truncated || logFile.Bytes != logCap || logFile.Total < int64(size) || !hasWarning(rec, "log_truncated") {
				t.Errorf("log %+v; want truncated at %d bytes of at least %d, with a warning", logFile, logCap, size)
			}
			if info, err := os.Stat(logFile.Path); err != nil {
				t.Error(err)
			} else if info.Size() > logCap+200 {
				t.Errorf("%s has %d bytes; want at most the cap and its marker", logFile.Path, info.Size())
			}
			if high > 64<<20 {
				t.Errorf("heap peaked at %d MiB while the step printed %d MiB; want under 64 MiB", high>>20, size>>20)
			}
		})
	}
}

// watchHeap samples the heap until the returned function is called, which
// returns the highest value seen.
func watchHeap(t *testing.T) func() uint64 {
	runtime.GC()
	var high uint64
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			high = max(high, ms.HeapInuse)
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		<-stopped
		return high
	}
}

func TestRunErrors(t *testing.T) {
	_, err := step.Run(context.Background(), step.Attempt{Command: []string{"x"}, Request: []byte(`{}`), OutDir: t.TempDir()})
	if !errors.Is(err, step.ErrAttempt) {
		t.Errorf("Run with an invalid request = %v; want ErrAttempt", err)
	}
}

// exitOf is the record's exit code, or -1 when it has none.
func exitOf(rec *step.Record) int {
	if rec.ExitCode == nil {
		return -1
	}
	return *rec.ExitCode
}

type protocolEvent = protocol.Event

// eventText is the message of a progress event, for assertions.
func eventText(ev protocol.Event) string {
	if p, ok := ev.(*protocol.Progress); ok {
		return p.Message
	}
	return ev.EventType()
}

// TestSlowReaderKeepsTheResult proves issue 14 item 8 (TestFloods lost its
// last line under load): output the step wrote before it ended is read to
// the end, however long that takes after its group is gone. The observer
// makes the runner take longer over the buffered events than drainDelay.
func TestSlowReaderKeepsTheResult(t *testing.T) {
	t.Parallel()
	slow := step.Observer{Event: func(protocol.Event) { time.Sleep(10 * time.Millisecond) }}
	rec, _ := runAttempt(t, "stdout-flood", setup{observer: slow, env: []string{"FAKE_FLOOD_BYTES=32000"}})
	wantVerdict(t, rec, verdict{"ok", "fake", "flooded"})
	if hasWarning(rec, "stdout_held_open") {
		t.Errorf("warnings %v; the runner cut its own reading short", rec.Warnings)
	}
}
