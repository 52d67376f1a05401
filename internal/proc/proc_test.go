//go:build unix

package proc_test

import (
	"bufio"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"kusaw.dev/step/internal/proc"
)

func TestExit(t *testing.T) {
	tests := []struct {
		fake     string
		wantCode int
	}{
		{fake: "exit-0", wantCode: 0},
		{fake: "exit-3", wantCode: 3},
	}
	for _, tt := range tests {
		t.Run(tt.fake, func(t *testing.T) {
			checkGoroutines(t)
			p := start(t, helperCommand(t, tt.fake))
			waitExited(t, p, time.Minute)
			if got := p.State().ExitCode(); got != tt.wantCode {
				t.Errorf("State().ExitCode() = %d; want %d", got, tt.wantCode)
			}
			var exitErr *exec.ExitError
			if gotErr := errors.As(p.Err(), &exitErr); gotErr != (tt.wantCode != 0) {
				t.Errorf("Err() = %v; want an *exec.ExitError: %v", p.Err(), tt.wantCode != 0)
			}
		})
	}
}

func TestStartError(t *testing.T) {
	checkGoroutines(t)
	cmd := exec.Command(filepath.Join(t.TempDir(), "missing"))
	p, err := proc.Start(cmd)
	if !errors.Is(err, fs.ErrNotExist) || p != nil {
		t.Fatalf("Start(missing) = %v, %v; want nil, fs.ErrNotExist", p, err)
	}
	if !strings.HasPrefix(err.Error(), "proc: ") {
		t.Errorf("error %q lacks the prefix \"proc: \"", err)
	}
}

// TestStartNewGroup checks that the step leads its own group, that the
// caller's SysProcAttr is left alone, and that Reap kills a running step.
func TestStartNewGroup(t *testing.T) {
	checkGoroutines(t)
	cmd := helperCommand(t, "hang")
	attr := &syscall.SysProcAttr{}
	cmd.SysProcAttr = attr
	p := start(t, cmd)
	if pgid, err := syscall.Getpgid(p.Pid()); err != nil || pgid != p.Pid() {
		t.Errorf("Getpgid(%d) = %d, %v; want its own group", p.Pid(), pgid, err)
	}
	if attr.Setpgid {
		t.Error("Start modified the caller's SysProcAttr")
	}
	if p.State() != nil || p.Err() != nil || !p.Alive() {
		t.Errorf("running: State() = %v, Err() = %v, Alive() = %v; want nil, nil, true", p.State(), p.Err(), p.Alive())
	}
	if err := p.Reap(time.Minute); err != nil {
		t.Fatalf("Reap: %v", err)
	}
	assertKilled(t, p)
}

func TestStop(t *testing.T) {
	tests := []struct {
		name       string
		fake       string
		grace      time.Duration
		wantKilled bool
	}{
		{name: "ignores SIGTERM", fake: "ignore-sigterm", grace: 200 * time.Millisecond, wantKilled: true},
		{name: "exits on SIGTERM", fake: "polite", grace: time.Minute, wantKilled: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkGoroutines(t)
			r, w := pipe(t)
			cmd := helperCommand(t, tt.fake)
			cmd.Stdout = w
			p := start(t, cmd)
			w.Close()
			readLine(t, bufio.NewReader(r), r) // "ready": signal handling is set up
			if killed := p.Stop(tt.grace); killed != tt.wantKilled {
				t.Errorf("Stop(%v) = %v; want %v", tt.grace, killed, tt.wantKilled)
			}
			waitExited(t, p, time.Minute)
			if tt.wantKilled {
				assertKilled(t, p)
			} else if code := p.State().ExitCode(); code != 0 {
				t.Errorf("polite step: State() = %v; want exit status 0", p.State())
			}
			if p.Alive() || !isDead(p.Pid()) {
				t.Errorf("after Stop: Alive() = %v, isDead(%d) = %v; want false, true", p.Alive(), p.Pid(), isDead(p.Pid()))
			}
		})
	}
}

// TestStopAfterExit checks that Stop, Signal and Reap are harmless, and
// quick, once the group is gone.
func TestStopAfterExit(t *testing.T) {
	checkGoroutines(t)
	p := start(t, helperCommand(t, "exit-0"))
	waitExited(t, p, time.Minute)
	begin := time.Now()
	for i := range 2 {
		if p.Stop(time.Minute) {
			t.Errorf("Stop #%d after exit = true; want false", i+1)
		}
	}
	if err := p.Signal(syscall.SIGTERM); err != nil {
		t.Errorf("Signal after exit = %v; want nil", err)
	}
	if err := p.Reap(time.Minute); err != nil {
		t.Errorf("Reap after exit = %v; want nil", err)
	}
	if p.Alive() {
		t.Error("Alive() after exit = true")
	}
	if d := time.Since(begin); d > 30*time.Second {
		t.Errorf("Stop and Reap after exit took %v; want no waiting", d)
	}
}

// TestStopGrandchildHoldingPipe runs a step whose grandchild, in the same
// group, keeps the step's stdout open after the step exits. Stop must kill
// the grandchild so that the reader sees EOF. (That Alive turns false and no
// zombie is left is checked with a subreaper in TestReapLeavesNoZombie: here
// the dead grandchild belongs to whatever the system reparents it to.)
func TestStopGrandchildHoldingPipe(t *testing.T) {
	checkGoroutines(t)
	r, w := pipe(t)
	cmd := helperCommand(t, "grandchild")
	cmd.Stdout = w
	p := start(t, cmd)
	w.Close()
	br := bufio.NewReader(r)
	gpid := readPid(t, br, r)
	waitExited(t, p, time.Minute)
	assertPipeHeld(t, br, r)

	p.Stop(time.Second)
	if err := r.SetReadDeadline(time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if rest, err := io.ReadAll(br); err != nil {
		t.Fatalf("read after Stop = %q, %v; want EOF", rest, err)
	}
	waitDead(t, gpid, time.Minute)
}

// assertPipeHeld checks that a read from br blocks: someone holds the pipe.
func assertPipeHeld(t *testing.T, br *bufio.Reader, r *os.File) {
	t.Helper()
	if err := r.SetReadDeadline(time.Now().Add(100 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if b, err := br.ReadByte(); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read with grandchild alive = %q, %v; want a timeout", b, err)
	}
}

// assertKilled checks that p's leader has exited and was killed by SIGKILL.
func assertKilled(t *testing.T, p *proc.Process) {
	t.Helper()
	if p.State() == nil {
		t.Fatal("State() = nil; want the state of a killed leader")
	}
	ws, ok := p.State().Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("State() = %v; want killed by SIGKILL", p.State())
	}
}
