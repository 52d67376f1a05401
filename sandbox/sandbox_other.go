//go:build !linux && !darwin

package sandbox

import (
	"os/exec"
)

func nativeBackend() string { return "" }

// Available reports whether backend works on this system; here none does.
func Available(backend string) error { return ErrUnsupported }

func listenProxy(*Sandbox, *Policy) error { return ErrUnsupported }

func wrap(*exec.Cmd, *Policy, *Sandbox) error { return ErrUnsupported }
