package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"kusaw.dev/step/attemptdir"
)

// TestOneAttemptPerFolder proves issue 14 item 1: a folder that holds an
// attempt is refused (exit 2) unless --force, and --force replaces it.
func TestOneAttemptPerFolder(t *testing.T) {
	out := filepath.Join(t.TempDir(), "attempt")
	t.Setenv("STEP_TEST_FAKE", "ok")
	if _, stderr, code := runCmd(t, "", "run", "--out", out, os.Args[0], fakeArg, "ok"); code != exitOK {
		t.Fatalf("first attempt: exit %d\n%s", code, stderr)
	}
	first, _ := os.ReadFile(filepath.Join(out, "attempt.json"))
	_, stderr, code := runCmd(t, "", "run", "--out", out, os.Args[0], fakeArg, "ok")
	if code != exitUsage || !strings.Contains(stderr, "not empty") || !strings.Contains(stderr, "--force") {
		t.Errorf("second attempt into the same --out: exit %d, %q; want 2, the folder is not empty, --force", code, stderr)
	}
	if _, stderr, code := runCmd(t, "", "run", "--force", "--after", out, "--out", out, os.Args[0], fakeArg, "ok"); code != exitUsage || !strings.Contains(stderr, "own folder") {
		t.Errorf("--after and --out the same folder: exit %d, %q; want 2", code, stderr)
	}
	if again, _ := os.ReadFile(filepath.Join(out, "attempt.json")); !bytes.Equal(first, again) {
		t.Error("a refused attempt changed the first attempt's record")
	}
	if _, stderr, code := runCmd(t, "", "run", "--force", "--out", out, os.Args[0], fakeArg, "ok"); code != exitOK {
		t.Errorf("--force: exit %d\n%s", code, stderr)
	}
}

// TestReplayedRequestKeepsItsOwnArtifacts proves issue 14 item 1: a
// request replayed from another attempt's folder does not write into that
// folder's artifacts/; the new attempt uses its own and says so.
func TestReplayedRequestKeepsItsOwnArtifacts(t *testing.T) {
	old, next := filepath.Join(t.TempDir(), "old"), filepath.Join(t.TempDir(), "new")
	t.Setenv("STEP_TEST_FAKE", "ok")
	if _, stderr, code := runCmd(t, "", "run", "--out", old, os.Args[0], fakeArg, "ok"); code != exitOK {
		t.Fatalf("first attempt: exit %d\n%s", code, stderr)
	}
	stdout, stderr, code := runCmd(t, "", "run", "--json", "--request", filepath.Join(old, "request.json"), "--out", next, os.Args[0], fakeArg, "ok")
	if code != exitOK {
		t.Fatalf("replay: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stdout, `"code":"artifacts_dir_moved"`) {
		t.Errorf("the record does not say the artifacts dir moved:\n%s", stdout)
	}
	req, _ := os.ReadFile(filepath.Join(next, "request.json"))
	if want := `"artifacts_dir":"` + filepath.Join(next, "artifacts") + `"`; !strings.Contains(string(req), want) {
		t.Errorf("the replayed request.json lacks %s:\n%s", want, req)
	}
}

// TestConcurrentAttemptsAndSIGKILL proves issue 14 items 1 and 2 with real
// runner processes: while one runs, a second on the same --out is refused
// (exit 2) and the folder reads as running; once the first is SIGKILLed,
// the folder reads as unfinished, with no record.
func TestConcurrentAttemptsAndSIGKILL(t *testing.T) {
	out := filepath.Join(t.TempDir(), "attempt")
	runner := exec.Command(os.Args[0], "run", "--sandbox", "off", "--out", out, os.Args[0], fakeArg, "slow")
	runner.Env = append(os.Environ(), "STEP_TEST_MAIN=1")
	if err := runner.Start(); err != nil {
		t.Fatal(err)
	}
	defer runner.Process.Kill()
	var stepPID int
	waitFor(t, func() bool {
		data, _ := os.ReadFile(filepath.Join(out, "stderr.log"))
		m := regexp.MustCompile(`waiting for SIGTERM \(pid (\d+)\)`).FindSubmatch(data)
		if m != nil {
			stepPID, _ = strconv.Atoi(string(m[1]))
		}
		return m != nil
	})
	defer syscall.Kill(-stepPID, syscall.SIGKILL) // the step's group outlives its SIGKILLed runner

	t.Setenv("STEP_TEST_FAKE", "ok")
	_, stderr, code := runCmd(t, "", "run", "--force", "--out", out, os.Args[0], fakeArg, "ok")
	if code != exitUsage || !strings.Contains(stderr, "another attempt is running") {
		t.Errorf("a second attempt on a running folder, even with --force: exit %d, %q; want 2, another attempt is running", code, stderr)
	}
	if f, err := attemptdir.Read(out); err != nil || f.State != attemptdir.Running || f.PID != runner.Process.Pid {
		t.Errorf("Read while the runner runs = %+v, %v; want running, pid %d", f, err, runner.Process.Pid)
	}

	runner.Process.Signal(syscall.SIGKILL)
	runner.Wait()
	f, err := attemptdir.Read(out)
	if err != nil || f.State != attemptdir.Unfinished || f.Record != nil {
		t.Fatalf("Read after SIGKILL = %+v, %v; want unfinished, no record", f, err)
	}
	if _, err := os.Stat(filepath.Join(out, "attempt.json")); err == nil {
		t.Error("a SIGKILLed runner left an attempt.json")
	}
}

// TestRunsDirOutsideWorktree proves issue 14 item 3: attempts go to
// ./kusaw-runs unless that lies inside the step's worktree, and then to
// the user's cache folder, where the step does not see them.
func TestRunsDirOutsideWorktree(t *testing.T) {
	cwd, cache, elsewhere := t.TempDir(), t.TempDir(), t.TempDir()
	t.Chdir(cwd)
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", cache) // macOS: ~/Library/Caches
	t.Setenv("KUSAW_RUNS_DIR", "")
	local, _ := filepath.Abs("kusaw-runs")
	for _, tt := range []struct {
		name, worktree, want string
	}{
		{"item 3: the default worktree is the current folder", "", "cache"},
		{"item 3: the current folder given as the worktree", cwd, "cache"},
		{"a worktree elsewhere", elsewhere, local},
	} {
		got, err := runsDir(tt.worktree)
		want := tt.want
		if want == "cache" {
			c, _ := os.UserCacheDir()
			want = filepath.Join(c, "kusaw-step", "runs")
		}
		if err != nil || got != want {
			t.Errorf("%s: runsDir(%q) = %q, %v; want %q", tt.name, tt.worktree, got, err, want)
		}
	}
	t.Setenv("KUSAW_RUNS_DIR", elsewhere)
	if got, _ := runsDir(""); got != elsewhere {
		t.Errorf("KUSAW_RUNS_DIR=%s: runsDir = %q", elsewhere, got)
	}
}
