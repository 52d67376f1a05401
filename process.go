package step

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"

	"kusaw.dev/step/attemptdir"
	"kusaw.dev/step/events"
	"kusaw.dev/step/internal/proc"
	"kusaw.dev/step/protocol"
)

// drainDelay is how long the runner waits for more of the step's output
// after its group is gone and the pumps have read nothing: a process that
// left the group (a daemon that called setsid) may still hold stdout, and
// must not hang the attempt. Reading what the step wrote before it ended
// is never cut, however long a loaded machine takes over it.
const drainDelay = 2 * time.Second

// output is what the step did while it ran.
type output struct {
	startErr   error
	state      *os.ProcessState
	summary    *events.Summary
	usage      *protocol.Usage
	artifacts  eventArtifacts // from artifact events, distinct and bounded, checked at the end
	stop       stopCause      // why the runner stopped the step; stopNone if it exited by itself
	killed     bool           // SIGKILL was needed
	forced     bool           // reading was cut after drainDelay
	stdout     *events.CappedWriter
	stderr     *events.CappedWriter
	stderrTail *events.Tail
	read       atomic.Int64 // bytes read from stdout and stderr, plus lines handled: drain's sign of progress

	// The interactive path's (interactive.go, notes.go).
	acks        []string             // the ids note_ack events named, in order
	interactive bool                 // the step ran on a terminal
	terminal    *events.CappedWriter // terminal.log
}

// stopCause says why the runner stopped the step.
type stopCause int

const (
	stopNone      stopCause = iota
	stopCancelled           // the caller cancelled
	stopTimeout             // time_left_ms ran out
	stopProblem             // the first protocol error
	stopLingered            // no exit within completion_grace_seconds of the result
)

// signals carry news from the stdout pump to the supervisor.
type signals struct {
	result, problem         chan struct{}
	resultOnce, problemOnce sync.Once
}

func (s *signals) sawResult()  { s.resultOnce.Do(func() { close(s.result) }) }
func (s *signals) sawProblem() { s.problemOnce.Do(func() { close(s.problem) }) }

// pipes are the step's standard streams: the child's ends and ours.
type pipes struct {
	stdinR, stdinW, stdoutR, stdoutW, stderrR, stderrW *os.File
}

func newPipes() (*pipes, error) {
	var p pipes
	var err error
	if p.stdinR, p.stdinW, err = os.Pipe(); err != nil {
		return nil, err
	}
	if p.stdoutR, p.stdoutW, err = os.Pipe(); err != nil {
		p.close()
		return nil, err
	}
	if p.stderrR, p.stderrW, err = os.Pipe(); err != nil {
		p.close()
		return nil, err
	}
	return &p, nil
}

// closeChild closes the child's ends, once the child has its copies.
func (p *pipes) closeChild() {
	for _, f := range []*os.File{p.stdinR, p.stdoutW, p.stderrW} {
		if f != nil {
			f.Close()
		}
	}
}

// close closes every end; closing our ends also ends a pump blocked on one.
func (p *pipes) close() {
	p.closeChild()
	for _, f := range []*os.File{p.stdinW, p.stdoutR, p.stderrR} {
		if f != nil {
			f.Close()
		}
	}
}

// execute runs the step on the request and reads all it says. It returns
// when the step's group is gone and every stream is drained.
func (at *attempt) execute(ctx context.Context) *output {
	out := &output{stderrTail: events.NewTail(8 << 10)}
	logs, err := at.openLogs(out)
	if err != nil {
		out.startErr = err
		return out
	}
	defer logs.close()
	pp, err := newPipes()
	if err != nil {
		out.startErr = err
		return out
	}
	defer pp.close()
	p, err := at.start(pp)
	pp.closeChild()
	if err != nil {
		out.startErr = err
		return out
	}
	sig := &signals{result: make(chan struct{}), problem: make(chan struct{})}
	pumped := at.pump(pp, out, sig)
	out.stop, out.killed = at.supervise(ctx, p, sig)
	<-p.Exited()
	out.state = p.State()
	p.Reap(at.grace)
	at.processesLeft(p.KillOrphans(), out)
	at.endTracking()
	out.forced = drain(pumped, pp, &out.read)
	at.flushMasks()
	return out
}

// start starts the step in its own process group.
func (at *attempt) start(pp *pipes) (*proc.Process, error) {
	cmd, err := at.command(func(cmd *exec.Cmd) {
		cmd.Stdin, cmd.Stdout, cmd.Stderr = pp.stdinR, pp.stdoutW, pp.stderrW
	})
	if err != nil {
		return nil, err
	}
	return proc.StartIn(cmd, at.trackingCgroup())
}

// trackingCgroup returns a cgroup of no limits for a step the sandbox
// does not hold (whose supervisor ends everything in it), so that what it
// leaves behind is found even when it left its group; nil when the runner
// may make none here (not root).
func (at *attempt) trackingCgroup() *proc.Cgroup {
	if at.plan != nil && at.plan.Policy.Backend != "" {
		return nil
	}
	cg, err := proc.NewCgroup(proc.Limits{})
	if err != nil {
		return nil
	}
	at.tracking = cg
	return cg
}

// endTracking removes the tracking cgroup, once its processes are gone.
func (at *attempt) endTracking() {
	if at.tracking != nil {
		_ = at.tracking.Remove()
		at.tracking = nil
	}
}

// processesLeft warns of the processes the step left running when it
// exited, which the runner killed: left, found on the host, and those
// the sandbox's init reported (and killed) inside a bwrap sandbox, whose
// pid namespace hides them from the runner.
func (at *attempt) processesLeft(left []proc.Left, out *output) {
	inside, more := at.sb.Leftovers(out.stop != stopNone)
	n := len(left) + len(inside) + more
	if n == 0 {
		return
	}
	var names []string
	for _, l := range left {
		names = append(names, l.String())
	}
	for _, l := range inside {
		names = append(names, l.String())
	}
	list := strings.Join(names, ", ")
	if more > 0 {
		list += fmt.Sprintf(" and %d more", more)
	}
	if len(inside) > 0 || more > 0 {
		list += " (pids as seen inside the sandbox)"
	}
	at.warn(WarnProcessesLeft, fmt.Sprintf("the step left %d process(es) running when it exited, killed by the runner: %s; wait for every process you start, and do not detach any",
		n, list))
}

// pump starts the three stream pumps and returns a channel closed when all
// of them are done.
func (at *attempt) pump(pp *pipes, out *output, sig *signals) <-chan struct{} {
	// The stderr tail takes the raw bytes: it ends in the record's
	// diagnosis, which is masked with the record. So the log's masker
	// stops masking once the log is full.
	stdoutLog, stderrLog := at.mask(out.stdout), io.MultiWriter(at.mask(out.stderr), out.stderrTail)
	var g errgroup.Group
	g.Go(func() error { return writeRequest(pp.stdinW, at.a.Request) })
	g.Go(func() error {
		sum, err := events.Read(io.TeeReader(counted{pp.stdoutR, &out.read}, stdoutLog), at.readOptions(out, sig))
		out.summary = sum
		return err
	})
	g.Go(func() error {
		_, err := io.Copy(stderrLog, counted{pp.stderrR, &out.read})
		return err
	})
	done := make(chan struct{})
	go func() {
		_ = g.Wait() // read errors after a forced close are expected
		close(done)
	}()
	return done
}

// writeRequest hands the request to the step, then EOF. A step that never
// reads stdin is fine: EPIPE and a closed pipe are not errors.
func writeRequest(w *os.File, req []byte) error {
	_, err := w.Write(req)
	w.Close()
	if errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed) {
		return nil
	}
	return err
}

func (at *attempt) readOptions(out *output, sig *signals) events.Options {
	obs := at.a.Observer
	var want func(string) bool // every type, for the observer
	if obs.Event == nil {
		// Without an observer only these are kept; the others (a flood of
		// progress, say) are checked and counted without allocating.
		want = func(t string) bool { return t == "usage" || t == "artifact" || t == "note_ack" }
	}
	return events.Options{
		MaxLine: int(at.limits.maxLine),
		Want:    want,
		OnEvent: func(_ int, raw []byte, ev protocol.Event) {
			out.read.Add(1) // a line handled is progress too, for drain
			switch e := ev.(type) {
			case *protocol.Usage:
				out.usage = e
			case *protocol.ArtifactEvent:
				out.artifacts.add(e.Artifact)
			case *protocol.NoteAck:
				out.acks = append(out.acks, e.ID)
			}
			if obs.Event != nil {
				obs.Event(at.maskEvent(ev, raw))
			}
		},
		OnResult: func(int, []byte) { out.read.Add(1); sig.sawResult() },
		OnProblem: func(p *events.ProtocolError) {
			out.read.Add(1)
			sig.sawProblem()
			if obs.Problem != nil {
				obs.Problem(p)
			}
		},
	}
}

// supervise waits for the step to exit, and stops its group when the
// caller cancels, time runs out, the step lingers after its result, or it
// breaks the protocol.
func (at *attempt) supervise(ctx context.Context, p *proc.Process, sig *signals) (stopCause, bool) {
	timeout := time.NewTimer(at.limits.timeLeft)
	defer timeout.Stop()
	var lingering <-chan time.Time
	result, problem := sig.result, sig.problem
	for {
		var cause stopCause
		select {
		case <-p.Exited():
			return stopNone, false
		case <-ctx.Done():
			cause = stopCancelled
		case <-timeout.C:
			cause = stopTimeout
		case <-result:
			result, lingering = nil, time.After(at.limits.completionGrace)
			continue
		case <-lingering:
			cause = stopLingered
		case <-problem:
			problem = nil
			if at.a.KeepGoing {
				continue
			}
			cause = stopProblem
		}
		at.a.Log.Debug().Int("pid", p.Pid()).Int("cause", int(cause)).Msg("stopping the step's process group")
		return cause, p.Stop(at.grace)
	}
}

// drain waits for the pumps after the group is gone; a process that left
// the group may still hold a pipe, so once the pumps have read nothing for
// drainDelay our ends are closed. It reports whether it had to.
func drain(pumped <-chan struct{}, pp *pipes, read *atomic.Int64) bool {
	t := time.NewTicker(drainDelay)
	defer t.Stop()
	last := read.Load()
	for {
		select {
		case <-pumped:
			return false
		case <-t.C:
			if n := read.Load(); n != last {
				last = n // still reading what the step wrote: not idle
				continue
			}
			pp.close()
			<-pumped
			return true
		}
	}
}

// counted is a reader that adds what it reads to n.
type counted struct {
	r io.Reader
	n *atomic.Int64
}

func (c counted) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	c.n.Add(int64(k))
	return k, err
}

// logs are the attempt's two log files.
type logs struct{ stdout, stderr *os.File }

func (l *logs) close() {
	l.stdout.Close()
	l.stderr.Close()
}

func (at *attempt) openLogs(out *output) (*logs, error) {
	var l logs
	var err error
	at.rec.Logs.Stdout.Path = at.path(attemptdir.Stdout)
	at.rec.Logs.Stderr.Path = at.path(attemptdir.Stderr)
	if l.stdout, err = os.Create(at.rec.Logs.Stdout.Path); err != nil {
		return nil, err
	}
	if l.stderr, err = os.Create(at.rec.Logs.Stderr.Path); err != nil {
		l.stdout.Close()
		return nil, err
	}
	out.stdout = events.NewCappedWriter(l.stdout, at.limits.logCap)
	out.stderr = events.NewCappedWriter(l.stderr, at.limits.logCap)
	return &l, nil
}
