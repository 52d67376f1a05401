package events

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"path"
	"reflect"
	"slices"
	"strings"
	"sync"

	"kusaw.dev/step/protocol"
	"kusaw.dev/step/schemas"
)

// typeSet is a set of JSON Schema types.
type typeSet uint8

const (
	tNull typeSet = 1 << iota
	tBoolean
	tString
	tNumber
	tInteger
	tObject
	tArray
)

var typeNames = map[string]typeSet{
	"null": tNull, "boolean": tBoolean, "string": tString, "number": tNumber,
	"integer": tInteger, "object": tObject, "array": tArray,
}

// literal is a value of an enum or a const: a string, a boolean or null.
type literal struct {
	kind byte   // 'n' (null), 't', 'f' or '"'
	str  string // the string, when kind is '"'
}

// rule is what an event schema says about one property's value.
type rule struct {
	types    typeSet   // allowed types; 0 allows any
	enum     []literal // allowed values (const is an enum of one); nil allows any
	min, max *number   // inclusive bounds of a number; nil for none
	// The bounds as int64s, math.MinInt64 and math.MaxInt64 for none,
	// when intBounds: each is absent or an integer an int64 holds.
	lo, hi    int64
	intBounds bool
}

// prop is one property of an event schema.
type prop struct {
	name   string
	rule   rule
	field  []int        // index path of its field in the Go event type; nil for "type"
	offset uintptr      // the field's offset in the Go event type
	kind   reflect.Kind // what the field holds: String, Bool, Float64 or Int64
	ptr    bool         // the field is a pointer to it (nil for null, absent)
}

// eventSpec is one event type compiled from its schema.
type eventSpec struct {
	name     string
	id       int                   // its index in ruleSet.events
	newEvent func() protocol.Event // returns a new event of the type, e.g. a *protocol.Progress
	goType   reflect.Type          // the struct the event decodes into, e.g. protocol.Progress
	props    []prop                // in name order
	required uint64                // bit i set when props[i] is required
	typeBit  uint64                // the bit of the "type" property
}

// index returns the index in s.props of the property named name, or -1.
func (s *eventSpec) index(name []byte) int {
	for i := range s.props {
		if s.props[i].name == string(name) {
			return i
		}
	}
	return -1
}

// ruleSet is every event type, compiled.
type ruleSet struct {
	events []eventSpec
}

// lookup returns the spec of event type t, or nil.
func (rs *ruleSet) lookup(t []byte) *eventSpec {
	for i := range rs.events {
		if rs.events[i].name == string(t) {
			return &rs.events[i]
		}
	}
	return nil
}

// eventRules is the fast checker's rules, compiled once from the embedded
// event schemas. The schemas are part of the binary, so a schema the
// compiler cannot take is a programming error, caught by the tests.
var eventRules = sync.OnceValue(func() *ruleSet {
	rs, err := compileRules()
	if err != nil {
		panic(err)
	}
	return rs
})

// compileRules compiles every events/*.schema.json of schemas.FS. It fails
// on any keyword it does not implement, so that the fast checker never
// accepts what the schema would reject.
func compileRules() (*ruleSet, error) {
	names, err := fs.Glob(schemas.FS, "events/*.schema.json")
	if err != nil {
		return nil, err
	}
	types := eventTypes()
	rs := &ruleSet{}
	for _, name := range names {
		typ := strings.TrimSuffix(path.Base(name), ".schema.json")
		spec, err := compileEvent(name, typ, types[typ])
		if err != nil {
			return nil, fmt.Errorf("events: fast checker: %s: %w", name, err)
		}
		spec.id = len(rs.events)
		rs.events = append(rs.events, spec)
	}
	got := make([]string, len(rs.events))
	for i, s := range rs.events {
		got[i] = s.name
	}
	if !slices.Equal(got, schemas.EventTypes) || len(types) != len(got) {
		return nil, fmt.Errorf("events: fast checker: schemas for %v, Go types for %d, want %v", got, len(types), schemas.EventTypes)
	}
	return rs, nil
}

// compileEvent compiles the schema file name of event type typ, whose Go
// events newEvent returns.
func compileEvent(name, typ string, newEvent func() protocol.Event) (eventSpec, error) {
	if newEvent == nil {
		return eventSpec{}, fmt.Errorf("no Go type for event type %q", typ)
	}
	obj, err := readSchema(name)
	if err != nil {
		return eventSpec{}, err
	}
	if err := checkKeywords(obj, "type", "properties", "required"); err != nil {
		return eventSpec{}, err
	}
	if obj["type"] != "object" {
		return eventSpec{}, fmt.Errorf("type %v, want object", obj["type"])
	}
	spec := eventSpec{name: typ, newEvent: newEvent, goType: reflect.TypeOf(newEvent()).Elem()}
	if err := spec.addProps(obj["properties"]); err != nil {
		return eventSpec{}, err
	}
	if err := spec.addRequired(obj["required"]); err != nil {
		return eventSpec{}, err
	}
	return spec, spec.bind()
}

// readSchema reads an embedded schema file strictly.
func readSchema(name string) (map[string]any, error) {
	src, err := schemas.FS.ReadFile(name)
	if err != nil {
		return nil, err
	}
	doc, err := protocol.Parse(src)
	if err != nil {
		return nil, err
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("not an object")
	}
	return obj, nil
}

// checkKeywords fails on a keyword of s that is neither an annotation nor
// one of the given assertions.
func checkKeywords(s map[string]any, assertions ...string) error {
	for k := range s {
		switch {
		case slices.Contains(assertions, k), strings.HasPrefix(k, "x-"):
		case k == "$schema", k == "$id", k == "$comment", k == "title", k == "description",
			k == "examples", k == "default", k == "deprecated":
		default:
			return fmt.Errorf("keyword %q not supported by the fast checker", k)
		}
	}
	return nil
}

// addProps compiles the "properties" of an event schema, in name order.
func (s *eventSpec) addProps(v any) error {
	props, ok := v.(map[string]any)
	if !ok || len(props) > 64 {
		return fmt.Errorf("properties: want an object of at most 64 properties")
	}
	for _, name := range slices.Sorted(maps.Keys(props)) {
		p, ok := props[name].(map[string]any)
		if !ok {
			return fmt.Errorf("property %q: want an object", name)
		}
		r, err := compileRule(p)
		if err != nil {
			return fmt.Errorf("property %q: %w", name, err)
		}
		s.props = append(s.props, prop{name: name, rule: r})
	}
	i := s.index([]byte("type"))
	if i < 0 || !slices.Equal(s.props[i].rule.enum, []literal{{kind: '"', str: s.name}}) || s.props[i].rule.types != 0 {
		return fmt.Errorf(`property "type": want {"const": %q}`, s.name)
	}
	s.typeBit = 1 << i
	return nil
}

// addRequired sets the required bits; every required property must be
// described in "properties".
func (s *eventSpec) addRequired(v any) error {
	list, ok := v.([]any)
	if !ok && v != nil {
		return fmt.Errorf("required: want an array")
	}
	for _, r := range list {
		name, _ := r.(string)
		i := s.index([]byte(name))
		if i < 0 {
			return fmt.Errorf("required %v: not in properties", r)
		}
		s.required |= 1 << i
	}
	return nil
}

// compileRule compiles one property schema.
func compileRule(p map[string]any) (rule, error) {
	var r rule
	if err := checkKeywords(p, "type", "enum", "const", "minimum", "maximum"); err != nil {
		return r, err
	}
	_, hasEnum := p["enum"]
	if _, hasConst := p["const"]; hasEnum && hasConst {
		return r, fmt.Errorf("both enum and const")
	}
	var err error
	if r.types, err = compileTypes(p["type"]); err != nil {
		return r, err
	}
	if r.enum, err = compileEnum(p); err != nil {
		return r, err
	}
	if r.min, err = compileBound(p["minimum"]); err != nil {
		return r, fmt.Errorf("minimum: %w", err)
	}
	if r.max, err = compileBound(p["maximum"]); err != nil {
		return r, fmt.Errorf("maximum: %w", err)
	}
	lo, loOK := intBound(r.min, math.MinInt64)
	hi, hiOK := intBound(r.max, math.MaxInt64)
	r.lo, r.hi, r.intBounds = lo, hi, loOK && hiOK
	return r, nil
}

// intBound returns bound n as an int64, or none when n is nil, and
// whether it is either: an integer of at most 18 digits is.
func intBound(n *number, none int64) (int64, bool) {
	switch {
	case n == nil:
		return none, true
	case n.zero():
		return 0, true
	case !n.isInt() || n.msd() >= 18:
		return 0, false
	}
	return n.int64Value(), true
}

// compileTypes compiles "type": absent, a name or a list of names.
func compileTypes(v any) (typeSet, error) {
	var list []any
	switch v := v.(type) {
	case nil:
		return 0, nil
	case string:
		list = []any{v}
	case []any:
		list = v
	}
	var set typeSet
	for _, t := range list {
		name, _ := t.(string)
		bit, ok := typeNames[name]
		if !ok {
			return 0, fmt.Errorf("type %v not supported", t)
		}
		set |= bit
	}
	if set == 0 {
		return 0, fmt.Errorf("type %v not supported", v)
	}
	return set, nil
}

// compileEnum compiles "enum", or "const" as an enum of one value.
func compileEnum(p map[string]any) ([]literal, error) {
	values, isEnum := p["enum"].([]any)
	if c, isConst := p["const"]; isConst {
		values, isEnum = []any{c}, true
	}
	if !isEnum {
		if _, ok := p["enum"]; ok {
			return nil, fmt.Errorf("enum: want an array")
		}
		return nil, nil
	}
	lits := make([]literal, 0, len(values))
	for _, v := range values {
		switch v := v.(type) {
		case nil:
			lits = append(lits, literal{kind: 'n'})
		case bool:
			lits = append(lits, literal{kind: boolKind(v)})
		case string:
			lits = append(lits, literal{kind: '"', str: v})
		default:
			return nil, fmt.Errorf("enum or const value %v not supported (only strings, booleans and null)", v)
		}
	}
	return lits, nil
}

// boolKind is the kind of a JSON boolean: 't' or 'f'.
func boolKind(b bool) byte {
	if b {
		return 't'
	}
	return 'f'
}

// compileBound compiles a minimum or maximum.
func compileBound(v any) (*number, error) {
	if v == nil {
		return nil, nil
	}
	lit, ok := v.(json.Number)
	if !ok {
		return nil, fmt.Errorf("%v is not a number", v)
	}
	n := parseNumber([]byte(lit))
	if !n.ratOK() {
		return nil, fmt.Errorf("%v is out of range", v)
	}
	return &n, nil
}
