package events

import (
	"bytes"
	"reflect"
	"unsafe"

	"github.com/go-json-experiment/json/jsontext"

	"kusaw.dev/step/protocol"
)

// lineKind is what the fast checker makes of a line.
type lineKind uint8

const (
	lineInvalid lineKind = iota // breaks the protocol; the slow path says how
	lineEvent                   // a valid event of one of the six types
	lineResult                  // the result candidate: a strict JSON object with "type":"result"
)

// checker is the fast path: it checks a line against rules compiled from
// the event schemas, first as a plain flat object (see flat.go), else in
// one pass of a reused jsontext.Decoder (strict: valid UTF-8, no duplicate
// names, one value), and builds the typed event if asked to. It gives the
// same verdict as protocol.Parse followed by schemas.Validate("event", …)
// (FuzzFastPath holds it to that), but says nothing about why a line is
// invalid: the slow path does.
//
// A checker is not safe for concurrent use.
type checker struct {
	rules    *ruleSet
	buildAll []bool // every type built: see scan
	dec      jsontext.Decoder
	in       bytes.Buffer // over the line being read, which the decoder reads in place
	scratch  []byte       // unescaped names and strings
	members  []member     // the members of a flat line; see flat
}

// newChecker returns a checker using the compiled event rules.
func newChecker() *checker {
	rules := eventRules()
	all := make([]bool, len(rules.events))
	for i := range all {
		all[i] = true
	}
	return &checker{rules: rules, buildAll: all}
}

// check classifies one line. For a valid event it returns the event, newly
// allocated: the caller may keep it.
func (c *checker) check(line []byte) (lineKind, protocol.Event) {
	kind, _, ev := c.scan(line, c.buildAll)
	return kind, ev
}

// scan classifies one line and, for a valid event, returns its type's spec
// and, when build[spec.id] is set, the event. Otherwise (build nil, say) it
// allocates nothing: a valid event is only checked.
func (c *checker) scan(line []byte, build []bool) (lineKind, *eventSpec, protocol.Event) {
	if spec, ev, ok := c.flat(line, build); ok {
		return lineEvent, spec, ev
	}
	c.start(line)
	if c.dec.PeekKind() != '{' {
		return lineInvalid, nil, nil
	}
	c.dec.ReadToken()
	spec, result, first, ok := c.findType()
	switch {
	case !ok:
		return lineInvalid, nil, nil
	case result:
		return c.result(line), nil, nil
	case !first:
		// Members before "type" were only skipped: read them again, now
		// that their rules are known.
		c.start(line)
		c.dec.ReadToken()
	}
	var ev protocol.Event
	if wanted(build, spec) {
		ev = spec.newEvent()
	}
	if !c.event(line, spec, first, ev) {
		return lineInvalid, nil, nil
	}
	return lineEvent, spec, ev
}

// wanted reports whether build asks for events of spec's type.
func wanted(build []bool, spec *eventSpec) bool {
	return build != nil && build[spec.id]
}

// start makes the decoder read line afresh, in place: a bytes.Buffer made
// over line is one the decoder reads without copying it.
func (c *checker) start(line []byte) {
	c.in = *bytes.NewBuffer(line)
	c.dec.Reset(&c.in)
}

// findType reads members up to "type" and returns its event spec, or
// result set for "result". first reports that "type" was the first member.
// ok is false for a line without a known type or with a syntax error.
func (c *checker) findType() (spec *eventSpec, result, first, ok bool) {
	for i := 0; ; i++ {
		name, more := c.nextName()
		if !more {
			return nil, false, false, false
		}
		if string(name) != "type" {
			if c.dec.SkipValue() != nil {
				return nil, false, false, false
			}
			continue
		}
		v, err := c.dec.ReadValue()
		if err != nil || v.Kind() != '"' {
			return nil, false, false, false
		}
		t := c.unquote(v)
		if string(t) == "result" {
			return nil, true, i == 0, true
		}
		spec = c.rules.lookup(t)
		return spec, false, i == 0, spec != nil
	}
}

// nextName reads the next member name of the current object, unescaped,
// valid until the next read. It returns more false, having read nothing, at
// the object's end or a syntax error: [checker.end] tells them apart.
func (c *checker) nextName() (name []byte, more bool) {
	if !c.nameNext() && c.dec.PeekKind() != '"' {
		return nil, false
	}
	v, err := c.dec.ReadValue()
	if err != nil {
		return nil, false
	}
	return c.unquote(v), true
}

// nameNext reports whether the unread input starts with a name, after
// white space and a comma: a cheap look that spares PeekKind. It is only a
// hint; ReadValue checks the syntax.
func (c *checker) nameNext() bool {
	rest := c.dec.UnreadBuffer()
	i := skipSpace(rest, 0)
	if i < len(rest) && rest[i] == ',' {
		i = skipSpace(rest, i+1)
	}
	return i < len(rest) && rest[i] == '"'
}

// skipSpace returns the index of the first byte of b at or after i that is
// not JSON white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// end reads the '}' of the top-level object and reports whether only
// white space follows it.
func (c *checker) end(line []byte) bool {
	if c.dec.PeekKind() != '}' {
		return false
	}
	if _, err := c.dec.ReadToken(); err != nil {
		return false
	}
	return len(bytes.TrimLeft(line[c.dec.InputOffset():], " \t\r\n")) == 0
}

// result checks the rest of a result line: well-formed, strictly.
func (c *checker) result(line []byte) lineKind {
	for {
		if _, more := c.nextName(); !more {
			break
		}
		if c.dec.SkipValue() != nil {
			return lineInvalid
		}
	}
	if !c.end(line) {
		return lineInvalid
	}
	return lineResult
}

// event checks every member of an event of type spec and, when ev is not
// nil, stores their values in it. typeRead reports that the "type" member
// was already read (and checked).
func (c *checker) event(line []byte, spec *eventSpec, typeRead bool, ev protocol.Event) bool {
	base := eventPointer(ev)
	var seen uint64
	if typeRead {
		seen = spec.typeBit
	}
	for {
		name, more := c.nextName()
		if !more {
			break
		}
		i := spec.index(name)
		if i < 0 { // not in the schema: any well-formed value
			if c.dec.SkipValue() != nil {
				return false
			}
			continue
		}
		v, err := c.dec.ReadValue()
		p := &spec.props[i]
		if err != nil || !c.accepts(&p.rule, v) {
			return false
		}
		if ev != nil && p.field != nil {
			c.set(base, p, v)
		}
		seen |= 1 << i
	}
	return seen&spec.required == spec.required && c.end(line)
}

// unquote returns the name or string v without its quotes, unescaped. The
// result is valid until the next call.
func (c *checker) unquote(v jsontext.Value) []byte {
	if bytes.IndexByte(v, '\\') < 0 {
		return v[1 : len(v)-1]
	}
	c.scratch, _ = jsontext.AppendUnquote(c.scratch[:0], v) // v is valid: no error
	return c.scratch
}

// accepts reports whether the value v satisfies rule r, exactly as the
// schema validator decides.
func (c *checker) accepts(r *rule, v jsontext.Value) bool {
	k := v.Kind()
	if k == '0' && r.intBounds {
		// The commonest number, a small integer, is compared as an int64.
		// It is a number and an integer; no enum holds a number.
		if x, ok := smallInt(v); ok {
			return (r.types == 0 || r.types&(tNumber|tInteger) != 0) && r.enum == nil && r.lo <= x && x <= r.hi
		}
	}
	var num number
	if k == '0' {
		num = parseNumber(v)
	}
	if !r.typeOK(k, &num) {
		return false
	}
	if r.enum != nil && !c.inEnum(r.enum, k, v) {
		return false
	}
	if k != '0' || r.min == nil && r.max == nil {
		return true
	}
	// The validator cannot compare a number big.Rat does not parse (it
	// panics); such a number is rejected.
	return num.ratOK() &&
		(r.min == nil || cmpNumbers(&num, r.min) >= 0) &&
		(r.max == nil || cmpNumbers(&num, r.max) <= 0)
}

// typeOK checks the JSON type of a value of kind k. A number is an
// integer when big.Rat parses it and it has no fractional part: 1.0 and
// 1e2 are integers, as JSON Schema says.
func (r *rule) typeOK(k jsontext.Kind, num *number) bool {
	if r.types == 0 {
		return true
	}
	var t typeSet
	switch k {
	case 'n':
		t = tNull
	case 't', 'f':
		t = tBoolean
	case '"':
		t = tString
	case '{':
		t = tObject
	case '[':
		t = tArray
	case '0':
		if r.types&tNumber != 0 {
			return true
		}
		return r.types&tInteger != 0 && num.ratOK() && num.isInt()
	}
	return r.types&t != 0
}

// inEnum reports whether the value v of kind k is one of the literals.
func (c *checker) inEnum(enum []literal, k jsontext.Kind, v jsontext.Value) bool {
	var s []byte
	if k == '"' {
		s = c.unquote(v)
	}
	for _, l := range enum {
		if l.kind == byte(k) && (k != '"' || l.str == string(s)) {
			return true
		}
	}
	return false
}

// eventPointer returns where the event ev points, nil for none.
func eventPointer(ev protocol.Event) unsafe.Pointer {
	if ev == nil {
		return nil
	}
	return reflect.ValueOf(ev).UnsafePointer()
}

// set stores the valid value v of property p in its field of the event at
// base. The field's offset and type are the ones bind found in the event's
// Go type, and [fits] made sure that the type holds every value the rule
// allows: string, bool, float64 or int64, or a pointer to one (left nil
// for null). Stored through its offset, a value costs no reflection.
func (c *checker) set(base unsafe.Pointer, p *prop, v jsontext.Value) {
	if p.ptr && v.Kind() == 'n' {
		return
	}
	at := unsafe.Add(base, p.offset)
	switch p.kind {
	case reflect.String:
		store(at, p.ptr, string(c.unquote(v)))
	case reflect.Bool:
		store(at, p.ptr, v.Kind() == 't')
	case reflect.Float64:
		store(at, p.ptr, float64Value(v))
	case reflect.Int64:
		store(at, p.ptr, int64Of(v))
	}
}

// ptrTo returns a pointer to a new copy of x.
func ptrTo[T any](x T) *T { return &x }

// store stores x in the field at at, of type T, or *T when ptr.
func store[T any](at unsafe.Pointer, ptr bool, x T) {
	if ptr {
		*(**T)(at) = ptrTo(x) // a copy of x on the heap; x itself stays on the stack
		return
	}
	*(*T)(at) = x
}

// int64Of returns the integer v, saturated to the int64 range.
func int64Of(v jsontext.Value) int64 {
	n := parseNumber(v)
	return n.int64Value()
}
