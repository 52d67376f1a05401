package sandbox

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestWriteOnlyToWritable(t *testing.T) {
	needBwrap(t)
	t.Parallel()
	rw, ro := t.TempDir(), visibleDir(t)
	scratch := fmt.Sprintf("/tmp/kusaw-sandbox-scratch-%d", os.Getpid())
	script := `echo a > "$1/ok" && echo wrote-rw
echo b > "$2/no" 2>/dev/null && echo wrote-ro
echo c > /etc/kusaw-sandbox-test 2>/dev/null && echo wrote-etc
echo d > "$3" && echo wrote-tmp
for fd in /proc/self/fd/*; do readlink "$fd"; done
exit 0`
	out, stderr, err := sandboxed(t, bwrapPolicy(rw), nil, "/bin/sh", "-c", script, "sh", rw, ro, scratch)
	if err != nil {
		t.Fatalf("step: %v\n%s", err, stderr)
	}
	for _, want := range []string{"wrote-rw", "wrote-tmp"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %s:\n%s", want, out)
		}
	}
	for _, bad := range []string{"wrote-ro", "wrote-etc"} {
		if strings.Contains(out, bad) {
			t.Errorf("the step could write outside its writable folders (%s):\n%s", bad, out)
		}
	}
	if _, err := os.Stat(filepath.Join(ro, "no")); err == nil {
		t.Error("a file appeared in the read-only folder")
	}
	if _, err := os.Stat(scratch); err == nil {
		t.Error("the sandbox's /tmp is the host's")
	}
	if strings.Contains(out, rw+"\n") {
		t.Errorf("a descriptor of the writable folder leaked into the step:\n%s", out)
	}
}

func TestNeverRootInside(t *testing.T) {
	needBwrap(t)
	needTool(t, "mount")
	t.Parallel()
	out, _, err := sandboxed(t, bwrapPolicy(), nil, "/bin/sh", "-c",
		`id -u; grep CapEff /proc/self/status; mount -o remount,rw / 2>&1; echo "mount=$?"`)
	if err != nil {
		t.Fatalf("step: %v", err)
	}
	if strings.HasPrefix(out, "0\n") {
		t.Errorf("uid 0 inside:\n%s", out)
	}
	if !strings.Contains(out, "CapEff:\t0000000000000000") {
		t.Errorf("capabilities inside:\n%s", out)
	}
	if strings.Contains(out, "mount=0") {
		t.Fatalf("/ was remounted read-write inside:\n%s", out)
	}
}

func TestSymlinkBindSourceRefused(t *testing.T) {
	needBwrap(t)
	t.Parallel()
	base, target := t.TempDir(), t.TempDir()
	link := filepath.Join(base, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{link, filepath.Join(link, "sub")} {
		os.MkdirAll(filepath.Join(target, "sub"), 0o755)
		cmd := exec.Command("/bin/sh", "-c", "echo x > "+dir+"/pwned")
		_, err := Wrap(cmd, bwrapPolicy(dir))
		if err == nil {
			t.Fatalf("Wrap accepted the symlinked writable folder %s", dir)
		}
		if !errors.Is(err, syscall.ELOOP) {
			t.Errorf("Wrap(%s) = %v; want ELOOP", dir, err)
		}
	}
	if entries, _ := os.ReadDir(target); len(entries) != 1 {
		t.Errorf("the symlink's target was written: %v", entries)
	}
}

func TestHostSocketsHidden(t *testing.T) {
	needBwrap(t)
	t.Parallel()
	var paths []string
	for _, dir := range []string{t.TempDir(), "/run", "/var/tmp"} {
		path := filepath.Join(dir, fmt.Sprintf("kusaw-test-%d.sock", os.Getpid()))
		ln, err := net.Listen("unix", path)
		if err != nil {
			t.Logf("cannot make a socket in %s: %v", dir, err)
			continue
		}
		t.Cleanup(func() { ln.Close() })
		paths = append(paths, path)
	}
	for _, path := range paths {
		out, _, err := sandboxed(t, bwrapPolicy(), nil, "/bin/sh", "-c", `test -e "$1" && echo visible || echo hidden`, "sh", path)
		if err != nil || strings.TrimSpace(out) != "hidden" {
			t.Errorf("host socket %s inside the sandbox: %q, %v", path, out, err)
		}
	}
}

func TestLoopbackUnreachableUnderAllowlist(t *testing.T) {
	needBwrap(t)
	needTool(t, "curl")
	t.Parallel()
	srv := newOrigin(t)
	pol := &Policy{Backend: BackendBwrap, Network: NetworkAllowlist, Allow: []string{"*.example.test"}}
	out, _, err := sandboxed(t, pol, nil, "curl", "-sS", "--noproxy", "*", "--max-time", "10", "-o", "/dev/null", "-w", "%{http_code}", srv.URL)
	if err == nil {
		t.Fatalf("the host's loopback server answered inside the sandbox: %s", out)
	}
}

func TestKillRunnerKillsStep(t *testing.T) {
	needBwrap(t)
	t.Parallel()
	marker := fmt.Sprintf("%d.%d", 1000+os.Getpid()%1000, time.Now().UnixNano()%1000000)
	self, _ := os.Executable()
	helper := exec.Command(self, "--", "sleep", marker)
	helper.Env = append(os.Environ(), helperEnv+"=runner", "GORACE=atexit_sleep_ms=0")
	stdout, err := helper.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if line != "started\n" {
		helper.Process.Kill()
		helper.Wait()
		t.Fatalf("helper: %q", line)
	}
	t.Cleanup(func() { killSleepers(marker) })
	waitFor(t, "the sleeper to start", func() bool { return len(sleepers(marker)) > 0 })
	helper.Process.Signal(syscall.SIGKILL)
	helper.Wait()
	waitFor(t, "the sleeper to die with the runner", func() bool { return len(sleepers(marker)) == 0 })
}

// sleepers returns the live processes running "sleep marker" (and the
// bwrap processes running them).
func sleepers(marker string) []int {
	want := []byte("sleep\x00" + marker + "\x00")
	matches, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	var pids []int
	for _, m := range matches {
		if b, err := os.ReadFile(m); err == nil && bytes.HasSuffix(b, want) {
			pid, _ := strconv.Atoi(strings.Split(m, "/")[2])
			pids = append(pids, pid)
		}
	}
	return pids
}

// killSleepers kills what a failed test left behind.
func killSleepers(marker string) {
	for _, pid := range sleepers(marker) {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

// waitFor polls cond for up to 20 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// TestStopIsGraceful: SIGTERM to the runner's process group reaches the
// step inside the sandbox (bwrap alone would die of it and SIGKILL the
// step), which stops in its own way.
func TestStopIsGraceful(t *testing.T) {
	needBwrap(t)
	t.Parallel()
	self, _ := os.Executable()
	cmd := exec.Command("/bin/sh", "-c", `trap 'echo got-term; exit 7' TERM; sleep 60 & echo ready; wait`)
	_, r := startReady(t, cmd, &Policy{Backend: BackendBwrap, Network: NetworkAllowlist, Self: self})
	syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	rest, _ := r.ReadString('\n')
	err := cmd.Wait()
	var ee *exec.ExitError
	if rest != "got-term\n" || !errors.As(err, &ee) || ee.ExitCode() != 7 {
		t.Errorf("after SIGTERM: %q, %v; want got-term and exit 7", rest, err)
	}
}

// startReady wraps cmd in the sandbox of pol, starts it in a process group
// of its own, as the runner does, and waits for its first line, "ready".
// It returns the sandbox, closed when the test ends, and the rest of the
// step's stdout.
func startReady(t *testing.T, cmd *exec.Cmd, pol *Policy) (*Sandbox, *bufio.Reader) {
	t.Helper()
	sb, err := Wrap(cmd, pol)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(stdout)
	if line, _ := r.ReadString('\n'); line != "ready\n" {
		cmd.Process.Kill()
		t.Fatalf("step said %q", line)
	}
	return sb, r
}
