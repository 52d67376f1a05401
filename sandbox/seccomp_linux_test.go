package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// The syscalls helper exists on Linux only.
func init() { helpers["syscalls"] = helperSyscalls }

// helperSyscalls makes, inside the sandbox, the calls a step has no
// business making, and prints what each gave: "name=errno" per line.
func helperSyscalls() int {
	calls := []struct {
		name string
		call func() error
	}{
		{"bpf", func() error { return errnoOf(unix.Syscall(unix.SYS_BPF, 0, 0, 0)) }},
		{"keyctl", func() error { return errnoOf(unix.Syscall(unix.SYS_KEYCTL, 0, 0, 0)) }},
		{"add_key", func() error { return errnoOf(unix.Syscall(unix.SYS_ADD_KEY, 0, 0, 0)) }},
		{"userfaultfd", func() error { return errnoOf(unix.Syscall(unix.SYS_USERFAULTFD, 0, 0, 0)) }},
		{"perf_event_open", func() error { return errnoOf(unix.Syscall6(unix.SYS_PERF_EVENT_OPEN, 0, 0, 0, 0, 0, 0)) }},
		{"init_module", func() error { return errnoOf(unix.Syscall(unix.SYS_INIT_MODULE, 0, 0, 0)) }},
		{"kexec_load", func() error { return errnoOf(unix.Syscall6(unix.SYS_KEXEC_LOAD, 0, 0, 0, 0, 0, 0)) }},
		{"unshare_user", func() error { return unix.Unshare(unix.CLONE_NEWUSER) }},
		{"getpid", func() error { return errnoOf(unix.Syscall(unix.SYS_GETPID, 0, 0, 0)) }},
	}
	for _, c := range calls {
		err := c.call()
		if err == nil {
			fmt.Printf("%s=ok\n", c.name)
			continue
		}
		fmt.Printf("%s=%s\n", c.name, unix.ErrnoName(err.(syscall.Errno)))
	}
	return 0
}

func errnoOf(_, _ uintptr, e syscall.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}

// TestSeccompAndNestedUserns is issue 11 item 8b: inside the sandbox the
// step gets EPERM from the system calls kernel escapes use, and cannot
// make a nested user namespace (where it would be root).
func TestSeccompAndNestedUserns(t *testing.T) {
	needBwrap(t)
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out, stderr, err := sandboxed(t, bwrapPolicy(), []string{helperEnv + "=syscalls"}, self)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, want := range []string{"bpf=EPERM", "keyctl=EPERM", "add_key=EPERM", "userfaultfd=EPERM",
		"perf_event_open=EPERM", "init_module=EPERM", "kexec_load=EPERM", "getpid=ok"} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("want %s:\n%s", want, out)
		}
	}
	if strings.Contains(out, "unshare_user=ok") {
		t.Errorf("the step made a nested user namespace:\n%s", out)
	}
	if _, err := exec.LookPath("unshare"); err == nil {
		out, _, _ := sandboxed(t, bwrapPolicy(), nil, "/bin/sh", "-c", "unshare -Ur id -u 2>&1 && echo nested-userns")
		if strings.Contains(out, "nested-userns") {
			t.Errorf("unshare -Ur worked inside the sandbox:\n%s", out)
		}
	}
}
