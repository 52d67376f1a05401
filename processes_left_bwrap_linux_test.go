package step_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	step "kusaw.dev/step"
	"kusaw.dev/step/internal/proc"
	"kusaw.dev/step/sandbox"
)

func init() {
	fakes["killed-by-signal"] = func() { events(1); syscall.Kill(os.Getpid(), syscall.SIGKILL) }
}

// TestProcessesLeftUnderBwrap is issue 11 item 6 under bwrap, whose pid
// namespace used to kill what the step left silently: the sandbox's init
// reports each process (pid as the step saw it, and command), so the
// record warns processes_left as it does without a sandbox, and nothing
// outlives the attempt. A step that waits for what it starts gets no
// warning.
func TestProcessesLeftUnderBwrap(t *testing.T) {
	needBwrap(t)
	t.Parallel()
	for _, tc := range []struct {
		fake string
		left bool
	}{
		{fake: "daemon", left: true},     // a setsid daemon holding stdout
		{fake: "grandchild", left: true}, // a background child in the step's group
		{fake: "ok"},
	} {
		t.Run(tc.fake, func(t *testing.T) {
			t.Parallel()
			rec, out := runAttempt(t, tc.fake, setup{sandbox: &sandbox.Options{Flags: sandbox.Flags{Mode: "bwrap"}}})
			if rec.Sandbox == nil || rec.Sandbox.Backend != sandbox.BackendBwrap {
				t.Fatalf("sandbox %+v; want bwrap", rec.Sandbox)
			}
			if pids := proc.WithEnv("KUSAW_ARTIFACTS_DIR=" + filepath.Join(out, "artifacts")); len(pids) > 0 {
				for _, pid := range pids {
					syscall.Kill(pid, syscall.SIGKILL)
				}
				t.Errorf("processes %v of the attempt outlived it", pids)
			}
			var msg string
			for _, w := range rec.Warnings {
				if w.Code == step.WarnProcessesLeft {
					msg = w.Message
				}
			}
			if !tc.left {
				if msg != "" {
					t.Errorf("processes_left %q for a step that left nothing", msg)
				}
				return
			}
			if want := fmt.Sprintf("%d (sleep 1000)", readPid(t, out)); !strings.Contains(msg, want) {
				t.Errorf("warnings %v; want processes_left naming %s", rec.Warnings, want)
			}
			wantVerdict(t, rec, verdict{"ok", "fake", "left a grandchild"})
		})
	}
}

// TestExitStatusUnderBwrap: the sandbox's init hands on the step's exit
// status as bwrap alone did (its code, or 128 plus the signal that killed
// it), so the verdicts are those without a sandbox.
func TestExitStatusUnderBwrap(t *testing.T) {
	needBwrap(t)
	t.Parallel()
	for _, tc := range []struct {
		fake string
		want verdict
		exit int
	}{
		{"exit-3", verdict{"fail", "no_result", "exited with status 3 without a result"}, 3},
		{"killed-by-signal", verdict{"fail", "no_result", "exited with status 137 without a result"}, 128 + 9},
	} {
		t.Run(tc.fake, func(t *testing.T) {
			t.Parallel()
			off, _ := runAttempt(t, tc.fake, setup{sandbox: &sandbox.Options{Flags: sandbox.Flags{Mode: "off"}}})
			rec, _ := runAttempt(t, tc.fake, setup{sandbox: &sandbox.Options{Flags: sandbox.Flags{Mode: "bwrap"}}})
			wantVerdict(t, rec, tc.want)
			if rec.Status != off.Status || rec.ReasonCode != off.ReasonCode || exitOf(rec) != tc.exit {
				t.Errorf("under bwrap %s/%s, exit %d; without a sandbox %s/%s; want the same verdict and exit %d",
					rec.Status, rec.ReasonCode, exitOf(rec), off.Status, off.ReasonCode, tc.exit)
			}
			if hasWarning(rec, step.WarnProcessesLeft) {
				t.Errorf("warnings %v; the step left nothing", rec.Warnings)
			}
		})
	}
}
