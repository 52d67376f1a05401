package proc

import (
	"fmt"
	"syscall"

	"golang.org/x/sys/unix"
)

// setDeathSignal makes the child receive SIGKILL when the thread that forked
// it exits (Pdeathsig), unless the caller chose another signal.
func setDeathSignal(a *syscall.SysProcAttr) {
	if a.Pdeathsig == 0 {
		a.Pdeathsig = syscall.SIGKILL
	}
}

// BecomeSubreaper marks the calling process as a child subreaper
// (PR_SET_CHILD_SUBREAPER): descendants orphaned during an attempt are
// reparented to the runner instead of init, so [Process.Reap] and
// [Process.Alive] can reap them. It affects the whole process and every
// later attempt; call it once, early, from main. On systems other than Linux
// it returns [ErrUnsupported].
func BecomeSubreaper() error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("proc: become subreaper: %w", err)
	}
	return nil
}
