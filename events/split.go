package events

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
)

// ErrLineTooLong is matched (through [LineTooLongError.Is]) by the error
// [Splitter.Next] returns for a line longer than the splitter's maximum.
var ErrLineTooLong = errors.New("events: line too long")

// headMax is how many leading bytes of a too-long line a
// [LineTooLongError] keeps for the diagnosis.
const headMax = 256

// maxBuffer caps the size of the bufio buffer of a [Splitter]. Legal lines
// longer than the buffer are assembled in a separate slice.
const maxBuffer = 64 << 10

// LineTooLongError reports a line longer than the maximum line size. The
// line was read to its end and dropped; only its first bytes are kept.
type LineTooLongError struct {
	Line int    // 1-based number of the line
	Size int64  // size of the line, without its "\n" and one trailing "\r"
	Max  int    // the maximum line size it exceeded
	Head []byte // a copy of the first bytes of the line, at most 256
}

// Error implements the error interface.
func (e *LineTooLongError) Error() string {
	return fmt.Sprintf("events: line %d is %d bytes, over the limit of %d bytes", e.Line, e.Size, e.Max)
}

// Is reports whether target is [ErrLineTooLong].
func (e *LineTooLongError) Is(target error) bool {
	return target == ErrLineTooLong
}

// Line is one line, without its "\n" and one trailing "\r".
type Line struct {
	// N is the 1-based line number, counting every line, blank ones included.
	N int
	// Bytes holds the line. It is valid until the next call to
	// [Splitter.Next]; copy it to keep it.
	Bytes []byte
	// Unterminated reports that this is the last line of the stream and
	// it had no "\n". It is also set on the Line returned with a
	// [*LineTooLongError] for such a last line.
	Unterminated bool
}

// Splitter splits a byte stream into lines of at most a maximum size.
//
// Its memory is bounded by the maximum line size plus a fixed buffer, never
// by what the stream holds: a longer line is read to its end and counted,
// not kept. A Splitter is not safe for concurrent use.
type Splitter struct {
	r   *bufio.Reader
	max int   // maximum line size, without "\n" and the stripped "\r"
	n   int   // lines read so far
	err error // sticky: io.EOF or a wrapped read error

	// State of the line being assembled by the slow path.
	acc    []byte        // the line's bytes while it may still be legal; reused
	size   int64         // raw bytes of the line seen so far, "\n" excluded
	lastCR bool          // the last raw byte seen was '\r'
	head   [headMax]byte // first raw bytes of the line
	hn     int           // bytes used in head
}

// NewSplitter returns a Splitter that reads r and allows lines of at most
// maxLine bytes, not counting the "\n" and one trailing "\r". A negative
// maxLine is treated as 0, which makes every non-blank line too long.
//
// The Splitter reads through a buffer of min(maxLine+2, 64 KiB) bytes; a
// legal line longer than that is assembled in a slice that grows to at most
// maxLine+1 bytes and is reused for later lines.
func NewSplitter(r io.Reader, maxLine int) *Splitter {
	maxLine = clampMax(maxLine)
	return newSplitterSize(r, maxLine, min(maxLine+2, maxBuffer))
}

// newSplitterSize is NewSplitter with an explicit bufio buffer size, so
// tests can exercise the assembly of lines longer than the buffer.
func newSplitterSize(r io.Reader, maxLine, bufSize int) *Splitter {
	return &Splitter{r: bufio.NewReaderSize(r, bufSize), max: clampMax(maxLine)}
}

// clampMax brings a maximum line size into [0, math.MaxInt-2], so that
// maxLine+2 cannot overflow.
func clampMax(maxLine int) int {
	return min(max(maxLine, 0), math.MaxInt-2)
}

// Next returns the next non-blank line. Blank lines are skipped but
// counted in [Line.N]: a line is blank when it is empty or holds only JSON
// white space other than the newline, that is spaces, tabs and carriage
// returns (DESIGN.md: "blank lines are ignored"; spec row stream.blank-line).
// Other white space (a vertical tab, a form feed, U+00A0) is not blank: it
// is no JSON either, so it is a protocol error downstream. A line over the
// maximum is reported as too long even when it is all spaces: the cap
// bounds what a step may print on one line, whatever the bytes.
//
// For a line over the maximum it returns a Line with only N (and
// Unterminated) set and a [*LineTooLongError]; the next call continues with
// the following line.
// At the end of the stream it returns io.EOF, also after a last line that
// had no "\n" (that line is returned first, with Unterminated set). Other
// read errors are returned wrapped, and every later call returns them again.
func (s *Splitter) Next() (Line, error) {
	for s.err == nil {
		line, err := s.next()
		if err != nil || !blank(line.Bytes) {
			return line, err
		}
	}
	return Line{}, s.err
}

// next reads one line, blank or not.
func (s *Splitter) next() (Line, error) {
	frag, err := s.r.ReadSlice('\n')
	if err != nil {
		return s.slow(frag, err)
	}
	// Fast path: the whole line is in the buffer and needs no copy.
	s.n++
	b := trimCR(frag[:len(frag)-1])
	if len(b) > s.max {
		return Line{N: s.n}, s.tooLong(int64(len(b)), b)
	}
	return Line{N: s.n, Bytes: b}, nil
}

// slow reads a line that did not fit in the buffer, or the stream's end.
// frag and err are the result of the first ReadSlice.
func (s *Splitter) slow(frag []byte, err error) (Line, error) {
	s.reset()
	for errors.Is(err, bufio.ErrBufferFull) {
		s.add(frag)
		frag, err = s.r.ReadSlice('\n')
	}
	switch {
	case err == nil:
		s.add(frag[:len(frag)-1])
	case err == io.EOF:
		s.add(frag)
		s.err = io.EOF
		if s.size == 0 {
			return Line{}, io.EOF
		}
	default:
		s.err = fmt.Errorf("events: read line %d: %w", s.n+1, err)
		return Line{}, s.err
	}
	s.n++
	return s.finish(err == io.EOF)
}

// reset clears the slow path's state for a new line.
func (s *Splitter) reset() {
	s.acc = s.acc[:0]
	s.size = 0
	s.lastCR = false
	s.hn = 0
}

// add takes the next raw fragment of the line being assembled.
func (s *Splitter) add(p []byte) {
	if len(p) == 0 {
		return
	}
	s.size += int64(len(p))
	s.lastCR = p[len(p)-1] == '\r'
	s.hn += copy(s.head[s.hn:], p)
	if s.size > int64(s.max)+1 {
		// Too long even if a "\r" ends it: stop keeping the line.
		s.acc = s.acc[:0]
		return
	}
	s.keep(p)
}

// keep appends p to the assembled line, growing it to at most max+1 bytes.
func (s *Splitter) keep(p []byte) {
	need := len(s.acc) + len(p)
	if need > cap(s.acc) {
		acc := make([]byte, len(s.acc), min(max(2*cap(s.acc), need), s.max+1))
		copy(acc, s.acc)
		s.acc = acc
	}
	s.acc = append(s.acc, p...)
}

// finish returns the line assembled by the slow path.
func (s *Splitter) finish(unterminated bool) (Line, error) {
	size := s.size
	if s.lastCR {
		size--
	}
	if size > int64(s.max) {
		return Line{N: s.n, Unterminated: unterminated}, s.tooLong(size, s.head[:s.hn])
	}
	return Line{N: s.n, Bytes: s.acc[:size], Unterminated: unterminated}, nil
}

// tooLong builds the error for the current line, of the given size, whose
// first raw bytes are head.
func (s *Splitter) tooLong(size int64, head []byte) error {
	head = head[:min(int64(len(head)), size, headMax)]
	return &LineTooLongError{Line: s.n, Size: size, Max: s.max, Head: append([]byte(nil), head...)}
}

// blank reports whether b holds only spaces, tabs and carriage returns.
func blank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// trimCR removes one trailing '\r' from b.
func trimCR(b []byte) []byte {
	if len(b) > 0 && b[len(b)-1] == '\r' {
		return b[:len(b)-1]
	}
	return b
}
