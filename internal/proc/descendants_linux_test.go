package proc_test

import (
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"kusaw.dev/step/internal/proc"
)

func init() { fakes["descendants"] = descendants }

// descendants starts a sleep in its group and a setsid one, then prints
// what Descendants and DescendantPids find, one line each, and ends both.
func descendants() error {
	member := exec.Command("sleep", "1000")
	daemon := exec.Command("sleep", "1001")
	daemon.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	for _, c := range []*exec.Cmd{member, daemon} {
		if err := c.Start(); err != nil {
			return err
		}
		defer func() { c.Process.Kill(); c.Wait() }()
	}
	grouped, detached := proc.Descendants(syscall.Getpgrp())
	fmt.Println("member", member.Process.Pid, "daemon", daemon.Process.Pid)
	fmt.Println("grouped", grouped)
	fmt.Println("detached", detached)
	fmt.Println("all", proc.DescendantPids(-1))
	fmt.Println("outside", proc.DescendantPids(syscall.Getpgrp()))
	return nil
}

// TestDescendants: what is below the caller, split by its process group,
// and nothing beside it (issue 11 item 6: the sandbox's init kills only
// its own tree, and spares the group when the step was stopped).
func TestDescendants(t *testing.T) {
	t.Parallel()
	beside := exec.Command("sleep", "1002")
	if err := beside.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { beside.Process.Kill(); beside.Wait() })
	cmd := helperCommand(t, "descendants")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("fake: %v: %s", err, out)
	}
	lines := strings.Split(string(out), "\n")
	var m, d int
	if len(lines) < 5 {
		t.Fatalf("fake said %q", out)
	}
	fmt.Sscanf(lines[0], "member %d daemon %d", &m, &d)
	want := []string{
		fmt.Sprintf("grouped [%d (sleep 1000)]", m),
		fmt.Sprintf("detached [%d (sleep 1001)]", d),
		fmt.Sprintf("all [%d %d]", m, d),
		fmt.Sprintf("outside [%d]", d),
	}
	for i, w := range want {
		got := lines[i+1]
		if i == 2 && got == fmt.Sprintf("all [%d %d]", d, m) {
			continue // /proc's order
		}
		if got != w {
			t.Errorf("%s; want %s (the sleep beside it is %d)", got, w, beside.Process.Pid)
		}
	}
}
