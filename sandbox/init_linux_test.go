package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"kusaw.dev/step/internal/proc"
)

// pipeBuf is Linux's PIPE_BUF: a write this size or less is atomic.
const pipeBuf = 4096

// The leave helper exists on Linux only.
func init() { helpers["leave"] = helperLeave }

// helperLeave is a step that leaves "sleep MARKER" running and exits:
// `leave daemon MARKER` in a session of its own (a setsid daemon),
// holding the step's stdout open; `leave child MARKER` in the step's
// process group. It prints the sleep's pid (as the sandbox sees it)
// first.
func helperLeave() int {
	mode, marker := os.Args[len(os.Args)-2], os.Args[len(os.Args)-1]
	cmd := exec.Command("sleep", marker)
	if mode == "daemon" {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		cmd.Stdout = os.Stdout
	}
	if err := cmd.Start(); err != nil {
		fmt.Println("start:", err)
		return 1
	}
	fmt.Println(cmd.Process.Pid)
	return 0
}

// runLeaving runs argv in pol's sandbox (the test binary as the runner's)
// and returns its stdout, exit error and what the init reported, with
// stopped as given.
func runLeaving(t *testing.T, pol *Policy, env []string, stopped bool, argv ...string) (string, error, []proc.Left, int) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	pol.Self = self
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append([]string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "GORACE=atexit_sleep_ms=0"}, env...)
	sb, err := Wrap(cmd, pol)
	if err != nil {
		t.Fatalf("Wrap: %v", err)
	}
	defer sb.Close()
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, os.Stderr
	// No timeout: the daemon holds stdout open, and only the init's kill
	// lets Run return (on a hang, go test's own timeout names this test).
	err = cmd.Run()
	left, more := sb.Leftovers(stopped)
	return out.String(), err, left, more
}

// uniqueSleep returns an argument for sleep that names one test's sleep
// among every process of the host.
func uniqueSleep() string {
	return fmt.Sprintf("%d.%d", 2000+os.Getpid()%1000, time.Now().UnixNano()%1000000000)
}

// TestInitReportsLeftovers is issue 11 item 6 under bwrap, where the pid
// namespace used to kill silently what the step left: the sandbox's init
// reports each process left running (pid as the sandbox sees it, and its
// command), kills it, and the runner reads the report. A member of the
// step's group is not reported when the runner stopped the step (it was
// sent SIGTERM too, as without a sandbox); a daemon always is.
func TestInitReportsLeftovers(t *testing.T) {
	needBwrap(t)
	t.Parallel()
	self, _ := os.Executable()
	for _, tc := range []struct {
		name     string
		mode     string
		network  string
		stopped  bool
		reported bool
	}{
		{name: "item 6: setsid daemon holding stdout", mode: "daemon", network: NetworkOpen, reported: true},
		{name: "item 6: setsid daemon, behind the egress bridge", mode: "daemon", network: NetworkAllowlist, reported: true},
		{name: "item 6: daemon, step stopped by the runner", mode: "daemon", network: NetworkOpen, stopped: true, reported: true},
		{name: "item 6: background child in the step's group", mode: "child", network: NetworkOpen, reported: true},
		{name: "item 6: child, step stopped by the runner", mode: "child", network: NetworkOpen, stopped: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			marker := uniqueSleep()
			t.Cleanup(func() { killSleepers(marker) })
			pol := &Policy{Backend: BackendBwrap, Network: tc.network, Allow: []string{"example.test"}}
			out, err, left, more := runLeaving(t, pol, []string{helperEnv + "=leave"}, tc.stopped, self, "leave", tc.mode, marker)
			if err != nil {
				t.Fatalf("step: %v, stdout %q", err, out)
			}
			pid, err := strconv.Atoi(strings.TrimSpace(out))
			if err != nil {
				t.Fatalf("step said %q", out)
			}
			want := []proc.Left{{Pid: pid, Command: "sleep " + marker}}
			if !tc.reported {
				want = nil
			}
			if fmt.Sprint(left) != fmt.Sprint(want) || more != 0 {
				t.Errorf("leftovers %v (+%d); want %v", left, more, want)
			}
			if pids := sleepers(marker); len(pids) > 0 {
				t.Errorf("the sleep outlived the sandbox: host pids %v", pids)
			}
		})
	}
}

// TestInitNoLeftovers: a step that waits for what it starts gets no
// report, and the init hands on its exit status as bwrap did: the code,
// or 128 plus the signal that killed it.
func TestInitNoLeftovers(t *testing.T) {
	needBwrap(t)
	t.Parallel()
	for _, tc := range []struct {
		name    string
		script  string
		network string
		code    int
	}{
		{"waits for its child", "sleep 0.1 & wait; exit 0", NetworkOpen, 0},
		{"exit 3", "exit 3", NetworkOpen, 3},
		{"exit 3 behind the bridge", "exit 3", NetworkAllowlist, 3},
		{"killed by SIGKILL", "kill -KILL $$", NetworkOpen, 128 + 9},
		{"killed by SIGTERM behind the bridge", "kill -TERM $$", NetworkAllowlist, 128 + 15},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			pol := &Policy{Backend: BackendBwrap, Network: tc.network, Allow: []string{"example.test"}}
			_, err, left, more := runLeaving(t, pol, nil, false, "/bin/sh", "-c", tc.script)
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.code || len(left) > 0 || more > 0 {
				t.Errorf("exit %d, leftovers %v (+%d); want exit %d and none", code, left, more, tc.code)
			}
		})
	}
}

// TestInitReportBounded: many processes left are reported as the first
// few and a count, each command cut, in one write a pipe takes whole.
func TestInitReportBounded(t *testing.T) {
	var grouped, detached []proc.Left
	for i := range 20 {
		grouped = append(grouped, proc.Left{Pid: 100 + i, Command: strings.Repeat("g", 300) + "\n"})
		detached = append(detached, proc.Left{Pid: 200 + i, Command: "sleep\x00\x01 1000 é" + strings.Repeat("é", 200)})
	}
	report := encodeReport(grouped, detached)
	if len(report) > pipeBuf {
		t.Fatalf("report of %d bytes; want at most PIPE_BUF (%d)", len(report), pipeBuf)
	}
	left, more := decodeReport(report, false)
	if len(left) != 2*reportMax || more != 40-2*reportMax {
		t.Fatalf("decoded %d processes and %d more; want %d and %d", len(left), more, 2*reportMax, 40-2*reportMax)
	}
	if left[0].Pid != 200 || !strings.HasPrefix(left[0].Command, "sleep   1000 é") || !strings.HasSuffix(left[0].Command, "…") {
		t.Errorf("first left %+v; want pid 200, its command cut and cleaned", left[0])
	}
	left, more = decodeReport(report, true)
	if len(left) != reportMax || more != 20-reportMax || left[0].Pid != 200 {
		t.Errorf("stopped: %v (+%d); want only the detached", left, more)
	}
}

// TestInitReportUnreachable: the step can neither inherit the init's
// report channel nor open it through /proc: a step that could would
// write its own report, or hold it open.
func TestInitReportUnreachable(t *testing.T) {
	needBwrap(t)
	t.Parallel()
	pol := &Policy{Backend: BackendBwrap, Network: NetworkOpen}
	script := `for fd in 3 4 5 6 7 8 9; do [ -e /proc/$$/fd/$fd ] && echo fd $fd: $(readlink /proc/$$/fd/$fd); done; ls /proc/$PPID/fd >/dev/null 2>&1 && echo init-fds-open; exit 0`
	out, err, _, _ := runLeaving(t, pol, nil, false, "/bin/sh", "-c", script)
	if err != nil {
		t.Fatal(err)
	}
	if out != "" {
		t.Errorf("the step has %q; want only its standard streams, and no way into the init's", out)
	}
}

// TestInitTouchesOnlyItsTree: the init kills what its step left and
// nothing else, wherever it runs: a process beside it (here, in a pid
// namespace that contains the test should that ever break) lives on.
func TestInitTouchesOnlyItsTree(t *testing.T) {
	needTool(t, "unshare")
	t.Parallel()
	self, _ := os.Executable()
	report := filepath.Join(t.TempDir(), "report")
	script := `sleep 1000 & bystander=$!
"$0" __init 3 4 -- /bin/sh -c 'sleep 999 & echo $!' 3>"$1" 4</dev/null
kill -0 $bystander && echo bystander-alive; kill $bystander`
	cmd := exec.Command("unshare", "--pid", "--fork", "--mount-proc", "/bin/sh", "-c", script, self, report)
	cmd.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=0")
	out, err := cmd.CombinedOutput()
	if err != nil && strings.Contains(string(out), "unshare") {
		t.Skipf("no pid namespace for the test: %v: %s", err, out)
	}
	lines := strings.Fields(string(out))
	data, _ := os.ReadFile(report)
	if len(lines) != 2 || lines[1] != "bystander-alive" {
		t.Fatalf("output %q (%v); want the leftover's pid, then bystander-alive", out, err)
	}
	// The command may still be the shell's, the child not yet exec'd.
	if want := "g " + lines[0] + " "; !strings.HasPrefix(string(data), want) || strings.Count(string(data), "\n") != 1 {
		t.Errorf("report %q; want one line, starting %q", data, want)
	}
}

// TestInitEndsForkingLeftover: a process left behind that keeps forking
// is ended with every child it made, however they raced the kill.
func TestInitEndsForkingLeftover(t *testing.T) {
	needBwrap(t)
	t.Parallel()
	marker := uniqueSleep()
	t.Cleanup(func() { killSleepers(marker) })
	pol := &Policy{Backend: BackendBwrap, Network: NetworkOpen}
	script := `setsid /bin/sh -c 'for i in $(seq 300); do sleep ` + marker + ` & done; wait' </dev/null >/dev/null 2>&1 &
until pgrep -f "sleep ` + marker + `" >/dev/null; do :; done; exit 0`
	_, err, left, more := runLeaving(t, pol, nil, false, "/bin/sh", "-c", script)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) == 0 {
		t.Errorf("no leftover reported (+%d)", more)
	}
	if pids := sleepers(marker); len(pids) > 0 {
		t.Errorf("%d sleeps outlived the sandbox", len(pids))
	}
}

// TestInitStopKeepsGroupGrace: when the runner stops the step (SIGTERM to
// the sandbox), what is left of the step's group when it exits keeps its
// grace to clean up, as without a sandbox, and is not reported.
func TestInitStopKeepsGroupGrace(t *testing.T) {
	needBwrap(t)
	t.Parallel()
	dir := visibleDir(t)
	self, _ := os.Executable()
	script := `/bin/sh -c 'trap "sleep 0.5; echo done > cleaned; exit 0" TERM; touch ready; while :; do sleep 0.05; done' &
until [ -e ready ]; do sleep 0.01; done
trap 'exit 0' TERM
echo ready
while :; do sleep 0.05; done`
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Dir = dir
	pol := bwrapPolicy(dir)
	pol.Self = self
	sb, _ := startReady(t, cmd, pol)
	syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) // as the runner's Stop
	err := cmd.Wait()
	left, more := sb.Leftovers(true)
	if err != nil || len(left) > 0 || more > 0 {
		t.Errorf("exit %v, leftovers %v (+%d); want 0 and none", err, left, more)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "cleaned")); string(b) != "done\n" {
		t.Errorf("the step's child was cut short of its grace: cleaned %q", b)
	}
}

// TestInitKillZero: a step that ends with `kill 0` (a common shell idiom
// to end its children) signals its own group, not the init, which then
// still kills and reports what ignored that SIGTERM.
func TestInitKillZero(t *testing.T) {
	needBwrap(t)
	t.Parallel()
	marker := uniqueSleep()
	t.Cleanup(func() { killSleepers(marker) })
	script := `/bin/sh -c 'trap "" TERM; exec sleep ` + marker + `' &
until pgrep -f "^sleep ` + marker + `" >/dev/null; do :; done
trap 'kill 0' EXIT
exit 0`
	pol := &Policy{Backend: BackendBwrap, Network: NetworkOpen}
	timer := time.AfterFunc(2*time.Minute, func() { killSleepers(marker) }) // a hang would be the init waiting for the sleep
	defer timer.Stop()
	_, err, left, _ := runLeaving(t, pol, nil, false, "/bin/sh", "-c", script)
	if len(left) != 1 || left[0].Command != "sleep "+marker {
		t.Errorf("exit %v, leftovers %v; want the sleep that ignored SIGTERM", err, left)
	}
}

// TestInitOnTerminal: an interactive step (Policy.Terminal) leads the
// terminal's foreground group under the init: it reads the terminal, and
// ^C reaches it (the init lives on and hands on its exit status).
func TestInitOnTerminal(t *testing.T) {
	needBwrap(t)
	t.Parallel()
	ptm, pts, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptm.Close()
	self, _ := os.Executable()
	script := `trap 'echo got-int; exit 5' INT; echo ready; read line; echo "got $line"; while :; do sleep 0.05; done`
	cmd := exec.Command("/bin/sh", "-c", script)
	pol := &Policy{Backend: BackendBwrap, Network: NetworkOpen, Terminal: true, Self: self}
	sb, err := Wrap(cmd, pol)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = pts, pts, pts
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pts.Close()
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	var seen strings.Builder
	r := bufio.NewReader(ptm)
	expect := func(want string) {
		t.Helper()
		for !strings.Contains(seen.String(), want) {
			line, err := r.ReadString('\n')
			seen.WriteString(line)
			if err != nil {
				cmd.Process.Kill()
				t.Fatalf("terminal said %q, then %v; want %q", seen.String(), err, want)
			}
		}
	}
	expect("ready")
	ptm.WriteString("hello\n")
	expect("got hello")
	ptm.WriteString("\x03")
	expect("got-int")
	err = <-waited
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 5 {
		t.Errorf("exit %v; want 5, the step's", err)
	}
}
