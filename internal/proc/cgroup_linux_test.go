package proc_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"kusaw.dev/step/internal/proc"
)

// Issue 11 item 6: a step born in its attempt's cgroup takes nothing of
// the runner's along. Many attempts start at once in one runner (conform,
// a factory), each in a cgroup of its own, while other goroutines start
// plain children; afterwards each cgroup holds its own step and nothing
// else. (On cgroup v1, moving the forking thread into the cgroup let a
// thread the runtime started meanwhile carry other goroutines' children
// in, which KillOrphans then killed as the attempt's own.)
func TestCgroupHoldsOnlyItsStep(t *testing.T) {
	probe, err := proc.NewCgroup(proc.Limits{})
	if err != nil {
		t.Skipf("no cgroup can be made here: %v", err)
	}
	probe.Remove()
	for round := range 4 { // the race it guards against is a matter of chance
		t.Run(strconv.Itoa(round), startManyInCgroups)
	}
}

func startManyInCgroups(t *testing.T) {
	const attempts, plain = 24, 48
	var wg sync.WaitGroup
	var mu sync.Mutex
	type started struct {
		cg  *proc.Cgroup
		p   *proc.Process
		pid int
	}
	var steps []started
	var others []*exec.Cmd
	for range attempts {
		wg.Go(func() {
			cg, err := proc.NewCgroup(proc.Limits{})
			if err != nil {
				t.Error(err)
				return
			}
			cmd, _ := fakeCommand("hang")
			p, err := proc.StartIn(cmd, cg)
			if err != nil {
				cg.Remove()
				t.Error(err)
				return
			}
			mu.Lock()
			steps = append(steps, started{cg, p, p.Pid()})
			mu.Unlock()
		})
	}
	for range plain {
		wg.Go(func() {
			cmd, _ := fakeCommand("hang")
			if err := cmd.Start(); err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			others = append(others, cmd)
			mu.Unlock()
		})
	}
	wg.Wait()
	t.Cleanup(func() {
		for _, c := range others {
			c.Process.Kill()
			c.Wait()
		}
	})
	for _, s := range steps {
		members := cgroupProcs(t, s.cg)
		if !slices.Equal(members, []int{s.pid}) {
			t.Errorf("the cgroup of step %d holds %v; want the step alone", s.pid, members)
		}
		s.p.Stop(0)
		<-s.p.Exited()
		if err := s.p.Reap(time.Minute); err != nil { // returns once the group is gone; the minute only bounds a hang
			t.Error(err)
		}
		s.cg.Remove()
	}
}

// cgroupProcs lists the processes in the first folder of c.
func cgroupProcs(t *testing.T, c *proc.Cgroup) []int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(c.Dirs()[0], "cgroup.procs"))
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, f := range strings.Fields(string(data)) {
		pid, _ := strconv.Atoi(f)
		pids = append(pids, pid)
	}
	slices.Sort(pids)
	return pids
}
