package step_test

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	step "kusaw.dev/step"
	"kusaw.dev/step/protocol"
	"kusaw.dev/step/schemas"
)

var recordSchema = sync.OnceValues(func() (*schemas.Schema, error) {
	doc, err := protocol.Parse(step.RecordSchema)
	if err != nil {
		return nil, err
	}
	return schemas.Compile("attempt", doc)
})

// checkRecordSchema validates the attempt.json in out against
// step.RecordSchema (issue 16 item 6: the record's format is a contract).
// Every attempt the tests run goes through it.
func checkRecordSchema(t *testing.T, out string) {
	t.Helper()
	s, err := recordSchema()
	if err != nil {
		t.Fatalf("RecordSchema does not compile: %v", err)
	}
	data, err := os.ReadFile(filepath.Join(out, "attempt.json"))
	if err != nil {
		t.Fatalf("attempt.json: %v", err)
	}
	doc, err := protocol.Parse(data)
	if err != nil {
		t.Fatalf("attempt.json is not strict JSON: %v", err)
	}
	if err := s.Validate(doc); err != nil {
		t.Errorf("attempt.json does not follow RecordSchema: %v\n%s", err, data)
	}
}

// TestRecordSchemaRejects: the schema is not vacuous.
func TestRecordSchemaRejects(t *testing.T) {
	s, err := recordSchema()
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{
		`{}`,
		`{"status":"maybe","reason_code":"x","message":"","warnings":[],"step":{"command":["a"]},"exit_code":0,"started_at":"2026-01-01T00:00:00Z","duration_ms":1,"events":{},"logs":{"stdout":{"path":"a","bytes":0,"total":0,"truncated":false},"stderr":{"path":"b","bytes":0,"total":0,"truncated":false}},"request_path":"r"}`,
		`{"status":"ok","reason_code":"x","message":"","warnings":[{"code":"w"}],"step":{"command":["a"]},"exit_code":0,"started_at":"2026-01-01T00:00:00Z","duration_ms":1,"events":{},"logs":{"stdout":{"path":"a","bytes":0,"total":0,"truncated":false},"stderr":{"path":"b","bytes":0,"total":0,"truncated":false}},"request_path":"r"}`,
	} {
		doc, err := protocol.Parse([]byte(bad))
		if err != nil {
			t.Fatal(err)
		}
		if s.Validate(doc) == nil {
			t.Errorf("RecordSchema accepts %s", bad)
		}
	}
}
