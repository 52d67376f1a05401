package protocol_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"kusaw.dev/step/protocol"
)

func TestParseRejects(t *testing.T) {
	tests := []struct {
		name, in string
		offset   int64
		pointer  string
		reason   string
	}{
		{"duplicate key", `{"a":1,"a":2}`, 7, "/a", `duplicate object key "a"; each key may appear once in an object`},
		{"nested duplicate", `{"x":{"b":true,"b":false}}`, 15, "/x/b", `duplicate object key "b"; each key may appear once in an object`},
		{"invalid UTF-8", "{\"a\":\"\xff\"}", 6, "", "invalid UTF-8; JSON text must be valid UTF-8"},
		{"invalid UTF-8 in a key", "{\"\xc3\x28\":1}", 2, "", "invalid UTF-8; JSON text must be valid UTF-8"},
		{"BOM", "\xef\xbb\xbf{}", 0, "", "UTF-8 byte order mark (BOM) before the JSON value; write the JSON without a BOM"},
		{"trailing value", `{} {}`, 3, "", `trailing data after the JSON value ("{}"); write exactly one JSON value`},
		{"trailing garbage", "{}\nx", 3, "", `trailing data after the JSON value ("x"); write exactly one JSON value`},
		{"truncated", `{"a":`, 5, "/a", "unexpected end of input; the JSON value is incomplete"},
		{"empty", ``, 0, "", "no JSON value: the input is empty"},
		{"blank", " \n", 0, "", "no JSON value: the input is empty"},
		{"lone surrogate", `"\ud800"`, 1, "", "invalid surrogate pair `\\ud800\"` in string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := protocol.Parse([]byte(tt.in))
			var se *protocol.SyntaxError
			if !errors.As(err, &se) || !errors.Is(err, protocol.ErrSyntax) {
				t.Fatalf("Parse(%q) = %v; want a *SyntaxError", tt.in, err)
			}
			if se.Offset != tt.offset || se.Pointer != tt.pointer || se.Reason != tt.reason {
				t.Errorf("Parse(%q) = offset %d, pointer %q, reason %q; want %d, %q, %q", tt.in, se.Offset, se.Pointer, se.Reason, tt.offset, tt.pointer, tt.reason)
			}
		})
	}
}

func TestParseValues(t *testing.T) {
	got, err := protocol.Parse([]byte(" {\"n\":12345678901234567890,\"f\":1.5,\"s\":\"é\",\"a\":[true,null,{}],\"e\":[]}\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"n": json.Number("12345678901234567890"), "f": json.Number("1.5"), "s": "é",
		"a": []any{true, nil, map[string]any{}}, "e": []any{},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Parse = %#v; want %#v", got, want)
	}
}

// FuzzParse checks that Parse never panics, and that whatever it accepts
// encoding/json reads as the same value: the strict reader never sees
// another document than a lenient one would.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"a":1,"a":2}`, "\xef\xbb\xbf{}", `[1,"x",null]`, `{"a":"\xff"}`, `{} x`, `"\u00e9"`, `1e400`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := protocol.Parse(data)
		if err != nil {
			if !errors.Is(err, protocol.ErrSyntax) {
				t.Fatalf("Parse(%q) = %v; want a *SyntaxError", data, err)
			}
			return
		}
		var lenient any
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if err := dec.Decode(&lenient); err != nil {
			t.Fatalf("Parse accepted %q but encoding/json says %v", data, err)
		}
		if !reflect.DeepEqual(got, lenient) {
			t.Fatalf("Parse(%q) = %#v; encoding/json reads %#v", data, got, lenient)
		}
	})
}
