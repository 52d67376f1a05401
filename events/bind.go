package events

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"kusaw.dev/step/protocol"
)

// This file binds the compiled event rules to the Go event types of
// package protocol, so that the fast checker can build typed events.

// eventTypes maps each event type to a constructor of its Go type.
func eventTypes() map[string]func() protocol.Event {
	return map[string]func() protocol.Event{
		"agent_action": func() protocol.Event { return new(protocol.AgentAction) },
		"artifact":     func() protocol.Event { return new(protocol.ArtifactEvent) },
		"note_ack":     func() protocol.Event { return new(protocol.NoteAck) },
		"progress":     func() protocol.Event { return new(protocol.Progress) },
		"tool_call":    func() protocol.Event { return new(protocol.ToolCall) },
		"usage":        func() protocol.Event { return new(protocol.Usage) },
	}
}

// bind maps every property but "type" to a field of the Go type, by its
// JSON name, and checks that the field can hold every value the rule
// allows; every exported field must have a property.
func (s *eventSpec) bind() error {
	fields := make(map[string][]int)
	jsonFields(s.goType, nil, fields)
	for i := range s.props {
		p := &s.props[i]
		if p.name == "type" {
			continue
		}
		idx, ok := fields[p.name]
		if !ok {
			return fmt.Errorf("property %q: no field in %s", p.name, s.goType)
		}
		delete(fields, p.name)
		t := s.goType.FieldByIndex(idx).Type
		if err := fits(t, &p.rule); err != nil {
			return fmt.Errorf("property %q: field %s: %w", p.name, s.goType, err)
		}
		p.field, p.offset, p.kind, p.ptr = idx, fieldOffset(s.goType, idx), t.Kind(), t.Kind() == reflect.Pointer
		if p.ptr {
			p.kind = t.Elem().Kind()
		}
	}
	if len(fields) > 0 {
		return fmt.Errorf("fields %v of %s: no property in the schema", slices.Sorted(maps.Keys(fields)), s.goType)
	}
	if ev := s.newEvent(); ev.EventType() != s.name {
		return fmt.Errorf("%T is the event of type %q, not %q", ev, ev.EventType(), s.name)
	}
	return nil
}

// fieldOffset returns the offset in struct t of the field at index path
// idx, which descends only into structs embedded by value.
func fieldOffset(t reflect.Type, idx []int) uintptr {
	var off uintptr
	for _, i := range idx {
		f := t.Field(i)
		off, t = off+f.Offset, f.Type
	}
	return off
}

// jsonFields adds to out the index path of every exported field of struct
// t by its JSON name, descending into embedded structs without a name, as
// encoding/json and json/v2 do.
func jsonFields(t reflect.Type, prefix []int, out map[string][]int) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		idx := append(slices.Clip(prefix), i)
		switch {
		case !f.IsExported() || tag == "-":
		case f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct:
			jsonFields(f.Type, idx, out)
		case name == "":
			out[f.Name] = idx
		default:
			out[name] = idx
		}
	}
}

// fits checks that a field of type t can hold every value rule r allows:
// a pointer when null is allowed, and the Go type of the JSON type.
func fits(t reflect.Type, r *rule) error {
	nullable := r.types&tNull != 0 || slices.ContainsFunc(r.enum, func(l literal) bool { return l.kind == 'n' })
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	} else if nullable {
		return fmt.Errorf("the value may be null; want a pointer field")
	}
	want := r.types &^ tNull
	if r.enum != nil {
		want = 0
		for _, l := range r.enum {
			want |= map[byte]typeSet{'"': tString, 't': tBoolean, 'f': tBoolean, 'n': 0}[l.kind]
		}
	}
	goTypes := map[typeSet]reflect.Type{
		tString:  reflect.TypeFor[string](),
		tBoolean: reflect.TypeFor[bool](),
		tNumber:  reflect.TypeFor[float64](),
		tInteger: reflect.TypeFor[int64](),
	}
	if goTypes[want] != t {
		return fmt.Errorf("type %s cannot hold the values the schema allows", t)
	}
	return nil
}
