package events

import (
	"fmt"
	"io"
)

// CappedWriter writes to W until Cap bytes have been written, then writes
// one truncation marker line and discards the rest, still reporting
// success so the pump that feeds it keeps draining the pipe to EOF. W and
// Cap are the writer and the limit given to [NewCappedWriter].
//
// If W fails, the CappedWriter keeps the first error for [CappedWriter.Err],
// stops writing to W and goes on reporting success. A CappedWriter is meant
// for one stream and is not safe for concurrent use.
type CappedWriter struct {
	w         io.Writer
	cap       int64
	marker    []byte // the truncation line, built once
	written   int64  // bytes of the stream W accepted, marker excluded
	total     int64  // bytes of the stream seen
	truncated bool
	err       error // first error of w
}

var _ io.Writer = (*CappedWriter)(nil)

// NewCappedWriter returns a CappedWriter that passes at most limit bytes of
// the stream to w. A negative limit is treated as 0.
func NewCappedWriter(w io.Writer, limit int64) *CappedWriter {
	limit = max(limit, 0)
	marker := fmt.Sprintf("\n[kusaw-step: log truncated at %d bytes; the rest of the stream was drained and discarded]\n", limit)
	return &CappedWriter{w: w, cap: limit, marker: []byte(marker)}
}

// Write passes to W the part of p that fits under the cap, and the
// truncation marker the first time the stream goes over it. It always
// returns len(p), nil.
func (c *CappedWriter) Write(p []byte) (int, error) {
	keep := min(int64(len(p)), max(c.cap-c.total, 0))
	c.total += int64(len(p))
	if keep > 0 {
		c.written += c.write(p[:keep])
	}
	if keep < int64(len(p)) && !c.truncated {
		c.truncated = true
		c.write(c.marker)
	}
	return len(p), nil
}

// write writes p to W unless W already failed, records W's first error and
// returns how many bytes W accepted.
func (c *CappedWriter) write(p []byte) int64 {
	if c.err != nil {
		return 0
	}
	n, err := c.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	if err != nil {
		c.err = fmt.Errorf("events: write capped log: %w", err)
	}
	return int64(n)
}

// Written returns how many bytes of the stream were kept, that is accepted
// by W, not counting the truncation marker. It is less than min(Total, cap)
// only if W failed.
func (c *CappedWriter) Written() int64 { return c.written }

// Total returns how many bytes of the stream were written to c.
func (c *CappedWriter) Total() int64 { return c.total }

// Truncated reports whether the stream went over the cap, even if W had
// failed before.
func (c *CappedWriter) Truncated() bool { return c.truncated }

// Err returns the first error W returned, wrapped, or nil.
func (c *CappedWriter) Err() error { return c.err }
