package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"kusaw.dev/step/sandbox"
)

// The test binary is also the fake steps the runner starts
// (STEP_TEST_FAKE=name, with the KUSAW_PROTOCOL the runner sets) and
// kusaw-step itself (STEP_TEST_MAIN=1).
func TestMain(m *testing.M) {
	// A sandboxed step runs through the runner's own binary: here, this one.
	if code, ok := sandbox.RunHelper(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr); ok {
		os.Exit(code)
	}
	os.Setenv("GORACE", "atexit_sleep_ms=0") // fakes built with -race would each sleep 1 s at exit
	switch {
	case len(os.Args) > 2 && os.Args[1] == fakeArg && strings.HasPrefix(os.Args[2], "bench-") && os.Getenv("KUSAW_PROTOCOL") == "2":
		benchStep(os.Args[2])
	case strings.HasPrefix(os.Getenv("STEP_TEST_FAKE"), "bench-") && os.Getenv("KUSAW_PROTOCOL") == "2":
		benchStep(os.Getenv("STEP_TEST_FAKE"))
	case len(os.Args) > 2 && os.Args[1] == fakeArg && os.Getenv("KUSAW_PROTOCOL") == "2":
		fakeStep(os.Args[2])
	case os.Getenv("STEP_TEST_FAKE") != "" && os.Getenv("KUSAW_PROTOCOL") == "2":
		fakeStep(os.Getenv("STEP_TEST_FAKE"))
	case os.Getenv("STEP_TEST_MAIN") == "1":
		main()
	}
	code := m.Run()
	table.print(os.Stdout) // the figures of the side-by-side benchmarks, if any ran
	os.Exit(code)
}

// fakeArg and ttyFakeArg name a fake step in its arguments: TEST-BINARY
// __fake NAME. A handshake gets none of the runner's variables (it runs
// before the step declares any), so STEP_TEST_FAKE cannot carry it.
const (
	fakeArg    = "__fake"
	ttyFakeArg = "__ttyfake"
)

// fakeNeeds declares what the fakes need of the environment: the runner
// builds a step's environment; it does not inherit the test's.
const fakeNeeds = `"needs_env":[{"name":"STEP_TEST_FAKE","secret":false},{"name":"STEP_TEST_TTY_FAKE","secret":false},{"name":"GORACE","secret":false}]`

func fakeStep(name string) {
	if bench, ok := benchFakes[name]; ok {
		bench()
		os.Exit(0)
	}
	if os.Getenv("KUSAW_HANDSHAKE") == "1" {
		fmt.Println(`{"type":"handshake","name":"fake-` + name + `","version":"0.1.0","description":"a fake","interactive":false,"protocol_versions":[2],` + fakeNeeds + `}`)
		os.Exit(0)
	}
	fmt.Println(`{"type":"progress","message":"warming up","percent":10}`)
	if name == "slow" {
		fmt.Fprintf(os.Stderr, "slow: waiting for SIGTERM (pid %d)\n", os.Getpid())
		time.Sleep(time.Hour)
	}
	if name == "fail" {
		fmt.Println(`{"type":"result","protocol_version":2,"status":"fail","reason_code":"tests_failed","message":"2 tests failed"}`)
		os.Exit(0)
	}
	fmt.Println(`{"type":"usage","tokens_input":10,"tokens_output":2,"cost_usd":0.01}`)
	fmt.Println(`{"type":"result","protocol_version":2,"status":"ok","reason_code":"done","message":"all good","outputs":{"n":1}}`)
	os.Exit(0)
}

func TestRunOK(t *testing.T) {
	out := filepath.Join(t.TempDir(), "attempt")
	t.Setenv("STEP_TEST_FAKE", "ok")
	stdout, stderr, code := runCmdEnv(t, "run", "--out", out, "--worktree", t.TempDir(), os.Args[0], fakeArg, "ok")
	if code != exitOK {
		t.Fatalf("exit %d; stdout %s stderr %s", code, stdout, stderr)
	}
	for _, want := range []string{"fake-ok 0.1.0 — a fake", "warming up", "verdict  ok (done)", "message  all good", `outputs  {"n":1}`, "logs     " + out,
		"usage    12 tokens (10 in, 2 out) · $0.0100\n", " · exit status 0\n", "\nduration "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	for _, f := range []string{"request.json", "stdout.jsonl", "stderr.log", "result.json", "attempt.json", "artifacts"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("attempt folder: %v", err)
		}
	}
}

func TestRunJSON(t *testing.T) {
	out := filepath.Join(t.TempDir(), "attempt")
	t.Setenv("STEP_TEST_FAKE", "fail")
	stdout, _, code := runCmdEnv(t, "run", "--json", "--out", out, os.Args[0], fakeArg, "fail")
	if code != exitFailed {
		t.Errorf("exit %d; want 1 for a fail verdict", code)
	}
	var rec struct {
		Status, ReasonCode string `json:",case:ignore"`
		Events             map[string]int
	}
	if err := json.Unmarshal([]byte(stdout), &rec, json.MatchCaseInsensitiveNames(true)); err != nil {
		t.Fatalf("stdout is not one JSON record: %v\n%s", err, stdout)
	}
	if rec.Status != "fail" || rec.ReasonCode != "tests_failed" || rec.Events["progress"] != 1 {
		t.Errorf("record %+v", rec)
	}
	file, _ := os.ReadFile(filepath.Join(out, "attempt.json"))
	if strings.TrimSpace(string(file)) != strings.TrimSpace(stdout) {
		t.Errorf("--json printed another record than attempt.json:\n%s\n%s", stdout, file)
	}
}

func TestRunUsageErrors(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`{"protocol_version":2}`), 0o644)
	tests := []struct {
		args []string
		in   string
	}{
		{[]string{"run"}, "usage: kusaw-step run"},
		{[]string{"run", "--request", bad, "x"}, "missing properties"},
		{[]string{"run", "--mode", "bogus", "x"}, "mode"},
		{[]string{"run", "--config", "[1]", "x"}, "config"},
		{[]string{"run", "--log-level", "loud", "x"}, "--log-level"},
	}
	for _, tt := range tests {
		out, errs, code := runCmd(t, "", tt.args...)
		if code != exitUsage || !strings.Contains(out+errs, tt.in) {
			t.Errorf("kusaw-step %s: exit %d, %q; want exit 2 and %q", strings.Join(tt.args, " "), code, out+errs, tt.in)
		}
	}
}

// TestSIGINT runs kusaw-step as its own process, interrupts it while the
// step runs, and checks that the step's group is stopped and the record
// says cancelled; it exits 130.
func TestSIGINT(t *testing.T) {
	out := filepath.Join(t.TempDir(), "attempt")
	cmd := exec.Command(os.Args[0], "run", "--grace", "2s", "--out", out, os.Args[0], fakeArg, "slow")
	cmd.Env = append(os.Environ(), "STEP_TEST_MAIN=1", "STEP_TEST_FAKE=slow")
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		data, _ := os.ReadFile(filepath.Join(out, "stderr.log"))
		return bytes.Contains(data, []byte("waiting for SIGTERM"))
	})
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("kusaw-step after SIGINT: %v; want exit 130, as shells have it (issue 16 item 4)\n%s", err, stdout.String())
	}
	data, _ := os.ReadFile(filepath.Join(out, "attempt.json"))
	if !bytes.Contains(data, []byte(`"reason_code":"cancelled"`)) || !bytes.Contains(data, []byte(`"status":"killed"`)) {
		t.Errorf("attempt.json after SIGINT:\n%s", data)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// runCmdEnv is runCmd for commands that start the test binary as a step:
// STEP_TEST_FAKE is in the environment the step inherits.
func runCmdEnv(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), exitCode(err)
}
