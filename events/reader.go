package events

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"kusaw.dev/step/protocol"
)

// Options configure [Read]. The callbacks run on the goroutine that calls
// Read, in stream order; they should return quickly, since the step's
// stdout is not read while they run.
type Options struct {
	// MaxLine is the request's max_line_bytes: the longest line allowed,
	// without its "\n" and one trailing "\r". Zero or less means
	// protocol.DefaultMaxLineBytes.
	MaxLine int
	// OnEvent, if not nil, is called with each valid event before the
	// result, its line number and its line as the step wrote it. The event
	// is newly allocated: the callee may keep it; raw is valid only during
	// the call. Without OnEvent, events are only checked and counted,
	// which allocates nothing per event.
	OnEvent func(line int, raw []byte, ev protocol.Event)
	// Want, if not nil, names the event types OnEvent is called for; the
	// others are checked and counted only, without allocating. Nil wants
	// every type.
	Want func(eventType string) bool
	// OnResult, if not nil, is called once, with the first result line (the
	// result candidate, checked against the result's schema later by the
	// caller) and its line number. raw is valid only during the call; the
	// Summary keeps a copy.
	OnResult func(line int, raw []byte)
	// OnProblem, if not nil, is called with each protocol error as it is
	// found, so the caller can stop the step at the first one; Read goes on
	// reading either way.
	OnProblem func(p *ProtocolError)
}

// maxProblems is how many protocol errors a [Summary] keeps.
const maxProblems = 100

// Summary is what [Read] saw on a step's stdout.
type Summary struct {
	Lines      int              // lines read, blank ones included
	Events     map[string]int   // event type → number of valid events before the result; never nil
	Result     []byte           // a copy of the first result line; nil when there was none
	ResultLine int              // the result's line number; 0 when there was none
	Problems   []*ProtocolError // the first 100 protocol errors, in order
	Dropped    int              // protocol errors after the first 100, counted but not kept
}

// Read reads a step's stdout to its end and classifies each line: a valid
// event, the result candidate, or a protocol error.
//
// It always reads to EOF, whatever it finds: a protocol error never stops
// the reading, because closing the pipe early would kill the step with
// EPIPE and hide the real cause. It is the caller's choice to stop the step
// at the first [ProtocolError], which [Options.OnProblem] reports as it
// happens.
//
// Blank lines are skipped (but counted). Each line is checked strictly
// before any schema: a line over [Options.MaxLine], a BOM, invalid UTF-8, a
// duplicate key, not exactly one JSON value, or a value that is not an
// object is a protocol error. Then "type" decides: "result" is the result
// candidate, kept raw; one of the six event types is checked against that
// type's schema alone; anything else is a protocol error. Any line after
// the result is a protocol error (ErrAfterResult, or ErrSecondResult for
// another result); the first result stays the candidate.
//
// Read returns an error only when r fails, with the Summary of the lines
// read until then.
func Read(r io.Reader, opts Options) (*Summary, error) {
	if opts.MaxLine <= 0 {
		opts.MaxLine = protocol.DefaultMaxLineBytes
	}
	rd := &reader{opts: opts, fast: newChecker(), sum: &Summary{Events: make(map[string]int)}}
	rd.counts = make([]int, len(rd.fast.rules.events))
	if opts.OnEvent != nil {
		rd.build = make([]bool, len(rd.fast.rules.events))
		for i, spec := range rd.fast.rules.events {
			rd.build[i] = opts.Want == nil || opts.Want(spec.name)
		}
	}
	defer rd.countEvents()
	s := NewSplitter(r, opts.MaxLine)
	for {
		line, err := s.Next()
		switch {
		case err == nil:
			rd.line(line)
		case errors.Is(err, ErrLineTooLong):
			rd.tooLong(asTooLong(err))
		default:
			rd.sum.Lines = s.n
			if err == io.EOF {
				err = nil
			}
			return rd.sum, err
		}
	}
}

// asTooLong returns the *LineTooLongError in err's chain.
func asTooLong(err error) *LineTooLongError {
	var e *LineTooLongError
	errors.As(err, &e)
	return e
}

// reader is the state of one [Read].
type reader struct {
	opts   Options
	fast   *checker
	sum    *Summary
	counts []int  // valid events by type (eventSpec.id), for sum.Events
	build  []bool // the types OnEvent gets, by eventSpec.id; nil for none
}

// countEvents fills the Summary's count of each event type seen.
func (rd *reader) countEvents() {
	for id, n := range rd.counts {
		if n > 0 {
			rd.sum.Events[rd.fast.rules.events[id].name] = n
		}
	}
}

// line classifies one non-blank line.
func (rd *reader) line(l Line) {
	build := rd.build
	if rd.sum.Result != nil {
		build = nil // a line after the result is an error, whatever it holds
	}
	kind, spec, ev := rd.fast.scan(l.Bytes, build)
	switch {
	case rd.sum.Result != nil:
		rd.afterResult(l, kind)
	case kind == lineEvent:
		rd.counts[spec.id]++
		if ev != nil {
			rd.opts.OnEvent(l.N, l.Bytes, ev)
		}
	case kind == lineResult:
		rd.sum.Result, rd.sum.ResultLine = bytes.Clone(l.Bytes), l.N
		if rd.opts.OnResult != nil {
			rd.opts.OnResult(l.N, l.Bytes)
		}
	default:
		cause, hint, err := explain(l.Bytes, rd.fast.rules)
		rd.problem(l, cause, hint, err)
	}
}

// afterResult reports a line, of the given kind, after the result.
func (rd *reader) afterResult(l Line, kind lineKind) {
	if kind == lineResult {
		rd.problem(l, fmt.Sprintf("a second result (the first is line %d)", rd.sum.ResultLine), hintSecondResult, ErrSecondResult)
		return
	}
	rd.problem(l, fmt.Sprintf("a line after the result (line %d)", rd.sum.ResultLine), hintAfterResult, ErrAfterResult)
}

// tooLong reports a line over the maximum, wherever it is.
func (rd *reader) tooLong(e *LineTooLongError) {
	rd.report(&ProtocolError{
		Line:  e.Line,
		Size:  e.Size,
		Cause: fmt.Sprintf("line over max_line_bytes (%d > %d bytes)", e.Size, e.Max),
		Hint:  fmt.Sprintf(hintTooLong, e.Max),
		Bytes: e.Head,
		Err:   e,
	})
}

// problem reports the line l as a protocol error.
func (rd *reader) problem(l Line, cause, hint string, err error) {
	rd.report(&ProtocolError{Line: l.N, Size: int64(len(l.Bytes)), Cause: cause, Hint: hint, Bytes: cut(l.Bytes), Err: err})
}

// report keeps p in the Summary and passes it to OnProblem.
func (rd *reader) report(p *ProtocolError) {
	if len(rd.sum.Problems) < maxProblems {
		rd.sum.Problems = append(rd.sum.Problems, p)
	} else {
		rd.sum.Dropped++
	}
	if rd.opts.OnProblem != nil {
		rd.opts.OnProblem(p)
	}
}
