package main

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"time"

	"kusaw.dev/step/protocol"
)

// Issue 15: a step flooding progress events does not flood the terminal:
// the status line is redrawn at most once every redrawEvery (and by the
// ticker), not once an event; a line printed above it redraws it at once.
func TestViewThrottlesRedraws(t *testing.T) {
	var buf bytes.Buffer
	v := &view{w: &buf, live: true, start: time.Now(), done: make(chan struct{})}
	start := time.Now()
	for i := range 10000 {
		v.event(&protocol.Progress{Message: "step " + strconv.Itoa(i)})
	}
	elapsed := time.Since(start)
	draws := strings.Count(buf.String(), "\r\033[K")
	if most := 2 + int(elapsed/redrawEvery); draws == 0 || draws > most {
		t.Errorf("10,000 progress events in %v drew the status line %d times; want 1 to %d", elapsed, draws, most)
	}
	buf.Reset()
	v.event(&protocol.ArtifactEvent{Artifact: protocol.Artifact{Path: "report.txt"}})
	if out := buf.String(); !strings.Contains(out, "artifact report.txt") || !strings.HasSuffix(strings.TrimRight(out, "0123456789.ms"), "· ") {
		t.Errorf("after an artifact line the status line must come back at once; got %q", out)
	}
}

// An artifact is printed once, however often the step names it, and the
// view prints at most maxShownArtifacts of them.
func TestViewPrintsEachArtifactOnce(t *testing.T) {
	var buf bytes.Buffer
	v := &view{w: &buf, start: time.Now(), done: make(chan struct{})}
	for range 3 {
		v.event(&protocol.ArtifactEvent{Artifact: protocol.Artifact{Path: "report.txt"}})
	}
	if n := strings.Count(buf.String(), "artifact report.txt"); n != 1 {
		t.Errorf("one artifact named 3 times printed %d times; want once:\n%s", n, buf.String())
	}
	for i := range maxShownArtifacts + 10 {
		v.event(&protocol.ArtifactEvent{Artifact: protocol.Artifact{Path: "a" + strconv.Itoa(i)}})
	}
	if n := strings.Count(buf.String(), "  artifact "); n != maxShownArtifacts {
		t.Errorf("%d artifact lines for %d distinct paths; want %d", n, maxShownArtifacts+11, maxShownArtifacts)
	}
}
