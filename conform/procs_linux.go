package conform

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// canFindProcesses says whether findMarked works on this system.
const canFindProcesses = true

// findMarked returns the processes whose environment holds the marker
// entry: those a step started that are still alive.
func findMarked(entry string) []int {
	want := []byte(entry)
	var pids []int
	paths, _ := filepath.Glob("/proc/[0-9]*/environ")
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		for kv := range bytes.SplitSeq(data, []byte{0}) {
			if bytes.Equal(kv, want) {
				pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}

// kill ends a process the step left behind.
func kill(pid int) { _ = syscall.Kill(pid, syscall.SIGKILL) }
