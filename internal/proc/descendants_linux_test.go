package proc_test

import (
	"bufio"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"kusaw.dev/step/internal/proc"
)

// TestDescendantPids: the processes below a pid, children and
// grandchildren, and nothing beside it (issue 11 item 6: the sandbox's
// init kills only its own tree).
func TestDescendantPids(t *testing.T) {
	t.Parallel()
	beside := exec.Command("sleep", "1000")
	if err := beside.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { beside.Process.Kill(); beside.Wait() })
	root := exec.Command("/bin/sh", "-c", `sleep 1000 & a=$!; /bin/sh -c 'sleep 1000 & echo $!; wait' & echo $a; wait`)
	out, err := root.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := root.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, pid := range proc.DescendantPids(root.Process.Pid) {
			exec.Command("kill", "-9", strconv.Itoa(pid)).Run()
		}
		root.Process.Kill()
		root.Wait()
	})
	r := bufio.NewReader(out)
	var want []int
	for range 2 { // the child sleep and the grandchild sleep, in either order
		line, _ := r.ReadString('\n')
		pid, err := strconv.Atoi(strings.TrimSpace(line))
		if err != nil {
			t.Fatalf("shell said %q", line)
		}
		want = append(want, pid)
	}
	got := proc.DescendantPids(root.Process.Pid)
	for _, pid := range want {
		if !slices.Contains(got, pid) {
			t.Errorf("descendants %v lack sleep %d", got, pid)
		}
	}
	if slices.Contains(got, beside.Process.Pid) || slices.Contains(got, root.Process.Pid) {
		t.Errorf("descendants %v hold the process beside (%d) or the root (%d)", got, beside.Process.Pid, root.Process.Pid)
	}
	if len(got) != 3 { // the two sleeps and the inner shell
		t.Errorf("descendants %v; want the two sleeps and the inner shell", got)
	}
}
