package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	step "kusaw.dev/step"
)

// Issue 11 item 8: a flag only a sandbox can enforce is a usage error with
// --sandbox off, before any attempt folder exists.
func TestSandboxOnlyFlagsWithSandboxOff(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"item 8: allow-host", []string{"--allow-host", "api.example.com"}, "--allow-host needs a sandbox"},
		{"item 8: inject", []string{"--secret", "TOK", "--allow-host", "api.example.com", "--inject", "TOK=api.example.com:Authorization"}, "--allow-host, --inject needs a sandbox"},
	}
	t.Setenv("TOK", "a-long-enough-secret")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "attempt")
			args := append([]string{"run", "--sandbox", "off", "--out", out}, tt.args...)
			stdout, stderr, code := runCmd(t, "", append(args, "/bin/true")...)
			if code != exitUsage || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, output %q; want exit 2 and %q", code, stdout+stderr, tt.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("a usage error created the attempt folder %s", out)
			}
		})
	}
}

// Issue 11 item 8: --readable (a read grant, one of the sandbox flags) is
// refused with --sandbox off too.
func TestCheckOffReadable(t *testing.T) {
	for _, mode := range []string{"off", "auto"} {
		fs := flag.NewFlagSet("run", flag.ContinueOnError)
		var sf sandboxFlags
		sf.register(fs)
		if err := fs.Parse([]string{"--sandbox", mode, "--readable", "/srv/data"}); err != nil {
			t.Fatal(err)
		}
		err := sf.checkOff()
		if mode == "off" && (exitCode(err) != exitUsage || !strings.Contains(err.Error(), "--readable needs a sandbox")) {
			t.Errorf("--sandbox off --readable: %v; want a usage error naming --readable", err)
		}
		if mode == "auto" && err != nil {
			t.Errorf("--sandbox auto --readable: %v; want no error", err)
		}
	}
}

// Issue 16 item 8: the verdict block says how many egress requests were
// allowed and refused, and points at egress.jsonl.
func TestVerdictShowsEgress(t *testing.T) {
	var b strings.Builder
	v := newView(&b, false)
	v.stop()
	v.verdict(&step.Record{Status: "ok", ReasonCode: "done", Egress: &step.EgressRecord{Allowed: 3, Refused: 2, Log: "egress.jsonl"}}, "/runs/a")
	if want := "egress   3 allowed, 2 refused (each in /runs/a/egress.jsonl)\n"; !strings.Contains(b.String(), want) {
		t.Errorf("verdict block:\n%s\nwant the line %q", b.String(), want)
	}
}

// Issue 11 item 4: a secret too short to mask is warned about on stderr
// when the attempt starts, as well as in the record.
func TestShortSecretWarnedAtStart(t *testing.T) {
	t.Setenv("SHORT_TOKEN", "abc")
	dir := t.TempDir()
	stepPath := filepath.Join(dir, "short.sh")
	script := `#!/bin/sh
if [ "$KUSAW_HANDSHAKE" = 1 ]; then
  echo '{"type":"handshake","name":"short","version":"1","interactive":false,"protocol_versions":[2],"needs_env":[{"name":"SHORT_TOKEN","secret":true}]}'
  exit 0
fi
echo '{"type":"result","protocol_version":2,"status":"ok","reason_code":"done","message":"m"}'
`
	if err := os.WriteFile(stepPath, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runCmd(t, "", "run", "--sandbox", "off", "--secret", "SHORT_TOKEN", "--out", filepath.Join(dir, "attempt"), stepPath)
	if code != exitOK {
		t.Errorf("exit %d; want 0\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "secret_too_short") || !strings.Contains(stderr, "SHORT_TOKEN is 3 bytes") {
		t.Errorf("stderr:\n%s\nwant the secret_too_short warning", stderr)
	}
}
