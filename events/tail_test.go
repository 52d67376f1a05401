package events_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"kusaw.dev/step/events"
)

func TestTail(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		size       int
		writes     []string
		n          int
		wantString string
		wantLines  string
	}{
		{name: "empty", size: 8, n: 3},
		{name: "no wrap", size: 8, writes: []string{"a\nb\n"}, n: 5, wantString: "a\nb\n", wantLines: "a\nb"},
		{name: "last n", size: 16, writes: []string{"a\nb\nc\nd"}, n: 2, wantString: "a\nb\nc\nd", wantLines: "c\nd"},
		{name: "n zero", size: 8, writes: []string{"a\n"}, n: 0, wantString: "a\n"},
		{name: "blank lines count", size: 16, writes: []string{"a\n\n\nb\n"}, n: 3, wantString: "a\n\n\nb\n", wantLines: "\n\nb"},
		{name: "exactly full, no partial", size: 4, writes: []string{"ab\ncd"[:4]}, n: 5, wantString: "ab\nc", wantLines: "ab\nc"},
		{name: "wrap drops partial first line", size: 6, writes: []string{"abc\nde\nf"}, n: 5, wantString: "c\nde\nf", wantLines: "de\nf"},
		{name: "wrap at line boundary keeps first line", size: 5, writes: []string{"ab\n", "cd\nef"}, n: 5, wantString: "cd\nef", wantLines: "cd\nef"},
		{name: "wrap in many writes", size: 5, writes: []string{"1\n", "22\n", "333\n", "4", "4"}, n: 5, wantString: "33\n44", wantLines: "44"},
		{name: "write longer than size", size: 4, writes: []string{"x\n", "0123456\n89"}, n: 5, wantString: "6\n89", wantLines: "89"},
		{name: "write longer than size at boundary", size: 4, writes: []string{"012\n4567"}, n: 5, wantString: "4567", wantLines: "4567"},
		{name: "one partial line kept", size: 4, writes: []string{strings.Repeat("z", 10)}, n: 2, wantString: "zzzz", wantLines: "zzzz"},
		{name: "partial line ending in newline", size: 4, writes: []string{strings.Repeat("z", 10) + "\n"}, n: 2, wantString: "zzz\n", wantLines: "zzz"},
		{name: "size zero", size: 0, writes: []string{"abc\n"}, n: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tail := events.NewTail(tt.size)
			for _, w := range tt.writes {
				if n, err := tail.Write([]byte(w)); n != len(w) || err != nil {
					t.Errorf("Write(%q) = %d, %v; want %d, nil", w, n, err, len(w))
				}
			}
			if got := tail.String(); got != tt.wantString {
				t.Errorf("String() = %q; want %q", got, tt.wantString)
			}
			if got := tail.Lines(tt.n); got != tt.wantLines {
				t.Errorf("Lines(%d) = %q; want %q", tt.n, got, tt.wantLines)
			}
		})
	}
}

// TestTailMatchesStream checks the ring against the end of the whole
// stream for every write size.
func TestTailMatchesStream(t *testing.T) {
	t.Parallel()
	stream := strings.Repeat("line one\nline two is longer\n\nx\n", 20)
	for chunk := 1; chunk <= 40; chunk++ {
		tail := events.NewTail(17)
		for s := stream; len(s) > 0; s = s[min(chunk, len(s)):] {
			tail.Write([]byte(s[:min(chunk, len(s))]))
		}
		if got, want := tail.String(), stream[len(stream)-17:]; got != want {
			t.Errorf("chunk %d: String() = %q; want %q", chunk, got, want)
		}
	}
}

func TestTailWriteDoesNotAllocate(t *testing.T) {
	tail := events.NewTail(64)
	p := []byte("some stderr output\n")
	if allocs := testing.AllocsPerRun(100, func() { tail.Write(p) }); allocs != 0 {
		t.Errorf("Write allocates %v times; want 0", allocs)
	}
}

// TestTailConcurrent runs a writer and readers at once; run it with -race.
func TestTailConcurrent(t *testing.T) {
	t.Parallel()
	tail := events.NewTail(100)
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range 2000 {
			fmt.Fprintf(tail, "line %d\n", i)
		}
	})
	wg.Go(func() {
		for range 500 {
			_ = tail.Lines(3)
			_ = tail.String()
		}
	})
	wg.Wait()
	if got, want := tail.Lines(2), "line 1998\nline 1999"; got != want {
		t.Errorf("Lines(2) = %q; want %q", got, want)
	}
}
