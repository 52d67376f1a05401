package step_test

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kusaw.dev/step/sandbox"
)

// reportsSandbox gives, as its message, the sandbox member of the request
// it read on stdin ("none" when there is none).
func reportsSandbox() {
	raw, _ := io.ReadAll(os.Stdin)
	var req struct {
		Sandbox json.RawMessage `json:"sandbox"`
	}
	if err := json.Unmarshal(raw, &req); err != nil {
		result("fail", err.Error())
		return
	}
	if req.Sandbox == nil {
		result("ok", "none")
		return
	}
	result("ok", string(req.Sandbox))
}

// TestRequestSandbox is issue 13 item 1 (spec row sandbox): a sandboxed
// attempt's request, on the step's stdin and in request.json, says what
// sandbox it runs in; an unsandboxed one's says nothing.
func TestRequestSandbox(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		sb    *sandbox.Options
		want  []string // in the step's message and request.json
		avoid []string
	}{
		{name: "request.sandbox: omitted when not sandboxed", want: []string{"none"}},
		{name: "request.sandbox: bwrap, open", sb: &sandbox.Options{Flags: sandbox.Flags{Mode: "bwrap"}},
			want:  []string{`"mode":"required"`, `"backend":"bwrap"`, `"network":"open"`, `"tmp":"/tmp"`, `"writable":["`, `/out/artifacts"`},
			avoid: []string{`"egress"`}},
		{name: "request.sandbox.egress: allowlist", sb: &sandbox.Options{
			Flags:  sandbox.Flags{Mode: "bwrap", AllowHosts: []string{"api.example.com"}},
			Inject: []sandbox.Inject{{Name: "example_key", Host: "api.example.com", Header: "X-Key", Value: "k-secret-123456"}},
		},
			want:  []string{`"network":"allowlist"`, `"egress":{"allow":["api.example.com"],"injected":["example_key"],"proxy":"http://127.0.0.1:`},
			avoid: []string{"k-secret-123456"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.sb != nil {
				needBwrap(t)
			}
			rec, out := runAttempt(t, "reports-sandbox", setup{sandbox: tt.sb})
			wantVerdict(t, rec, verdict{"ok", "fake", ""})
			file, err := os.ReadFile(filepath.Join(out, "request.json"))
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(rec.Message, w) || (w != "none" && !strings.Contains(string(file), w)) {
					t.Errorf("the step read sandbox %s, request.json %s; want both to hold %s", rec.Message, file, w)
				}
			}
			for _, a := range tt.avoid {
				if strings.Contains(rec.Message, a) || strings.Contains(string(file), a) {
					t.Errorf("the step read sandbox %s, request.json %s; want neither to hold %s", rec.Message, file, a)
				}
			}
		})
	}
}
