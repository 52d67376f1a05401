package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	step "kusaw.dev/step"
	"kusaw.dev/step/events"
	"kusaw.dev/step/handshake"
	"kusaw.dev/step/protocol"
)

// view shows an attempt to a person: who the step is, a live status line
// on a terminal (plain lines otherwise), then the verdict.
type view struct {
	w      io.Writer
	quiet  bool // --json: stdout carries only the record
	live   bool // stdout is a terminal
	start  time.Time
	mu     sync.Mutex // guards what follows, and writes to w
	status status
	drawn  bool      // a status line is on screen
	drewAt time.Time // when the status line was last drawn
	last   string
	shown  map[string]bool // the artifact paths printed, at most maxShownArtifacts
	done   chan struct{}   // closed by stop; ends the ticker
	ticker sync.WaitGroup
	once   sync.Once
	tty    ttyView // an interactive step has the screen
}

// status is what the status line shows.
type status struct {
	percent *float64
	message string
	tokens  int64
	cost    *float64
}

func newView(w io.Writer, quiet bool) *view {
	v := &view{w: w, quiet: quiet, live: !quiet && isTerminal(w), start: time.Now(), done: make(chan struct{})}
	if v.live {
		v.ticker.Add(1)
		go v.tick()
	}
	return v
}

// tick redraws the status line so the elapsed time moves.
func (v *view) tick() {
	defer v.ticker.Done()
	t := time.NewTicker(500 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-v.done:
			return
		case <-t.C:
			v.mu.Lock()
			v.draw()
			v.mu.Unlock()
		}
	}
}

// stop ends the live line; the ticker goroutine is gone when it returns.
func (v *view) stop() {
	v.once.Do(func() {
		close(v.done)
		v.ticker.Wait()
		v.mu.Lock()
		if v.drawn {
			fmt.Fprint(v.w, "\r\033[K")
			v.drawn = false
		}
		v.endTitle()
		v.mu.Unlock()
	})
}

func (v *view) observer() step.Observer {
	if v.quiet {
		return step.Observer{}
	}
	return step.Observer{Handshake: v.handshake, Event: v.event, Problem: v.problem}
}

func (v *view) handshake(info *handshake.Info) {
	h := info.Handshake
	v.println(fmt.Sprintf("%s %s", h.Name, h.Version) + suffix(" — ", h.Description))
	if h.Interactive && h.ContinueHint != "" {
		v.println("  " + h.ContinueHint)
	}
	v.interactive(h)
}

func (v *view) event(ev protocol.Event) {
	v.mu.Lock()
	defer v.mu.Unlock()
	switch e := ev.(type) {
	case *protocol.Progress:
		v.status.message = e.Message
		if e.Percent != nil {
			v.status.percent = e.Percent
		}
		if !v.live && e.Message != v.last {
			v.last = e.Message
			fmt.Fprintf(v.w, "  %s%s\n", percentText(e.Percent), e.Message)
		}
	case *protocol.Usage:
		v.status.tokens = value(e.TokensInput) + value(e.TokensOutput)
		v.status.cost = e.CostUSD
	case *protocol.AgentAction:
		v.lineLocked("  · " + e.Summary)
	case *protocol.ArtifactEvent:
		if v.firstArtifact(e.Path) {
			v.lineLocked("  artifact " + e.Path)
		}
	}
	if v.live && (!v.drawn || time.Since(v.drewAt) >= redrawEvery) {
		v.draw()
	}
}

// maxShownArtifacts is how many distinct artifact paths the view prints,
// as many as the runner keeps: a step that names its artifacts again and
// again, or names thousands, does not flood the screen (the verdict says
// when some were dropped).
const maxShownArtifacts = 1000

// firstArtifact reports whether path is an artifact to print: one not
// printed yet, while there is room for it. v.mu is held.
func (v *view) firstArtifact(path string) bool {
	if v.shown[path] || len(v.shown) == maxShownArtifacts {
		return false
	}
	if v.shown == nil {
		v.shown = make(map[string]bool)
	}
	v.shown[path] = true
	return true
}

// redrawEvery is how often events may redraw the status line: a step
// that floods progress events must not flood the terminal too. The ticker
// shows the last one.
const redrawEvery = 100 * time.Millisecond

func (v *view) problem(p *events.ProtocolError) {
	v.println(fmt.Sprintf("  protocol error on stdout line %d: %s", p.Line, p.Cause))
}

// draw redraws the status line; v.mu is held.
func (v *view) draw() {
	if !v.live {
		return
	}
	s := v.status
	line := fmt.Sprintf("%s %s", bar(s.percent), s.message)
	if s.tokens > 0 {
		line += fmt.Sprintf(" · %d tok", s.tokens)
	}
	if s.cost != nil {
		line += fmt.Sprintf(" $%.4f", *s.cost)
	}
	line += " · " + time.Since(v.start).Round(100*time.Millisecond).String()
	if v.tty.on {
		v.drawTitle(line)
		v.drewAt = time.Now()
		return
	}
	fmt.Fprint(v.w, "\r\033[K"+line)
	v.drawn, v.drewAt = true, time.Now()
}

func (v *view) println(s string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.lineLocked(s)
	v.draw()
}

// lineLocked prints a whole line above the status line; v.mu is held.
func (v *view) lineLocked(s string) {
	if v.drawn {
		fmt.Fprint(v.w, "\r\033[K")
		v.drawn = false
	}
	fmt.Fprint(v.w, s+v.eol())
}

// verdict prints the verdict block (verdict_block.go) below the live
// lines.
func (v *view) verdict(rec *step.Record, dir string) {
	fmt.Fprintln(v.w)
	writeVerdict(v.w, rec, dir)
}

func size(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

func bar(p *float64) string {
	const width = 20
	if p == nil {
		return "[" + strings.Repeat("·", width) + "]"
	}
	n := min(max(int(*p/100*width), 0), width)
	return "[" + strings.Repeat("#", n) + strings.Repeat("·", width-n) + fmt.Sprintf("] %3.0f%%", *p)
}

func percentText(p *float64) string {
	if p == nil {
		return ""
	}
	return fmt.Sprintf("%3.0f%% ", *p)
}

func value(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

func suffix(sep, s string) string {
	if s == "" {
		return ""
	}
	return sep + s
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
