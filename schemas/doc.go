package schemas

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// A section of the reference: a heading, a description and a table.
type section struct {
	level int    // markdown heading level
	file  string // schema file; "" for a heading alone
	def   string // a $defs entry of file, rendered as its own section
	row   string // prefix of every row: the definition's or event's name
	title string // heading when the schema has none
}

// reference is the order of the protocol's reference, as the spec gives it.
func reference() []section {
	s := []section{
		{level: 2, file: "handshake.schema.json"},
		{level: 2, file: "request.schema.json"},
	}
	for _, def := range []string{"artifact", "feedbackItem", "scorecardRow", "stepSummary"} {
		s = append(s, section{level: 3, file: "request.schema.json", def: def, row: def})
	}
	s = append(s, section{level: 2, file: "event.schema.json"})
	for _, t := range EventTypes {
		s = append(s, section{level: 3, file: "events/" + t + ".schema.json", row: t})
	}
	s = append(s,
		section{level: 2, file: "result.schema.json"},
		section{level: 2, file: "outputs/score.schema.json"},
		section{level: 2, file: "env.json"},
		section{level: 2, title: "Built-in step outputs"},
	)
	for _, o := range Outputs[1:] {
		s = append(s, section{level: 3, file: "outputs/" + o + ".schema.json"})
	}
	return s
}

// Doc writes the whole reference as Markdown: the same sections in the same
// order as the protocol's spec, each field a row
// "name | type | required | description | since |", and the
// environment-variable table as "name | when | description |".
func Doc(w io.Writer) error {
	var b strings.Builder
	b.WriteString("# Step protocol v2\n\nField tables are generated from the JSON Schemas the factory validates against.\n")
	for _, sec := range reference() {
		if err := writeSection(&b, sec); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeSection(b *strings.Builder, sec section) error {
	if sec.file == "" {
		heading(b, sec.level, sec.title, "")
		return nil
	}
	doc, err := readDoc(sec.file)
	if err != nil {
		return err
	}
	if sec.def != "" {
		doc = object(object(doc["$defs"])[sec.def])
	}
	heading(b, sec.level, str(doc["title"]), str(doc["description"]))
	if sec.file == "env.json" {
		return envTable(b, doc)
	}
	if sec.file == "event.schema.json" {
		return nil // the event types follow, one section each
	}
	b.WriteString("| Name | Type | Required | Description | Since |\n|---|---|---|---|---|\n")
	prefix := ""
	if sec.row != "" {
		prefix = sec.row + "."
	}
	if doc["type"] == "array" {
		prefix += "[]."
		doc = object(doc["items"])
	}
	fieldRows(b, prefix, doc)
	return nil
}

func heading(b *strings.Builder, level int, title, desc string) {
	fmt.Fprintf(b, "\n%s %s\n", strings.Repeat("#", level), title)
	if desc != "" {
		fmt.Fprintf(b, "\n%s\n", desc)
	}
	b.WriteByte('\n')
}

// fieldRows writes a row for every property of s, depth first, each
// object's properties in name order.
func fieldRows(b *strings.Builder, prefix string, s map[string]any) {
	props := object(s["properties"])
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	slices.Sort(names)
	required := s["required"]
	for _, name := range names {
		p := object(props[name])
		req := "no"
		if list, ok := required.([]any); ok && slices.Contains(list, any(name)) {
			req = "yes"
		}
		fmt.Fprintf(b, "%s | %s | %s | %s | %s |\n", prefix+name, typeText(p), req, cell(str(p["description"])), since(p))
		fieldRows(b, prefix+name+".", p)
		if items := object(p["items"]); items != nil {
			fieldRows(b, prefix+name+"[].", items)
		}
	}
}

// typeText words a schema's type as the spec does: "array of string",
// "string or null", "enum live, start", "const handshake", "scorecardRow".
// A schema without a type takes any value and reads "object", as the
// factory's generator words it.
func typeText(s map[string]any) string {
	if c, ok := s["const"]; ok {
		return "const " + literal(c)
	}
	if e, ok := s["enum"].([]any); ok {
		vals := make([]string, len(e))
		for i, v := range e {
			vals[i] = literal(v)
		}
		return "enum " + strings.Join(vals, ", ")
	}
	if ref, ok := s["$ref"].(string); ok {
		return refName(ref)
	}
	switch t := s["type"].(type) {
	case string:
		return single(t, s)
	case []any:
		return nullable(t)
	}
	return "object"
}

func single(t string, s map[string]any) string {
	if t != "array" {
		return t
	}
	items := object(s["items"])
	if ref, ok := items["$ref"].(string); ok {
		return "array of " + refName(ref)
	}
	if it, ok := items["type"].(string); ok {
		return "array of " + it
	}
	return "array"
}

func nullable(types []any) string {
	var parts []string
	for _, t := range types {
		if t != "null" {
			parts = append(parts, str(t))
		}
	}
	if len(parts) < len(types) {
		parts = append(parts, "null")
	}
	return strings.Join(parts, " or ")
}

func refName(ref string) string { return ref[strings.LastIndex(ref, "/")+1:] }

func envTable(b *strings.Builder, doc map[string]any) error {
	b.WriteString("| Name | When | Description |\n|---|---|---|\n")
	vars, ok := doc["variables"].([]any)
	if !ok {
		return fmt.Errorf("schemas: env.json: no variables")
	}
	for _, v := range vars {
		m := object(v)
		fmt.Fprintf(b, "%s | %s | %s |\n", str(m["name"]), str(m["when"]), cell(str(m["description"])))
	}
	return nil
}

func since(p map[string]any) string {
	if n, ok := p["x-since"].(json.Number); ok {
		return n.String()
	}
	return ""
}

// cell keeps a description inside its table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

func literal(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return jsonText(v)
}

func readDoc(name string) (map[string]any, error) {
	doc, err := readJSON(name)
	if err != nil {
		return nil, err
	}
	return object(doc), nil
}

func object(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func str(v any) string {
	s, _ := v.(string)
	return s
}
