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
// as `kusaw-step __init FD -- STEP ARGS...`. Without it, whatever the
// step leaves running dies silently with the namespace when the step
// exits. RunInit makes itself the child subreaper of everything below
// it, starts the step with its standard streams, reaps what is orphaned
// to it while the step runs, and once the step has exited lists every
// process still alive below it (in the sandbox, every one but bwrap's),
// reports each on descriptor FD (see [Sandbox.Leftovers]), kills them
// all and reaps them. It returns
// the step's exit status, 128 plus the signal that killed it, as bwrap
// would have. It only ever signals its own descendants.
//
// FD is marked close-on-exec before the step starts, and RunInit makes
// itself undumpable, so that the step (same uid) can neither inherit the
// report channel nor open it through /proc/PID/fd.
//
// RunInit passes on no signal. SIGTERM, SIGINT and SIGHUP are caught
// (the init lives on to report), never forwarded: those who send them
// (the supervisor, which signals every process in the sandbox; the
// terminal, which signals its whole foreground group) reach the step
// themselves, and a step that counts its SIGINTs must not see each
// twice.
func RunInit(args []string, stdin, stdout, stderr *os.File) (int, error) {
	fd, argv, err := initArgs(args)
	if err != nil {
		return 2, err
	}
	proc.CloseInheritedOnExec() // the report channel too: nothing of bwrap's reaches the step
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
		grouped, detached = proc.Descendants()
		killDescendants(append(pids(grouped), pids(detached)...))
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

const initUsage = "usage: FD -- STEP [ARGS...]"

// initArgs parses FD -- ARGV....
func initArgs(args []string) (int, []string, error) {
	if len(args) < 3 || args[1] != "--" {
		return 0, nil, fmt.Errorf("%s: %s", InitCommand, initUsage)
	}
	fd, err := strconv.Atoi(args[0])
	if err != nil || fd < 3 {
		return 0, nil, fmt.Errorf("%s: %s: FD %q is not a descriptor above 2", InitCommand, initUsage, args[0])
	}
	return fd, args[2:], nil
}

// startStep forks and runs argv with the given streams, in the init's
// process group and session, and returns its pid.
func startStep(argv []string, stdin, stdout, stderr *os.File) (int, error) {
	path := argv[0]
	if !filepath.IsAbs(path) {
		var err error
		if path, err = exec.LookPath(path); err != nil {
			return 0, err
		}
	}
	attr := &syscall.ProcAttr{Env: os.Environ(), Files: []uintptr{stdin.Fd(), stdout.Fd(), stderr.Fd()}}
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

// liveChild reaps the init's dead children and reports whether a live
// one is left. Once the step has exited that is the only way a process
// can be left below the init: each one orphaned is re-parented to it.
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

// killDescendants sends SIGKILL to each of pids, then to every
// descendant of the init that /proc still shows and was not sent it yet
// (one a process forked before its SIGKILL came), until there is none: a
// process with SIGKILL pending forks no more. Only the init's own tree is
// touched, wherever it runs (never kill(-1), which outside a pid
// namespace of its own would reach every process of the host).
func killDescendants(pids []int) {
	killed := make(map[int]bool)
	for len(pids) > 0 {
		for _, pid := range pids {
			_ = unix.Kill(pid, unix.SIGKILL)
			killed[pid] = true
		}
		pids = pids[:0]
		for _, pid := range proc.DescendantPids(os.Getpid()) {
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
