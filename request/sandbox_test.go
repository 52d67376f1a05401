package request_test

import (
	"strings"
	"testing"

	"kusaw.dev/step/protocol"
	"kusaw.dev/step/request"
)

// TestSandboxField is issue 13 item 1 (spec row sandbox): the request's
// sandbox object from the policy the runner computed.
func TestSandboxField(t *testing.T) {
	t.Parallel()
	base := `{"protocol_version":2,"mode":"pipeline","run_id":"r","task_id":"t","worktree":"/w","artifacts_dir":"/out/artifacts","config":{"k": 1},` +
		`"context":{"task":null,"steps":{}},"limits":{"budget_left_usd":null,"time_left_ms":1000},"loop":null,"repos":[],` +
		`"step":{"id":"s","name":"s","attempt":1},"x_future":{"a":[1, 2]}`
	tests := []struct {
		name string
		raw  string
		info request.SandboxInfo
		want string // the sandbox member; "" for none
	}{
		{name: "request.sandbox: bwrap, open network", raw: base + "}",
			info: request.SandboxInfo{Backend: "bwrap", Network: "open", Tmp: "/tmp", Writable: []string{"/out/artifacts", "/w"}},
			want: `"sandbox":{"mode":"required","backend":"bwrap","network":"open","tmp":"/tmp","writable":["/out/artifacts","/w"]}`},
		{name: "request.sandbox.egress: allowlist, injected names only", raw: base + "}",
			info: request.SandboxInfo{Backend: "bwrap", Network: "allowlist", Allow: []string{"api.example.com"}, Injected: []string{"api_key"}, Proxy: "http://127.0.0.1:3128"},
			want: `"sandbox":{"mode":"required","backend":"bwrap","network":"allowlist","egress":{"allow":["api.example.com"],"injected":["api_key"],"proxy":"http://127.0.0.1:3128"}}`},
		{name: "request.sandbox.egress: empty lists, not null", raw: base + "}",
			info: request.SandboxInfo{Backend: "bwrap", Network: "allowlist", Proxy: "http://127.0.0.1:3128"},
			want: `"egress":{"allow":[],"injected":[],"proxy":"http://127.0.0.1:3128"}`},
		{name: "request.sandbox: replaces the factory's", raw: base + `,"sandbox":{"mode":"off","backend":null,"network":"open"}}`,
			info: request.SandboxInfo{Backend: "bwrap", Network: "open"},
			want: `"sandbox":{"mode":"required","backend":"bwrap","network":"open"}`},
		{name: "request.sandbox: omitted when not sandboxed", raw: base + "}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, err := request.WithSandbox([]byte(tt.raw), request.Sandbox(tt.info))
			if err != nil {
				t.Fatalf("WithSandbox = %v", err)
			}
			got := string(out)
			if tt.want == "" && strings.Contains(got, "sandbox") || !strings.Contains(got, tt.want) {
				t.Errorf("WithSandbox = %s; want it to hold %s", got, tt.want)
			}
			if strings.Count(got, `"sandbox"`) > 1 || !strings.Contains(got, `"config":{"k": 1}`) || !strings.Contains(got, `"x_future":{"a":[1, 2]}`) {
				t.Errorf("WithSandbox = %s; want one sandbox and every other member's bytes kept", got)
			}
			if _, err := request.Decode(out); err != nil {
				t.Errorf("the request with its sandbox is invalid: %v", err)
			}
		})
	}
}

// TestSandboxNil: no backend, no sandbox object.
func TestSandboxNil(t *testing.T) {
	t.Parallel()
	if sb := request.Sandbox(request.SandboxInfo{Network: "open"}); sb != nil {
		t.Errorf("Sandbox(no backend) = %+v; want nil", sb)
	}
	var _ *protocol.Sandbox = request.Sandbox(request.SandboxInfo{Backend: "seatbelt"})
}
