package step_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	step "kusaw.dev/step"
	kevents "kusaw.dev/step/events"
	"kusaw.dev/step/protocol"
	"kusaw.dev/step/request"
)

// screen is a person's screen: it keeps what the step shows and lets a
// test wait for a text to appear.
type screen struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{} // closed and replaced at each write
}

func newScreen() *screen { return &screen{changed: make(chan struct{})} }

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf.Write(p)
	close(s.changed)
	s.changed = make(chan struct{})
	return len(p), nil
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// waitFor waits, for at most a minute, until text is on the screen.
func (s *screen) waitFor(t *testing.T, text string) {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		s.mu.Lock()
		found, changed := strings.Contains(s.buf.String(), text), s.changed
		s.mu.Unlock()
		if found {
			return
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("%q never appeared on the screen; it shows %q", text, s.String())
		}
	}
}

// session is one interactive attempt run in the background.
type session struct {
	out    string // the attempt folder
	screen *screen
	keys   *os.File // what the person types
	done   chan struct{}
	rec    *step.Record
	err    error
}

// startInteractive runs the fake name through step.Run in the background,
// on a terminal whose input the test types into keys and whose output it
// reads on the screen.
func startInteractive(t *testing.T, name string, s setup, term step.Terminal) *session {
	t.Helper()
	usedMu.Lock()
	used[name] = true
	usedMu.Unlock()
	dir := t.TempDir()
	req, err := request.Synthesize(request.Options{
		Worktree: dir, ArtifactsDir: filepath.Join(dir, "out", "artifacts"), Timeout: cmpDur(s.timeout, time.Minute),
		StepName: name, CompletionGrace: 5 * time.Second, Config: []byte("{}"),
	})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := request.Encode(req)
	if err != nil {
		t.Fatal(err)
	}
	in, keys, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); keys.Close() })
	ss := &session{out: filepath.Join(dir, "out"), screen: newScreen(), keys: keys, done: make(chan struct{})}
	term.Input, term.Output = in, ss.screen
	ctx := s.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	go func() {
		defer close(ss.done)
		ss.rec, ss.err = step.Run(ctx, step.Attempt{
			Command: []string{os.Args[0]}, Request: raw, OutDir: ss.out, Terminal: term,
			Env:   append(os.Environ(), "STEP_TEST_FAKE="+name, "GORACE=atexit_sleep_ms=0"),
			Grace: time.Second, HandshakeTimeout: 20 * time.Second, Observer: s.observer,
		})
	}()
	return ss
}

// wait waits for the attempt and returns its record.
func (ss *session) wait(t *testing.T) *step.Record {
	t.Helper()
	select {
	case <-ss.done:
	case <-time.After(3 * time.Minute):
		t.Fatal("the interactive attempt did not end")
	}
	if ss.err != nil {
		t.Fatalf("Run = %v", ss.err)
	}
	checkRecordSchema(t, ss.out)
	checkRecordFile(t, ss.rec, ss.out)
	return ss.rec
}

func TestInteractiveGreet(t *testing.T) {
	var seen []string
	var mu sync.Mutex
	obs := step.Observer{Event: func(ev protocol.Event) { mu.Lock(); seen = append(seen, ev.EventType()); mu.Unlock() }}
	ss := startInteractive(t, "tty-greet", setup{observer: obs}, step.Terminal{})
	ss.screen.waitFor(t, "name? ")
	ss.keys.WriteString("Ada\n")
	rec := ss.wait(t)
	wantVerdict(t, rec, verdict{protocol.StatusOK, "fake", "greeted"})
	if got := string(rec.Outputs); got != `{"greeting":"hello Ada"}` {
		t.Errorf("outputs = %s; want the greeting", got)
	}
	if rec.Events["progress"] != 1 || rec.Events["usage"] != 1 || strings.Join(seen, ",") != "progress,usage" {
		t.Errorf("events %v, observed %v; want one progress then one usage", rec.Events, seen)
	}
	if rec.Usage == nil || rec.Usage.TokensInput == nil || *rec.Usage.TokensInput != 3 {
		t.Errorf("usage = %+v; want 3 input tokens", rec.Usage)
	}
	log, err := os.ReadFile(filepath.Join(ss.out, step.TerminalFile))
	if err != nil || !strings.Contains(string(log), "name? Ada") || !strings.Contains(string(log), "hello Ada") {
		t.Errorf("terminal.log = %q, %v; want the prompt, the echoed answer and the greeting", log, err)
	}
	if l := rec.Logs.Terminal; l == nil || l.Bytes != int64(len(log)) || l.Truncated {
		t.Errorf("record's terminal log = %+v; want %d bytes", l, len(log))
	}
	if !strings.Contains(ss.screen.String(), "hello Ada") {
		t.Errorf("screen = %q; want the greeting", ss.screen.String())
	}
	if rec.ResultPath == "" || rec.ExitCode == nil || *rec.ExitCode != 0 {
		t.Errorf("result path %q, exit %v", rec.ResultPath, rec.ExitCode)
	}
}

func TestInteractiveResize(t *testing.T) {
	var rows, cols atomic.Int32
	rows.Store(30)
	cols.Store(100)
	resized := make(chan os.Signal, 1)
	term := step.Terminal{
		Size:    func() (int, int, error) { return int(rows.Load()), int(cols.Load()), nil },
		Resized: resized,
	}
	ss := startInteractive(t, "tty-size", setup{}, term)
	ss.screen.waitFor(t, "size 30x100, ready")
	rows.Store(40)
	cols.Store(120)
	resized <- os.Interrupt // any value: the window changed
	rec := ss.wait(t)
	wantVerdict(t, rec, verdict{protocol.StatusOK, "fake", "measured"})
	if got := string(rec.Outputs); got != `{"greeting":"30x100 then 40x120"}` {
		t.Errorf("outputs = %s; want the step to see 30x100, then 40x120", got)
	}
}

func TestInteractiveBeginEnd(t *testing.T) {
	var calls []string
	term := step.Terminal{
		Begin: func() error { calls = append(calls, "begin"); return nil },
		End:   func() { calls = append(calls, "end") },
	}
	rec := startInteractive(t, "tty-no-result", setup{}, term).wait(t)
	wantVerdict(t, rec, verdict{protocol.StatusFail, protocol.ReasonNoResult, "KUSAW_RESULT"})
	if rec.Events["progress"] != 1 {
		t.Errorf("events = %v; want the progress event before the exit", rec.Events)
	}
	if strings.Join(calls, ",") != "begin,end" {
		t.Errorf("Begin and End calls = %v; want begin,end", calls)
	}

	boom := errors.New("no raw mode")
	term = step.Terminal{Begin: func() error { return boom }, End: func() { t.Error("End after a failed Begin") }}
	rec = startInteractive(t, "tty-no-result", setup{}, term).wait(t)
	wantVerdict(t, rec, verdict{protocol.StatusFail, protocol.ReasonStartFailed, "no raw mode"})
}

func TestInteractiveVerdicts(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tests := []struct {
		name string
		s    setup
		want verdict
	}{
		{"tty-hang", setup{timeout: 2 * time.Second}, verdict{protocol.StatusKilled, protocol.ReasonTimeout, "no result within time_left_ms"}},
		{"tty-misplaced", setup{}, verdict{protocol.StatusFail, protocol.ReasonProtocolError, "KUSAW_EVENTS line 1: a result line in KUSAW_EVENTS"}},
		{"tty-bad-result", setup{}, verdict{protocol.StatusFail, protocol.ReasonProtocolError, ""}},
		{"tty-partial-end", setup{}, verdict{protocol.StatusOK, "fake", "done"}}, // a last line without its end, as on stdout
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := startInteractive(t, tt.name, tt.s, step.Terminal{}).wait(t)
			wantVerdict(t, rec, tt.want)
		})
	}
	t.Run("cancel", func(t *testing.T) {
		ss := startInteractive(t, "tty-hang", setup{ctx: ctx}, step.Terminal{})
		ss.screen.waitFor(t, "hanging")
		cancel()
		wantVerdict(t, ss.wait(t), verdict{protocol.StatusKilled, protocol.ReasonCancelled, "cancelled"})
	})
}

func TestInteractiveMisplacedIs(t *testing.T) {
	var got error
	obs := step.Observer{Problem: func(p *kevents.ProtocolError) { got = p }}
	startInteractive(t, "tty-misplaced", setup{observer: obs}, step.Terminal{}).wait(t)
	if !errors.Is(got, step.ErrResultInEvents) {
		t.Errorf("problem = %v; want ErrResultInEvents", got)
	}
}

// A process that left the step's group and holds its terminal does not
// hold up the attempt: the terminal is closed after drainDelay.
func TestInteractiveDaemon(t *testing.T) {
	start := time.Now()
	ss := startInteractive(t, "tty-daemon", setup{}, step.Terminal{})
	rec := ss.wait(t)
	if data, err := os.ReadFile(filepath.Join(ss.out, "artifacts", "daemon.pid")); err == nil {
		if pid, err := strconv.Atoi(string(data)); err == nil {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	wantVerdict(t, rec, verdict{protocol.StatusOK, "fake", "left a daemon"})
	// Where the runner may track the step in a cgroup it kills the daemon
	// (processes_left); elsewhere the daemon holds the terminal open.
	if !hasWarning(rec, "stdout_held_open") && !hasWarning(rec, step.WarnProcessesLeft) {
		t.Errorf("warnings = %+v; want processes_left or stdout_held_open", rec.Warnings)
	}
	if d := time.Since(start); d > time.Minute {
		t.Errorf("the attempt took %v", d)
	}
}

// Every goroutine of an interactive attempt is gone when Run returns: the
// input copy too, although the person never closed the input.
func TestInteractiveNoLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	ss := startInteractive(t, "tty-greet", setup{}, step.Terminal{})
	ss.screen.waitFor(t, "name? ")
	ss.keys.WriteString("Lin\n")
	ss.wait(t)
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines after the attempt; %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(20 * time.Millisecond)
	}
}
