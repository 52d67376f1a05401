package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"kusaw.dev/step/internal/proc"
)

// SuperviseCommand is the runner's hidden subcommand that [Wrap] puts
// between the runner and bwrap on Linux: `kusaw-step __sandbox PARENT N
// [OPTIONS] -- BWRAP ARGS...`. Its implementation is [RunSupervisor].
const SuperviseCommand = "__sandbox"

// RunSupervisor runs bwrap (argv) for the runner whose pid is parent, and
// returns bwrap's exit status. It exists because bwrap dies of a SIGTERM
// without passing it on, and its --die-with-parent then SIGKILLs the step:
// no grace. So the supervisor stands where bwrap stood (in the runner's
// process group) and starts bwrap in a group of its own, with the N
// descriptors from 3 up (the binds, and the init's channels named by
// --pass) passed on, but the stop channel's write end (--stop), which it
// keeps. A SIGTERM,
// SIGINT or SIGHUP it gets goes to every process inside the sandbox, and
// the step stops with its grace. When the supervisor dies (the runner's
// SIGKILL, or the runner's own death), bwrap gets SIGKILL (Pdeathsig) and
// takes the sandbox with it.
func RunSupervisor(args []string, stdin, stdout, stderr *os.File) (int, error) {
	parent, n, opts, argv, err := superviseArgs(args)
	if err != nil {
		return 2, err
	}
	if err := proc.JoinCgroup(opts.cgroups); err != nil {
		return 1, fmt.Errorf("%s: %w", SuperviseCommand, err)
	}
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(unix.SIGKILL), 0, 0, 0); err != nil {
		return 1, fmt.Errorf("%s: %w", SuperviseCommand, err)
	}
	if os.Getppid() != parent {
		return 137, fmt.Errorf("%s: the runner is gone", SuperviseCommand)
	}
	// bwrap exits as soon as the step does; its init inside the pid
	// namespace, and with it whatever the step left there, dies an instant
	// later. As their subreaper the supervisor kills and waits for them,
	// so that the sandbox is gone when it exits.
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return 1, fmt.Errorf("%s: %w", SuperviseCommand, err)
	}
	var uidLock *os.File // see lockHostUID
	defer func() {
		reapAll()
		// Only now that nothing of the sandbox runs as its uid may
		// another sandbox take it.
		if uidLock != nil {
			uidLock.Close()
		}
	}()
	runtime.LockOSThread() // Pdeathsig follows the thread that forks bwrap; never unlocked
	var files []*os.File
	for i := range n {
		files = append(files, os.NewFile(uintptr(3+i), "bind"))
	}
	attr := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if os.Getuid() == 0 {
		// Never root: bwrap runs as an unprivileged uid of its own (see
		// lockHostUID), which owns the binds it is given (see stageBinds)
		// and nothing else of the host.
		var uid uint32
		uid, uidLock = lockHostUID()
		if argv, err = stageBinds(argv, uid); err != nil {
			return 1, fmt.Errorf("%s: %w", SuperviseCommand, err)
		}
		for i, f := range files {
			if fd := 3 + i; fd != opts.stop && !slices.Contains(opts.pass, fd) {
				f.Close() // staged: bwrap binds no descriptor
			}
		}
		attr.Credential = &syscall.Credential{Uid: uid, Gid: uid, Groups: []uint32{}}
		if opts.nproc > 0 { // inherited by bwrap; root itself ignores it
			lim := &unix.Rlimit{Cur: uint64(opts.nproc), Max: uint64(opts.nproc)}
			if err := unix.Setrlimit(unix.RLIMIT_NPROC, lim); err != nil {
				return 1, fmt.Errorf("%s: RLIMIT_NPROC: %w", SuperviseCommand, err)
			}
		}
	}
	proc.CloseInheritedOnExec() // bwrap gets the binds' descriptors, if any, the init's, and nothing else
	stop := fileAt(files, opts.stop)
	extra := slices.Clone(files)
	if attr.Credential != nil {
		extra = only(files, opts.pass)
	} else if stop != nil {
		extra[opts.stop-3] = nil
	}
	filter, err := seccompFile()
	if err != nil {
		return 1, fmt.Errorf("%s: %w", SuperviseCommand, err)
	}
	if filter != nil {
		defer filter.Close()
		fd := strconv.Itoa(3 + len(extra))
		extra = append(extra, filter)
		argv = append([]string{argv[0], "--seccomp", fd}, argv[1:]...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	cmd.ExtraFiles = extra
	cmd.SysProcAttr = attr
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return 127, fmt.Errorf("%s: %w", SuperviseCommand, err)
	}
	for _, f := range files {
		if f != stop {
			f.Close()
		}
	}
	foreground(stdin, cmd.Process.Pid)
	return supervise(cmd, sigs, stop)
}

// superviseOpts are the supervisor's options: the cgroup folders it
// joins (--cgroup DIR), the unprivileged uid's process bound (--nproc
// N), the descriptors of the init's channels (--pass FD, repeated), which
// bwrap gets at the same numbers however the binds go, and the write end
// of the init's stop channel (--stop FD), which only the supervisor holds.
// Each FD is one of the N.
type superviseOpts struct {
	cgroups []string
	nproc   int
	pass    []int
	stop    int
}

const superviseUsage = "usage: PARENT N [--cgroup DIR]... [--nproc N] [--pass FD]... [--stop FD] -- BWRAP [ARGS...]"

// only returns files with every entry nil (a descriptor the child does
// not get) but those of descriptors fds, and none after the last.
func only(files []*os.File, fds []int) []*os.File {
	var out []*os.File
	for _, fd := range fds {
		if f := fileAt(files, fd); f != nil {
			for len(out) <= fd-3 {
				out = append(out, nil)
			}
			out[fd-3] = f
		}
	}
	return out
}

// fileAt returns the entry of files that is descriptor fd, or nil.
func fileAt(files []*os.File, fd int) *os.File {
	if i := fd - 3; i >= 0 && i < len(files) {
		return files[i]
	}
	return nil
}

// superviseArgs parses PARENT N [OPTIONS] -- ARGV....
func superviseArgs(args []string) (parent, n int, opts superviseOpts, argv []string, err error) {
	if len(args) < 4 {
		return 0, 0, opts, nil, fmt.Errorf("%s: %s", SuperviseCommand, superviseUsage)
	}
	parent, err1 := strconv.Atoi(args[0])
	n, err2 := strconv.Atoi(args[1])
	if err := errors.Join(err1, err2); err != nil || n < 0 {
		return 0, 0, opts, nil, fmt.Errorf("%s: %s: %v", SuperviseCommand, superviseUsage, err)
	}
	rest := args[2:]
	for len(rest) >= 2 && rest[0] != "--" {
		switch rest[0] {
		case "--cgroup":
			opts.cgroups = append(opts.cgroups, rest[1])
		case "--nproc":
			if opts.nproc, err = strconv.Atoi(rest[1]); err != nil {
				return 0, 0, opts, nil, fmt.Errorf("%s: --nproc: %w", SuperviseCommand, err)
			}
		case "--pass":
			fd, err := strconv.Atoi(rest[1])
			if err != nil {
				return 0, 0, opts, nil, fmt.Errorf("%s: --pass: %w", SuperviseCommand, err)
			}
			opts.pass = append(opts.pass, fd)
		case "--stop":
			if opts.stop, err = strconv.Atoi(rest[1]); err != nil {
				return 0, 0, opts, nil, fmt.Errorf("%s: --stop: %w", SuperviseCommand, err)
			}
		default:
			return 0, 0, opts, nil, fmt.Errorf("%s: %s: unknown option %q", SuperviseCommand, superviseUsage, rest[0])
		}
		rest = rest[2:]
	}
	if len(rest) < 2 || rest[0] != "--" {
		return 0, 0, opts, nil, fmt.Errorf("%s: %s", SuperviseCommand, superviseUsage)
	}
	return parent, n, opts, rest[1:], nil
}

// supervise passes signals into the sandbox until bwrap exits. Before
// the first, it writes a byte on stop (when there is one): the sandbox's
// init then knows, when the step exits of that signal, that the runner is
// stopping it (see [RunInit]).
func supervise(cmd *exec.Cmd, sigs <-chan os.Signal, stop *os.File) (int, error) {
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	for {
		select {
		case s := <-sigs:
			if stop != nil {
				_, _ = stop.Write([]byte{1})
				stop = nil
			}
			signalInside(cmd.Process.Pid, s.(syscall.Signal))
		case err := <-waited:
			return exitStatus(cmd, err)
		}
	}
}

// signalInside sends sig to every descendant of root that is not bwrap
// itself: the step, whatever it started, and the bridge.
func signalInside(root int, sig syscall.Signal) {
	childrenOf := childLister()
	queue := childrenOf(root)
	for len(queue) > 0 {
		pid := queue[0]
		queue = append(queue[1:], childrenOf(pid)...)
		if comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid)); strings.TrimSpace(string(comm)) != "bwrap" {
			_ = syscall.Kill(pid, sig)
		}
	}
}

// childLister returns a function that lists a process's children. It
// reads each of the process's threads' children files, so that the cost
// is the sandbox's processes, not the machine's; on a kernel without them
// (CONFIG_PROC_CHILDREN), it reads the parent of every process once.
func childLister() func(pid int) []int {
	if _, err := os.Stat(fmt.Sprintf("/proc/%d/task/%d/children", os.Getpid(), os.Getpid())); err == nil {
		return childrenFiles
	}
	return walkParents()
}

// walkParents reads the parent of every process on the machine once, and
// returns a function that lists a process's children from that.
func walkParents() func(pid int) []int {
	children := make(map[int][]int)
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, path := range stats {
		pid, _ := strconv.Atoi(strings.Split(path, "/")[2])
		if ppid, ok := parentOf(path); ok {
			children[ppid] = append(children[ppid], pid)
		}
	}
	return func(pid int) []int { return children[pid] }
}

// childrenFiles lists the children of pid from the children file of each
// of its threads (a child is listed under the thread that forked it).
func childrenFiles(pid int) []int {
	files, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	var kids []int
	for _, f := range files {
		data, _ := os.ReadFile(f)
		for _, field := range strings.Fields(string(data)) {
			if kid, err := strconv.Atoi(field); err == nil {
				kids = append(kids, kid)
			}
		}
	}
	return kids
}

// reapAll kills every process left below the supervisor and waits for
// each, until it has no child.
func reapAll() {
	for {
		if !liveChild() {
			// Most often none is left: the pid namespace's init took the
			// sandbox with it. Then there is nothing to kill, and no need
			// to read every process of the machine to know it.
			return
		}
		signalInside(os.Getpid(), syscall.SIGKILL)
		if _, err := unix.Wait4(-1, nil, 0, nil); errors.Is(err, unix.ECHILD) {
			return
		}
	}
}

// parentOf reads the parent pid from a /proc/PID/stat file, whose second
// field (the command, in parentheses) may hold spaces.
func parentOf(statPath string) (int, bool) {
	b, err := os.ReadFile(statPath)
	if err != nil {
		return 0, false
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, false
	}
	fields := strings.Fields(string(b[i+1:]))
	if len(fields) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(fields[1])
	return ppid, err == nil
}

// foreground hands the terminal to bwrap's group when the sandbox runs on
// one (an interactive step), as a shell does for the program it starts:
// the step may then read it, and the kernel sends it SIGWINCH when the
// window changes. A background group reading its terminal is stopped.
func foreground(tty *os.File, pgid int) {
	fd := int(tty.Fd())
	if _, err := unix.IoctlGetTermios(fd, unix.TCGETS); err != nil {
		return // not a terminal
	}
	signal.Ignore(syscall.SIGTTOU) // a background caller of tcsetpgrp would be stopped
	unix.IoctlSetPointerInt(fd, unix.TIOCSPGRP, pgid)
}
