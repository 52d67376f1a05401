package sandbox

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"kusaw.dev/step/internal/proc"
)

// Issue 11 item 5, where no cgroup can be made: the process bound is
// RLIMIT_NPROC of the host uid the sandbox runs as, so each sandbox must
// run as a uid of its own, or sandboxes running at once share one bound.
// Sandbox A holds 25 processes while B, under the same bound of 40,
// starts 25 of its own: with one shared uid B could not.
func TestConcurrentSandboxesHaveTheirOwnProcessBound(t *testing.T) {
	needBwrap(t)
	if os.Getuid() != 0 {
		t.Skip("the runner is not root: the step runs as the runner's own uid")
	}
	saved := newCgroup
	newCgroup = func(proc.Limits) (*proc.Cgroup, error) { return nil, errors.New("no cgroup here (test)") }
	t.Cleanup(func() { newCgroup = saved })

	shared := t.TempDir()
	hold := `for i in $(seq 25); do sleep 1000 & pids="$pids $!"; done
echo held > held
while [ ! -e done ]; do sleep 0.1; done
kill $pids
`
	spawn := `ok=0
for i in $(seq 25); do sleep 1000 & pids="$pids $!"; ok=$((ok+1)); done
echo "spawned $ok"
touch spawned
while [ ! -e done ]; do sleep 0.1; done
kill $pids
`
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a slow machine's bound, not a margin
	defer cancel()
	a, aOut := boundedShell(t, ctx, shared, hold)
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		os.WriteFile(filepath.Join(shared, "done"), nil, 0o644)
		a.Wait()
	}()
	for !exists(filepath.Join(shared, "held")) {
		select {
		case <-ctx.Done():
			t.Fatalf("sandbox A never held its processes:\n%s", aOut)
		case <-time.After(20 * time.Millisecond):
		}
	}
	b, bOut := boundedShell(t, ctx, shared, spawn)
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	bDone := make(chan error, 1)
	go func() { bDone <- b.Wait() }()
	// B either spawns all (then waits for done) or fails to fork and exits.
	for !exists(filepath.Join(shared, "spawned")) && len(bDone) == 0 {
		select {
		case <-ctx.Done():
			t.Fatalf("sandbox B neither spawned nor failed:\n%s", bOut)
		case <-time.After(20 * time.Millisecond):
		}
	}
	uidsA, uidsB := treeUIDs(a.Process.Pid), treeUIDs(b.Process.Pid)
	os.WriteFile(filepath.Join(shared, "done"), nil, 0o644)
	<-bDone
	a.Wait()
	if !strings.Contains(bOut.String(), "spawned 25") {
		t.Errorf("sandbox B could not start its 25 processes while A held 25 (bound 40 each):\n%s", bOut)
	}
	if len(uidsA) != 1 || len(uidsB) != 1 || uidsA[0] == uidsB[0] || uidsA[0] == 0 || uidsB[0] == 0 {
		t.Errorf("the sandboxes' processes ran as host uids %v and %v; want one unprivileged uid each, not the same", uidsA, uidsB)
	}
}

// treeUIDs returns the real uids, on the host, of the processes below pid
// that run the sandboxed shell or its sleeps.
func treeUIDs(pid int) []int {
	parent := map[int]int{}
	names, _ := filepath.Glob("/proc/[0-9]*/status")
	status := map[int]string{}
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			continue
		}
		var p, pp int
		for _, line := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(line, "Pid:"); ok {
				p, _ = strconv.Atoi(strings.TrimSpace(v))
			}
			if v, ok := strings.CutPrefix(line, "PPid:"); ok {
				pp, _ = strconv.Atoi(strings.TrimSpace(v))
			}
		}
		parent[p], status[p] = pp, string(data)
	}
	below := func(p int) bool {
		for ; p > 1; p = parent[p] {
			if parent[p] == pid {
				return true
			}
		}
		return false
	}
	seen := map[int]bool{}
	var uids []int
	for p, st := range status {
		if !below(p) || !(strings.Contains(st, "Name:\tsleep") || strings.Contains(st, "Name:\tsh")) {
			continue
		}
		for _, line := range strings.Split(st, "\n") {
			if v, ok := strings.CutPrefix(line, "Uid:"); ok {
				uid, _ := strconv.Atoi(strings.Fields(v)[0])
				if !seen[uid] {
					seen[uid] = true
					uids = append(uids, uid)
				}
			}
		}
	}
	return uids
}

// boundedShell returns a shell running script in a bwrap sandbox whose
// worktree is dir, bounded to 40 processes, and the buffer its output
// goes to.
func boundedShell(t *testing.T, ctx context.Context, dir, script string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	pol := bwrapPolicy(dir)
	pol.PidsMax = 40
	pol.Self, _ = os.Executable()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", script)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	sb, err := Wrap(cmd, pol)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	return cmd, &out
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
