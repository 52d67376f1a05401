package events

import (
	"bytes"
	"encoding/binary"
	"reflect"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"kusaw.dev/step/protocol"
)

// This file is the fast path's first try. Most events are one flat object
// whose names and strings need no unescaping, such as
//
//	{"type":"progress","message":"step 3 of 9","percent":33}
//
// and such a line is checked in one plain pass over its bytes, without the
// decoder. flat only ever accepts: anything it does not take (an escape, a
// nested value, an unknown or repeated member, a broken rule, a result, a
// syntax error) sends the line to the decoder, which decides as before.
// FuzzFastPath holds both paths to the schema validator.

// member is one member of a flat object: its name and value, raw, and the
// index of its property in the event's spec, once flat has found it.
type member struct {
	name, value []byte
	prop        int
}

// flat checks line as a flat event and builds it when build asks for its
// type (see scan). ok false means that the decoder must decide.
func (c *checker) flat(line []byte, build []bool) (spec *eventSpec, ev protocol.Event, ok bool) {
	ms, ok := c.flatMembers(line)
	if !ok {
		return nil, nil, false
	}
	spec = c.flatType(ms)
	if spec == nil {
		return nil, nil, false
	}
	var seen uint64
	for j := range ms {
		m := &ms[j]
		i := spec.index(m.name[1 : len(m.name)-1])
		if i < 0 || seen&(1<<i) != 0 || !c.accepts(&spec.props[i].rule, jsontext.Value(m.value)) {
			return nil, nil, false
		}
		seen |= 1 << i
		m.prop = i
	}
	if seen&spec.required != spec.required {
		return nil, nil, false
	}
	if wanted(build, spec) {
		ev = c.flatBuild(spec, ms)
	}
	return spec, ev, true
}

// flatType returns the spec of the event type the members name, or nil.
func (c *checker) flatType(ms []member) *eventSpec {
	for _, m := range ms {
		if string(m.name) == `"type"` && m.value[0] == '"' {
			return c.rules.lookup(m.value[1 : len(m.value)-1])
		}
	}
	return nil
}

// flatBuild builds the event of type spec from valid members.
func (c *checker) flatBuild(spec *eventSpec, ms []member) protocol.Event {
	ev := spec.newEvent()
	elem := reflect.ValueOf(ev).Elem()
	for _, m := range ms {
		p := &spec.props[m.prop]
		if p.field != nil {
			c.set(elem.FieldByIndex(p.field), p, jsontext.Value(m.value))
		}
	}
	return ev
}

// maxFlat is the most members flat takes: an event schema has at most 64
// properties, so a longer object repeats a name or has an unknown one.
const maxFlat = 64

// flatMembers splits line into the members of one flat object, reusing
// c.members. ok is false when line is not exactly one such object, with
// only white space around it.
func (c *checker) flatMembers(line []byte) (ms []member, ok bool) {
	ms = c.members[:0]
	i := skipSpace(line, 0)
	if i == len(line) || line[i] != '{' {
		return nil, false
	}
	for i = skipSpace(line, i+1); ; i = skipSpace(line, i+1) { // after '{' or ','
		name, j, ok := plainString(line, i)
		if !ok || len(ms) == maxFlat {
			return nil, false
		}
		if j = skipSpace(line, j); j == len(line) || line[j] != ':' {
			return nil, false
		}
		value, j, ok := plainValue(line, skipSpace(line, j+1))
		if !ok {
			return nil, false
		}
		ms = append(ms, member{name: name, value: value})
		if i = skipSpace(line, j); i == len(line) || line[i] != ',' {
			break
		}
	}
	if i == len(line) || line[i] != '}' || skipSpace(line, i+1) != len(line) {
		return nil, false
	}
	c.members = ms
	return ms, true
}

// plainValue reads the value at line[i] when it is a plain string, a
// number, true, false or null, and returns it and the index after it.
func plainValue(line []byte, i int) (v []byte, end int, ok bool) {
	if i == len(line) {
		return nil, 0, false
	}
	switch c := line[i]; {
	case c == '"':
		return plainString(line, i)
	case c == '-' || isDigit(c):
		if end, ok := plainNumber(line, i); ok {
			return line[i:end], end, true
		}
	case c == 't', c == 'f', c == 'n':
		for _, lit := range [...]string{"true", "false", "null"} {
			if end = i + len(lit); end <= len(line) && string(line[i:end]) == lit {
				return line[i:end], end, true
			}
		}
	}
	return nil, 0, false
}

// plainString reads the string at line[i], quotes included, when it needs
// no unescaping: no backslash, no control character, valid UTF-8.
func plainString(line []byte, i int) (s []byte, end int, ok bool) {
	if i == len(line) || line[i] != '"' {
		return nil, 0, false
	}
	n := bytes.IndexByte(line[i+1:], '"')
	if n < 0 {
		return nil, 0, false
	}
	body := line[i+1 : i+1+n]
	if !plainASCII(body) && !plainUTF8(body) {
		return nil, 0, false
	}
	end = i + n + 2
	return line[i:end], end, true
}

// Bytes repeated in every byte of a word, for plainASCII.
const (
	ones      = 0x0101010101010101
	highBits  = 0x8080808080808080
	backslash = '\\' * ones
	space     = ' ' * ones
)

// plainASCII reports whether b is printable ASCII without a backslash,
// eight bytes at a time: the common string, which plainUTF8 then need not
// look at. In a word x, x-space&^x&highBits is not zero when a byte is
// below ' ', and so is the same of x^backslash when a byte is '\\'.
func plainASCII(b []byte) bool {
	for ; len(b) >= 8; b = b[8:] {
		x := binary.LittleEndian.Uint64(b)
		y := x ^ backslash
		if (x|(x-space)&^x|(y-ones)&^y)&highBits != 0 {
			return false
		}
	}
	for _, c := range b {
		if c < ' ' || c == '\\' || c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// plainUTF8 reports whether b is valid UTF-8 without a backslash or a
// control character.
func plainUTF8(b []byte) bool {
	for _, c := range b {
		if c < ' ' || c == '\\' {
			return false
		}
	}
	return utf8.Valid(b)
}

// plainNumber reads the JSON number at line[i] and returns the index after
// it. What follows is the caller's to check: in "01" the number is "0".
func plainNumber(line []byte, i int) (end int, ok bool) {
	if line[i] == '-' {
		i++
	}
	switch {
	case i == len(line) || !isDigit(line[i]):
		return 0, false
	case line[i] == '0':
		i++
	default:
		i = skipDigits(line, i)
	}
	if i < len(line) && line[i] == '.' {
		if i = skipDigits(line, i+1); !isDigit(line[i-1]) {
			return 0, false
		}
	}
	if i < len(line) && (line[i] == 'e' || line[i] == 'E') {
		i++
		if i < len(line) && (line[i] == '+' || line[i] == '-') {
			i++
		}
		j := skipDigits(line, i)
		if j == i {
			return 0, false
		}
		i = j
	}
	return i, true
}

// skipDigits returns the index of the first byte of b at or after i that
// is not a digit.
func skipDigits(b []byte, i int) int {
	for i < len(b) && isDigit(b[i]) {
		i++
	}
	return i
}
