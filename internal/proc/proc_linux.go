package proc

import (
	"fmt"
	"os"
	"strconv"
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

// CloseInheritedOnExec marks every descriptor from 3 up close-on-exec
// (close_range CLOSE_RANGE_CLOEXEC), so that a child gets only its
// standard streams and the files it is given (exec.Cmd.ExtraFiles): a
// descriptor the runner inherited without O_CLOEXEC (a pipe, a socket,
// a secret's file) no longer reaches the step. The runner's own files
// are all opened close-on-exec; nothing it uses changes.
func CloseInheritedOnExec() {
	if err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC); err == nil {
		return
	}
	fds, _ := os.ReadDir("/proc/self/fd") // kernels before 5.11
	for _, e := range fds {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			unix.CloseOnExec(fd)
		}
	}
}
