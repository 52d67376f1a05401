package events

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"testing"
	"testing/iotest"
)

// record is one result of splitting: a line, or a too-long line.
type record struct {
	N            int
	Bytes        string
	TooLong      bool
	Size         int64
	Head         string
	Unterminated bool
}

// referenceSplit is the simple specification of [Splitter]: split on '\n',
// strip one '\r', skip blank lines (only spaces, tabs and '\r'), flag lines
// longer than maxLine.
func referenceSplit(data []byte, maxLine int) []record {
	var recs []record
	parts := bytes.Split(data, []byte("\n"))
	for i, p := range parts {
		p = bytes.TrimSuffix(p, []byte("\r"))
		if len(p) <= max(maxLine, 0) && len(bytes.Trim(p, " \t\r")) == 0 {
			continue
		}
		r := record{N: i + 1, Unterminated: i == len(parts)-1}
		if len(p) > max(maxLine, 0) {
			r.TooLong, r.Size, r.Head = true, int64(len(p)), string(p[:min(len(p), headMax)])
		} else {
			r.Bytes = string(p)
		}
		recs = append(recs, r)
	}
	return recs
}

// splitAll runs s to its end and returns its records and final error.
func splitAll(s *Splitter, limit int) ([]record, error) {
	var recs []record
	for range limit {
		l, err := s.Next()
		var tl *LineTooLongError
		switch {
		case errors.As(err, &tl):
			recs = append(recs, record{N: l.N, TooLong: true, Size: tl.Size, Head: string(tl.Head), Unterminated: l.Unterminated})
		case err != nil:
			return recs, err
		default:
			recs = append(recs, record{N: l.N, Bytes: string(l.Bytes), Unterminated: l.Unterminated})
		}
	}
	return recs, errors.New("too many calls to Next")
}

// fuzzReader wraps data in one of several chunking readers.
func fuzzReader(data []byte, mode uint8) io.Reader {
	r := io.Reader(bytes.NewReader(data))
	switch mode % 4 {
	case 1:
		return iotest.OneByteReader(r)
	case 2:
		return iotest.DataErrReader(r)
	case 3:
		return iotest.HalfReader(r)
	}
	return r
}

func FuzzSplitter(f *testing.F) {
	f.Add([]byte("a\nb\r\n\n\r\nccc"), uint16(2), uint8(0), uint8(0))
	f.Add([]byte("{\"type\":\"progress\"}\r\n"+string(bytes.Repeat([]byte("x"), 300))+"\r"), uint16(40), uint8(3), uint8(1))
	f.Add([]byte("0123456789abcdef0123\r\n0123456789abcdef01\r"), uint16(19), uint8(1), uint8(2))
	f.Add([]byte(""), uint16(0), uint8(0), uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, maxLine uint16, bufSize, mode uint8) {
		ml := int(maxLine)%1024 - 1 // includes -1 and 0
		var s *Splitter
		if mode&4 != 0 {
			s = NewSplitter(fuzzReader(data, mode), ml)
		} else {
			s = newSplitterSize(fuzzReader(data, mode), ml, 16+int(bufSize))
		}
		got, err := splitAll(s, len(data)+2)
		if err != io.EOF {
			t.Fatalf("Next() error = %v; want io.EOF", err)
		}
		if want := referenceSplit(data, ml); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("split(%q, %d) =\n%+v\nwant\n%+v", data, ml, got, want)
		}
	})
}
