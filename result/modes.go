package result

import (
	"bytes"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"kusaw.dev/step/protocol"
	"kusaw.dev/step/schemas"
)

// WarnScannerVersion is the warning of an atlas_scan result whose
// outputs.scanner has no version (spec row outputs.scanner).
const WarnScannerVersion = "scanner_version_missing"

// FindingFields are the fields of an atlas_scan finding the runner keeps
// (spec row outputs.findings: "Only rule_id and location fields are
// kept"); any other field, such as a message or a snippet that may hold
// the secret the rule found, is dropped from the outputs, the record and
// result.json.
var FindingFields = []string{"rule_id", "path", "start_line", "start_column", "end_line", "end_column"}

// modeContext is the part of a request's context the mode rules read.
// A field the request does not carry leaves its rule unchecked: the
// runner cannot tell a valid answer from an invalid one without it.
type modeContext struct {
	Atlas *struct {
		Dims   *int       `json:"dims"`
		OutDir string     `json:"out_dir"`
		Texts  *[]idField `json:"texts"`
	} `json:"atlas"`
	Classify *struct {
		Workflows []struct {
			Name string `json:"name"`
		} `json:"workflows"`
	} `json:"classify"`
	Candidates *[]struct {
		Number int `json:"number"`
	} `json:"candidates"`
	Triage *struct {
		Items  []idField `json:"items"`
		Groups []struct {
			Items []string `json:"items"`
		} `json:"groups"`
	} `json:"triage"`
	Match *struct {
		Bugs     *[]idField        `json:"bugs"`
		Findings *[]jsontext.Value `json:"findings"`
	} `json:"match"`
}

// idField is an object of the request known by its id.
type idField struct {
	ID string `json:"id"`
}

// contextOf decodes the parts of req's context the mode rules read; a
// context that does not decode gives what did.
func contextOf(req *protocol.Request) modeContext {
	var mc modeContext
	if req != nil && len(req.Context.Unknown) > 0 {
		_ = json.Unmarshal(req.Context.Unknown, &mc)
	}
	return mc
}

// rule is one broken semantic rule of a mode's outputs.
type rule = schemas.Problem

// checkModeRules applies the rules of the request's mode that JSON Schema
// cannot say, because they need the request (or, for atlas_scan, change
// what is kept), to outputs that passed their schemas. Each broken rule is
// a problem at its JSON pointer; the embedded outputs schemas hold the
// rules that need no request (selection choice >= 1, match finding >= 0,
// triage roles, verdict length).
func (c *checker) checkModeRules(doc any) []schemas.Problem {
	out, _ := doc.(map[string]any)
	if out == nil || c.opts.Request == nil {
		return nil
	}
	mc := contextOf(c.opts.Request)
	switch c.opts.Request.Mode {
	case "atlas_scan":
		c.scanRules(out)
	case "atlas_embed":
		return embedRules(out, mc)
	case "atlas_map":
		return mapRules(out, mc)
	case "classify":
		return classifyRules(out, mc)
	case "select":
		return selectRules(out, mc)
	case "match":
		return matchRules(out, mc)
	case "triage":
		return triageRules(out, mc)
	}
	return nil
}

// scanRules warns of a scanner without a version (spec row
// outputs.scanner) and cuts every finding to [FindingFields] (spec row
// outputs.findings), in the outputs the verdict keeps.
func (c *checker) scanRules(out map[string]any) {
	if s, ok := out["scanner"].(map[string]any); ok {
		if v, ok := s["version"].(string); !ok || strings.TrimSpace(v) == "" {
			c.warn(WarnScannerVersion, "outputs.scanner has no version; say which version of the scanner ran, so findings can be compared across runs")
		}
	}
	cut := false
	for _, obj := range objects(out["findings"]) {
		for k := range obj {
			if !slices.Contains(FindingFields, k) {
				delete(obj, k)
				cut = true
			}
		}
	}
	if cut {
		c.keepOutputs(out)
	}
}

// keepOutputs replaces the outputs the runner keeps with doc.
func (c *checker) keepOutputs(doc map[string]any) {
	data, err := stdjson.Marshal(doc)
	if err != nil {
		return // numbers and strings from Parse always marshal
	}
	c.res.Outputs = jsontext.Value(data)
	c.replaced = true
}

// embedRules: every vector has context.atlas.dims numbers, and every id
// is one of context.atlas.texts[].id (spec rows outputs.vectors[].vector
// and outputs.vectors[].id).
func embedRules(out map[string]any, mc modeContext) []rule {
	var ids map[string]bool
	if mc.Atlas != nil && mc.Atlas.Texts != nil {
		ids = make(map[string]bool)
		for _, t := range *mc.Atlas.Texts {
			ids[t.ID] = true
		}
	}
	var rules []rule
	for i, obj := range objects(out["vectors"]) {
		at := fmt.Sprintf("/outputs/vectors/%d", i)
		if vec, ok := obj["vector"].([]any); ok && mc.Atlas != nil && mc.Atlas.Dims != nil && len(vec) != *mc.Atlas.Dims {
			rules = append(rules, rule{Pointer: at + "/vector", Message: fmt.Sprintf("the vector has %d numbers; context.atlas.dims is %d", len(vec), *mc.Atlas.Dims)})
		}
		if id, ok := obj["id"].(string); ok && ids != nil && !ids[id] {
			rules = append(rules, rule{Pointer: at + "/id", Message: fmt.Sprintf("id %s is not among the request's context.atlas.texts[].id", quoteCut(id))})
		}
	}
	return rules
}

// mapRules: every pages[].file is a relative path that stays inside
// context.atlas.out_dir, symlinks resolved, as an artifact stays inside
// the artifacts dir (spec row outputs.pages[].file). A file that does not
// exist (yet, or on this host) is checked by its path alone.
func mapRules(out map[string]any, mc modeContext) []rule {
	dir := ""
	if mc.Atlas != nil {
		dir = mc.Atlas.OutDir
	}
	var rules []rule
	for i, obj := range objects(out["pages"]) {
		file, ok := obj["file"].(string)
		if !ok {
			continue
		}
		if why := escapes(file, dir); why != "" {
			rules = append(rules, rule{Pointer: fmt.Sprintf("/outputs/pages/%d/file", i), Message: fmt.Sprintf("%s %s; give a path relative to context.atlas.out_dir, inside it", quoteCut(file), why)})
		}
	}
	return rules
}

// escapes says how p leads out of dir, or "" when it stays inside.
func escapes(p, dir string) string {
	switch {
	case p == "":
		return "is empty"
	case strings.HasPrefix(p, "/") || filepath.IsAbs(p):
		return "is absolute"
	case !filepath.IsLocal(p):
		return "leads out of the out dir"
	case dir == "":
		return ""
	}
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "" // no out dir here to resolve against; the path alone is inside
	}
	file, err := filepath.EvalSymlinks(filepath.Join(realDir, p))
	if errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	if err != nil || !within(realDir, file) {
		return "resolves outside the out dir " + realDir
	}
	return ""
}

// classifyRules: workflow names one of context.classify.workflows.
func classifyRules(out map[string]any, mc modeContext) []rule {
	w, ok := out["workflow"].(string)
	if !ok || mc.Classify == nil {
		return nil
	}
	names := make([]string, len(mc.Classify.Workflows))
	for i, wf := range mc.Classify.Workflows {
		names[i] = wf.Name
	}
	if slices.Contains(names, w) {
		return nil
	}
	return []rule{{Pointer: "/outputs/workflow", Message: fmt.Sprintf("workflow %s is not one of the configured workflows (%s)", quoteCut(w), list(names))}}
}

// selectRules: a non-null choice is the number of one of
// context.candidates.
func selectRules(out map[string]any, mc modeContext) []rule {
	num, ok := out["choice"].(stdjson.Number)
	if !ok || mc.Candidates == nil {
		return nil
	}
	var numbers []string
	for _, cand := range *mc.Candidates {
		n := strconv.Itoa(cand.Number)
		if n == num.String() {
			return nil
		}
		numbers = append(numbers, n)
	}
	return []rule{{Pointer: "/outputs/choice", Message: fmt.Sprintf("choice %s is not the 1-based number of a candidate in context.candidates (%s); give one of them, or null when none qualify", num, list(numbers))}}
}

// matchRules: pairs are one to one (no bug and no finding twice); a
// finding is a 0-based index into context.match.findings and a bug one of
// context.match.bugs[].id, when the request carries them.
func matchRules(out map[string]any, mc modeContext) []rule {
	bugs, findings := map[string]int{}, map[string]int{}
	var rules []rule
	for i, obj := range objects(out["pairs"]) {
		at := fmt.Sprintf("/outputs/pairs/%d", i)
		bug, _ := obj["bug"].(string)
		finding, _ := obj["finding"].(stdjson.Number)
		if j, dup := bugs[bug]; dup {
			rules = append(rules, rule{Pointer: at + "/bug", Message: fmt.Sprintf("bug %s is matched twice (pairs %d and %d); matches are one to one", quoteCut(bug), j, i)})
		}
		if j, dup := findings[finding.String()]; dup {
			rules = append(rules, rule{Pointer: at + "/finding", Message: fmt.Sprintf("finding %s is matched twice (pairs %d and %d); matches are one to one", finding, j, i)})
		}
		bugs[bug], findings[finding.String()] = i, i
		rules = append(rules, matchRefs(at, bug, finding, mc)...)
	}
	return rules
}

// matchRefs checks one pair's bug and finding against the request.
func matchRefs(at, bug string, finding stdjson.Number, mc modeContext) []rule {
	if mc.Match == nil {
		return nil
	}
	var rules []rule
	if fs := mc.Match.Findings; fs != nil {
		if n, err := finding.Int64(); err != nil || n < 0 || n >= int64(len(*fs)) {
			rules = append(rules, rule{Pointer: at + "/finding", Message: fmt.Sprintf("finding %s is not a 0-based index into the request's %d findings (context.match.findings)", finding, len(*fs))})
		}
	}
	if bs := mc.Match.Bugs; bs != nil && !slices.Contains(*bs, idField{ID: bug}) {
		rules = append(rules, rule{Pointer: at + "/bug", Message: fmt.Sprintf("bug %s is not a planted-bug id of the request (context.match.bugs[].id)", quoteCut(bug))})
	}
	return rules
}

// triageRules: the groups of triage-group (a request whose
// context.triage.groups is null or absent) cover every item of
// context.triage.items exactly once (spec: "Every item id appears in
// exactly one group"); triage-assess gives "one assessment per item in
// the group".
//
// The spec does not say whether triage-assess is asked about one group or
// all of context.triage.groups at once, so the rule is per group: every
// assessment is of an item of some group, no item is assessed twice, and
// a group one of whose items is assessed has all its items assessed. An
// answer about one whole group is then as valid as one about all of them.
func triageRules(out map[string]any, mc modeContext) []rule {
	if mc.Triage == nil {
		return nil
	}
	if mc.Triage.Groups == nil {
		var want []string
		for _, it := range mc.Triage.Items {
			want = append(want, it.ID)
		}
		var got []idAt
		for i, g := range objects(out["groups"]) {
			items, _ := g["items"].([]any)
			for j, id := range items {
				got = append(got, idAt{id: fmt.Sprint(id), at: fmt.Sprintf("/outputs/groups/%d/items/%d", i, j)})
			}
		}
		return exactlyOnce(got, want, coverage{"/outputs/groups", "group", "context.triage.items"})
	}
	var got []idAt
	for i, a := range objects(out["assessments"]) {
		got = append(got, idAt{id: fmt.Sprint(a["id"]), at: fmt.Sprintf("/outputs/assessments/%d/id", i)})
	}
	var want []string
	for _, g := range mc.Triage.Groups {
		if slices.ContainsFunc(got, func(a idAt) bool { return slices.Contains(g.Items, a.id) }) {
			want = append(want, g.Items...)
		}
	}
	var all []string
	for _, g := range mc.Triage.Groups {
		all = append(all, g.Items...)
	}
	rules := exactlyOnce(got, want, coverage{"/outputs/assessments", "assessment", "the groups assessed"})
	for _, g := range got {
		if !slices.Contains(all, g.id) {
			rules = slices.DeleteFunc(rules, func(r rule) bool { return r.Pointer == g.at })
			rules = append(rules, rule{Pointer: g.at, Message: fmt.Sprintf("item %s is not an item of context.triage.groups", quoteCut(g.id))})
		}
	}
	if len(got) == 0 && len(all) > 0 {
		rules = append(rules, rule{Pointer: "/outputs/assessments", Message: "no assessment; give one per item of the group"})
	}
	return rules
}

// objects returns the objects of v, an array; other items are nil.
func objects(v any) []map[string]any {
	arr, _ := v.([]any)
	out := make([]map[string]any, len(arr))
	for i, x := range arr {
		out[i], _ = x.(map[string]any)
	}
	return out
}

// idAt is an item id as an output gives it, and where.
type idAt struct{ id, at string }

// coverage names, for the messages of exactlyOnce, what holds the ids
// and where the ids it must cover come from.
type coverage struct {
	whole string // the pointer of the whole list, for an id it lacks
	what  string // what holds an id: "group", "assessment"
	from  string // where the ids come from: "context.triage.items"
}

// exactlyOnce checks that got names every id of want once and nothing
// else: an unknown or repeated id is a problem where it stands, a missing
// one a problem at the whole list.
func exactlyOnce(got []idAt, want []string, c coverage) []rule {
	seen := map[string]string{}
	var rules []rule
	for _, g := range got {
		switch prev, dup := seen[g.id]; {
		case !slices.Contains(want, g.id):
			rules = append(rules, rule{Pointer: g.at, Message: fmt.Sprintf("item %s is not an item of %s", quoteCut(g.id), c.from)})
		case dup:
			rules = append(rules, rule{Pointer: g.at, Message: fmt.Sprintf("item %s is in more than one %s (also %s); each item has exactly one", quoteCut(g.id), c.what, prev)})
		}
		seen[g.id] = g.at
	}
	var missing []string
	for _, id := range want {
		if _, ok := seen[id]; !ok {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		rules = append(rules, rule{Pointer: c.whole, Message: fmt.Sprintf("no %s has item %s of %s; each item has exactly one", c.what, list(missing), c.from)})
	}
	return rules
}

// list words up to 10 values for a message.
func list(vals []string) string {
	if len(vals) == 0 {
		return "none"
	}
	var b bytes.Buffer
	for i, v := range vals[:min(len(vals), 10)] {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(cut(v)))
	}
	if len(vals) > 10 {
		fmt.Fprintf(&b, " and %d more", len(vals)-10)
	}
	return b.String()
}
