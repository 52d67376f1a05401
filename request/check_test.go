package request_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"kusaw.dev/step/protocol"
	"kusaw.dev/step/request"
)

const validRequest = "../schemas/testdata/valid/request.json"

func TestLoadValid(t *testing.T) {
	t.Parallel()
	want, err := os.ReadFile(validRequest)
	if err != nil {
		t.Fatal(err)
	}
	raw, req, err := request.Load(validRequest)
	if err != nil {
		t.Fatalf("Load(%s) = %v", validRequest, err)
	}
	if !bytes.Equal(raw, want) {
		t.Errorf("Load(%s) raw bytes differ from the file:\n got %s\nwant %s", validRequest, raw, want)
	}
	if req.Mode != "pipeline" || *req.RunID != "r-1" || req.Repos[0].BaseRef != "abc123" {
		t.Errorf("Load(%s) typed core = mode %q, run_id %q, repos %+v", validRequest, req.Mode, *req.RunID, req.Repos)
	}
	if got, want := string(req.Unknown), `{"future_field":{"kept":true}}`; got != want {
		t.Errorf("Load(%s).Unknown = %s; want %s", validRequest, got, want)
	}
}

// Encode gives back the document Load read, unknown fields included, and
// Load reads back what Encode wrote.
func TestEncodeRoundTrip(t *testing.T) {
	t.Parallel()
	raw, req, err := request.Load(validRequest)
	if err != nil {
		t.Fatal(err)
	}
	data, err := request.Encode(req)
	if err != nil {
		t.Fatalf("Encode = %v", err)
	}
	if bytes.HasSuffix(data, []byte("\n")) || !bytes.HasPrefix(data, []byte("{")) {
		t.Errorf("Encode = %q; want one object without a trailing newline", data)
	}
	if a, b := mustParse(t, raw), mustParse(t, data); !reflect.DeepEqual(a, b) {
		t.Errorf("Encode(Load(file)) is another document:\n got %s\nwant %s", data, raw)
	}
	path := filepath.Join(t.TempDir(), "request.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, again, err := request.Load(path)
	if err != nil || !reflect.DeepEqual(again, req) {
		t.Errorf("Load(Encode(req)) = %+v, %v; want %+v", again, err, req)
	}
}

func TestEncodeSynthesizedRoundTrip(t *testing.T) {
	t.Parallel()
	req, data := mustSynthesize(t, options(t))
	path := filepath.Join(t.TempDir(), "request.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	raw, again, err := request.Load(path)
	if err != nil {
		t.Fatalf("Load(Encode(Synthesize)) = %v", err)
	}
	if !reflect.DeepEqual(again, req) {
		t.Errorf("Load(Encode(req)) = %+v; want %+v", again, req)
	}
	if data2, _ := request.Encode(again); !bytes.Equal(data2, raw) {
		t.Errorf("Encode is not stable:\n got %s\nwant %s", data2, raw)
	}
}

func TestEncodeInvalid(t *testing.T) {
	t.Parallel()
	_, req, err := request.Load(validRequest)
	if err != nil {
		t.Fatal(err)
	}
	req.Step.Attempt = 0
	req.Mode = "deploy"
	data, err := request.Encode(req)
	checkInvalid(t, "Encode", err, "", []string{
		`/mode: value must be one of 'pipeline', 'intake', 'finally', 'atlas_scan', 'atlas_chunk', 'atlas_embed', 'atlas_map', 'check', 'score', 'match', 'triage', 'select', 'classify'`,
		"/step/attempt: minimum: got 0, want 1",
	})
	if data != nil {
		t.Errorf("Encode(invalid) = %s; want no bytes", data)
	}
	if _, err := request.Encode(nil); !errors.Is(err, request.ErrInvalid) {
		t.Errorf("Encode(nil) = %v; want ErrInvalid", err)
	}
}

func TestLoadInvalid(t *testing.T) {
	t.Parallel()
	valid := mustParse(t, mustRead(t, validRequest)).(map[string]any)
	tests := []struct {
		name       string
		data       string
		wantLines  []string
		wantSyntax bool
	}{{
		name:      "missing required field",
		data:      without(t, valid, "mode"),
		wantLines: []string{"(root): missing property 'mode'"},
	}, {
		name:      "wrong type",
		data:      strings.Replace(string(mustRead(t, validRequest)), `"time_left_ms":60000`, `"time_left_ms":"soon"`, 1),
		wantLines: []string{"/limits/time_left_ms: got string, want integer"},
	}, {
		name:      "several problems, one line each",
		data:      strings.Replace(without(t, valid, "loop"), `"attempt":1`, `"attempt":0`, 1),
		wantLines: []string{"(root): missing property 'loop'", "/step/attempt: minimum: got 0, want 1"},
	}, {
		name:       "duplicate key",
		data:       "{\"protocol_version\":2,\n\"mode\":\"pipeline\",\"mode\":\"check\"}",
		wantLines:  []string{`/mode: byte offset 41: duplicate object key "mode"; each key may appear once in an object`},
		wantSyntax: true,
	}, {
		name:       "byte order mark",
		data:       "\xef\xbb\xbf{}",
		wantLines:  []string{"(root): byte offset 0: UTF-8 byte order mark (BOM) before the JSON value; write the JSON without a BOM"},
		wantSyntax: true,
	}, {
		name:       "empty file",
		data:       "",
		wantLines:  []string{"(root): byte offset 0: no JSON value: the input is empty"},
		wantSyntax: true,
	}, {
		name:      "integer the runner cannot hold",
		data:      strings.Replace(string(mustRead(t, validRequest)), `"time_left_ms":60000`, `"time_left_ms":1e30`, 1),
		wantLines: []string{"/limits/time_left_ms: 1e30 does not fit the runner's int64"},
	}}
	for _, tt := range tests {
		path := filepath.Join(t.TempDir(), "request.json")
		if err := os.WriteFile(path, []byte(tt.data), 0o644); err != nil {
			t.Fatal(err)
		}
		raw, req, err := request.Load(path)
		if raw != nil || req != nil {
			t.Errorf("%s: Load = %q, %+v; want nothing", tt.name, raw, req)
		}
		checkInvalid(t, tt.name, err, path, tt.wantLines)
		if errors.Is(err, protocol.ErrSyntax) != tt.wantSyntax {
			t.Errorf("%s: errors.Is(%v, protocol.ErrSyntax) = %v; want %v", tt.name, err, !tt.wantSyntax, tt.wantSyntax)
		}
	}
}

func TestLoadMissingFile(t *testing.T) {
	t.Parallel()
	_, _, err := request.Load(filepath.Join(t.TempDir(), "nope.json"))
	if !errors.Is(err, fs.ErrNotExist) || errors.Is(err, request.ErrInvalid) {
		t.Errorf("Load(missing file) = %v; want fs.ErrNotExist, not ErrInvalid", err)
	}
}

// checkInvalid checks that err is an *InvalidError for path whose Error
// is a heading and then exactly wantLines.
func checkInvalid(t *testing.T, name string, err error, path string, wantLines []string) {
	t.Helper()
	ie, ok := errors.AsType[*request.InvalidError](err)
	if !ok || !errors.Is(err, request.ErrInvalid) {
		t.Errorf("%s: error = %v; want an *InvalidError", name, err)
		return
	}
	if ie.Path != path || len(ie.Problems) != len(wantLines) {
		t.Errorf("%s: InvalidError{Path %q, %d problems}; want path %q, %d problems", name, ie.Path, len(ie.Problems), path, len(wantLines))
	}
	head := "invalid request"
	if path != "" {
		head += " " + path
	}
	want := strings.Join(append([]string{head + ":"}, wantLines...), "\n")
	if got := err.Error(); got != want {
		t.Errorf("%s: Error() =\n%s\nwant\n%s", name, got, want)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
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

// without returns doc as JSON without its top-level field name.
func without(t *testing.T, doc map[string]any, name string) string {
	t.Helper()
	c := make(map[string]any, len(doc))
	for k, v := range doc {
		if k != name {
			c[k] = v
		}
	}
	out, err := json.Marshal(c) // keeps json.Number as numbers
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// Decode checks bytes the way Load checks a file, without a path.
func TestDecode(t *testing.T) {
	t.Parallel()
	raw := mustRead(t, validRequest)
	req, err := request.Decode(raw)
	if err != nil || req.Step.ID != "hello" {
		t.Fatalf("Decode(valid) = %+v, %v; want step hello", req, err)
	}
	req, err = request.Decode([]byte(`{"protocol_version":3}`))
	if req != nil {
		t.Errorf("Decode(invalid) = %+v; want nil", req)
	}
	if ie, ok := errors.AsType[*request.InvalidError](err); !ok || ie.Path != "" || !strings.Contains(err.Error(), "/protocol_version: value must be 2") {
		t.Errorf("Decode(protocol_version 3) = %v; want an *InvalidError without a path, naming /protocol_version", err)
	}
}
