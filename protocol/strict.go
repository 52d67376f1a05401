package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// ErrSyntax is the condition behind every [*SyntaxError]: the bytes are not
// one strict JSON value.
var ErrSyntax = errors.New("not one strict JSON value")

// SyntaxError says why a document is not one strict JSON value and at which
// byte offset. It matches [ErrSyntax] with errors.Is.
type SyntaxError struct {
	Offset  int64  // byte offset of the problem, from 0
	Pointer string // JSON pointer of the value being read, when known
	Reason  string // what was wrong, lower case
}

func (e *SyntaxError) Error() string {
	if e.Pointer != "" {
		return fmt.Sprintf("byte offset %d (at %s): %s", e.Offset, e.Pointer, e.Reason)
	}
	return fmt.Sprintf("byte offset %d: %s", e.Offset, e.Reason)
}

// Is reports whether target is [ErrSyntax].
func (e *SyntaxError) Is(target error) bool { return target == ErrSyntax }

var bom = []byte("\xef\xbb\xbf")

// Parse decodes data as exactly one JSON value, strictly: a UTF-8 byte order
// mark, invalid UTF-8, a duplicate object key and anything but white space
// after the value are each rejected by name with a [*SyntaxError].
// Objects become map[string]any, arrays []any and numbers [json.Number], the
// form the schema validator reads without losing precision.
//
// encoding/json would silently replace bad UTF-8 and keep the last of two
// duplicate keys; a reader that sees another document than the validator
// did is a security hole, so every document the runner reads comes through
// here (or through a decoder with the same rules).
func Parse(data []byte) (any, error) {
	if err := CheckText(data); err != nil {
		return nil, err
	}
	dec := jsontext.NewDecoder(bytes.NewReader(data))
	v, err := parseValue(dec)
	if err != nil {
		return nil, syntaxError(dec, err)
	}
	if err := checkTrailing(data, dec.InputOffset()); err != nil {
		return nil, err
	}
	return v, nil
}

// CheckText rejects a byte order mark and invalid UTF-8, the two faults
// that are best named before any JSON is read.
func CheckText(data []byte) error {
	if bytes.HasPrefix(data, bom) {
		return &SyntaxError{Reason: "UTF-8 byte order mark (BOM) before the JSON value; write the JSON without a BOM"}
	}
	if off := invalidUTF8(data); off >= 0 {
		return &SyntaxError{Offset: int64(off), Reason: "invalid UTF-8; JSON text must be valid UTF-8"}
	}
	return nil
}

// invalidUTF8 returns the offset of the first byte that is not valid UTF-8,
// or -1.
func invalidUTF8(data []byte) int {
	for i := 0; i < len(data); {
		if data[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}

func checkTrailing(data []byte, off int64) error {
	rest := data[off:]
	if trimmed := bytes.TrimLeft(rest, " \t\r\n"); len(trimmed) > 0 {
		at := off + int64(len(rest)-len(trimmed))
		return &SyntaxError{Offset: at, Reason: fmt.Sprintf("trailing data after the JSON value (%s); write exactly one JSON value", quoteHead(trimmed))}
	}
	return nil
}

func parseValue(dec *jsontext.Decoder) (any, error) {
	tok, err := dec.ReadToken()
	if err != nil {
		return nil, err
	}
	switch tok.Kind() {
	case '{':
		return parseObject(dec)
	case '[':
		return parseArray(dec)
	case '"':
		return tok.String(), nil
	case '0':
		return json.Number(tok.String()), nil
	case 't', 'f':
		return tok.Bool(), nil
	default: // 'n'
		return nil, nil
	}
}

func parseObject(dec *jsontext.Decoder) (any, error) {
	obj := make(map[string]any)
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil, err
		}
		name := tok.String() // a token is voided by the next read
		v, err := parseValue(dec)
		if err != nil {
			return nil, err
		}
		obj[name] = v
	}
	_, err := dec.ReadToken()
	return obj, err
}

func parseArray(dec *jsontext.Decoder) (any, error) {
	arr := []any{}
	for dec.PeekKind() != ']' {
		v, err := parseValue(dec)
		if err != nil {
			return nil, err
		}
		arr = append(arr, v)
	}
	_, err := dec.ReadToken()
	return arr, err
}

// syntaxError turns a decoder error into a [*SyntaxError] that names the
// fault the way a person would look for it.
func syntaxError(dec *jsontext.Decoder, err error) error {
	if errors.Is(err, io.EOF) {
		return &SyntaxError{Offset: dec.InputOffset(), Reason: "no JSON value: the input is empty"}
	}
	var se *jsontext.SyntacticError
	if !errors.As(err, &se) {
		return &SyntaxError{Offset: dec.InputOffset(), Reason: err.Error()}
	}
	reason := se.Err.Error()
	switch {
	case errors.Is(se.Err, jsontext.ErrDuplicateName):
		reason = fmt.Sprintf("duplicate object key %q; each key may appear once in an object", lastToken(string(se.JSONPointer)))
	case se.Err.Error() == "unexpected EOF":
		reason = "unexpected end of input; the JSON value is incomplete"
	}
	return &SyntaxError{Offset: se.ByteOffset, Pointer: string(se.JSONPointer), Reason: reason}
}

func lastToken(ptr string) string {
	p := jsontext.Pointer(ptr)
	return p.LastToken()
}

// quoteHead quotes at most the first 20 bytes of b for a message.
func quoteHead(b []byte) string {
	if len(b) > 20 {
		return fmt.Sprintf("%q…", b[:20])
	}
	return fmt.Sprintf("%q", b)
}

// TypeName names the JSON type of a value from [Parse] for a message: "an
// object", "an array", "a string", "a number", "a boolean" or "null".
func TypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	}
	return "a number"
}
