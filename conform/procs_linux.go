package conform

import (
	"syscall"

	"kusaw.dev/step/internal/proc"
)

// canFindProcesses says whether findMarked works on this system.
const canFindProcesses = true

// findMarked returns the live processes whose environment holds the
// marker entry: those a step started.
func findMarked(entry string) []int { return proc.WithEnv(entry) }

// kill ends a process the step left behind.
func kill(pid int) { _ = syscall.Kill(pid, syscall.SIGKILL) }
