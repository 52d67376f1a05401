package proc_test

import (
	"os"
	"os/exec"
	"slices"
	"strconv"
	"syscall"
	"testing"

	"kusaw.dev/step/internal/proc"
)

// WithEnv finds a live process by an entry of its environment; once
// killed and not yet waited for (a zombie) it is dying and not found, so
// conform's AT-010 never counts it (issue 14 item 8).
func TestWithEnv(t *testing.T) {
	entry := "KUSAW_TEST_MARK=" + strconv.Itoa(os.Getpid()) + "-with-env"
	cmd := exec.Command("sleep", "60")
	cmd.Env = append(os.Environ(), entry)
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	defer cmd.Wait()
	pid := cmd.Process.Pid
	if got := proc.WithEnv(entry); !slices.Equal(got, []int{pid}) {
		t.Errorf("WithEnv(%s) = %v; want [%d], the sleeping process", entry, got, pid)
	}
	cmd.Process.Kill()
	// Wait for it to exit without reaping it: it stays a zombie.
	if _, _, e := syscall.Syscall6(syscall.SYS_WAITID, 1 /* P_PID */, uintptr(pid), 0, syscall.WEXITED|0x01000000 /* WNOWAIT */, 0, 0); e != 0 {
		t.Fatal(e)
	}
	if got := proc.WithEnv(entry); len(got) != 0 {
		t.Errorf("WithEnv(%s) = %v for a killed, unreaped process; want none", entry, got)
	}
}
