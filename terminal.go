package step

import (
	"io"
	"os"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// Terminal is the person's side of an interactive step's pseudo-terminal.
// Run never touches the runner's own stdin or stdout: the caller passes
// them here, and puts a real terminal in raw mode itself (cmd/kusaw-step
// does, in Begin and End). Every field may be left zero: the step still
// runs on a pseudo-terminal, with no input, and its output only in
// terminal.log.
type Terminal struct {
	// Input is copied to the step's terminal: what the person types, or a
	// script's answers. At its end the step's terminal gets one end of file
	// (^D). When the step is gone, Run interrupts a Read in progress with
	// SetReadDeadline if Input has it (and clears the deadline after);
	// otherwise Run does not wait for that Read, and the copy ends after
	// it returns, dropping what it read.
	Input io.Reader
	// Output receives everything the step writes to its terminal. Its
	// errors are ignored: the step is never held up by a screen that
	// failed. Nil shows nothing.
	Output io.Writer
	// Size, if not nil, returns the size the step's terminal takes. Run
	// calls it as the step starts and each time a value arrives on Resized;
	// an error leaves the size as it was.
	Size func() (rows, cols int, err error)
	// Resized tells Run that the person's terminal changed size, typically
	// a channel that signal.Notify feeds with SIGWINCH. Nil means never.
	Resized <-chan os.Signal
	// Begin, if not nil, is called just before the step starts on its
	// terminal; an error means the step is not started. End, if not nil,
	// is called once the step's terminal is closed, unless Begin failed.
	Begin func() error
	End   func()
}

// session is the runner's side of the step's pseudo-terminal and the
// goroutines that serve it. Each goroutine closes its done channel when it
// ends; finish waits for all of them (but see Terminal.Input).
type session struct {
	t          Terminal
	ptm, pts   *os.File      // the controller (ours) and the step's terminal
	log        io.Writer     // terminal.log and the tail, capped
	outDone    chan struct{} // the output copy has ended
	inDone     chan struct{} // the input copy has ended
	resizeStop chan struct{} // closed to end the resize loop
	resizeDone chan struct{} // the resize loop has ended
	endDue     bool          // Begin was called; End is due
}

// openSession opens a pseudo-terminal of t's size, and calls t.Begin.
func openSession(t Terminal, log io.Writer) (*session, error) {
	ptm, pts, err := openPTY()
	if err != nil {
		return nil, err
	}
	s := &session{t: t, ptm: ptm, pts: pts, log: log}
	s.resize()
	if t.Begin != nil {
		if err := t.Begin(); err != nil {
			s.closeChild()
			ptm.Close()
			return nil, err
		}
	}
	s.endDue = t.End != nil
	return s, nil
}

// closeChild closes our copy of the step's terminal, once the step has its
// own: the output copy then ends when the step's last process lets go.
func (s *session) closeChild() { s.pts.Close() }

// serve starts the output copy, the input copy and the resize loop.
func (s *session) serve() {
	s.outDone, s.inDone = make(chan struct{}), make(chan struct{})
	s.resizeStop, s.resizeDone = make(chan struct{}), make(chan struct{})
	go s.copyOut()
	go s.copyIn()
	go s.resizeLoop()
}

// copyOut copies the step's terminal to terminal.log and the screen.
// Reading ends with EIO (Linux) or EOF once no process holds the step's
// terminal, or with an error once finish closes ptm.
func (s *session) copyOut() {
	defer close(s.outDone)
	w := s.log
	if s.t.Output != nil {
		w = io.MultiWriter(s.log, lenient{s.t.Output})
	}
	_, _ = io.Copy(w, s.ptm) // EIO is how a terminal ends
}

// copyIn copies the person's input to the step's terminal, then sends ^D.
func (s *session) copyIn() {
	defer close(s.inDone)
	if s.t.Input == nil {
		return
	}
	if _, err := io.Copy(s.ptm, s.t.Input); err == nil {
		_, _ = s.ptm.Write([]byte{4}) // VEOF: the step's next read sees the end
	}
}

// resizeLoop copies the person's window size to the step's terminal each
// time it changes.
func (s *session) resizeLoop() {
	defer close(s.resizeDone)
	for {
		select {
		case <-s.t.Resized:
			s.resize()
		case <-s.resizeStop:
			return
		}
	}
}

// resize gives the step's terminal the person's size. Errors are dropped:
// the size stays as it was.
func (s *session) resize() {
	if s.t.Size == nil {
		return
	}
	rows, cols, err := s.t.Size()
	if err != nil || rows <= 0 || cols <= 0 {
		return
	}
	ws := &unix.Winsize{Row: uint16(rows), Col: uint16(cols)}
	if sc, err := s.ptm.SyscallConn(); err == nil {
		_ = sc.Control(func(fd uintptr) { _ = unix.IoctlSetWinsize(int(fd), unix.TIOCSWINSZ, ws) })
	}
}

// finish ends the session once the step's group is gone: it waits up to
// drainDelay for the output (a process outside the group may still hold
// the terminal: then ptm is closed under it) and reports whether it had to
// cut it; then it stops the input copy and the resize loop, and calls End.
func (s *session) finish() (forced bool) {
	t := time.NewTimer(drainDelay)
	defer t.Stop()
	select {
	case <-s.outDone:
	case <-t.C:
		forced = true
	}
	s.ptm.Close()
	<-s.outDone
	close(s.resizeStop)
	<-s.resizeDone
	s.stopInput()
	if s.endDue {
		s.endDue = false
		s.t.End()
	}
	return forced
}

// stopInput interrupts the input copy, if Input allows it, and waits for
// it; otherwise it leaves it to end on its own (see Terminal.Input).
func (s *session) stopInput() {
	d, ok := s.t.Input.(interface{ SetReadDeadline(time.Time) error })
	if !ok || d.SetReadDeadline(time.Unix(1, 0)) != nil {
		return
	}
	<-s.inDone
	_ = d.SetReadDeadline(time.Time{})
}

// abort undoes openSession when the step could not be started.
func (s *session) abort() {
	s.ptm.Close()
	if s.endDue {
		s.endDue = false
		s.t.End()
	}
}

// lenient is a writer whose errors are dropped, so that a failed screen
// does not stop terminal.log, nor the step.
type lenient struct{ w io.Writer }

func (l lenient) Write(p []byte) (int, error) {
	_, _ = l.w.Write(p)
	return len(p), nil
}

// openPTY opens a pseudo-terminal whose controller is pollable, so that
// closing it ends a Read or Write in progress. pty.Open leaves it in
// blocking mode (it calls Fd), so the controller is duplicated, made
// non-blocking and wrapped anew.
func openPTY() (ptm, pts *os.File, err error) {
	old, pts, err := pty.Open()
	if err != nil {
		return nil, nil, err
	}
	defer old.Close()
	fd, err := unix.FcntlInt(old.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err == nil {
		if err = unix.SetNonblock(fd, true); err != nil {
			unix.Close(fd)
		}
	}
	if err != nil {
		pts.Close()
		return nil, nil, err
	}
	return os.NewFile(uintptr(fd), old.Name()), pts, nil
}
