package proc_test

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"testing"
	"time"

	"kusaw.dev/step/internal/proc"
)

// TestStepDiesWithRunner kills (SIGKILL, no chance to clean up) a runner
// process that started a step with proc.Start: Pdeathsig must kill the step,
// which lives in a group of its own that nobody else signals.
func TestStepDiesWithRunner(t *testing.T) {
	checkGoroutines(t)
	r, w := pipe(t)
	cmd := helperCommand(t, "pdeath-parent")
	cmd.Stdout = w
	runner := start(t, cmd)
	w.Close()
	step := readPid(t, bufio.NewReader(r), r)
	t.Cleanup(func() {
		if !isDead(step) {
			syscall.Kill(step, syscall.SIGKILL)
		}
	})
	if isDead(step) {
		t.Fatalf("step %d is dead before its runner was killed", step)
	}
	if err := syscall.Kill(runner.Pid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitExited(t, runner, time.Minute)
	waitDead(t, step, time.Minute)
}

// TestStartSurvivesCallerThreadExit calls Start from a goroutine that locks
// its thread and ends without unlocking it, so the runtime ends the thread.
// Pdeathsig follows the thread that forked the child; the step must live on,
// because Start forks from a thread of its own.
func TestStartSurvivesCallerThreadExit(t *testing.T) {
	checkGoroutines(t)
	p, tid, err := startOnEndingThread(helperCommand(t, "hang"))
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { p.Reap(time.Minute) })
	waitThreadEnded(t, tid)
	if exitedWithin(p, time.Second) {
		t.Fatalf("step died with the thread that called Start: %v", p.State())
	}
}

// startOnEndingThread calls proc.Start from a goroutine that locks its
// thread and never unlocks it, so the thread ends with the goroutine. It
// returns the id of that thread.
func startOnEndingThread(cmd *exec.Cmd) (p *proc.Process, tid int, err error) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		if tid = syscall.Gettid(); tid == os.Getpid() {
			// The runtime never ends the main thread. Keep it locked
			// here, so the nested call gets another thread.
			defer runtime.UnlockOSThread()
			p, tid, err = startOnEndingThread(cmd)
			return
		}
		p, err = proc.Start(cmd)
	}()
	<-done
	return p, tid, err
}

// waitThreadEnded fails the test unless thread tid of this process ends
// within a bounded time.
func waitThreadEnded(t *testing.T, tid int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		_, err := os.Stat(fmt.Sprintf("/proc/self/task/%d", tid))
		if errors.Is(err, fs.ErrNotExist) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("thread %d did not end: %v", tid, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestReapLeavesNoZombie runs subreaperHost, which becomes a child
// subreaper: that would change how orphans of every other test are handled,
// so it is a process of its own.
func TestReapLeavesNoZombie(t *testing.T) {
	checkGoroutines(t)
	out, err := os.Create(t.TempDir() + "/out")
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd := helperCommand(t, "subreaper-host")
	cmd.Stdout, cmd.Stderr = out, out
	p := start(t, cmd)
	waitExited(t, p, 2*time.Minute)
	if p.State().ExitCode() != 0 {
		b, _ := os.ReadFile(out.Name())
		t.Fatalf("subreaper host: %v\n%s", p.State(), b)
	}
}
