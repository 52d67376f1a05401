package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kusaw.dev/step/sandbox"
)

// runCmd runs the command line args with stdin and returns what it printed
// and its exit status.
func runCmd(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	if err != nil && !strings.Contains(err.Error(), "already reported") {
		errb.WriteString("kusaw-step: " + err.Error() + "\n")
	}
	return out.String(), errb.String(), exitCode(err)
}

func TestUsage(t *testing.T) {
	tests := []struct {
		args []string
		code int
		in   string // a substring of stdout+stderr
	}{
		{nil, exitUsage, "Usage:"},
		{[]string{"help"}, exitOK, "kusaw-step validate KIND FILE|-"},
		{[]string{"bogus"}, exitUsage, `unknown command "bogus"`},
		{[]string{"validate"}, exitUsage, "usage: kusaw-step validate KIND FILE|-"},
		{[]string{"validate", "nope", "-"}, exitUsage, `unknown document kind "nope"`},
		{[]string{"validate", "result", "/no/such/file"}, exitUsage, "no such file"},
		{[]string{"validate", "-x"}, exitUsage, "unknown flag --x; see kusaw-step validate --help"},
		{[]string{"schema"}, exitUsage, "usage: kusaw-step schema --doc | kusaw-step schema KIND"},
		{[]string{"schema", "outputs:nope"}, exitUsage, `unknown document kind "outputs:nope"`},
	}
	for _, tt := range tests {
		out, errs, code := runCmd(t, "", tt.args...)
		if code != tt.code || !strings.Contains(out+errs, tt.in) {
			t.Errorf("kusaw-step %s: exit %d, output %q; want exit %d and %q", strings.Join(tt.args, " "), code, out+errs, tt.code, tt.in)
		}
	}
}

func TestSchema(t *testing.T) {
	out, _, code := runCmd(t, "", "schema", "event:progress")
	if code != exitOK || !strings.Contains(out, `"const": "progress"`) {
		t.Errorf("schema event:progress: exit %d, %q", code, out)
	}
	out, _, code = runCmd(t, "", "schema", "--doc")
	if code != exitOK || !strings.Contains(out, "\n## Environment variables\n") || strings.Count(out, " | 2 |\n") != 548 {
		t.Errorf("schema --doc: exit %d, %d field rows; want 548 field rows", code, strings.Count(out, " | 2 |\n"))
	}
}

func TestHandshakeEgressWarning(t *testing.T) {
	stepPath := filepath.Join(t.TempDir(), "egress.sh")
	script := "#!/bin/sh\necho '{\"type\":\"handshake\",\"name\":\"e\",\"version\":\"1\",\"interactive\":false,\"protocol_versions\":[2],\"egress\":[\"api.example.com\",\"x.example.org\"]}'\n"
	if err := os.WriteFile(stepPath, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	out, _, code := runCmd(t, "", "handshake", "--allow-host", "*.example.org", stepPath)
	if code != exitOK || !strings.Contains(out, "warning: egress_not_allowed: the step declares egress to api.example.com") || strings.Contains(out, "egress to x.example.org") {
		t.Errorf("handshake --allow-host: exit %d\n%s\nwant one egress warning, for api.example.com", code, out)
	}
}

func TestInjectFlag(t *testing.T) {
	t.Setenv("API_KEY", "k-123456789")
	tests := []struct {
		args []string
		in   string // in the error; "" when valid
	}{
		{[]string{"--secret", "API_KEY", "--allow-host", "api.example.com", "--inject", "API_KEY=api.example.com:Authorization"}, ""},
		{[]string{"--secret", "API_KEY", "--inject", "API_KEY=api.example.com:Authorization"}, "add --allow-host api.example.com"},
		{[]string{"--allow-host", "api.example.com", "--inject", "API_KEY=api.example.com:Authorization"}, "no secret API_KEY"},
		{[]string{"--inject", "API_KEY"}, "want NAME=HOST:HEADER"},
	}
	for _, tt := range tests {
		var sf sandboxFlags
		fs := newFlags("run", &cmdEnv{stderr: &bytes.Buffer{}})
		sf.register(fs)
		if err := fs.Parse(tt.args); err != nil {
			t.Fatal(err)
		}
		o, err := sf.options()
		switch {
		case tt.in == "" && (err != nil || len(o.Inject) != 1 || o.Inject[0].Value != "k-123456789" || len(o.Secrets) != 0):
			t.Errorf("%v: %v, %+v; want one injection holding the secret, none left for the step", tt.args, err, o)
		case tt.in != "" && (err == nil || !strings.Contains(err.Error(), tt.in)):
			t.Errorf("%v: %v; want an error containing %q", tt.args, err, tt.in)
		}
	}
}

func TestOutDirNamedForTheProgram(t *testing.T) {
	for _, tt := range []struct {
		command []string
		want    string
	}{
		{[]string{"bin/hello", "--verbose"}, "hello-"},
		{[]string{"examples/steps/python/hello.py"}, "hello-"},
		{[]string{"/usr/bin/kusaw-step", "slipway", "--interactive"}, "slipway-"},
	} {
		dir, err := outDir("", stepName(tt.command), t.TempDir())
		if err != nil || !strings.HasPrefix(filepath.Base(dir), tt.want) || filepath.Base(filepath.Dir(dir)) != "kusaw-runs" {
			t.Errorf("outDir for %v = %s, %v; want kusaw-runs/%sTIME", tt.command, dir, err, tt.want)
		}
	}
}

// TestHandshakeSandboxed is issue 11 item 1 for kusaw-step handshake: the
// step answers in the sandbox, with none of the runner's variables but
// the base ones, and cannot write the host.
func TestHandshakeSandboxed(t *testing.T) {
	if err := sandbox.Available(sandbox.BackendBwrap); err != nil {
		t.Skipf("bwrap does not run here: %v", err)
	}
	dir := t.TempDir()
	outside := filepath.Join(dir, "escaped")
	stepPath := filepath.Join(dir, "hostile.sh")
	script := "#!/bin/sh\necho x > " + outside + "\n" +
		"echo '{\"type\":\"handshake\",\"name\":\"h\",\"version\":\"1\",\"description\":\"'\"TOKEN=$RUNNER_TOKEN SANDBOX=$KUSAW_SANDBOX\"'\",\"interactive\":false,\"protocol_versions\":[2]}'\n"
	if err := os.WriteFile(stepPath, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("RUNNER_TOKEN", "operator-token")
	out, errs, code := runCmd(t, "", "handshake", "--sandbox", "bwrap", stepPath)
	if code != exitOK || !strings.Contains(out, "TOKEN= SANDBOX=bwrap") {
		t.Errorf("handshake: exit %d\n%s%s\nwant the description to show no token, and the sandbox", code, out, errs)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Errorf("the handshake wrote %s", outside)
	}
}
