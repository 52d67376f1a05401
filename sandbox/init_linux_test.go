package sandbox

import (
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
"$0" __init 3 -- /bin/sh -c 'sleep 999 & echo $!' 3>"$1"
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
	if want := "g " + lines[0] + " sleep 999\n"; string(data) != want {
		t.Errorf("report %q; want %q", data, want)
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
