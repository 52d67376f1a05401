package step_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"kusaw.dev/step/sandbox"
)

// egressFake asks the egress proxy, with curl, for a host the allowlist
// lacks and for an allowed one whose name does not resolve, and reports
// the two HTTP statuses.
func egressFake() {
	status := func(url string) string {
		out, _ := exec.Command("curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "60", url).Output()
		return string(out)
	}
	result("ok", "refused="+status("http://denied.example.com/")+" dns="+status("http://allowed.invalid/"))
}

// Issue 16 item 8: behind the egress proxy, a refused request and a DNS
// failure of an allowed host get different answers (403, 502), and the
// record counts them and points at egress.jsonl.
func TestEgressCountedInRecord(t *testing.T) {
	needBwrap(t)
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl not installed")
	}
	rec, out := runAttempt(t, "egress", setup{
		sandbox: &sandbox.Options{Flags: sandbox.Flags{Mode: "bwrap", AllowHosts: []string{"allowed.invalid"}}},
	})
	wantVerdict(t, rec, verdict{"ok", "fake", "refused=403 dns=502"})
	if e := rec.Egress; e == nil || e.Allowed != 1 || e.Refused != 1 || e.Log != "egress.jsonl" {
		t.Fatalf("item 8: record egress = %+v; want 1 allowed, 1 refused, log egress.jsonl", e)
	}
	log, err := os.ReadFile(filepath.Join(out, "egress.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"host":"denied.example.com","port":"80","allowed":false,"reason":"not_allowed"`, `"host":"allowed.invalid","port":"80","allowed":true,"error":"dns_error: `} {
		if !bytes.Contains(log, []byte(want)) {
			t.Errorf("item 8: egress.jsonl lacks %s:\n%s", want, log)
		}
	}
	data, _ := os.ReadFile(filepath.Join(out, "attempt.json"))
	if !strings.Contains(string(data), `"egress":{"allowed":1,"refused":1,"log":"egress.jsonl"}`) {
		t.Errorf("item 8: attempt.json lacks the egress counts:\n%s", data)
	}
}
