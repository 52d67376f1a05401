package sandbox

import (
	"os"
	"os/exec"
	"slices"
	"testing"
)

// The children files and the walk of every process's parent, the fallback
// for kernels without them, find the same children.
func TestChildListers(t *testing.T) {
	var want []int
	for range 3 {
		cmd := exec.Command("sleep", "60")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		want = append(want, cmd.Process.Pid)
	}
	me := os.Getpid()
	for name, list := range map[string]func(int) []int{"children files": childrenFiles, "parents": walkParents(), "childLister": childLister()} {
		got := list(me)
		for _, pid := range want {
			if !slices.Contains(got, pid) {
				t.Errorf("%s: children of %d = %v; want %v among them", name, me, got, want)
				break
			}
		}
	}
}
