package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/term"
)

// console is a person's terminal for a kusaw-step process: the test holds
// the controller side and keeps what the process shows.
type console struct {
	ptm    *os.File
	mu     sync.Mutex
	shown  bytes.Buffer
	copied chan struct{} // closed when the process's terminal is gone
}

// startOnConsole runs kusaw-step args as its own process, in a new session
// whose controlling terminal is a pseudo-terminal of 33x77, as if a person
// ran it.
func startOnConsole(t *testing.T, fake string, args ...string) (*exec.Cmd, *console) {
	t.Helper()
	ptm, pts, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ptm.Close() })
	if err := pty.Setsize(ptm, &pty.Winsize{Rows: 33, Cols: 77}); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], append(args, ttyFakeArg, fake)...)
	cmd.Env = append(os.Environ(), "STEP_TEST_MAIN=1", "STEP_TEST_TTY_FAKE="+fake)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = pts, pts, pts
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	err = cmd.Start()
	pts.Close()
	if err != nil {
		t.Fatal(err)
	}
	c := &console{ptm: ptm, copied: make(chan struct{})}
	go func() {
		defer close(c.copied)
		buf := make([]byte, 4096)
		for {
			n, err := ptm.Read(buf)
			c.mu.Lock()
			c.shown.Write(buf[:n])
			c.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return cmd, c
}

// waitFor waits until re matches what the console shows, and returns the
// match's groups.
func (c *console) waitFor(t *testing.T, re string) []string {
	t.Helper()
	rx := regexp.MustCompile(re)
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		c.mu.Lock()
		m := rx.FindStringSubmatch(c.shown.String())
		c.mu.Unlock()
		if m != nil {
			return m
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the console never showed %s:\n%q", re, c.String())
	return nil
}

func (c *console) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.shown.String()
}

// state returns the console's terminal mode.
func (c *console) state(t *testing.T) *term.State {
	t.Helper()
	sc, err := c.ptm.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var st *term.State
	if cerr := sc.Control(func(fd uintptr) { st, err = term.GetState(int(fd)) }); cerr != nil {
		t.Fatal(cerr)
	}
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestRawModeRestored runs an interactive step on a person's terminal,
// checks that the terminal is raw while it runs and that its size reaches
// the step, at the start and on a resize, and that the terminal is as it
// was after the step is killed, or kusaw-step gets SIGINT.
func TestRawModeRestored(t *testing.T) {
	for _, end := range []string{"kill the step", "SIGINT"} {
		t.Run(end, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "attempt")
			// The step's pid is the host's only outside a sandbox's PID namespace.
			cmd, c := startOnConsole(t, "prompt", "run", "--sandbox", "off", "--grace", "1s", "--out", out, os.Args[0])
			before := c.state(t)
			m := c.waitFor(t, `ready pid=(\d+) size=(\d+x\d+)`)
			if m[2] != "33x77" {
				t.Errorf("the step's terminal is %s; want the console's 33x77", m[2])
			}
			if reflect.DeepEqual(c.state(t), before) {
				t.Errorf("the console is not in raw mode while the step runs")
			}
			pty.Setsize(c.ptm, &pty.Winsize{Rows: 44, Cols: 88})
			c.waitFor(t, `resized to 44x88`)
			pid, _ := strconv.Atoi(m[1])
			if end == "SIGINT" {
				cmd.Process.Signal(syscall.SIGINT)
			} else {
				syscall.Kill(pid, syscall.SIGKILL)
			}
			err := waitExit(t, cmd)
			var ee *exec.ExitError
			wantCode := map[string]int{"kill the step": exitFailed, "SIGINT": 130}[end]
			if !errors.As(err, &ee) || ee.ExitCode() != wantCode {
				t.Errorf("kusaw-step: %v; want exit %d\n%q", err, wantCode, c.String())
			}
			if after := c.state(t); !reflect.DeepEqual(after, before) {
				t.Errorf("the console's mode after the session differs from before:\n%+v\n%+v", after, before)
			}
			rec, _ := os.ReadFile(filepath.Join(out, "attempt.json"))
			want := map[string]string{"kill the step": `"reason_code":"no_result"`, "SIGINT": `"reason_code":"cancelled"`}[end]
			if !bytes.Contains(rec, []byte(want)) {
				t.Errorf("attempt.json lacks %s:\n%s", want, rec)
			}
		})
	}
}

// waitExit waits, for at most two minutes, for cmd to exit.
func waitExit(t *testing.T, cmd *exec.Cmd) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatal("kusaw-step did not exit")
		return nil
	}
}

// TestRunInteractivePiped answers an interactive step's prompt from a
// script: stdin is not a terminal.
func TestRunInteractivePiped(t *testing.T) {
	out := filepath.Join(t.TempDir(), "attempt")
	t.Setenv("STEP_TEST_TTY_FAKE", "greet")
	stdout, stderr, code := runCmd(t, "Ada\n", "run", "--out", out, os.Args[0], ttyFakeArg, "greet")
	if code != exitOK {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	for _, want := range []string{"answer the prompt to finish", "name? ", "hello Ada", "verdict  ok (done)", "greeted Ada",
		"logs     " + out + " (terminal.log "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "stdout.jsonl") {
		t.Errorf("the verdict of an interactive step names stdout.jsonl, which its terminal took (issue 16 item 7):\n%s", stdout)
	}
	if log, err := os.ReadFile(filepath.Join(out, "terminal.log")); err != nil || !bytes.Contains(log, []byte("hello Ada")) {
		t.Errorf("terminal.log = %q, %v", log, err)
	}
}

// TestNoteCommand sends a note to a folder with no attempt yet; an attempt
// there that never starts the step keeps it pending, and the next attempt,
// in a new folder after it (issue 14 item 1: one attempt per folder), hands
// it over in context.notes, counts step.attempt up, and the record says the
// step acknowledged it.
func TestNoteCommand(t *testing.T) {
	out, next := t.TempDir(), filepath.Join(t.TempDir(), "next")
	for _, args := range [][]string{{"note"}, {"note", out}, {"note", out, ""}, {"note", filepath.Join(out, "nope"), "x"}} {
		if _, _, code := runCmd(t, "", args...); code != exitUsage {
			t.Errorf("kusaw-step %q: exit %d; want 2", args, code)
		}
	}
	stdout, _, code := runCmd(t, "", "note", out, "use the blue one")
	if code != exitOK || !strings.Contains(stdout, "waits for the next start") {
		t.Fatalf("note: exit %d, %q", code, stdout)
	}
	// A step that never starts does not take the note.
	if _, _, code := runCmd(t, "", "run", "--json", "--out", out, filepath.Join(out, "no-such-step")); code != exitFailed {
		t.Errorf("run of a missing step: exit %d; want 1", code)
	}
	if stdout, _, _ := runCmd(t, "", "note", out, "and be quick"); !strings.Contains(stdout, "--after "+out) {
		t.Errorf("note to a folder that holds an attempt does not say to run --after it: %q", stdout)
	}
	t.Setenv("STEP_TEST_TTY_FAKE", "notes")
	if _, stderr, code := runCmd(t, "", "run", "--json", "--out", out, os.Args[0], ttyFakeArg, "notes"); code != exitUsage || !strings.Contains(stderr, "not empty") {
		t.Errorf("run again into the same folder: exit %d, %q; want 2 and the folder is not empty", code, stderr)
	}
	stdout, stderr, code := runCmd(t, "", "run", "--json", "--after", out, "--out", next, os.Args[0], ttyFakeArg, "notes")
	if code != exitOK || !strings.Contains(stdout, "notes: use the blue one|and be quick") {
		t.Fatalf("run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, `"after":"`+out+`"`) {
		t.Errorf("the record does not name the previous attempt %s:\n%s", out, stdout)
	}
	if req, err := os.ReadFile(filepath.Join(next, "request.json")); err != nil || !strings.Contains(string(req), `"attempt":2`) {
		t.Errorf("the next attempt's request.json does not count step.attempt up to 2: %s, %v", req, err)
	}
	if !strings.Contains(stdout, `"delivery":"start"`) || !strings.Contains(stdout, `"acknowledged":true`) {
		t.Errorf("the record does not list the note as given at the start and acknowledged:\n%s", stdout)
	}
	if _, err := os.Stat(filepath.Join(out, "notes.pending.jsonl")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the pending note is still pending in the previous folder: %v", err)
	}
	if _, err := os.Stat(filepath.Join(next, "notes.pending.jsonl")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the pending note is still pending: %v", err)
	}
}
