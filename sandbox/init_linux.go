package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"

	"kusaw.dev/step/internal/proc"
)

// RunInit is the sandbox's init: the first process bwrap starts in the
// sandbox's pid namespace (after bwrap's own), run by the runner's binary
// as `kusaw-step __init REPORT STOP -- STEP ARGS...`. Without it,
// whatever the step leaves running dies silently with the namespace when
// the step exits. RunInit makes itself the child subreaper of everything
// below it, starts the step with its standard streams in a process group
// of its own, reaps what is orphaned to it while the step runs, and once
// the step has exited lists every process still alive below it (in the
// sandbox, every one but bwrap's), reports each on descriptor REPORT
// (see [Sandbox.Leftovers]), kills them and reaps them. It returns the
// step's exit status, 128 plus the signal that killed it, as bwrap would
// have. It only ever signals its own descendants.
//
// When the runner is stopping the step, the supervisor writes a byte on
// descriptor STOP before it sends SIGTERM into the sandbox: then what is
// left of the step's group keeps its grace (see killDescendants), and
// only what left the group is killed at once.
//
// The channels are marked close-on-exec before the step starts, and
// RunInit makes itself undumpable, so that the step (same uid) can
// neither inherit them nor open them through /proc/PID/fd.
//
// RunInit passes on no signal. SIGTERM, SIGINT and SIGHUP are caught
// (the init lives on to report), never forwarded: those who send them
// (the supervisor, which signals every process in the sandbox; the
// terminal, which signals its foreground group, the step's) reach the
// step themselves, and a step that counts its SIGINTs must not see each
// twice.
func RunInit(args []string, stdin, stdout, stderr *os.File) (int, error) {
	fd, stop, argv, err := initArgs(args)
	if err != nil {
		return 2, err
	}
	proc.CloseInheritedOnExec() // the channels too: nothing of bwrap's reaches the step
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return 1, fmt.Errorf("%s: %w", InitCommand, err)
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return 1, fmt.Errorf("%s: %w", InitCommand, err)
	}
	// Caught, not ignored: an ignored signal would stay ignored in the step.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	pid, err := startStep(argv, stdin, stdout, stderr)
	if err != nil {
		unix.Close(fd)
		return 127, fmt.Errorf("%s: %w", InitCommand, err)
	}
	ws, err := waitStep(pid)
	var grouped, detached []proc.Left
	if liveChild() { // else nothing is left: no walk of /proc
		grouped, detached = proc.Descendants(pid) // the step's group
		if stopping(stop) {
			killDescendants(pids(detached), pid)
		} else {
			killDescendants(append(pids(grouped), pids(detached)...), -1)
		}
	}
	report := encodeReport(grouped, detached)
	if len(report) > 0 {
		_, _ = unix.Write(fd, report) // under PIPE_BUF: whole, and never blocks on an empty pipe
	}
	unix.Close(fd)
	reapChildren()
	if err != nil {
		return 1, fmt.Errorf("%s: %w", InitCommand, err)
	}
	if ws.Signaled() {
		return 128 + int(ws.Signal()), nil
	}
	return ws.ExitStatus(), nil
}

const initUsage = "usage: REPORT STOP -- STEP [ARGS...]"

// initArgs parses REPORT STOP -- ARGV...: the descriptors of the report
// and stop channels, and the step.
func initArgs(args []string) (report, stop int, argv []string, err error) {
	if len(args) < 4 || args[2] != "--" {
		return 0, 0, nil, fmt.Errorf("%s: %s", InitCommand, initUsage)
	}
	fds := make([]int, 2)
	for i, a := range args[:2] {
		if fds[i], err = strconv.Atoi(a); err != nil || fds[i] < 3 {
			return 0, 0, nil, fmt.Errorf("%s: %s: %q is not a descriptor above 2", InitCommand, initUsage, a)
		}
	}
	return fds[0], fds[1], args[3:], nil
}

// startStep forks and runs argv with the given streams, leading a
// process group of its own as without a sandbox (its `kill 0` does not
// reach the init), and returns its pid, which is the group's id. On a
// terminal (an interactive step) that group becomes the terminal's
// foreground group, so that the step may read it and ^C reaches the step
// alone.
func startStep(argv []string, stdin, stdout, stderr *os.File) (int, error) {
	path := argv[0]
	if !filepath.IsAbs(path) {
		var err error
		if path, err = exec.LookPath(path); err != nil {
			return 0, err
		}
	}
	_, err := unix.IoctlGetTermios(int(stdin.Fd()), unix.TCGETS)
	attr := &syscall.ProcAttr{
		Env: os.Environ(), Files: []uintptr{stdin.Fd(), stdout.Fd(), stderr.Fd()},
		Sys: &syscall.SysProcAttr{Setpgid: true, Foreground: err == nil, Ctty: 0},
	}
	return syscall.ForkExec(path, argv, attr)
}

// waitStep waits for the step, reaping what is orphaned to the init
// meanwhile (a subreaper that did not would fill the namespace, and the
// pids limit, with zombies).
func waitStep(pid int) (unix.WaitStatus, error) {
	for {
		var ws unix.WaitStatus
		got, err := unix.Wait4(-1, &ws, 0, nil)
		switch {
		case errors.Is(err, unix.EINTR):
		case err != nil:
			return ws, err
		case got == pid:
			return ws, nil
		}
	}
}

// liveChild reaps the caller's dead children and reports whether a live
// one is left. For a subreaper (the init, the supervisor) whose own child
// has exited, that is the only way a process can be left below it: each
// one orphaned is re-parented to it.
func liveChild() bool {
	for {
		pid, err := unix.Wait4(-1, nil, unix.WNOHANG, nil)
		switch {
		case errors.Is(err, unix.EINTR):
		case err != nil:
			return false // ECHILD: no child at all
		case pid == 0:
			return true
		}
	}
}

// stopping reports whether the supervisor wrote on the stop channel,
// which it does before it passes a stop signal into the sandbox: when
// the step exits of that signal, the byte is there.
func stopping(stop int) bool {
	if err := unix.SetNonblock(stop, true); err != nil {
		return false
	}
	var b [1]byte
	n, _ := unix.Read(stop, b[:])
	return n > 0
}

// killDescendants sends SIGKILL to each of pids, then to every
// descendant of the init that /proc still shows and was not sent it yet
// (one a process forked before its SIGKILL came), until there is none: a
// process with SIGKILL pending forks no more. The members of process
// group spare (-1: none) are left alone: when the runner is stopping the
// step, what is left of its group got SIGTERM too and keeps its grace, as
// the runner gives a group without a sandbox; it ends of it, or the
// runner ends the whole sandbox when the grace is over. Only the init's
// own tree is touched, wherever it runs (never kill(-1), which outside a
// pid namespace of its own would reach every process of the host).
func killDescendants(pids []int, spare int) {
	killed := make(map[int]bool)
	for len(pids) > 0 {
		for _, pid := range pids {
			_ = unix.Kill(pid, unix.SIGKILL)
			killed[pid] = true
		}
		pids = pids[:0]
		for _, pid := range proc.DescendantPids(spare) {
			if !killed[pid] {
				pids = append(pids, pid)
			}
		}
	}
}

func pids(left []proc.Left) []int {
	out := make([]int, len(left))
	for i, l := range left {
		out[i] = l.Pid
	}
	return out
}

// reapChildren waits for every child of the init until it has none: what
// it killed, and what was orphaned to it as they died.
func reapChildren() {
	for {
		_, err := unix.Wait4(-1, nil, 0, nil)
		if err != nil && !errors.Is(err, unix.EINTR) {
			return
		}
	}
}
