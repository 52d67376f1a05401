package conform

import (
	"os/exec"
	"syscall"
	"testing"
)

// TestDying: a live process is not dying; once killed and not yet waited
// for (a zombie), it is, so AT-010 never counts it (issue 14 item 8).
func TestDying(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	defer cmd.Wait()
	pid := cmd.Process.Pid
	if dying(pid) {
		t.Errorf("dying(%d) = true for a sleeping process", pid)
	}
	cmd.Process.Kill()
	// Wait for it to exit without reaping it: it stays a zombie.
	if _, _, e := syscall.Syscall6(syscall.SYS_WAITID, 1 /* P_PID */, uintptr(pid), 0, syscall.WEXITED|0x01000000 /* WNOWAIT */, 0, 0); e != 0 {
		t.Fatal(e)
	}
	if !dying(pid) {
		t.Errorf("dying(%d) = false for a killed, unreaped process", pid)
	}
}
