package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEgressThroughSandbox runs real curl inside the sandbox: through the
// bridge and the proxy, the allowed host answers with the injected
// header, every other request is refused with its reason, and the secret
// is nowhere in the step's environment.
func TestEgressThroughSandbox(t *testing.T) {
	needBwrap(t)
	needTool(t, "curl")
	t.Parallel()
	o, dns := newOrigin(t), newFakeDNS()
	pol := testPolicy(o, dns)
	pol.EgressLog = filepath.Join(t.TempDir(), "egress.jsonl")
	script := `for u in "$@"; do echo "$u => $(curl -s --max-time 20 "$u")"; done
curl -s -p --max-time 20 http://api.example.test/tunnel && echo tunnel-ok
env`
	urls := []string{"http://api.example.test/hello", "http://denied.test/", "http://8.8.8.8/",
		"http://private.example.test/", "http://loop.example.test/"}
	out, stderr, err := sandboxed(t, pol, nil, append([]string{"/bin/sh", "-c", script, "sh"}, urls...)...)
	if err != nil {
		t.Fatalf("step: %v\n%s", err, stderr)
	}
	for _, want := range []string{
		"http://api.example.test/hello => hello from origin",
		"http://denied.test/ => kusaw egress proxy: denied.test: refused: not_allowed",
		"http://8.8.8.8/ => kusaw egress proxy: 8.8.8.8: refused: ip_literal",
		"http://private.example.test/ => kusaw egress proxy: private.example.test: refused: private",
		"http://loop.example.test/ => kusaw egress proxy: loop.example.test: refused: loopback",
		"hello from origin\ntunnel-ok",
		"HTTP_PROXY=http://127.0.0.1:3128", "https_proxy=http://127.0.0.1:3128", "NODE_USE_ENV_PROXY=1",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "s3cr3t") {
		t.Errorf("the injected secret is visible to the step:\n%s", out)
	}
	checkInjection(t, o)
	if dns.wasAsked("denied.test") {
		t.Error("the proxy looked up a name the allowlist refuses")
	}
	checkEgressLog(t, pol.EgressLog)
}

// checkInjection: the plain request got the header, the tunnelled one not.
func checkInjection(t *testing.T, o *origin) {
	t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.headers) != 2 {
		t.Fatalf("origin got %d requests; want 2", len(o.headers))
	}
	if got := o.headers[0].Get("Authorization"); got != "Bearer s3cr3t-token-value" {
		t.Errorf("plain request's Authorization = %q; want the injected one", got)
	}
	if got := o.headers[1].Get("Authorization"); got != "" {
		t.Errorf("tunnelled request's Authorization = %q; want none", got)
	}
}

func checkEgressLog(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	log := string(b)
	for _, want := range []string{
		`"method":"GET","host":"api.example.test","port":"80","allowed":true,"addr":"203.0.113.7","inject":"api-token"`,
		`"host":"denied.test","port":"80","allowed":false,"reason":"not_allowed"`,
		`"host":"loop.example.test","port":"80","allowed":false,"reason":"loopback","addr":"127.0.0.1"`,
		`"method":"CONNECT","host":"api.example.test","port":"80","allowed":true,"addr":"203.0.113.7","inject":"skipped (tls)"`,
	} {
		if !strings.Contains(log, want) {
			t.Errorf("egress log lacks %s:\n%s", want, log)
		}
	}
	if strings.Contains(log, "s3cr3t") {
		t.Errorf("the egress log holds the secret:\n%s", log)
	}
}
