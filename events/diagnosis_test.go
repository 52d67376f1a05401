package events_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kusaw.dev/step/events"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestDiagnosisGolden renders the diagnosis of a few protocol errors and
// compares it with testdata/diagnosis.golden; -update rewrites the file.
func TestDiagnosisGolden(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		stdout     string
		stderrTail string
	}{
		{
			name:       "polluted stdout",
			stdout:     `{"type":"progress","message":"starting"}` + "\nLoading model weights...\n",
			stderrTail: "2024/05/01 10:00:00 config loaded\n2024/05/01 10:00:01 model: llama\n",
		},
		{
			name:   "invisible bytes",
			stdout: "\xef\xbb\xbf{\"type\":\"progress\",\"message\":\"tab\tnul\x00\"}\n",
		},
		{
			name:       "too long",
			stdout:     `{"type":"artifact","kind":"log","path":"out.log","data":"` + strings.Repeat("QUJD", 100) + "\"}\n",
			stderrTail: "uploading 1 artifact",
		},
		{
			name:   "schema",
			stdout: `{"type":"progress","message":"half","percent":"50%"}` + "\n",
		},
	}
	var got strings.Builder
	for _, tt := range tests {
		sum, err := events.Read(strings.NewReader(tt.stdout), events.Options{MaxLine: 300})
		if err != nil || len(sum.Problems) != 1 {
			t.Fatalf("%s: Read() = %v, %v; want one problem", tt.name, sum.Problems, err)
		}
		got.WriteString("=== " + tt.name + "\n" + sum.Problems[0].Diagnosis(tt.stderrTail))
	}
	golden := filepath.Join("testdata", "diagnosis.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got.String() != string(want) {
		t.Errorf("diagnoses differ from %s (go test -update rewrites it):\n%s", golden, got.String())
	}
}
