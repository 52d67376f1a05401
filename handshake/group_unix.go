//go:build unix

package handshake

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// inOwnGroup makes cmd the leader of a new process group, and makes the
// cancellation of its context kill that whole group.
func inOwnGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killGroup(cmd.Process.Pid) }
}

// killGroup sends SIGKILL to every process of group pgid. It returns
// os.ErrProcessDone when the group is empty, the answer exec.Cmd.Cancel
// expects for a process that already ended.
//
// Run also calls it once the leader has been waited for, to end what the
// step left behind. The group id is then no longer held by the leader, but
// it stays allocated while any member lives; only in the instant after the
// last member dies could it name a new group, and Run signals it right away.
func killGroup(pgid int) error {
	err := syscall.Kill(-pgid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}

// isExecFormat reports whether err says the file is not a program the
// system can run (ENOEXEC).
func isExecFormat(err error) bool { return errors.Is(err, syscall.ENOEXEC) }

// isTextBusy reports whether err says the file is open for writing.
func isTextBusy(err error) bool { return errors.Is(err, syscall.ETXTBSY) }
