// Package explore generates valid v2 requests from the request schema and
// shrinks a request that makes a step fail to a minimal one. It is the
// engine of `kusaw-step conform --explore`; package conform runs the
// attempts and judges them.
//
// Generation starts from a base request (the one the battery synthesizes
// for a mode) and walks the request schema: each field the schema names is
// kept, dropped when optional, set to null where the schema allows it, or
// given a value drawn from the edges of its type — empty and longer
// arrays, boundary numbers, Unicode edges in strings — and unknown fields
// are added at every object level, as a newer factory would send. Fields
// that tie the request to the machine (paths, the mode, the operator's
// config) are pinned to the base. Same seed, same requests.
package explore

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Pinned are the fields a generated request keeps from its base: they name
// real folders the attempt made, what the operator chose (mode, config),
// or what the runner itself decides (sandbox). A pattern's "*" stands for
// any array index. Each maps to where its value comes from in the base:
// "" for the same place; a repo's worktree is the request's worktree.
var Pinned = map[string]string{
	"/protocol_version": "", "/mode": "", "/worktree": "", "/artifacts_dir": "", "/config": "",
	"/sandbox": "", "/prompt": "", "/repos/*/worktree": "/worktree",
	"/context/atlas/out_dir": "", "/context/atlas/pages_dir": "", "/context/atlas/root": "",
	"/context/atlas/repos/*/overview_path": "",
}

// bounds are the ranges a generated number keeps to where the schema's own
// are too wide to be fair: a step is not broken for missing a deadline
// shorter than its own start-up, or for failing to write a line into
// fewer bytes than the spec's smallest JSON event.
var bounds = map[string][2]float64{
	"/limits/time_left_ms":      {10_000, 3_600_000},
	"/limits/max_line_bytes":    {4096, 1 << 24},
	"/limits/outputs_max_bytes": {100, 1 << 20},
	"/limits/log_cap_bytes":     {4096, 1 << 30},
	"/limits/final_text_bytes":  {100, 1 << 24},
	"/completion_grace_seconds": {1, 60},
	"/step/attempt":             {1, 100},
}

// edgeStrings are the strings a generated string field is drawn from
// besides its base value: empty, one letter, line and paragraph
// separators, an astral character, combining marks, right-to-left text,
// quotes and backslashes, control characters.
var edgeStrings = []string{
	"", "a", "line one\nline two", "sep\u2028arator\u2029", "astral 𝄞 😀", "e\u0301 combining",
	"\u202Eright-to-left\u202C", "עברית", `quote " back\slash`, "tab\tnul\x00", "  ", "../../etc/passwd",
	strings.Repeat("long ", 400),
}

// edgeNumbers are the numbers a generated number is drawn from, kept to
// the field's minimum and bounds.
var edgeNumbers = []float64{0, 1, -1, 2, 0.5, 100, 1e6, 1 << 31, 1<<53 - 1}

// Generator makes requests for one mode.
type Generator struct {
	schema map[string]any     // the request schema
	defs   map[string]any     // its $defs
	base   map[string]any     // the request generated ones vary
	floors map[string]float64 // raised lower bounds, by pointer
}

// NewGenerator returns a generator of requests like base, which must be a
// valid request decoded into a tree, following schema, the request
// schema decoded the same way.
func NewGenerator(schema, base map[string]any) *Generator {
	defs, _ := schema["$defs"].(map[string]any)
	return &Generator{schema: schema, defs: defs, base: base, floors: map[string]float64{}}
}

// Floor raises the lower bound of the number at pointer to lo, e.g.
// limits.time_left_ms to a few times the step's own start-up.
func (g *Generator) Floor(pointer string, lo float64) { g.floors[pointer] = lo }

// bounds returns the range a number at p is drawn from and shrunk within,
// past its schema minimum.
func (g *Generator) bounds(p path) (lo, hi float64) {
	lo, hi = -1e15, 1e15
	for pattern, b := range bounds {
		if p.matches(pointer(pattern)) {
			lo, hi = b[0], b[1]
			if f, ok := g.floors[pattern]; ok {
				lo = max(lo, f)
			}
		}
	}
	return lo, hi
}

// Base returns a copy of the generator's base request.
func (g *Generator) Base() map[string]any { return clone(g.base).(map[string]any) }

// Request returns request number i of the sequence seed names. The result
// follows the schema's shapes but is not checked: the caller validates it
// and asks for the next number when it is refused.
func (g *Generator) Request(seed uint64, i int) map[string]any {
	r := rand.New(rand.NewPCG(seed, uint64(i)))
	w := walker{g: g, r: r}
	return w.object(g.schema, g.base, nil)
}

// walker is one generation's state.
type walker struct {
	g *Generator
	r *rand.Rand
}

// chance reports true with probability p.
func (w *walker) chance(p float64) bool { return w.r.Float64() < p }

// value generates a value at p for schema s, given the base's value there
// (has says whether the base has one).
func (w *walker) value(s map[string]any, base any, has bool, p path) any {
	s = w.resolve(s)
	if pinned(p) && has {
		return clone(base)
	}
	if has && w.chance(0.35) {
		return clone(base)
	}
	types := typesOf(s)
	if slices.Contains(types, "null") && w.chance(0.2) {
		return nil
	}
	if c, ok := s["const"]; ok {
		return c
	}
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		return e[w.r.IntN(len(e))]
	}
	types = slices.DeleteFunc(slices.Clone(types), func(t string) bool { return t == "null" })
	if len(types) == 0 {
		return w.anyValue(2)
	}
	switch t := types[w.r.IntN(len(types))]; t {
	case "object":
		b, _ := base.(map[string]any)
		return w.object(s, b, p)
	case "array":
		b, _ := base.([]any)
		return w.array(s, b, p)
	case "string":
		return edgeStrings[w.r.IntN(len(edgeStrings))]
	case "integer", "number":
		return w.number(s, p, t == "integer")
	case "boolean":
		return w.chance(0.5)
	}
	return nil
}

// object generates an object: required properties always, optional ones
// sometimes (more often when the base has them), and now and then an
// unknown field.
func (w *walker) object(s, base map[string]any, p path) map[string]any {
	out := map[string]any{}
	props, _ := s["properties"].(map[string]any)
	required := stringsOf(s["required"])
	for _, k := range sortedKeys(props) {
		sub, _ := props[k].(map[string]any)
		bv, has := base[k]
		q := p.child(k)
		if src, ok := pinnedSource(q); ok && src != "" {
			bv, has = lookup(w.g.base, pointer(src))
			has = has && bv != nil // a repo's worktree in intake, whose request has none: made up
		}
		req := slices.Contains(required, k)
		switch {
		case pinned(q) && !has && !req:
			continue // the base leaves it out: so does every request
		case req, pinned(q):
		case has && w.chance(0.25), !has && !w.chance(0.3):
			continue // dropped, or left out as the base does
		}
		out[k] = w.value(sub, bv, has, q)
	}
	if len(props) == 0 { // a free-form object: keep the base's, or a few made-up entries
		if base != nil && w.chance(0.5) {
			return clone(base).(map[string]any)
		}
		for n := w.r.IntN(3); n > 0; n-- {
			out["k"+strconv.Itoa(w.r.IntN(100))] = w.anyValue(1)
		}
	}
	if w.chance(0.15) {
		out["x_explore_"+strconv.Itoa(w.r.IntN(10))] = w.anyValue(2)
	}
	return out
}

// array generates an array: empty, one element, a few, or many.
func (w *walker) array(s map[string]any, base []any, p path) []any {
	items, _ := s["items"].(map[string]any)
	sizes := []int{0, 0, 1, 2, 3, 16}
	if slices.ContainsFunc(p, isIndex) {
		sizes = sizes[:5] // many elements at the outer level only: 16 of 16 of 16 is no edge, just slow
	}
	n := sizes[w.r.IntN(len(sizes))]
	out := make([]any, n)
	for i := range out {
		var bv any
		has := i < len(base)
		if has {
			bv = base[i]
		} else if len(base) > 0 {
			bv, has = base[0], true // vary the base's own element
		}
		if items == nil {
			out[i] = w.anyValue(1)
			continue
		}
		out[i] = w.value(items, bv, has, p.child(strconv.Itoa(i)))
	}
	return out
}

// number generates a number within the field's minimum and bounds.
func (w *walker) number(s map[string]any, p path, integer bool) float64 {
	lo, hi := w.g.bounds(p)
	if m, ok := s["minimum"].(float64); ok {
		lo = max(lo, m)
	}
	cands := []float64{lo, hi}
	for _, x := range edgeNumbers {
		if x >= lo && x <= hi && (!integer || x == float64(int64(x))) {
			cands = append(cands, x)
		}
	}
	if lo < -1e14 {
		cands = cands[1:] // -1e15 is a bound, not an edge
	}
	if hi > 1e14 {
		cands = slices.DeleteFunc(cands, func(x float64) bool { return x == 1e15 })
	}
	return cands[w.r.IntN(len(cands))]
}

// isIndex reports whether a pointer token is an array index.
func isIndex(tok string) bool {
	_, err := strconv.Atoi(tok)
	return err == nil
}

// anyValue generates a small JSON value of any type, for free-form
// fields and unknown ones.
func (w *walker) anyValue(depth int) any {
	k := w.r.IntN(6)
	if depth <= 0 {
		k %= 4
	}
	switch k {
	case 0:
		return nil
	case 1:
		return edgeStrings[w.r.IntN(len(edgeStrings))]
	case 2:
		return edgeNumbers[w.r.IntN(len(edgeNumbers))]
	case 3:
		return w.chance(0.5)
	case 4:
		return []any{w.anyValue(depth - 1)}
	}
	return map[string]any{"nested": w.anyValue(depth - 1)}
}

// resolve follows a local $ref to its definition.
func (w *walker) resolve(s map[string]any) map[string]any {
	ref, ok := s["$ref"].(string)
	if !ok {
		return s
	}
	name, ok := strings.CutPrefix(ref, "#/$defs/")
	if !ok {
		panic(fmt.Sprintf("explore: unsupported $ref %q", ref))
	}
	d, _ := w.g.defs[name].(map[string]any)
	return d
}

// pinned reports whether p is one of the fields a request keeps from its
// base, or lies inside one.
func pinned(p path) bool {
	for i := 1; i <= len(p); i++ {
		if _, ok := pinnedSource(p[:i]); ok {
			return true
		}
	}
	return false
}

// pinnedSource returns where in the base a pinned field p takes its value
// ("" for p itself), and whether p is pinned.
func pinnedSource(p path) (string, bool) {
	for _, pin := range pins() {
		if p.matches(pin.pattern) {
			return pin.src, true
		}
	}
	return "", false
}

// pin is one entry of Pinned, its pattern split into tokens.
type pin struct {
	pattern path
	src     string
}

// pins returns Pinned split once.
var pins = sync.OnceValue(func() []pin {
	var out []pin
	for _, k := range sortedKeys(Pinned) {
		out = append(out, pin{pointer(k), Pinned[k]})
	}
	return out
})

// pointer splits a JSON pointer without escapes into its tokens.
func pointer(s string) path { return strings.Split(s, "/")[1:] }

// typesOf returns the schema's type keyword as a list.
func typesOf(s map[string]any) []string {
	switch t := s["type"].(type) {
	case string:
		return []string{t}
	case []any:
		return stringsOf(t)
	}
	return nil
}

func stringsOf(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// Rebase returns doc with its pinned fields taken from base instead: a
// generated request moved to another attempt's folders.
func Rebase(doc, base map[string]any) map[string]any {
	out := clone(doc).(map[string]any)
	var fix func(v any, p path)
	fix = func(v any, p path) {
		switch c := v.(type) {
		case map[string]any:
			for _, k := range sortedKeys(c) {
				q := p.child(k)
				if src, ok := pinnedSource(q); ok {
					from := q
					if src != "" {
						from = pointer(src)
					}
					switch bv, has := lookup(base, from); {
					case has && (bv != nil || src == ""):
						c[k] = clone(bv)
					case src == "":
						delete(c, k)
					} // else: the source is null here, the generated value stays
					continue
				}
				fix(c[k], q)
			}
		case []any:
			for i, x := range c {
				fix(x, p.child(strconv.Itoa(i)))
			}
		}
	}
	fix(out, nil)
	return out
}
