package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"kusaw.dev/step/handshake"
	"kusaw.dev/step/protocol"
)

// TestViewInteractive checks that the view shows an interactive step's
// continue_hint before it starts, then in the status line, which goes to
// the terminal's title, and puts the title back at the end.
func TestViewInteractive(t *testing.T) {
	var buf bytes.Buffer
	v := &view{w: &buf, live: true, start: time.Now(), done: make(chan struct{})}
	v.handshake(&handshake.Info{Handshake: &protocol.Handshake{Name: "pair", Version: "1.0", Interactive: true, ContinueHint: "type /exit to finish"}})
	hint := strings.Index(buf.String(), "  type /exit to finish\n")
	v.event(&protocol.Progress{Message: "editing\x07"})
	v.stop()
	out := buf.String()
	title := strings.Index(out, "\033]2;[")
	if hint < 0 || title < hint {
		t.Fatalf("the hint is not shown before the step's status: %q", out)
	}
	status, _, _ := strings.Cut(out[title:], "\a")
	if !strings.Contains(status, "editing · ") || !strings.HasSuffix(status, " · type /exit to finish") {
		t.Errorf("status in the title = %q; want the progress and the hint, without the bell", status)
	}
	if strings.Contains(out[title:], "\r\033[K[") {
		t.Errorf("the status line was drawn on the step's screen: %q", out)
	}
	if !strings.HasSuffix(out, "\033[23;0t") {
		t.Errorf("the title is not put back: %q", out)
	}
}
