package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// helperEnv selects a helper process; its name must not start with
// KUSAW_, which the runner strips.
const helperEnv = "SANDBOX_TEST_HELPER"

// helpers are the fake processes the test binary can become.
var helpers = map[string]func() int{
	"runner":        helperRunner,
	"egress-runner": helperEgressRunner,
}

// TestMain makes the test binary the runner's binary too: inside the
// sandbox Wrap runs it as the bridge (Policy.Self), and a helper process
// selected by helperEnv runs a helper.
func TestMain(m *testing.M) {
	if code, ok := RunHelper(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr); ok {
		os.Exit(code)
	}
	if name := os.Getenv(helperEnv); name != "" {
		os.Exit(helpers[name]())
	}
	os.Exit(m.Run())
}

// helperRunner plays a runner that starts a sandboxed step (the argv
// after "--" in its arguments), says so on stdout, and waits to be killed.
func helperRunner() int {
	argv := os.Args[len(os.Args)-2:]
	cmd := exec.Command(argv[0], argv[1:]...)
	self, _ := os.Executable()
	return startAndHang(cmd, &Policy{Backend: BackendBwrap, Network: NetworkOpen, Self: self})
}

// startAndHang starts cmd in pol's sandbox, prints "started" and waits to
// be killed: a runner the test can kill at its worst moment.
func startAndHang(cmd *exec.Cmd, pol *Policy) int {
	sb, err := Wrap(cmd, pol)
	if err != nil {
		fmt.Println("wrap:", err)
		return 1
	}
	defer sb.Close()
	if err := cmd.Start(); err != nil {
		fmt.Println("start:", err)
		return 1
	}
	fmt.Println("started")
	time.Sleep(time.Minute)
	return 0
}

// needBwrap skips t when bwrap cannot run here, saying why.
func needBwrap(t *testing.T) {
	t.Helper()
	if err := Available(BackendBwrap); err != nil {
		t.Skipf("bwrap cannot run here: %v", err)
	}
}

// needTool skips t when a program the test runs is missing.
func needTool(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Skipf("%s not installed: %v", name, err)
	}
}

// sandboxed runs argv inside pol's sandbox (the test binary as bridge)
// and returns its stdout and stderr; err is the exit error, if any.
func sandboxed(t *testing.T, pol *Policy, env []string, argv ...string) (string, string, error) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	pol.Self = self
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append([]string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "GORACE=atexit_sleep_ms=0"}, env...)
	sb, err := Wrap(cmd, pol)
	if err != nil {
		t.Fatalf("Wrap: %v", err)
	}
	defer sb.Close()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	return stdout.String(), stderr.String(), err
}

// visibleDir returns a new folder outside /tmp and the homes, so visible
// (read-only) inside the sandbox: in the package's folder.
func visibleDir(t *testing.T) string {
	dir, err := os.MkdirTemp(".", ".kusaw-sandbox-test-")
	if err == nil {
		dir, err = filepath.Abs(dir)
	}
	if err != nil || hidden(dir) {
		t.Skipf("no folder outside /tmp and the homes to test with: %s %v", dir, err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func bwrapPolicy(writable ...string) *Policy {
	return &Policy{Backend: BackendBwrap, Network: NetworkOpen, Writable: writable}
}
