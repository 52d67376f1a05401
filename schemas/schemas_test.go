package schemas_test

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"kusaw.dev/step/protocol"
	"kusaw.dev/step/schemas"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestDocGolden(t *testing.T) {
	var got bytes.Buffer
	if err := schemas.Doc(&got); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "doc.golden.md")
	if *update {
		if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./schemas -update to create it)", err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("Doc() differs from %s; run go test ./schemas -update and review the diff", golden)
	}
}

// specPath is the protocol's spec, beside the project's root.
const specPath = "../../shared/spec/step-protocol-v2.md"

var placeholder = regexp.MustCompile(`<[^>]*>`)

// tableLines returns the field and variable rows of a reference and the
// lines of text between the tables (headings, descriptions), each with its
// <placeholders> dropped and its spaces folded, since the spec's text lost
// its placeholders in conversion.
func tableLines(text string) (rows, prose []string) {
	for _, line := range strings.Split(text, "\n") {
		line = strings.Join(strings.Fields(placeholder.ReplaceAllString(line, "")), " ")
		line = strings.TrimLeft(line, "# ")
		switch {
		case line == "", strings.HasPrefix(line, "|"):
		case strings.HasSuffix(line, " |"):
			rows = append(rows, line)
		default:
			prose = append(prose, line)
		}
	}
	return rows, prose
}

func TestDocMatchesSpec(t *testing.T) {
	spec, err := os.ReadFile(specPath)
	if errors.Is(err, os.ErrNotExist) {
		t.Skipf("skipping: the spec %s is not here to compare with", specPath)
	}
	if err != nil {
		t.Fatal(err)
	}
	var doc bytes.Buffer
	if err := schemas.Doc(&doc); err != nil {
		t.Fatal(err)
	}
	wantRows, wantProse := tableLines(string(spec))
	gotRows, gotProse := tableLines(doc.String())
	if len(wantRows) != 592 {
		t.Logf("the spec now has %d rows (592 when this test was written)", len(wantRows))
	}
	compareLines(t, "row", wantRows, gotRows)
	compareLines(t, "heading or description", dedupTitle(wantProse), gotProse)
}

// dedupTitle drops the spec's repeated title and its line.
func dedupTitle(lines []string) []string {
	if len(lines) >= 4 && lines[0] == lines[2] && lines[1] == lines[3] {
		return lines[2:]
	}
	return lines
}

func compareLines(t *testing.T, what string, want, got []string) {
	t.Helper()
	have := make(map[string]int)
	for _, l := range got {
		have[l]++
	}
	for _, l := range want {
		if have[l] == 0 {
			t.Errorf("missing %s: %s", what, l)
			continue
		}
		have[l]--
	}
	for _, l := range got {
		if have[l] > 0 {
			t.Errorf("extra %s: %s", what, l)
			have[l]--
		}
	}
	if !t.Failed() && strings.Join(want, "\n") != strings.Join(got, "\n") {
		t.Errorf("every %s is there, but not in the spec's order", what)
	}
}

func TestValidExamples(t *testing.T) {
	files, _ := filepath.Glob("testdata/valid/*.json")
	if len(files) != 4+len(schemas.Outputs) {
		t.Fatalf("%d valid examples; want one for each of handshake, request, event, result and every outputs document", len(files))
	}
	for _, f := range files {
		kind := strings.Replace(strings.TrimSuffix(filepath.Base(f), ".json"), "outputs-", "outputs:", 1)
		t.Run(kind, func(t *testing.T) {
			doc := mustParse(t, mustRead(t, f))
			if err := schemas.Validate(kind, doc); err != nil {
				t.Errorf("Validate(%s, %s) = %v; want nil", kind, f, err)
			}
		})
	}
}

func TestValidateProblems(t *testing.T) {
	tests := []struct {
		kind, doc string
		want      []string
	}{
		{"handshake", `{"type":"handshake","name":"x","version":"1","interactive":"no","protocol_versions":[2]}`, []string{"/interactive: got string, want boolean"}},
		{"event", `{"type":"progress"}`, []string{"(root): missing property 'message'"}},
		{"event", `{"type":"progress","message":"m","percent":101}`, []string{"/percent: maximum: got 101, want 100"}},
		{"event", `{"type":"bogus"}`, []string{`/type: unknown event type "bogus"; want one of agent_action, artifact, note_ack, progress, tool_call, usage (or result)`}},
		{"event", `{"message":"m"}`, []string{"(root): missing property 'type'; an event has a type, one of agent_action, artifact, note_ack, progress, tool_call, usage"}},
		{"event", `[1]`, []string{"(root): got an array, want an object"}},
		{"event:usage", `{"type":"usage","cost_source":"guessed"}`, []string{"/cost_source: value must be one of 'reported', 'computed', null"}},
		{"result", `{"type":"result","protocol_version":1,"status":"done","reason_code":"x","message":"m"}`, []string{"/protocol_version: value must be 2", "/status: value must be one of 'ok', 'fail', 'retry', 'reject'"}},
		{"event", `{"type":"progress","message":"m","percent":1e9999999}`, []string{"(root): the document cannot be checked: a number is too large or too precise for the checker"}},
		{"outputs:score", `{"score":2}`, []string{"/score: maximum: got 2, want 1"}},
	}
	for _, tt := range tests {
		err := schemas.Validate(tt.kind, mustParse(t, []byte(tt.doc)))
		var ve *schemas.Error
		if !errors.As(err, &ve) {
			t.Errorf("Validate(%s, %s) = %v; want a *schemas.Error", tt.kind, tt.doc, err)
			continue
		}
		var got []string
		for _, p := range ve.Problems {
			got = append(got, p.String())
		}
		if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("Validate(%s, %s) problems:\n%s\nwant:\n%s", tt.kind, tt.doc, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
		}
	}
}

func TestUnknownKind(t *testing.T) {
	if err := schemas.Validate("nope", map[string]any{}); !errors.Is(err, schemas.ErrUnknownKind) {
		t.Errorf("Validate(nope) = %v; want ErrUnknownKind", err)
	}
	if _, err := schemas.Source("outputs:nope"); !errors.Is(err, schemas.ErrUnknownKind) {
		t.Errorf("Source(outputs:nope) = %v; want ErrUnknownKind", err)
	}
}

func TestCompileStepSchema(t *testing.T) {
	tests := []struct {
		name, schema string
		good, bad    string // a document it accepts, one it rejects
		compileErr   string // a substring of the compile error, if it must fail
	}{
		{name: "2020-12", schema: `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","required":["a"],"minProperties":1}`, good: `{"a":1}`, bad: `{}`},
		{name: "draft-07", schema: `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`, good: `{"a":"x"}`, bad: `{"b":1}`},
		{name: "no $schema", schema: `{"type":"object","properties":{"n":{"type":"integer"}}}`, good: `{"n":1}`, bad: `{"n":1.5}`},
		{name: "recursive", schema: `{"$defs":{"node":{"type":"object","properties":{"next":{"$ref":"#/$defs/node"}}}},"$ref":"#/$defs/node"}`, good: `{"next":{"next":{}}}`, bad: `{"next":{"next":1}}`},
		{name: "self reference only", schema: `{"$ref":"#"}`, compileErr: "does not compile"},
		{name: "self reference in allOf", schema: `{"allOf":[{"$ref":"#"}]}`, compileErr: "does not compile"},
		{name: "cycle under a property", schema: `{"properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"anyOf":[{"$ref":"#/$defs/x"}]}}}`, compileErr: "reference cycle"},
		{name: "bad type", schema: `{"type":"strin"}`, compileErr: "does not compile"},
		{name: "remote ref", schema: `{"$ref":"https://example.com/s.json"}`, compileErr: "refusing to load"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := schemas.Compile("outputs_schema", mustParse(t, []byte(tt.schema)))
			if tt.compileErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.compileErr) {
					t.Fatalf("Compile(%s) = %v; want an error containing %q", tt.schema, err, tt.compileErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Compile(%s) = %v", tt.schema, err)
			}
			if err := s.Validate(mustParse(t, []byte(tt.good))); err != nil {
				t.Errorf("Validate(%s) = %v; want nil", tt.good, err)
			}
			if err := s.Validate(mustParse(t, []byte(tt.bad))); err == nil {
				t.Errorf("Validate(%s) = nil; want an error", tt.bad)
			}
		})
	}
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func mustParse(t *testing.T, data []byte) any {
	t.Helper()
	doc, err := protocol.Parse(data)
	if err != nil {
		t.Fatalf("Parse(%s) = %v", data, err)
	}
	return doc
}

func TestEnvVars(t *testing.T) {
	vars := schemas.EnvVars()
	if len(vars) != 44 || vars[0].Name != "KUSAW_PROTOCOL" || vars[0].When != "handshake and attempt" {
		t.Errorf("EnvVars() = %d variables starting %+v; want 44 starting with KUSAW_PROTOCOL", len(vars), vars[0])
	}
}
