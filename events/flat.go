package events

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unicode/utf8"

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

// member is one member of a flat object: where its name and value are in
// the line, raw, and the index of its property in the event's spec, once
// flat has found it. It holds positions, not slices: without a pointer in
// it, keeping one is a plain store.
type member struct {
	name, value span
	prop        int
}

// span is where bytes are in the line being checked.
type span struct{ start, end int }

func (s span) in(line []byte) []byte { return line[s.start:s.end] }

// flat checks line as a flat event and builds it when build asks for its
// type (see scan). ok false means that the decoder must decide.
func (c *checker) flat(line []byte, build []bool) (spec *eventSpec, ev protocol.Event, ok bool) {
	ms, ok := c.flatMembers(line)
	if !ok {
		return nil, nil, false
	}
	spec = c.flatType(line, ms)
	if spec == nil {
		return nil, nil, false
	}
	var seen uint64
	for j := range ms {
		m := &ms[j]
		// The value of "type" named spec, whose rule is {"const": name}
		// (compileRules makes sure): only its other members need a check.
		name := m.name.in(line)
		i := spec.index(name[1 : len(name)-1])
		if i < 0 || seen&(1<<i) != 0 || 1<<i != spec.typeBit && !c.accepts(&spec.props[i].rule, m.value.in(line)) {
			return nil, nil, false
		}
		seen |= 1 << i
		m.prop = i
	}
	if seen&spec.required != spec.required {
		return nil, nil, false
	}
	if wanted(build, spec) {
		ev = c.flatBuild(spec, line, ms)
	}
	return spec, ev, true
}

// flatType returns the spec of the event type the members name, or nil.
func (c *checker) flatType(line []byte, ms []member) *eventSpec {
	for _, m := range ms {
		if name, value := m.name.in(line), m.value.in(line); string(name) == `"type"` && value[0] == '"' {
			return c.rules.lookup(value[1 : len(value)-1])
		}
	}
	return nil
}

// flatBuild builds the event of type spec from valid members.
func (c *checker) flatBuild(spec *eventSpec, line []byte, ms []member) protocol.Event {
	ev := spec.newEvent()
	base := eventPointer(ev)
	for _, m := range ms {
		p := &spec.props[m.prop]
		if p.field != nil {
			c.set(base, p, m.value.in(line))
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
		_, j, ok := plainString(line, i)
		if !ok || len(ms) == maxFlat {
			return nil, false
		}
		name := span{i, j}
		if j = skipSpace(line, j); j == len(line) || line[j] != ':' {
			return nil, false
		}
		at := skipSpace(line, j+1)
		if _, j, ok = plainValue(line, at); !ok {
			return nil, false
		}
		ms = append(ms, member{name: name, value: span{at, j}})
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
	// The common string is printable ASCII: find its first byte that is
	// not, eight at a time. Then only a quote ends it plainly; a
	// backslash or a control character means it is not plain, and other
	// UTF-8 is checked the slow way.
	j := i + 1
	for ; j+8 <= len(line); j += 8 {
		if m := special(binary.LittleEndian.Uint64(line[j:])); m != 0 {
			j += bits.TrailingZeros64(m) / 8
			break
		}
	}
	for j < len(line) && !isSpecial(line[j]) {
		j++
	}
	switch {
	case j == len(line):
		return nil, 0, false
	case line[j] == '"':
		return line[i : j+1], j + 1, true
	case line[j] < utf8.RuneSelf:
		return nil, 0, false
	}
	n := bytes.IndexByte(line[j:], '"')
	if n < 0 || !plainUTF8(line[j:j+n]) {
		return nil, 0, false
	}
	end = j + n + 1
	return line[i:end], end, true
}

// Bytes repeated in every byte of a word, for special.
const (
	ones      = 0x0101010101010101
	highBits  = 0x8080808080808080
	quote     = '"' * ones
	backslash = '\\' * ones
	space     = ' ' * ones
)

// special returns the high bit of each byte of x, read little-endian, that
// isSpecial, or that follows one: the lowest set bit is exact, which is
// all plainString needs. y-ones&^y&highBits marks a zero byte of y (and
// maybe bytes above it), so a byte equal to the quote or the backslash;
// x-space&^x marks a byte below ' '; x itself, a byte of 0x80 or more.
func special(x uint64) uint64 {
	q, b := x^quote, x^backslash
	return (x | (x-space)&^x | (q-ones)&^q | (b-ones)&^b) & highBits
}

// isSpecial reports whether c ends a plain ASCII run: a quote, a
// backslash, a control character or a byte of multibyte UTF-8.
func isSpecial(c byte) bool {
	return c == '"' || c == '\\' || c < ' ' || c >= utf8.RuneSelf
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
