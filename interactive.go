package step

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"syscall"

	"kusaw.dev/step/attemptdir"
	"kusaw.dev/step/events"
	"kusaw.dev/step/internal/proc"
	"kusaw.dev/step/request"
)

// The files of an interactive attempt, in the attempt folder, besides
// request.json (KUSAW_REQUEST) and result.json (KUSAW_RESULT).
const (
	EventsFile   = attemptdir.Events   // KUSAW_EVENTS: the step appends its events here
	TerminalFile = attemptdir.Terminal // all the step wrote to its terminal, capped
)

// ErrResultInEvents is the Err of the [events.ProtocolError] for a result
// line in KUSAW_EVENTS: an interactive step writes its result to the file
// KUSAW_RESULT names.
var ErrResultInEvents = errors.New("a result in KUSAW_EVENTS")

// run runs the step, on a pseudo-terminal when its handshake says it is
// interactive and on pipes otherwise, with live notes when it takes them.
func (at *attempt) run(ctx context.Context) *output {
	if err := at.openNotes(); err != nil {
		return &output{startErr: err}
	}
	var out *output
	if at.info.Handshake.Interactive {
		out = at.interact(ctx)
		at.recordInteractive(out)
	} else {
		out = at.execute(ctx)
	}
	at.closeNotes(out)
	return out
}

// interact runs an interactive step on a pseudo-terminal: the request in
// KUSAW_REQUEST, its events followed in KUSAW_EVENTS as they are written,
// its result read from KUSAW_RESULT once it is gone. Timeouts,
// cancellation and grace are those of execute (supervise). It returns when
// the step's group is gone, the terminal is closed and the events are read.
func (at *attempt) interact(ctx context.Context) *output {
	out := &output{interactive: true, stderrTail: events.NewTail(8 << 10)}
	evf, closeFiles, err := at.openInteractive(out)
	if err != nil {
		out.startErr = err
		return out
	}
	defer closeFiles()
	s, err := openSession(at.a.Terminal, at.mask(io.MultiWriter(out.terminal, out.stderrTail)))
	if err != nil {
		out.startErr = fmt.Errorf("pseudo-terminal: %w", err)
		return out
	}
	p, err := at.startOnTerminal(s.pts)
	s.closeChild()
	if err != nil {
		s.abort()
		out.startErr = err
		return out
	}
	s.serve()
	sig := &signals{result: make(chan struct{}), problem: make(chan struct{})}
	ended := make(chan struct{})
	followed := at.follow(evf, out, sig, ended)
	out.stop, out.killed = at.supervise(ctx, p, sig)
	<-p.Exited()
	out.state = p.State()
	p.Reap(at.grace)
	at.processesLeft(p.KillOrphans(), out)
	at.endTracking()
	close(ended) // the follower reads what is left, then ends
	out.forced = s.finish()
	<-followed
	at.flushMasks()
	at.readResult(out)
	return out
}

// startOnTerminal starts the step in a new session whose controlling
// terminal is tty, so that it leads its own process group and ^C on its
// terminal reaches only it.
func (at *attempt) startOnTerminal(tty *os.File) (*proc.Process, error) {
	cmd, err := at.command(func(cmd *exec.Cmd) {
		cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	})
	if err != nil {
		return nil, err
	}
	return proc.StartIn(cmd, at.trackingCgroup())
}

// envOptions are the attempt's file paths for request.Env: the notes file
// when the step takes live notes, and the request, result and events files
// when it is interactive.
func (at *attempt) envOptions() request.EnvOptions {
	base := at.a.Env
	if base == nil {
		base = os.Environ()
	}
	eo := request.EnvOptions{Tools: request.OperatorTools(base)}
	at.fileOptions(&eo)
	if at.info != nil && at.info.Handshake.Notes == "live" {
		eo.NotesFile = at.path(NotesFile)
	}
	if at.info != nil && at.info.Handshake.Interactive {
		eo.RequestFile = at.rec.RequestPath
		eo.ResultFile = at.path(attemptdir.Result)
		eo.EventsFile = at.path(EventsFile)
	}
	return eo
}

// path returns the absolute path of a file in the attempt folder, so that
// it still names the file from the step's own working directory.
func (at *attempt) path(name string) string {
	return at.out.Path(name)
}

// openInteractive creates terminal.log and an empty events.jsonl, and
// returns the events file open for reading.
func (at *attempt) openInteractive(out *output) (*os.File, func(), error) {
	term, err := os.Create(at.path(TerminalFile))
	if err != nil {
		return nil, nil, err
	}
	evf, err := os.OpenFile(at.path(EventsFile), os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		term.Close()
		return nil, nil, err
	}
	out.terminal = events.NewCappedWriter(term, at.limits.logCap)
	return evf, func() { term.Close(); evf.Close() }, nil
}

// follow reads the events file as the step writes it, with the checks of
// stdout, until ended is closed and the file is read to its end. It returns
// a channel closed when reading is over.
func (at *attempt) follow(f *os.File, out *output, sig *signals, ended <-chan struct{}) <-chan struct{} {
	opts := at.readOptions(out, sig)
	report := opts.OnProblem
	var misplaced *events.ProtocolError
	opts.OnResult = func(line int, raw []byte) {
		misplaced = &events.ProtocolError{
			Line: line, Size: int64(len(raw)), Bytes: bytes.Clone(raw[:min(len(raw), 1<<10)]), Err: ErrResultInEvents,
			Cause: "a result line in KUSAW_EVENTS",
			Hint:  "an interactive step writes its result to the file KUSAW_RESULT names, not to KUSAW_EVENTS",
		}
		report(misplaced)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		sum, _ := events.Read(newFollower(f, ended), opts) // only a failed read of our own file
		out.summary = withMisplaced(sum, misplaced)
	}()
	return done
}

// withMisplaced turns a result found in the events file into the protocol
// error it is, in line order among the others.
func withMisplaced(sum *events.Summary, p *events.ProtocolError) *events.Summary {
	if p == nil {
		return sum
	}
	sum.Result, sum.ResultLine = nil, 0
	i, _ := slices.BinarySearchFunc(sum.Problems, p.Line, func(q *events.ProtocolError, line int) int { return q.Line - line })
	sum.Problems = slices.Insert(sum.Problems, i, p)
	return sum
}

// readResult takes the step's result from KUSAW_RESULT, once it is gone. A
// missing file leaves no result (no_result); a file that cannot be read,
// or is larger than max_line_bytes, is a protocol error.
func (at *attempt) readResult(out *output) {
	raw, err := readResultFile(at.path(attemptdir.Result), at.limits.maxLine)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		out.summary.Problems = append(out.summary.Problems, &events.ProtocolError{
			Cause: err.Error(), Err: err,
			Hint: "write the result as one JSON object, at most max_line_bytes, to the file KUSAW_RESULT names",
		})
	default:
		out.summary.Result = raw
	}
}

// readResultFile reads a result file of at most max bytes, without its
// trailing white space. It does not follow a symbolic link.
func readResultFile(path string, max int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("read KUSAW_RESULT: %w", err)
	}
	if int64(len(raw)) > max {
		return nil, fmt.Errorf("KUSAW_RESULT is over max_line_bytes (%d bytes)", max)
	}
	return bytes.TrimRight(raw, " \t\r\n"), nil
}

// where names the place of a protocol error in the verdict's message.
func (o *output) where(p *events.ProtocolError) string {
	switch {
	case !o.interactive:
		return fmt.Sprintf("stdout line %d", p.Line)
	case p.Line == 0:
		return "KUSAW_RESULT"
	}
	return fmt.Sprintf("KUSAW_EVENTS line %d", p.Line)
}

// resultRule says where the step's result belongs, for a no_result verdict.
func (o *output) resultRule() string {
	if o.interactive {
		return "an interactive step writes its result to the file KUSAW_RESULT names"
	}
	return "its last stdout line must be a result"
}

// recordInteractive records terminal.log and events.jsonl in the record.
func (at *attempt) recordInteractive(out *output) {
	if out.terminal == nil {
		return
	}
	w := out.terminal
	at.rec.Logs.Terminal = &LogFile{Path: at.path(TerminalFile), Bytes: w.Written(), Total: w.Total(), Truncated: w.Truncated()}
	if w.Truncated() {
		at.warn("log_truncated", fmt.Sprintf("the terminal went past log_cap_bytes (%d bytes of %d kept in %s)", w.Written(), w.Total(), TerminalFile))
	}
	if err := w.Err(); err != nil {
		at.warn("log_write_failed", err.Error())
	}
	ev := &LogFile{Path: at.path(EventsFile)}
	if fi, err := os.Stat(ev.Path); err == nil {
		ev.Bytes, ev.Total = fi.Size(), fi.Size()
	}
	at.rec.Logs.Events = ev
}
