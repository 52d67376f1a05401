package step_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	step "kusaw.dev/step"
	"kusaw.dev/step/sandbox"
)

const secretValue = "s3cr3t-Value-9876"

// Sandboxed fakes declare what they need of the environment: a sandboxed
// step's environment is built, not inherited.
const sandboxedHandshake = `{"type":"handshake","name":"fake","version":"0.1.0","interactive":false,"protocol_versions":[2],` +
	`"needs_env":[{"name":"STEP_TEST_FAKE","secret":false},{"name":"GORACE","secret":false},{"name":"MY_TOKEN","secret":true}]}`

// sandboxedFake is a step that checks it cannot write /etc and reports the
// sandbox it sees and whether the runner's environment leaked in.
func sandboxedFake() {
	if err := os.WriteFile("/etc/kusaw-sandbox-probe", nil, 0o644); err == nil {
		result("fail", "wrote to /etc")
		return
	}
	result("ok", "KUSAW_SANDBOX="+os.Getenv("KUSAW_SANDBOX")+" RUNNER_ONLY="+os.Getenv("RUNNER_ONLY"))
}

// printsSecret prints the secret it was given everywhere it can.
func printsSecret() {
	token := os.Getenv("MY_TOKEN")
	say(`{"type":"progress","message":"token ` + token + `"}`)
	os.Stderr.WriteString("the token is " + token + "\n")
	result("ok", "used "+token)
}

// needsPathHandshake declares a path no machine has.
func needsPathHandshake() {
	say(strings.Replace(sandboxedHandshake, `"needs_env"`, `"needs_paths":{"read":["/nonexistent/kusaw-tools"]},"needs_env"`, 1))
}

func needBwrap(t *testing.T) {
	t.Helper()
	if err := sandbox.Available(sandbox.BackendBwrap); err != nil {
		t.Skipf("skipping: bwrap does not run here (%v); .ci/setup installs bubblewrap", err)
	}
}

func TestSandboxed(t *testing.T) {
	needBwrap(t)
	rec, _ := runAttempt(t, "sandboxed", setup{
		env:     []string{"RUNNER_ONLY=leaked"},
		sandbox: &sandbox.Options{Flags: sandbox.Flags{Mode: "bwrap"}},
	})
	wantVerdict(t, rec, verdict{"ok", "fake", "KUSAW_SANDBOX=bwrap RUNNER_ONLY="})
}

// TestSecretMasked: a secret the step declares reaches it, and whatever it
// prints of it is masked in every log and the record.
func TestSecretMasked(t *testing.T) {
	needBwrap(t)
	var seen []string
	rec, out := runAttempt(t, "prints-secret", setup{
		sandbox:  &sandbox.Options{Flags: sandbox.Flags{Mode: "auto"}, Secrets: map[string]string{"MY_TOKEN": secretValue}},
		observer: step.Observer{Event: func(ev protocolEvent) { seen = append(seen, eventText(ev)) }},
	})
	wantVerdict(t, rec, verdict{"ok", "fake", "used ***"})
	for _, f := range []string{"stdout.jsonl", "stderr.log", "attempt.json", "result.json"} {
		data, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), secretValue) || !strings.Contains(string(data), "***") {
			t.Errorf("%s is not masked:\n%s", f, data)
		}
	}
	if len(seen) != 1 || seen[0] != "token ***" {
		t.Errorf("the observer saw %q; want the masked progress", seen)
	}
}

func TestSandboxRefusals(t *testing.T) {
	tests := []struct {
		fake   string
		setup  setup
		reason string
		msg    string
	}{
		{"sandboxed", setup{sandbox: &sandbox.Options{Flags: sandbox.Flags{Mode: "off"}, Secrets: map[string]string{"OTHER": "x-very-secret"}}}, "secret_not_declared", "OTHER"},
		{"needs-path", setup{sandbox: &sandbox.Options{Flags: sandbox.Flags{Mode: "off"}}}, "dependency_missing", "/nonexistent/kusaw-tools"},
		{"sandboxed", setup{sandbox: &sandbox.Options{Flags: sandbox.Flags{Mode: "off"}}, requireSandbox: true}, "sandbox_unavailable", "requires a sandbox"},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			rec, out := runAttempt(t, tt.fake, tt.setup)
			wantVerdict(t, rec, verdict{"fail", tt.reason, tt.msg})
			if rec.ExitCode != nil {
				t.Errorf("the step ran (exit %d); it must not start", *rec.ExitCode)
			}
			if _, err := os.Stat(filepath.Join(out, "stdout.jsonl")); err == nil {
				t.Errorf("stdout.jsonl exists: the step was started")
			}
		})
	}
}
