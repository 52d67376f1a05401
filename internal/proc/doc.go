// Package proc owns one step process and its process group, so that nothing
// the step spawns outlives the attempt and no grandchild can hang the runner.
//
// [Start] starts an [*exec.Cmd] as the leader of a new process group.
// [Process.Signal] and [Process.Stop] address the whole group (kill(-pgid)),
// and [Process.Reap] kills what is left of the group once the attempt is
// over and collects orphaned members, so no zombie is left behind.
//
// A typical attempt:
//
//	p, err := proc.Start(cmd) // cmd.Stdout etc. are *os.File from os.Pipe
//	...                       // close the child's ends, read the pipes
//	select {
//	case <-p.Exited():
//	case <-ctx.Done():
//		killed := p.Stop(grace) // SIGTERM, then SIGKILL after grace
//		...
//	}
//	err = p.Reap(timeout) // kill and collect whatever is left
//
// # Lifetime
//
// Start runs one goroutine per process. It forks the child, waits for the
// leader with [exec.Cmd.Wait] and ends when the leader has exited, which
// closes [Process.Exited]. The caller must not call cmd.Wait itself.
//
// # Platforms
//
// The package builds on Unix only. On Linux the child gets Pdeathsig SIGKILL,
// so it dies with the runner, and [BecomeSubreaper] makes the runner the
// parent of the group's orphans, so [Process.Reap] can collect them. Other
// Unix systems have neither: BecomeSubreaper returns [ErrUnsupported], and
// orphans are reaped by whoever the system reparents them to. Until then a
// dead orphan still counts as a member of the group (kill(-pgid, 0) finds
// it), so [Process.Stop] may wait out its grace and [Process.Reap] its
// timeout.
//
// # Group ids
//
// A group id can be reused once the group is empty. A Process stops
// signalling and reaping as soon as it sees its group empty after the leader
// has exited; before that, the leader (or a zombie member) holds the id.
//
// # What it does not do
//
// It does not build the command, read or write its pipes, apply a sandbox or
// choose timeouts: the caller owns the [*exec.Cmd] and every file it holds,
// and Start closes none of them. It does not follow processes that leave the
// group (setsid, setpgid, daemons); a sandbox with its own PID namespace is
// the answer to those. It does not use the command's context: to cancel,
// call [Process.Stop].
package proc
