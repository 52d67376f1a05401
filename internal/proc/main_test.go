//go:build unix

package proc_test

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"kusaw.dev/step/internal/proc"
)

// fakeEnv names the fake step the test binary runs as (see TestMain).
const fakeEnv = "KUSAW_PROC_TEST_FAKE"

// fakes are the steps the test binary can be re-executed as. A fake returns
// an error to exit 1 with that message on stderr, nil to exit 0.
// Linux-only fakes are added in fakes_linux_test.go.
var fakes = map[string]func() error{
	"exit-0":         func() error { return nil },
	"exit-3":         func() error { os.Exit(3); return nil },
	"hang":           hang,
	"ignore-sigterm": ignoreSIGTERM,
	"polite":         polite,
	"grandchild":     grandchild,
}

// fakeUsed records which fakes a test started, for TestMain's check.
var fakeUsed sync.Map

// TestMain runs the fake named by fakeEnv, if any; otherwise it runs the
// tests and fails if, in a full run, a registered fake went unused.
func TestMain(m *testing.M) {
	if name, ok := os.LookupEnv(fakeEnv); ok {
		os.Exit(runFake(name))
	}
	code := m.Run()
	if code == 0 && !filtered() {
		code = checkFakesUsed()
	}
	os.Exit(code)
}

// runFake runs the named fake and returns its exit code.
func runFake(name string) int {
	f, ok := fakes[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "unknown fake %q\n", name)
		return 2
	}
	if err := f(); err != nil {
		fmt.Fprintf(os.Stderr, "fake %s: %v\n", name, err)
		return 1
	}
	return 0
}

// filtered reports whether -run, -skip or -list selected only some tests.
func filtered() bool {
	for _, name := range []string{"test.run", "test.skip", "test.list"} {
		if f := flag.Lookup(name); f != nil && f.Value.String() != "" {
			return true
		}
	}
	return false
}

// checkFakesUsed returns 1 if a registered fake was never started.
func checkFakesUsed() int {
	code := 0
	for name := range fakes {
		if _, ok := fakeUsed.Load(name); !ok {
			fmt.Fprintf(os.Stderr, "fake step %q is registered but unused\n", name)
			code = 1
		}
	}
	return code
}

// fakeCommand returns a command that runs the test binary as the named fake.
func fakeCommand(name string) (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), fakeEnv+"="+name)
	if _, ok := os.LookupEnv("GORACE"); !ok {
		// Under -race, a fake would otherwise wait a second before exiting.
		cmd.Env = append(cmd.Env, "GORACE=atexit_sleep_ms=0")
	}
	return cmd, nil
}

// helperCommand is fakeCommand for a test, and marks the fake as used.
func helperCommand(t *testing.T, name string) *exec.Cmd {
	t.Helper()
	if _, ok := fakes[name]; !ok {
		t.Fatalf("no fake step %q", name)
	}
	fakeUsed.Store(name, true)
	cmd, err := fakeCommand(name)
	if err != nil {
		t.Fatal(err)
	}
	return cmd
}

// hang sleeps far longer than any test.
func hang() error {
	time.Sleep(time.Hour)
	return nil
}

// ignoreSIGTERM ignores SIGTERM, says "ready", and hangs.
func ignoreSIGTERM() error {
	signal.Ignore(syscall.SIGTERM)
	fmt.Println("ready")
	return hang()
}

// polite says "ready" and exits 0 on SIGTERM.
func polite() error {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGTERM)
	fmt.Println("ready")
	select {
	case <-c:
		return nil
	case <-time.After(time.Hour):
		return errors.New("no SIGTERM")
	}
}

// grandchild starts a hanging grandchild, which stays in the step's process
// group and shares its stdout, prints the grandchild's pid, and exits
// without waiting for it.
func grandchild() error {
	cmd, err := fakeCommand("hang")
	if err != nil {
		return err
	}
	cmd.Stdout = os.Stdout
	if err := cmd.Start(); err != nil {
		return err
	}
	fmt.Println(cmd.Process.Pid)
	return nil
}

// start starts cmd with proc.Start and, at cleanup, kills the group and
// waits for the leader.
func start(t *testing.T, cmd *exec.Cmd) *proc.Process {
	t.Helper()
	p, err := proc.Start(cmd)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		_ = p.Signal(syscall.SIGKILL)
		if !exitedWithin(p, time.Minute) {
			t.Errorf("leader %d still running at cleanup", p.Pid())
		}
	})
	return p
}

// exitedWithin reports whether p's leader exits within d.
func exitedWithin(p *proc.Process, d time.Duration) bool {
	select {
	case <-p.Exited():
		return true
	case <-time.After(d):
		return false
	}
}

// waitExited fails the test unless p's leader exits within d.
func waitExited(t *testing.T, p *proc.Process, d time.Duration) {
	t.Helper()
	if !exitedWithin(p, d) {
		t.Fatalf("leader %d has not exited after %v", p.Pid(), d)
	}
}

// pipe returns an os.Pipe whose ends are closed at cleanup.
func pipe(t *testing.T) (r, w *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

// readLine reads one line from br, which reads r, within a generous deadline.
func readLine(t *testing.T, br *bufio.Reader, r *os.File) string {
	t.Helper()
	if err := r.SetReadDeadline(time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	line, err := br.ReadString('\n')
	if err != nil {
		t.Fatalf("read line from step: %q, %v", line, err)
	}
	return strings.TrimSuffix(line, "\n")
}

// readPid reads a line holding a pid.
func readPid(t *testing.T, br *bufio.Reader, r *os.File) int {
	t.Helper()
	line := readLine(t, br, r)
	pid, err := strconv.Atoi(line)
	if err != nil {
		t.Fatalf("step printed %q; want a pid", line)
	}
	return pid
}

// isDead reports whether pid no longer exists or is a zombie.
func isDead(pid int) bool {
	if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
		return true
	}
	state, _, err := procStat(pid)
	return err == nil && state == 'Z'
}

// waitDead fails the test unless pid is dead (see isDead) within d.
// It polls with a deadline.
func waitDead(t *testing.T, pid int, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !isDead(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d still alive after %v", pid, d)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// procStat returns the state and parent pid of pid from /proc (Linux).
func procStat(pid int) (state byte, ppid int, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, err
	}
	// "pid (comm) state ppid ...", and comm may contain anything.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 2 {
		return 0, 0, fmt.Errorf("short /proc/%d/stat: %q", pid, b)
	}
	ppid, err = strconv.Atoi(f[1])
	return f[0][0], ppid, err
}

// checkGoroutines fails the test if, at cleanup, more goroutines run than
// when it was called. It waits a bounded time for goroutines to finish.
func checkGoroutines(t *testing.T) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(10 * time.Second)
		for runtime.NumGoroutine() > before {
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<20)
				buf = buf[:runtime.Stack(buf, true)]
				t.Errorf("goroutines: %d before, %d after:\n%s", before, runtime.NumGoroutine(), buf)
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}
