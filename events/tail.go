package events

import (
	"bytes"
	"fmt"
	"io"
	"sync"
)

// Tail keeps the last Size bytes written to it, Size being the size given
// to [NewTail]. It is safe for concurrent use (one goroutine writes while
// another may read String or Lines at any time).
//
// It is a ring buffer allocated once: Write never allocates.
type Tail struct {
	mu      sync.Mutex
	buf     []byte // fixed ring; len(buf) is the size
	pos     int    // index in buf of the next byte to write
	wrapped bool   // bytes were evicted: buf is full
	evicted byte   // the last evicted byte, the one just before the oldest kept
}

var (
	_ io.Writer    = (*Tail)(nil)
	_ fmt.Stringer = (*Tail)(nil)
)

// NewTail returns a Tail that keeps the last size bytes. A size of 0 or
// less keeps nothing.
func NewTail(size int) *Tail {
	// The start of the stream counts as a line boundary.
	return &Tail{buf: make([]byte, max(size, 0)), evicted: '\n'}
}

// Write keeps the end of p in the ring. It always returns len(p), nil.
func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	size := len(t.buf)
	if size == 0 || len(p) == 0 {
		return len(p), nil
	}
	t.noteEvicted(p)
	if len(p) >= size {
		copy(t.buf, p[len(p)-size:])
		t.pos = 0
		return len(p), nil
	}
	k := copy(t.buf[t.pos:], p)
	copy(t.buf, p[k:])
	t.pos = (t.pos + len(p)) % size
	return len(p), nil
}

// noteEvicted records, before p is copied in, the byte that will sit just
// before the oldest kept byte once p is written, if any byte gets evicted.
func (t *Tail) noteEvicted(p []byte) {
	size := len(t.buf)
	switch {
	case len(p) > size:
		t.evicted = p[len(p)-size-1]
	case t.wrapped || t.pos+len(p) > size:
		t.evicted = t.buf[(t.pos+len(p)-1)%size]
	}
	if !t.wrapped && t.pos+len(p) >= size {
		t.wrapped = true
	}
}

// String returns the kept bytes, oldest first.
func (t *Tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.bytes())
}

// bytes returns a copy of the kept bytes, oldest first. t.mu must be held.
func (t *Tail) bytes() []byte {
	if !t.wrapped {
		return bytes.Clone(t.buf[:t.pos])
	}
	return append(bytes.Clone(t.buf[t.pos:]), t.buf[:t.pos]...)
}

// Lines returns at most n last complete-or-partial lines, joined with "\n",
// without a partial first line when the buffer wrapped. A final "\n" is not
// part of the result. If the kept bytes are all part of one line, that
// partial line is returned rather than nothing.
func (t *Tail) Lines(n int) string {
	if n <= 0 {
		return ""
	}
	t.mu.Lock()
	b := t.bytes()
	partial := t.wrapped && t.evicted != '\n'
	t.mu.Unlock()
	if i := bytes.IndexByte(b, '\n'); partial && i >= 0 && i < len(b)-1 {
		b = b[i+1:]
	}
	return string(lastLines(bytes.TrimSuffix(b, []byte("\n")), n))
}

// lastLines returns the last n lines of b.
func lastLines(b []byte, n int) []byte {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == '\n' {
			n--
			if n == 0 {
				return b[i+1:]
			}
		}
	}
	return b
}
