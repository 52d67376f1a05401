package events_test

import (
	"errors"
	"io"
	"strings"
	"testing"

	"kusaw.dev/step/events"
)

// marker is the truncation line for a cap of n bytes.
func marker(n string) string {
	return "\n[kusaw-step: log truncated at " + n + " bytes; the rest of the stream was drained and discarded]\n"
}

func TestCappedWriter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		cap           int64
		writes        []string
		want          string
		wantWritten   int64
		wantTotal     int64
		wantTruncated bool
	}{
		{name: "no writes", cap: 5, want: "", wantWritten: 0},
		{name: "under cap", cap: 5, writes: []string{"ab", "c"}, want: "abc", wantWritten: 3, wantTotal: 3},
		{name: "exactly at cap", cap: 5, writes: []string{"abcde"}, want: "abcde", wantWritten: 5, wantTotal: 5},
		{name: "at cap then empty write", cap: 5, writes: []string{"abc", "de", ""}, want: "abcde", wantWritten: 5, wantTotal: 5},
		{
			name: "one byte over", cap: 5, writes: []string{"abcdef"},
			want: "abcde" + marker("5"), wantWritten: 5, wantTotal: 6, wantTruncated: true,
		},
		{
			name: "over on a later write", cap: 5, writes: []string{"abcde", "f"},
			want: "abcde" + marker("5"), wantWritten: 5, wantTotal: 6, wantTruncated: true,
		},
		{
			name: "many writes, marker once", cap: 4, writes: []string{"ab", "cde", "fgh", "ij", strings.Repeat("k", 1000)},
			want: "abcd" + marker("4"), wantWritten: 4, wantTotal: 1010, wantTruncated: true,
		},
		{
			name: "zero cap", cap: 0, writes: []string{"", "x", "y"},
			want: marker("0"), wantWritten: 0, wantTotal: 2, wantTruncated: true,
		},
		{
			name: "negative cap", cap: -1, writes: []string{"x"},
			want: marker("0"), wantWritten: 0, wantTotal: 1, wantTruncated: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out strings.Builder
			c := events.NewCappedWriter(&out, tt.cap)
			for _, w := range tt.writes {
				if n, err := c.Write([]byte(w)); n != len(w) || err != nil {
					t.Errorf("Write(%.20q) = %d, %v; want %d, nil", w, n, err, len(w))
				}
			}
			if out.String() != tt.want {
				t.Errorf("output = %q; want %q", out.String(), tt.want)
			}
			got := [3]any{c.Written(), c.Total(), c.Truncated()}
			if want := [3]any{tt.wantWritten, tt.wantTotal, tt.wantTruncated}; got != want {
				t.Errorf("Written, Total, Truncated = %v; want %v", got, want)
			}
			if c.Err() != nil {
				t.Errorf("Err() = %v; want nil", c.Err())
			}
		})
	}
}

// failingWriter accepts ok bytes in total, then fails.
type failingWriter struct {
	ok    int
	err   error
	got   strings.Builder
	calls int
}

func (f *failingWriter) Write(p []byte) (int, error) {
	f.calls++
	n := min(len(p), f.ok)
	f.ok -= n
	f.got.Write(p[:n])
	if n < len(p) {
		return n, f.err
	}
	return n, nil
}

func TestCappedWriterFailingWriter(t *testing.T) {
	t.Parallel()
	errDisk := errors.New("disk full")
	fw := &failingWriter{ok: 3, err: errDisk}
	c := events.NewCappedWriter(fw, 10)
	for _, w := range []string{"ab", "cd", "ef", "0123456789"} {
		if n, err := c.Write([]byte(w)); n != len(w) || err != nil {
			t.Errorf("Write(%q) = %d, %v; want %d, nil", w, n, err, len(w))
		}
	}
	if !errors.Is(c.Err(), errDisk) {
		t.Errorf("Err() = %v; want errDisk wrapped", c.Err())
	}
	if fw.got.String() != "abc" || fw.calls != 2 {
		t.Errorf("W got %q in %d calls; want \"abc\" in 2 (no write after the error)", fw.got.String(), fw.calls)
	}
	got := [3]any{c.Written(), c.Total(), c.Truncated()}
	if want := [3]any{int64(3), int64(16), true}; got != want {
		t.Errorf("Written, Total, Truncated = %v; want %v", got, want)
	}
}

// shortWriter accepts one byte less than asked, without an error.
type shortWriter struct{}

func (shortWriter) Write(p []byte) (int, error) { return max(len(p)-1, 0), nil }

func TestCappedWriterShortWrite(t *testing.T) {
	t.Parallel()
	c := events.NewCappedWriter(shortWriter{}, 10)
	if n, err := c.Write([]byte("abc")); n != 3 || err != nil {
		t.Errorf("Write = %d, %v; want 3, nil", n, err)
	}
	if !errors.Is(c.Err(), io.ErrShortWrite) || c.Written() != 2 {
		t.Errorf("Err(), Written() = %v, %d; want io.ErrShortWrite, 2", c.Err(), c.Written())
	}
}
