//go:build unix && !linux

package proc

import "syscall"

// setDeathSignal does nothing: only Linux has Pdeathsig.
func setDeathSignal(*syscall.SysProcAttr) {}

// BecomeSubreaper returns [ErrUnsupported]: child subreapers are a Linux
// feature. See the Linux documentation of this function.
func BecomeSubreaper() error { return ErrUnsupported }
