package handshake

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"kusaw.dev/step/events"
)

// stdout is what a step printed on stdout during its handshake, as far as
// the handshake cares: how many non-blank lines, the first one (whole, up to
// the cap) and the start of the second.
type stdout struct {
	lines   int                      // non-blank lines
	first   []byte                   // the first non-blank line; its first bytes when it is too long
	tooLong *events.LineTooLongError // set when the first line is over the cap
	second  []byte                   // the start of the second non-blank line, at most lineCut bytes
	err     error                    // a read error
}

// readStdout reads r to its end through a line splitter capped at maxLine,
// so that a step that prints without end costs no memory, and closes r
// before it returns, so no writer can block on it.
func readStdout(r io.ReadCloser, maxLine int) stdout {
	defer r.Close()
	s := events.NewSplitter(r, maxLine)
	var out stdout
	for {
		line, err := s.Next()
		var tl *events.LineTooLongError
		switch {
		case errors.Is(err, io.EOF):
			return out
		case errors.As(err, &tl):
			out.add(tl.Head, tl)
		case err != nil:
			out.err = err
			return out
		default:
			out.add(line.Bytes, nil)
		}
	}
}

// add counts a non-blank line and keeps it if it is the first or second.
func (o *stdout) add(line []byte, tooLong *events.LineTooLongError) {
	o.lines++
	switch o.lines {
	case 1:
		o.first, o.tooLong = bytes.Clone(line), tooLong
	case 2:
		o.second = bytes.Clone(cut(line))
	}
}

// offending returns the stdout bytes worth showing: the first line, and
// the second when there is one, cut to lineCut bytes.
func (o *stdout) offending() []byte {
	if o.lines < 2 {
		return cut(o.first)
	}
	return cut(fmt.Appendf(nil, "%s\n%s", o.first, o.second))
}
