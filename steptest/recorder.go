package steptest

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/go-json-experiment/json"

	"kusaw.dev/step/events"
	"kusaw.dev/step/protocol"
	"kusaw.dev/step/schemas"
	"kusaw.dev/step/stepkit"
)

// ErrNoResult is returned by [Recorder.Result] when no result line was
// recorded.
var ErrNoResult = errors.New("steptest: no result line")

// Recorder records what a step prints on stdout, as
// httptest.ResponseRecorder records a response, and reads it back the way
// the runner would (events.Read). It is safe for concurrent writes.
type Recorder struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// NewRecorder returns an empty Recorder.
func NewRecorder() *Recorder { return new(Recorder) }

// Write records p.
func (r *Recorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.buf.Write(p)
}

// Bytes returns everything written so far.
func (r *Recorder) Bytes() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return bytes.Clone(r.buf.Bytes())
}

// Lines returns the lines written so far, without their "\n".
func (r *Recorder) Lines() []string {
	s := strings.TrimSuffix(string(r.Bytes()), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// Read reads the recorded stream as the runner does: its valid events,
// its result line and its protocol errors.
func (r *Recorder) Read() (*events.Summary, []protocol.Event) {
	var evs []protocol.Event
	sum, _ := events.Read(bytes.NewReader(r.Bytes()), events.Options{
		OnEvent: func(_ int, _ []byte, ev protocol.Event) { evs = append(evs, ev) },
	})
	return sum, evs
}

// Events returns the valid events recorded, in order.
func (r *Recorder) Events() []protocol.Event {
	_, evs := r.Read()
	return evs
}

// Result returns the result line, decoded and checked against the result
// schema, or nil with an error.
func (r *Recorder) Result() (*protocol.Result, error) {
	sum, _ := r.Read()
	if sum.Result == nil {
		return nil, ErrNoResult
	}
	doc, err := protocol.Parse(sum.Result)
	if err != nil {
		return nil, err
	}
	if err := schemas.Validate("result", doc); err != nil {
		return nil, err
	}
	res := new(protocol.Result)
	return res, json.Unmarshal(sum.Result, res)
}

// Serve runs p in-process on req, as step.Run would hand it to the
// process, and returns the recorder of its stdout. An error from p.Serve
// fails the test.
func Serve(t testing.TB, p *stepkit.Program, req []byte) *Recorder {
	t.Helper()
	rec := NewRecorder()
	env := func(string) string { return "" }
	if err := p.Serve(context.Background(), bytes.NewReader(req), rec, env); err != nil {
		t.Fatalf("steptest: serve: %v", err)
	}
	return rec
}

// Handshake runs p's handshake in-process, checks the line against the
// handshake schema and returns it decoded; a bad line fails the test.
func Handshake(t testing.TB, p *stepkit.Program) *protocol.Handshake {
	t.Helper()
	rec := NewRecorder()
	env := func(name string) string {
		if name == "KUSAW_HANDSHAKE" {
			return "1"
		}
		return ""
	}
	if err := p.Serve(context.Background(), strings.NewReader(""), rec, env); err != nil {
		t.Fatalf("steptest: handshake: %v", err)
	}
	lines := rec.Lines()
	if len(lines) != 1 {
		t.Fatalf("steptest: the handshake printed %d lines; want 1", len(lines))
	}
	doc, err := protocol.Parse([]byte(lines[0]))
	if err == nil {
		err = schemas.Validate("handshake", doc)
	}
	h := new(protocol.Handshake)
	if err == nil {
		err = json.Unmarshal([]byte(lines[0]), h)
	}
	if err != nil {
		t.Fatalf("steptest: handshake %s: %v", lines[0], err)
	}
	return h
}
