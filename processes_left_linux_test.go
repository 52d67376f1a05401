package step_test

import (
	"fmt"
	"strings"
	"syscall"
	"testing"

	step "kusaw.dev/step"
	"kusaw.dev/step/internal/proc"
	"kusaw.dev/step/sandbox"
)

// TestProcessesLeft is issue 11 item 6: a setsid double-fork daemon, or a
// process left in the step's group, no longer outlives the attempt
// unseen: the runner finds it in the step's cgroup, kills it, and the
// record names it.
func TestProcessesLeft(t *testing.T) {
	cg, err := proc.NewCgroup(proc.Limits{})
	if err != nil {
		t.Skipf("the runner may not make a cgroup here, to find what leaves the group: %v", err)
	}
	cg.Remove()
	t.Parallel()
	for _, fake := range []string{"daemon", "grandchild"} {
		t.Run(fake, func(t *testing.T) {
			rec, out := runAttempt(t, fake, setup{sandbox: &sandbox.Options{Flags: sandbox.Flags{Mode: "off"}}})
			pid := readPid(t, out)
			if err := processGone(pid); err != nil {
				syscall.Kill(pid, syscall.SIGKILL)
				t.Errorf("the %s %d outlived the attempt: %v", fake, pid, err)
			}
			var msg string
			for _, w := range rec.Warnings {
				if w.Code == step.WarnProcessesLeft {
					msg = w.Message
				}
			}
			if !strings.Contains(msg, fmt.Sprintf("%d (sleep 1000)", pid)) {
				t.Errorf("warnings %v; want processes_left naming %d (sleep 1000)", rec.Warnings, pid)
			}
		})
	}
}
