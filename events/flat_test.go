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

// plainByteByByte is what plainASCII and plainUTF8 together must say of
// b: no control byte, no backslash, valid UTF-8.
func plainByteByByte(b []byte) bool {
	for _, c := range b {
		if c < ' ' || c == '\\' {
			return false
		}
	}
	return utf8.Valid(b)
}

// The word-at-a-time check agrees with the byte-by-byte one for every
// byte value at every position of strings around a word's length, where
// a borrow between bytes could fool it.
func TestPlainStringWordCheck(t *testing.T) {
	for n := 1; n <= 17; n++ {
		for pos := range n {
			for c := range 256 {
				b := bytes.Repeat([]byte{'a'}, n)
				b[pos] = byte(c)
				if pos > 0 {
					b[pos-1] = 0x21 // just above a control byte, to tempt a borrow
				}
				got := plainASCII(b) || plainUTF8(b)
				if want := plainByteByByte(b); got != want {
					t.Fatalf("%q: plain %v; want %v", b, got, want)
				}
			}
		}
	}
}

func FuzzPlainString(f *testing.F) {
	f.Add([]byte("step 3 of 9"))
	f.Add([]byte("é\\n\x1f\x7f ok"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := plainASCII(b) || plainUTF8(b), plainByteByByte(b); got != want {
			t.Fatalf("%q: plain %v; want %v", b, got, want)
		}
	})
}
