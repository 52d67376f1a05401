package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kusaw.dev/step/protocol"
	"kusaw.dev/step/schemas"
)

// TestRequestContextFlag is issue 13 item 3 on the command line: every
// mode's request is valid, and --context JSON|@FILE is merged over the
// mode's sample and validated.
func TestRequestContextFlag(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "ctx.json")
	if err := os.WriteFile(file, []byte(`{"classify":{"workflows":[{"name":"docs","description":"d"}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, mode := range protocol.Modes {
		out, errs, code := runCmd(t, "", "request", "--mode", mode, "--out", dir, "--worktree", dir)
		doc, err := protocol.Parse([]byte(out))
		if err == nil {
			err = schemas.Validate("request", doc)
		}
		if code != 0 || err != nil {
			t.Errorf("request --mode %s: exit %d, %v, stderr %q", mode, code, err, errs)
		}
	}
	tests := []struct {
		name string
		args []string
		code int
		want string // in stdout when code is 0, else in stderr
	}{
		{"@FILE merged", []string{"--mode", "classify", "--context", "@" + file}, 0, `"workflows":[{"description":"d","name":"docs"}]`},
		{"JSON merged, sample kept", []string{"--mode", "classify", "--context", `{"workflow":{"name":"docs","routed_by":"user"}}`}, 0, `"routed_by":"user"`},
		{"invalid at its pointer", []string{"--context", `{"triage":{"batch_id":7}}`}, exitUsage, "/context/triage"},
		{"not an object", []string{"--context", `"x"`}, exitUsage, "context is a string; want a JSON object"},
		{"missing file", []string{"--context", "@" + filepath.Join(dir, "nope.json")}, exitUsage, "--context:"},
	}
	for _, tt := range tests {
		out, errs, code := runCmd(t, "", append([]string{"request", "--out", dir, "--worktree", dir}, tt.args...)...)
		got := out
		if tt.code != 0 {
			got = errs
		}
		if code != tt.code || !strings.Contains(got, tt.want) {
			t.Errorf("%s: request %v: exit %d, stdout %.300q, stderr %q; want exit %d and %q", tt.name, tt.args, code, out, errs, tt.code, tt.want)
		}
	}
}
