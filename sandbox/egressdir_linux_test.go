package sandbox

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// startEgressRunner starts helperEgressRunner with tmp as its TMPDIR and
// waits until its sandbox runs.
func startEgressRunner(t *testing.T, tmp string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), helperEnv+"=egress-runner", "TMPDIR="+tmp)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, _ := bufio.NewReader(out).ReadString('\n')
	if strings.TrimSpace(line) != "started" {
		t.Fatalf("egress runner: %q", line)
	}
	return cmd
}

func egressDirs(t *testing.T, tmp string) []string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(tmp, egressDirPattern))
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

// Issue 11 item 12: a runner killed by SIGKILL leaves its egress socket
// folder behind; the next sandbox with a proxy removes it, and leaves the
// folder of a runner still alive alone.
func TestStaleEgressDirCleaned(t *testing.T) {
	needBwrap(t)
	tmp := t.TempDir()
	killed := startEgressRunner(t, tmp)
	stale := egressDirs(t, tmp)
	if len(stale) != 1 {
		t.Fatalf("egress folders after one runner started: %v; want one", stale)
	}
	killed.Process.Kill()
	killed.Wait()
	if _, err := os.Stat(stale[0]); err != nil {
		t.Fatalf("the killed runner's folder is already gone (%v): the test proves nothing", err)
	}
	startEgressRunner(t, tmp) // alive: its folder must stay
	live := egressDirs(t, tmp)
	if len(live) != 1 || live[0] == stale[0] {
		t.Errorf("item 12: egress folders after a second runner started: %v; want only the live one, not %s", live, stale[0])
	}
}
