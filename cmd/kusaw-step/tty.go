package main

// The person's terminal while an interactive step has it: raw mode, the
// window size, and a status line that keeps out of the step's screen.

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"golang.org/x/term"

	step "kusaw.dev/step"
	"kusaw.dev/step/protocol"
)

// personTerminal hands the person's terminal to an interactive step. When
// stdin is a terminal it is in raw mode for the session, so every key
// reaches the step (^C too: the step gets it on its own terminal), and the
// step's terminal follows the window's size. Otherwise stdin, if any, is
// still forwarded, so a script can answer prompts.
type personTerminal struct {
	fd    int
	mu    sync.Mutex
	saved *term.State    // the terminal's mode before raw; nil when not raw
	winch chan os.Signal // SIGWINCH, while the session lasts
}

// newTerminal returns the step.Terminal of a run whose stdin is stdin and
// whose screen is screen, and the restore function the caller must defer:
// it puts the terminal back as it was, on every path out (it is safe to
// call more than once, and after the session's own End).
func newTerminal(stdin io.Reader, screen io.Writer) (step.Terminal, func()) {
	t := step.Terminal{Input: stdin, Output: screen}
	f, ok := stdin.(*os.File)
	if !ok || f == nil || !term.IsTerminal(int(f.Fd())) {
		return t, func() {}
	}
	pt := &personTerminal{fd: int(f.Fd()), winch: make(chan os.Signal, 1)}
	t.Begin, t.End, t.Size, t.Resized = pt.begin, pt.restore, pt.size, pt.winch
	return t, pt.restore
}

// begin puts the terminal in raw mode and starts listening for SIGWINCH.
func (pt *personTerminal) begin() error {
	pt.mu.Lock()
	defer pt.mu.Unlock()
	saved, err := term.MakeRaw(pt.fd)
	if err != nil {
		return err
	}
	pt.saved = saved
	signal.Notify(pt.winch, syscall.SIGWINCH)
	return nil
}

// restore puts the terminal back in the mode it had before begin.
func (pt *personTerminal) restore() {
	pt.mu.Lock()
	defer pt.mu.Unlock()
	if pt.saved == nil {
		return
	}
	signal.Stop(pt.winch)
	_ = term.Restore(pt.fd, pt.saved) // nothing better to do if the terminal is gone
	pt.saved = nil
}

// size returns the terminal's size.
func (pt *personTerminal) size() (rows, cols int, err error) {
	cols, rows, err = term.GetSize(pt.fd)
	return rows, cols, err
}

// ttyView is how the view shows an interactive step, which owns the screen:
// the status line, with the step's continue_hint, goes to the terminal's
// title instead of the bottom line, which the step may be drawing on, and
// lines end in "\r\n", since the terminal is in raw mode.
type ttyView struct {
	on     bool   // an interactive step runs, and stdout is a terminal
	hint   string // the step's continue_hint
	pushed bool   // the terminal's own title is saved, to be put back
	title  string // the title last drawn
}

// interactive switches the view to an interactive step's session.
func (v *view) interactive(h *protocol.Handshake) {
	if !h.Interactive || !v.live {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.drawn {
		fmt.Fprint(v.w, "\r\033[K") // the bottom line is the step's from now on
		v.drawn = false
	}
	v.tty = ttyView{on: true, hint: h.ContinueHint, pushed: true}
	fmt.Fprint(v.w, "\033[22;0t") // xterm: save the title; others ignore it
}

// drawTitle shows the status line, and the hint, in the terminal's title;
// v.mu is held.
func (v *view) drawTitle(line string) {
	if v.tty.hint != "" {
		line += " · " + v.tty.hint
	}
	if line == v.tty.title {
		return
	}
	v.tty.title = line
	fmt.Fprint(v.w, "\033]2;"+sanitizeTitle(line)+"\a")
}

// endTitle puts the terminal's own title back; v.mu is held.
func (v *view) endTitle() {
	if v.tty.pushed {
		fmt.Fprint(v.w, "\033[23;0t")
		v.tty = ttyView{}
	}
}

// eol ends a line the view prints.
func (v *view) eol() string {
	if v.tty.on {
		return "\r\n"
	}
	return "\n"
}

// sanitizeTitle drops control characters, which would end the title early
// or reach the terminal as commands.
func sanitizeTitle(s string) string {
	b := []rune(s)
	out := b[:0]
	for _, r := range b {
		if r >= 0x20 && r != 0x7f && (r < 0x80 || r >= 0xa0) {
			out = append(out, r)
		}
	}
	return string(out)
}
