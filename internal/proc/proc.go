//go:build unix

package proc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
)

// ErrUnsupported is returned by [BecomeSubreaper] on systems without child
// subreapers (everything but Linux). It wraps [errors.ErrUnsupported].
var ErrUnsupported = fmt.Errorf("proc: subreaper: %w", errors.ErrUnsupported)

// ErrGroupAlive is returned by [Process.Reap] when the leader or another
// member of the group still exists after its timeout.
var ErrGroupAlive = errors.New("proc: process group still alive")

// A Process is a started step: the leader of its own process group, and the
// group itself. Its methods are safe for concurrent use.
type Process struct {
	pid int // leader's pid, which is also the group id

	// exited is closed by the goroutine started in Start once the leader
	// has exited and cmd.Wait has returned; that goroutine then ends.
	exited chan struct{}
	state  *os.ProcessState // set before exited is closed
	err    error            // cmd.Wait's error, set before exited is closed

	// gone is set once the leader has exited and no member of the group is
	// left. From then on the group id may be reused by an unrelated group,
	// so the Process sends no more signals and reaps nothing.
	gone atomic.Bool

	killed atomic.Bool // Stop sent the group SIGKILL: its members are dying, not left
	cgroup *Cgroup     // the cgroup the child was born in; nil when none
	mu     sync.Mutex
	left   []Left // what the step left behind (see KillOrphans)
}

// Start starts cmd as the leader of a new process group and returns the
// running [Process]. On Linux the child also gets Pdeathsig SIGKILL (unless
// cmd.SysProcAttr already names a signal). That signal follows the thread
// that forked the child, so Start forks from a goroutine locked to its OS
// thread, and that goroutine stays locked until the child has exited.
//
// Start sets Setpgid in a copy of cmd.SysProcAttr (overriding Pgid), so the
// caller's struct is not modified. If SysProcAttr.Setsid is set, as for a
// step on a pseudo-terminal, the new session's process group is the group.
//
// cmd.Stdin, cmd.Stdout and cmd.Stderr should be nil or *os.File (from
// [os.Pipe], say): then os/exec starts no copying goroutines, and a
// grandchild that holds a pipe open cannot delay [Process.Exited]. With other
// types, set cmd.WaitDelay. Start closes nothing the caller owns; the caller
// must not call cmd.Wait.
func Start(cmd *exec.Cmd) (*Process, error) { return StartIn(cmd, nil) }

// StartIn is [Start] with the child born in cgroup c (nil: none), so
// that [Process.KillOrphans] finds every process it leaves behind, even
// one that left its group. The caller removes c after KillOrphans.
func StartIn(cmd *exec.Cmd, c *Cgroup) (*Process, error) {
	cmd.SysProcAttr = groupAttr(cmd.SysProcAttr)
	CloseInheritedOnExec()
	p := &Process{exited: make(chan struct{}), cgroup: c}
	started := make(chan error)
	go p.run(cmd, started)
	if err := <-started; err != nil {
		return nil, fmt.Errorf("proc: start: %w", err)
	}
	return p, nil
}

// groupAttr returns a copy of attr that puts the child in a new process
// group (a session leader already leads its own group) and sets the
// platform's death signal.
func groupAttr(attr *syscall.SysProcAttr) *syscall.SysProcAttr {
	a := new(syscall.SysProcAttr)
	if attr != nil {
		*a = *attr
	}
	a.Setpgid = !a.Setsid
	a.Pgid = 0
	setDeathSignal(a)
	return a
}

// run forks cmd on a locked OS thread, reports the outcome of cmd.Start on
// started, and keeps the thread locked until the leader has been waited for,
// so that a thread exit cannot deliver the death signal early.
func (p *Process) run(cmd *exec.Cmd, started chan<- error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	placed := p.cgroup.enter(cmd)
	err := cmd.Start()
	if err == nil {
		if perr := placed(cmd.Process.Pid); perr != nil {
			// Not in its cgroup, or stopped for good: it must not run
			// untracked. Wait reaps it; the attempt fails to start.
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			err = perr
		}
	}
	if err != nil {
		started <- err
		return
	}
	p.pid = cmd.Process.Pid
	started <- nil
	p.err = cmd.Wait()
	p.state = cmd.ProcessState
	close(p.exited)
}

// Pid returns the leader's process id, which is also the group id.
func (p *Process) Pid() int { return p.pid }

// Exited returns a channel that is closed when the leader has exited and
// has been waited for. Other members of the group may still be running.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// State returns the leader's exit state once [Process.Exited] is closed, and
// nil before.
func (p *Process) State() *os.ProcessState {
	if !p.hasExited() {
		return nil
	}
	return p.state
}

// Err returns the error of [exec.Cmd.Wait] once [Process.Exited] is closed,
// and nil before: nil for exit status 0, an [*exec.ExitError] otherwise, or
// an error from copying or [exec.ErrWaitDelay] when the command's files are
// not all *os.File.
func (p *Process) Err() error {
	if !p.hasExited() {
		return nil
	}
	return p.err
}

// hasExited reports whether exited is closed.
func (p *Process) hasExited() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}
