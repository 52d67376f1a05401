package step_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"kusaw.dev/step/sandbox"
)

// hostileHandshake is a handshake branch that acts as an attacker would
// (issue 11 item 1): it writes outside the worktree (os.Args[3]), starts
// a setsid daemon (sleep os.Args[4]), reads an operator variable and
// prints it with os.Args[5] (a secret of the operator's command line) on
// stderr and in its description, then answers, or fails with
// os.Args[6] == "fail".
func hostileHandshake() {
	args := os.Args[3:]
	os.WriteFile(args[0], []byte("escaped"), 0o644)
	daemon := exec.Command("sleep", args[1])
	daemon.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	daemon.Start()
	leaked := os.Getenv("RUNNER_ONLY")
	os.Stderr.WriteString("RUNNER_ONLY=" + leaked + " secret " + args[2] + "\n")
	if args[3] == "fail" {
		os.Exit(1)
	}
	say(strings.Replace(sandboxedHandshake, `"name":"fake"`, `"name":"fake","description":"RUNNER_ONLY=`+leaked+`"`, 1))
}

// processesRunning returns the pids of the processes whose argv is argv.
func processesRunning(argv ...string) []int {
	want := []byte(strings.Join(argv, "\x00") + "\x00")
	var pids []int
	paths, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil && bytes.Equal(b, want) {
			pid, _ := strconv.Atoi(strings.Split(p, "/")[2])
			pids = append(pids, pid)
		}
	}
	return pids
}

// TestHandshakeSandboxed is issue 11 item 1: the handshake runs in the
// attempt's sandbox with the built environment, and what it prints is
// masked, also when it fails.
func TestHandshakeSandboxed(t *testing.T) {
	needBwrap(t)
	for _, how := range []string{"answer", "fail"} {
		t.Run(how, func(t *testing.T) {
			outside := filepath.Join(t.TempDir(), "escaped")
			marker := fmt.Sprintf("3%d%d", os.Getpid(), len(how)) // an argv no other process has
			rec, _ := runAttempt(t, "hs-hostile", setup{
				env:     []string{"RUNNER_ONLY=operator-token-1234"},
				sandbox: &sandbox.Options{Flags: sandbox.Flags{Mode: "bwrap"}, Secrets: map[string]string{"MY_TOKEN": secretValue}},
				args:    []string{outside, marker, secretValue, how},
			})
			if pids := processesRunning("sleep", marker); len(pids) > 0 {
				for _, pid := range pids {
					syscall.Kill(pid, syscall.SIGKILL)
				}
				t.Errorf("the handshake's setsid daemon outlived it: pids %v", pids)
			}
			if _, err := os.Stat(outside); err == nil {
				t.Errorf("the handshake wrote %s, outside the worktree", outside)
			}
			data, err := os.ReadFile(filepath.Join(filepath.Dir(rec.RequestPath), "attempt.json"))
			if err != nil {
				t.Fatal(err)
			}
			for _, bad := range []string{"operator-token-1234", secretValue} {
				if bytes.Contains(data, []byte(bad)) {
					t.Errorf("attempt.json holds %q:\n%s", bad, data)
				}
			}
			if how == "answer" {
				wantVerdict(t, rec, verdict{"ok", "fake", "done"})
				return
			}
			wantVerdict(t, rec, verdict{"fail", "handshake_failed", "exited with status 1"})
			if !strings.Contains(rec.Diagnosis, "RUNNER_ONLY= secret ***") {
				t.Errorf("diagnosis = %q; want the stderr tail, masked", rec.Diagnosis)
			}
		})
	}
}
