//go:build unix && !linux

package proc

import "syscall"

// setDeathSignal does nothing: only Linux has Pdeathsig.
func setDeathSignal(*syscall.SysProcAttr) {}

// BecomeSubreaper returns [ErrUnsupported]: child subreapers are a Linux
// feature. See the Linux documentation of this function.
func BecomeSubreaper() error { return ErrUnsupported }

// CloseInheritedOnExec marks every descriptor from 3 up close-on-exec;
// see the Linux documentation of this function.
func CloseInheritedOnExec() {
	var rl syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl) != nil || rl.Cur > 1<<16 {
		rl.Cur = 1 << 16
	}
	for fd := 3; fd < int(rl.Cur); fd++ {
		syscall.CloseOnExec(fd)
	}
}
