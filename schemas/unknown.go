package schemas

import (
	"encoding/json"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// UnknownField is a member of a document that its schema does not name.
// The protocol accepts such members (forward compatibility), but one is
// more often a misspelt field than a field of a later version.
type UnknownField struct {
	Pointer string // the member's JSON pointer, e.g. /cost/usd_total
	Suggest string // a known field of the same object it likely meant; "" when none is close
}

// UnknownFields returns the members of doc (a document as protocol.Parse
// gives it) that the schema of kind does not name, sorted by pointer. An
// object whose schema lists no properties (outputs, effect args), or
// allows additional ones by a schema, is open: nothing in it is unknown.
// A kind with no schema has no unknown fields.
func UnknownFields(kind string, doc any) []UnknownField {
	root := fieldTree(kind)
	if root == nil {
		return nil
	}
	var out []UnknownField
	root.walk(doc, "", &out)
	slices.SortFunc(out, func(a, b UnknownField) int { return strings.Compare(a.Pointer, b.Pointer) })
	return out
}

// openMembers are the members of a kind that are documents of their own,
// whose members their own schemas judge: a result's outputs (the
// handshake's outputs_schema, the mode's outputs document) may carry any
// field the step defines.
var openMembers = map[string][]string{"result": {"/outputs"}}

// fieldNode is what a schema says of one value's members.
type fieldNode struct {
	props map[string]*fieldNode // nil: an open object, every member is known
	items *fieldNode            // an array's items; nil: not looked into
}

func (n *fieldNode) walk(v any, ptr string, out *[]UnknownField) {
	switch v := v.(type) {
	case map[string]any:
		if n.props == nil {
			return
		}
		for k, child := range v {
			p := ptr + "/" + escapePointer(k)
			if known, ok := n.props[k]; ok {
				if known != nil {
					known.walk(child, p, out)
				}
				continue
			}
			*out = append(*out, UnknownField{Pointer: p, Suggest: suggest(k, n.props)})
		}
	case []any:
		if n.items == nil {
			return
		}
		for i, item := range v {
			n.items.walk(item, ptr+"/"+strconv.Itoa(i), out)
		}
	}
}

// at returns the node of the member at pointer p (plain names only), or
// nil.
func (n *fieldNode) at(p string) *fieldNode {
	for name := range strings.SplitSeq(strings.TrimPrefix(p, "/"), "/") {
		if n == nil {
			return nil
		}
		n = n.props[name]
	}
	return n
}

func escapePointer(k string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(k)
}

// trees holds the field tree of each kind, built on first use.
var trees sync.Map // kind → *fieldNode (nil for a kind with no schema)

func fieldTree(kind string) *fieldNode {
	if t, ok := trees.Load(kind); ok {
		return t.(*fieldNode)
	}
	name, ok := file(kind)
	var t *fieldNode
	if ok {
		b := &treeBuilder{files: map[string]map[string]any{}}
		if s := b.load(name); s != nil {
			t = b.node(name, s, 0)
		}
	}
	for _, p := range openMembers[kind] {
		if n := t.at(p); n != nil {
			n.props, n.items = nil, nil // open: not looked into
		}
	}
	trees.Store(kind, t)
	return t
}

// treeBuilder turns embedded schema files into field trees.
type treeBuilder struct {
	files map[string]map[string]any
}

func (b *treeBuilder) load(name string) map[string]any {
	if s, ok := b.files[name]; ok {
		return s
	}
	var s map[string]any
	data, err := FS.ReadFile(name)
	if err == nil {
		err = json.Unmarshal(data, &s)
	}
	if err != nil {
		s = nil
	}
	b.files[name] = s
	return s
}

// maxDepth bounds the tree: the schemas' references are finite, but a
// recursive one must not recurse forever.
const maxDepth = 12

// node builds the tree of schema s, read from the file name.
func (b *treeBuilder) node(name string, s map[string]any, depth int) *fieldNode {
	if depth > maxDepth {
		return nil
	}
	if ref, ok := s["$ref"].(string); ok {
		refName, target := b.resolve(name, ref)
		if target == nil {
			return nil
		}
		return b.node(refName, target, depth+1)
	}
	n := &fieldNode{}
	open := s["additionalProperties"] != nil && s["additionalProperties"] != false || s["patternProperties"] != nil
	type branch struct {
		file string
		s    map[string]any
	}
	branches := []branch{{name, s}}
	for _, k := range []string{"oneOf", "anyOf", "allOf"} {
		for _, br := range asSlice(s[k]) {
			m, _ := br.(map[string]any)
			file := name
			if ref, ok := m["$ref"].(string); ok {
				file, m = b.resolve(name, ref)
			}
			if m != nil {
				branches = append(branches, branch{file, m})
			}
		}
	}
	for _, br := range branches {
		props, ok := br.s["properties"].(map[string]any)
		if !ok {
			continue
		}
		if n.props == nil {
			n.props = map[string]*fieldNode{}
		}
		for k, sub := range props {
			m, _ := sub.(map[string]any)
			if m != nil {
				n.props[k] = b.node(br.file, m, depth+1)
			} else if _, seen := n.props[k]; !seen {
				n.props[k] = nil
			}
		}
	}
	if items, ok := s["items"].(map[string]any); ok {
		n.items = b.node(name, items, depth+1)
	}
	if open {
		n.props = nil
	}
	return n
}

// resolve returns the schema ref points at from the file name: another
// embedded file, a fragment (#/$defs/x) in it, or both.
func (b *treeBuilder) resolve(name, ref string) (string, map[string]any) {
	file, frag, _ := strings.Cut(ref, "#")
	if file != "" {
		file = path.Join(path.Dir(name), file)
		if after, ok := strings.CutPrefix(ref, BaseURL); ok {
			file, frag, _ = strings.Cut(after, "#")
		}
	} else {
		file = name
	}
	s := b.load(file)
	for part := range strings.SplitSeq(strings.TrimPrefix(frag, "/"), "/") {
		if part == "" || s == nil {
			continue
		}
		s, _ = s[part].(map[string]any)
	}
	return file, s
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

// synonyms are names step authors reach for, from other tools' formats,
// each with the protocol's fields it may mean. A synonym is suggested only
// when the field it names is known where it was found.
var synonyms = map[string][]string{
	"percentage": {"percent"}, "pct": {"percent"}, "progress": {"percent"},
	"input_tokens": {"tokens_input"}, "prompt_tokens": {"tokens_input"},
	"output_tokens": {"tokens_output"}, "completion_tokens": {"tokens_output"},
	"cached_tokens": {"tokens_cached"}, "cache_read_input_tokens": {"tokens_cached"},
	"cost": {"cost_usd", "usd"}, "cost_usd": {"usd"}, "usd": {"cost_usd"}, "price": {"cost_usd", "usd"},
	"output": {"outputs"}, "result": {"outputs"}, "data": {"outputs"},
	"reason": {"reason_code"}, "code": {"reason_code"},
	"msg": {"message"}, "text": {"message"},
	"state": {"status"}, "artifact": {"artifacts"}, "files": {"artifacts"},
	"version": {"protocol_version"},
}

// suggest returns the known field k most likely stands for: a synonym, the
// same name in another case or with dashes, or the one known name one edit
// away; "" when none or more than one is that close.
func suggest(k string, known map[string]*fieldNode) string {
	for _, s := range synonyms[strings.ToLower(k)] {
		if _, ok := known[s]; ok {
			return s
		}
	}
	norm := strings.ReplaceAll(strings.ToLower(k), "-", "_")
	if _, ok := known[norm]; ok {
		return norm
	}
	var near []string
	for name := range known {
		if editDistanceOne(norm, name) {
			near = append(near, name)
		}
	}
	if len(near) == 1 {
		return near[0]
	}
	return ""
}

// editDistanceOne reports whether b is a from one insertion, deletion,
// substitution or swap of neighbours.
func editDistanceOne(a, b string) bool {
	if a == b {
		return false
	}
	la, lb := len(a), len(b)
	switch {
	case la == lb:
		i := 0
		for i < la && a[i] == b[i] {
			i++
		}
		if a[i+1:] == b[i+1:] {
			return true // a substitution
		}
		return i+1 < la && a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:]
	case la == lb+1:
		a, b = b, a
		fallthrough
	case la+1 == lb:
		i := 0
		for i < len(a) && a[i] == b[i] {
			i++
		}
		return a[i:] == b[i+1:]
	}
	return false
}
