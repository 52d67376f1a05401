package explore

import "strconv"

// Shrink returns a smaller request that still fails: fewer fields that
// differ from the generator's base, shorter arrays and strings, numbers moved to base's.
// valid says whether a candidate is a valid request (it costs nothing:
// no step runs); fails runs a valid candidate and reports whether it
// fails the same way. Shrink calls fails at most budget times and returns
// the smallest failing request found, and how many runs it made.
//
// It is delta debugging on the request tree: first it puts back whole
// subtrees of base (parents before children, so one call can undo a
// hundred changes), then it cuts array elements and halves strings in
// what is left. The order is fixed, so a deterministic step shrinks to
// the same request every time.
func (g *Generator) Shrink(doc map[string]any, budget int, valid, fails func(map[string]any) bool) (map[string]any, int) {
	base := g.base
	calls := 0
	try := func(c any) bool {
		m := c.(map[string]any)
		if calls >= budget || !valid(m) {
			return false
		}
		calls++
		return fails(m)
	}
	// After a success the walk goes on from where it was, in the new
	// candidates, rather than from the start: the candidates before it
	// were tried and seldom start failing. One pass without a success
	// ends it.
	cands := g.candidates(doc, base)
	for i, progressed := 0, false; calls < budget; {
		if i >= len(cands) {
			if !progressed {
				break
			}
			i, progressed = 0, false
			continue
		}
		if try(cands[i]) {
			doc, progressed = cands[i].(map[string]any), true
			cands = g.candidates(doc, base)
			continue
		}
		i++
	}
	return doc, calls
}

// candidates lists, lazily enough for a shrinker, the one-step
// simplifications of doc: each differing subtree put back to base (or
// removed when base lacks it), then each array element removed, each
// string halved, each number set to 0.
func (g *Generator) candidates(doc, base map[string]any) []any {
	var out []any
	walk(doc, nil, func(p path, v any) bool {
		if pinned(p) {
			return false
		}
		b, has := lookup(base, p)
		switch {
		case has && equal(v, b):
			return false // nothing to undo below
		case len(p) == 0:
		case has:
			out = append(out, replaced(doc, p, b, false))
		default:
			out = append(out, replaced(doc, p, nil, true))
		}
		out = append(out, restored(doc, p, v, b)...)
		return true
	})
	walk(doc, nil, func(p path, v any) bool {
		if pinned(p) {
			return false
		}
		if b, has := lookup(base, p); has && equal(v, b) {
			return false
		}
		switch v := v.(type) {
		case []any:
			for i := len(v) - 1; i >= 0; i-- {
				out = append(out, replaced(doc, p.child(strconv.Itoa(i)), nil, true))
			}
		case string:
			if r := []rune(v); len(r) > 1 {
				out = append(out, replaced(doc, p, string(r[:len(r)/2]), false))
			}
		case float64:
			if lo, hi := g.bounds(p); v != 0 && lo <= 0 && 0 <= hi {
				out = append(out, replaced(doc, p, 0.0, false))
			}
		}
		return true
	})
	return out
}

// restored returns doc with each field the base has in its object b at p
// and v lacks put back, one candidate a field.
func restored(doc any, p path, v, b any) []any {
	vm, ok1 := v.(map[string]any)
	bm, ok2 := b.(map[string]any)
	if !ok1 || !ok2 {
		return nil
	}
	var out []any
	for _, k := range sortedKeys(bm) {
		if _, has := vm[k]; !has {
			out = append(out, replaced(doc, p.child(k), bm[k], false))
		}
	}
	return out
}

// walk calls fn for v and, while fn returns true, for every value below
// it, parents first, keys in order.
func walk(v any, p path, fn func(path, any) bool) {
	if !fn(p, v) {
		return
	}
	switch c := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(c) {
			walk(c[k], p.child(k), fn)
		}
	case []any:
		for i, x := range c {
			walk(x, p.child(strconv.Itoa(i)), fn)
		}
	}
}
