//go:build !linux

package conform

// canFindProcesses says whether findMarked works on this system: it
// needs /proc.
const canFindProcesses = false

// findMarked finds nothing without /proc.
func findMarked(string) []int { return nil }

func kill(int) {}
