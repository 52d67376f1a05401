package explore

import (
	"slices"
	"strconv"
	"strings"
)

// A request is handled as the tree encoding/json-style decoding gives:
// map[string]any objects, []any arrays, string, float64, bool and nil.
// Numbers are float64 because every number the request schema allows
// fits one exactly (integers up to 2^53).

// clone returns a deep copy of v.
func clone(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[k] = clone(x)
		}
		return m
	case []any:
		a := make([]any, len(v))
		for i, x := range v {
			a[i] = clone(x)
		}
		return a
	}
	return v
}

// path is a JSON pointer as its unescaped tokens.
type path []string

// String returns p as a JSON pointer ("/repos/0/label").
func (p path) String() string {
	var b strings.Builder
	for _, t := range p {
		b.WriteByte('/')
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(t))
	}
	return b.String()
}

func (p path) child(tok string) path { return append(slices.Clip(p), tok) }

// matches reports whether p matches pattern, whose "*" tokens stand for
// any one token (an array index or an object key).
func (p path) matches(toks path) bool {
	if len(toks) != len(p) {
		return false
	}
	for i, t := range toks {
		if t != "*" && t != p[i] {
			return false
		}
	}
	return true
}

// lookup returns the value at p in v and whether it is there.
func lookup(v any, p path) (any, bool) {
	for _, tok := range p {
		switch c := v.(type) {
		case map[string]any:
			x, ok := c[tok]
			if !ok {
				return nil, false
			}
			v = x
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			v = c[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// replaced returns a copy of doc with the value at p set to x, or removed
// when remove is set (an array element is cut out). p must not be empty
// and its parent must exist.
func replaced(doc any, p path, x any, remove bool) any {
	doc = clone(doc)
	parent, _ := lookup(doc, p[:len(p)-1])
	last := p[len(p)-1]
	switch c := parent.(type) {
	case map[string]any:
		if remove {
			delete(c, last)
		} else {
			c[last] = clone(x)
		}
	case []any:
		i, _ := strconv.Atoi(last)
		if remove {
			c = slices.Delete(c, i, i+1)
		} else {
			c[i] = clone(x)
		}
		if len(p) == 1 {
			return c
		}
		return replaced(doc, p[:len(p)-1], c, false)
	}
	return doc
}

// equal reports whether a and b are the same JSON value.
func equal(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		m, ok := b.(map[string]any)
		if !ok || len(m) != len(a) {
			return false
		}
		for k, x := range a {
			y, ok := m[k]
			if !ok || !equal(x, y) {
				return false
			}
		}
		return true
	case []any:
		s, ok := b.([]any)
		if !ok || len(s) != len(a) {
			return false
		}
		for i := range a {
			if !equal(a[i], s[i]) {
				return false
			}
		}
		return true
	}
	return a == b
}

// sortedKeys returns m's keys in order, so that every walk is
// deterministic.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
