package events_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"

	"kusaw.dev/step/events"
)

// collect reads s to its end and describes each line or too-long record as
// a string; it returns the descriptions and the error that ended the stream.
func collect(t *testing.T, s *events.Splitter) ([]string, error) {
	t.Helper()
	var got []string
	for range 1 << 20 {
		line, err := s.Next()
		var tl *events.LineTooLongError
		switch {
		case errors.As(err, &tl):
			got = append(got, describeTooLong(t, line, tl))
		case err != nil:
			return got, err
		default:
			got = append(got, describe(line))
		}
	}
	t.Fatal("splitter did not reach the end of the stream")
	return nil, nil
}

// describe formats a line returned by Next.
func describe(l events.Line) string {
	s := fmt.Sprintf("%d %q", l.N, l.Bytes)
	if l.Unterminated {
		s += " unterminated"
	}
	return s
}

// describeTooLong formats a too-long record and checks it is consistent.
func describeTooLong(t *testing.T, l events.Line, e *events.LineTooLongError) string {
	t.Helper()
	if l.N != e.Line || l.Bytes != nil {
		t.Errorf("too long: line = %+v with error for line %d; want Line{N: %d}", l, e.Line, e.Line)
	}
	s := fmt.Sprintf("%d too long size=%d max=%d head=%q", e.Line, e.Size, e.Max, e.Head)
	if l.Unterminated {
		s += " unterminated"
	}
	return s
}

func TestSplitter(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 200<<10) // longer than the 64 KiB buffer
	tests := []struct {
		name    string
		maxLine int
		in      string
		want    []string
	}{
		{name: "empty", maxLine: 10, in: ""},
		{name: "one line", maxLine: 10, in: "abc\n", want: []string{`1 "abc"`}},
		{name: "crlf", maxLine: 10, in: "abc\r\n", want: []string{`1 "abc"`}},
		{name: "one cr stripped", maxLine: 10, in: "abc\r\r\n", want: []string{`1 "abc\r"`}},
		{name: "inner cr kept", maxLine: 10, in: "a\rb\n", want: []string{`1 "a\rb"`}},
		{name: "blank lines counted", maxLine: 10, in: "\n\r\na\n\nb\n", want: []string{`3 "a"`, `5 "b"`}},
		{name: "only blank lines", maxLine: 10, in: "\n\n\r\n"},
		{name: "stream.blank-line: spaces and tabs", maxLine: 10, in: "  \n\t\r\n \t \r\na\n \t", want: []string{`4 "a"`}},
		{name: "stream.blank-line: spaces over the cap are too long", maxLine: 2, in: "   \na\n", want: []string{`1 too long size=3 max=2 head="   "`, `2 "a"`}},
		{name: "unterminated", maxLine: 10, in: "a\nb", want: []string{`1 "a"`, `2 "b" unterminated`}},
		{name: "unterminated cr", maxLine: 10, in: "a\nb\r", want: []string{`1 "a"`, `2 "b" unterminated`}},
		{name: "unterminated blank", maxLine: 10, in: "a\n\r", want: []string{`1 "a"`}},
		{name: "exactly max", maxLine: 3, in: "abc\n", want: []string{`1 "abc"`}},
		{name: "exactly max crlf", maxLine: 3, in: "abc\r\n", want: []string{`1 "abc"`}},
		{name: "exactly max unterminated", maxLine: 3, in: "abc", want: []string{`1 "abc" unterminated`}},
		{name: "one over max", maxLine: 3, in: "abcd\n", want: []string{`1 too long size=4 max=3 head="abcd"`}},
		{name: "one over max crlf", maxLine: 3, in: "abcd\r\n", want: []string{`1 too long size=4 max=3 head="abcd"`}},
		{
			name: "too long then next line", maxLine: 3, in: "abcdefghijklmnopqrstuvwxyz\r\nxy\n",
			want: []string{`1 too long size=26 max=3 head="abcdefghijklmnopqrstuvwxyz"`, `2 "xy"`},
		},
		{
			name: "too long unterminated", maxLine: 3, in: "a\nabcdefghijklmnopqrstuvwxyz",
			want: []string{`1 "a"`, `2 too long size=26 max=3 head="abcdefghijklmnopqrstuvwxyz" unterminated`},
		},
		{
			name: "head cut at 256", maxLine: 10, in: strings.Repeat("h", 300) + "\n",
			want: []string{fmt.Sprintf("1 too long size=300 max=10 head=%q", strings.Repeat("h", 256))},
		},
		{name: "max zero", maxLine: 0, in: "\na\n", want: []string{`2 too long size=1 max=0 head="a"`}},
		{name: "max int", maxLine: math.MaxInt, in: "a\n" + big, want: []string{`1 "a"`, fmt.Sprintf("2 %q unterminated", big)}},
		{name: "negative max", maxLine: -5, in: "\r\na\n", want: []string{`2 too long size=1 max=0 head="a"`}},
		{
			name: "legal line longer than buffer", maxLine: 1 << 20, in: "a\n" + big + "\r\nb\n",
			want: []string{`1 "a"`, fmt.Sprintf("2 %q", big), `3 "b"`},
		},
		{
			name: "cr at buffer edge", maxLine: 1 << 20, in: strings.Repeat("c", 64<<10-1) + "\r\n",
			want: []string{fmt.Sprintf("1 %q", strings.Repeat("c", 64<<10-1))},
		},
		{
			name: "too long over buffer", maxLine: 100 << 10, in: big + "\r\nb",
			want: []string{fmt.Sprintf("1 too long size=%d max=%d head=%q", len(big), 100<<10, big[:256]), `2 "b" unterminated`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, r := range readers(tt.in) {
				got, err := collect(t, events.NewSplitter(r.r, tt.maxLine))
				if err != io.EOF {
					t.Errorf("%s: Next() error = %v; want io.EOF", r.name, err)
				}
				if !equal(got, tt.want) {
					t.Errorf("%s: split(%.40q, %d) =\n%s\nwant\n%s", r.name, tt.in, tt.maxLine, clip(got), clip(tt.want))
				}
			}
		})
	}
}

// namedReader is one way to deliver a test input.
type namedReader struct {
	name string
	r    io.Reader
}

// readers returns in through readers that deliver it in different chunks.
func readers(in string) []namedReader {
	return []namedReader{
		{"plain", strings.NewReader(in)},
		{"one byte", iotest.OneByteReader(strings.NewReader(in))},
		{"data with eof", iotest.DataErrReader(strings.NewReader(in))},
	}
}

// equal reports whether a and b hold the same strings.
func equal(a, b []string) bool {
	return strings.Join(a, "\x00") == strings.Join(b, "\x00") && len(a) == len(b)
}

// clip joins descriptions for a failure message, cutting long ones.
func clip(ss []string) string {
	var b strings.Builder
	for _, s := range ss {
		if len(s) > 120 {
			s = s[:120] + "..."
		}
		fmt.Fprintf(&b, "\t%s\n", s)
	}
	return b.String()
}

func TestSplitterReadError(t *testing.T) {
	t.Parallel()
	errBoom := errors.New("boom")
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{name: "at line start", in: "a\n", want: []string{`1 "a"`}},
		{name: "mid line", in: "a\nbc", want: []string{`1 "a"`}},
		{name: "mid long line", in: "a\n" + strings.Repeat("x", 100<<10), want: []string{`1 "a"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := io.MultiReader(strings.NewReader(tt.in), iotest.ErrReader(errBoom))
			s := events.NewSplitter(r, 1<<20)
			got, err := collect(t, s)
			if !errors.Is(err, errBoom) || err == errBoom {
				t.Errorf("Next() error = %v; want errBoom wrapped", err)
			}
			if !equal(got, tt.want) {
				t.Errorf("lines = %q; want %q", got, tt.want)
			}
			if _, again := s.Next(); again != err {
				t.Errorf("Next() after error = %v; want the same error %v", again, err)
			}
		})
	}
}

func TestSplitterEOFSticky(t *testing.T) {
	t.Parallel()
	s := events.NewSplitter(strings.NewReader("a"), 10)
	if _, err := collect(t, s); err != io.EOF {
		t.Fatalf("Next() error = %v; want io.EOF", err)
	}
	for range 3 {
		if l, err := s.Next(); err != io.EOF || l.N != 0 {
			t.Errorf("Next() after EOF = %+v, %v; want Line{}, io.EOF", l, err)
		}
	}
}

func TestLineTooLongError(t *testing.T) {
	t.Parallel()
	_, err := events.NewSplitter(strings.NewReader("\nabcdef\n"), 4).Next()
	if !errors.Is(err, events.ErrLineTooLong) {
		t.Fatalf("Next() error = %v; want ErrLineTooLong", err)
	}
	want := "events: line 2 is 6 bytes, over the limit of 4 bytes"
	if err.Error() != want {
		t.Errorf("Error() = %q; want %q", err.Error(), want)
	}
	if errors.Is(err, io.EOF) {
		t.Errorf("errors.Is(%v, io.EOF) = true; want false", err)
	}
}

// patternReader delivers n bytes of line, repeated, without holding them.
type patternReader struct {
	line []byte
	n    int64 // bytes left; negative means endless
	off  int
}

func (p *patternReader) Read(b []byte) (int, error) {
	if p.n == 0 {
		return 0, io.EOF
	}
	if p.n > 0 && int64(len(b)) > p.n {
		b = b[:p.n]
	}
	total := 0
	for len(b) > 0 {
		k := copy(b, p.line[p.off:])
		p.off = (p.off + k) % len(p.line)
		b, total = b[k:], total+k
	}
	p.n -= int64(total)
	return total, nil
}

// measureAlloc returns the bytes allocated while reading r to its end.
func measureAlloc(t *testing.T, r io.Reader, maxLine int) uint64 {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s := events.NewSplitter(r, maxLine)
	for {
		if _, err := s.Next(); err == io.EOF {
			break
		} else if err != nil && !errors.Is(err, events.ErrLineTooLong) {
			t.Fatalf("Next() error = %v", err)
		}
	}
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestSplitterMemory checks that huge lines cost at most the buffer plus
// the assembly slice (grown by doubling up to the maximum line size, then
// reused), never the size or the number of the lines. Not parallel: it
// measures the allocations of the whole process.
func TestSplitterMemory(t *testing.T) {
	const slack = 16 << 10
	tests := []struct {
		name    string
		maxLine int
		limit   uint64
	}{
		{name: "max 1MiB", maxLine: 1 << 20, limit: 64<<10 + 2*(1<<20+1) + slack},
		{name: "max 1000", maxLine: 1000, limit: 1002 + slack},
	}
	line := append(bytes.Repeat([]byte("0123456789abcdef"), 5<<20/16), '\n')
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &patternReader{line: line, n: 3 * int64(len(line))}
			got := measureAlloc(t, r, tt.maxLine)
			t.Logf("allocated %d bytes", got)
			if got > tt.limit {
				t.Errorf("reading three 5 MiB lines with maxLine %d allocated %d bytes; want <= %d", tt.maxLine, got, tt.limit)
			}
		})
	}
}

func TestSplitterNoAllocPerLine(t *testing.T) {
	r := &patternReader{line: []byte(strings.Repeat("y", 99) + "\n"), n: -1}
	s := events.NewSplitter(r, 1<<20)
	allocs := testing.AllocsPerRun(1000, func() {
		if _, err := s.Next(); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Next() allocates %v times per line; want 0", allocs)
	}
}

func BenchmarkSplitter(b *testing.B) {
	for _, size := range []int{100, 1 << 10, 256 << 10} {
		b.Run(fmt.Sprintf("line=%dB", size), func(b *testing.B) {
			line := append(bytes.Repeat([]byte("z"), size-1), '\n')
			s := events.NewSplitter(&patternReader{line: line, n: -1}, 1<<20)
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Next(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
