//go:build unix

package proc

import (
	"errors"
	"fmt"
	"syscall"
	"time"
)

// pollInterval is how often Stop and Reap look for remaining members of
// the group after the leader has exited. Both bound the polling by a
// deadline.
const pollInterval = 10 * time.Millisecond

// Signal sends sig to every process in the group (kill(-pgid, sig)). A group
// that no longer exists is not an error; once the leader has exited and the
// group is found empty, Signal does nothing, because the group id may by then
// belong to someone else.
func (p *Process) Signal(sig syscall.Signal) error {
	if p.gone.Load() {
		return nil
	}
	err := syscall.Kill(-p.pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		p.markGone()
		return nil
	}
	if err != nil {
		return fmt.Errorf("proc: signal %v to group %d: %w", sig, p.pid, err)
	}
	return nil
}

// Alive reports whether any process of the group still exists
// (kill(-pgid, 0)). Once the leader has exited, Alive first reaps members
// that have already died and are the runner's children (see
// [BecomeSubreaper]), so those zombies do not count. A dead member whose
// parent has not yet reaped it still counts.
func (p *Process) Alive() bool {
	if p.gone.Load() {
		return false
	}
	if p.hasExited() {
		reapGroup(p.pid)
	}
	err := syscall.Kill(-p.pid, 0)
	if errors.Is(err, syscall.ESRCH) {
		p.markGone()
		return false
	}
	return true // nil, or EPERM: a member we may not signal
}

// Stop asks the group to stop: SIGTERM (and SIGCONT, so a stopped member can
// act on it) to the group, then SIGKILL to the group if, after grace, the
// leader has not exited or other members of the group remain. It reports
// whether SIGKILL was sent. Stop returns after at most about grace; it does
// not wait for killed processes: receive from [Process.Exited], then call
// [Process.Reap]. It is safe to call more than once, and after exit.
func (p *Process) Stop(grace time.Duration) (killed bool) {
	// Errors can only be EPERM for a member that changed its user: nothing
	// better to do than to go on.
	_ = p.Signal(syscall.SIGTERM)
	_ = p.Signal(syscall.SIGCONT)
	deadline := time.NewTimer(grace)
	defer deadline.Stop()
	if p.waitGone(deadline.C) {
		return false
	}
	p.killed.Store(true)
	_ = p.Signal(syscall.SIGKILL)
	return true
}

// Reap ends the attempt's process group: it sends SIGKILL to whatever is
// left of the group (the leader too, if it is still running), waits for the
// leader to be waited for, and, where the runner is a child subreaper, reaps
// orphaned members so no zombie is left. It returns once no process of the
// group exists, or [ErrGroupAlive] after timeout. Reap never waits for a
// group member before the leader has been waited for, so it cannot steal the
// leader's exit status. It is safe to call more than once.
func (p *Process) Reap(timeout time.Duration) error {
	p.noteMembers()
	_ = p.Signal(syscall.SIGKILL) // EPERM shows up as ErrGroupAlive below
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	if !p.waitGone(deadline.C) {
		return fmt.Errorf("%w: group %d after %v", ErrGroupAlive, p.pid, timeout)
	}
	return nil
}

// waitGone waits until the leader has exited and the group is empty, or
// until deadline fires, and reports whether the group is gone.
func (p *Process) waitGone(deadline <-chan time.Time) bool {
	select {
	case <-p.exited:
	case <-deadline:
		return false
	}
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for p.Alive() {
		select {
		case <-tick.C:
		case <-deadline:
			return false
		}
	}
	return true
}

// markGone records that the group is empty, but only after the leader has
// been waited for: before that the leader holds the group id.
func (p *Process) markGone() {
	if p.hasExited() {
		p.gone.Store(true)
	}
}

// reapGroup waits, without blocking, for every dead child of the runner in
// group pgid. Call it only after the leader has been waited for, or it could
// take the leader's exit status from os/exec.
func reapGroup(pgid int) {
	for {
		pid, err := syscall.Wait4(-pgid, nil, syscall.WNOHANG, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil || pid <= 0 {
			return
		}
	}
}
