package step_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

func readPid(t *testing.T, out string) int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(out, "artifacts", "grandchild.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(string(data))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// processGone waits a little for pid to be gone (a zombie counts as gone).
func processGone(pid int) error {
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) || isZombie(pid) {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return errors.New("still alive")
}

func isZombie(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	for i := len(data) - 1; i > 0; i-- {
		if data[i] == ')' && i+2 < len(data) {
			return data[i+2] == 'Z'
		}
	}
	return false
}

// killPidFile kills the daemon a fake left behind on purpose.
func killPidFile(t *testing.T, out string) {
	syscall.Kill(readPid(t, out), syscall.SIGKILL)
}
