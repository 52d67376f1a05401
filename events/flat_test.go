package events

import (
	"bytes"
	"testing"
	"unicode/utf8"
)

// Issue 15, item 2: the flat path takes the plain lines a step prints most
// and leaves everything else to the decoder. (Whether each verdict is
// right is FuzzFastPath's business.)
func TestFlatTakesPlainLines(t *testing.T) {
	tests := []struct {
		line string
		take bool
	}{
		{`{"type":"progress","message":"step 3 of 9","percent":33}`, true},
		{` { "percent" : 3.5e1 , "type" : "progress" , "message" : "é" } `, true},
		{`{"type":"usage","tokens_input":1,"model":null,"cost_usd":-0.5e-3}`, true},
		{`{"type":"tool_call","tool":"bash","allowed":false}`, true},
		{`{"type":"progress","message":"an \"escape\""}`, false},
		{`{"type":"progress","message":"m","extra":1}`, false},
		{`{"type":"progress","message":"m","percent":{}}`, false},
		{`{"type":"progress","message":"m","message":"m"}`, false},
		{`{"type":"progress","message":"m","percent":101}`, false},
		{`{"type":"progress"}`, false},
		{`{"type":"result","protocol_version":2}`, false},
		{`{"type":"progress","message":"m"} {}`, false},
	}
	c := newChecker()
	for _, tt := range tests {
		spec, ev, ok := c.flat([]byte(tt.line), c.buildAll)
		if ok != tt.take {
			t.Errorf("flat(%s) took it: %v; want %v", tt.line, ok, tt.take)
			continue
		}
		if ok && (ev == nil || ev.EventType() != spec.name) {
			t.Errorf("flat(%s) built %s for spec %s", tt.line, dump(ev), spec.name)
		}
	}
}

// plainByteByByte reports whether b is a plain string's body: no control
// byte, no backslash, valid UTF-8.
func plainByteByByte(b []byte) bool {
	for _, c := range b {
		if c < ' ' || c == '\\' {
			return false
		}
	}
	return utf8.Valid(b)
}

// plainStringByteByByte is what plainString must say of the string at
// line[0]: it ends at the first quote after the opening one, and is plain
// when its body is.
func plainStringByteByByte(line []byte) (end int, ok bool) {
	if len(line) == 0 || line[0] != '"' {
		return 0, false
	}
	q := bytes.IndexByte(line[1:], '"')
	if q < 0 || !plainByteByByte(line[1:1+q]) {
		return 0, false
	}
	return q + 2, true
}

// checkPlainString compares plainString with the byte-by-byte reading.
func checkPlainString(t *testing.T, line []byte) {
	t.Helper()
	s, end, ok := plainString(line, 0)
	wantEnd, wantOK := plainStringByteByByte(line)
	if ok != wantOK || ok && (end != wantEnd || !bytes.Equal(s, line[:end])) {
		t.Fatalf("plainString(%q) = %q, %d, %v; want end %d, %v", line, s, end, ok, wantEnd, wantOK)
	}
}

// The word-at-a-time scan agrees with the byte-by-byte one for every byte
// value at every position of strings around a word's length, where a
// borrow between bytes could fool it, whatever follows the string.
func TestPlainStringWordCheck(t *testing.T) {
	for n := 1; n <= 17; n++ {
		for pos := range n {
			for c := range 256 {
				b := bytes.Repeat([]byte{'a'}, n)
				b[pos] = byte(c)
				if pos > 0 {
					b[pos-1] = 0x21 // just above a control byte, to tempt a borrow
				}
				for _, tail := range []string{`"`, `","x":1}`, `\"`, "\x00\"", ""} {
					checkPlainString(t, append(append([]byte{'"'}, b...), tail...))
				}
			}
		}
	}
}

func FuzzPlainString(f *testing.F) {
	f.Add([]byte("\"step 3 of 9\",\"x\":1}"))
	f.Add([]byte("\"é\\n\x1f\x7f ok\""))
	f.Fuzz(func(t *testing.T, line []byte) {
		checkPlainString(t, line)
	})
}
