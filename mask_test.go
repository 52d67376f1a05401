package step_test

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	step "kusaw.dev/step"
	"kusaw.dev/step/sandbox"
)

// uEscape spells s as JSON \u escapes, every character.
func uEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		fmt.Fprintf(&b, `\u%04X`, r)
	}
	return b.String()
}

// percentAll percent-encodes every byte of s.
func percentAll(s string) string {
	var b strings.Builder
	for i := range len(s) {
		fmt.Fprintf(&b, "%%%02x", s[i])
	}
	return b.String()
}

// leaksEncoded prints its secret in every encoding a reader decodes back:
// \u-escaped in an event and the result, percent-encoded and hex on
// stderr and in the outputs; and publishes an artifact named after it.
func leaksEncoded() {
	token := os.Getenv("MY_TOKEN")
	say(`{"type":"progress","message":"token ` + uEscape(token) + `"}`)
	fmt.Fprintf(os.Stderr, "GET /?t=%s hex=%s\n", percentAll(token), hex.EncodeToString([]byte(token)))
	name := "report-" + token + ".txt"
	os.WriteFile(filepath.Join(os.Getenv("KUSAW_ARTIFACTS_DIR"), name), []byte("data"), 0o644)
	say(`{"type":"artifact","path":"` + name + `","kind":"log"}`)
	withResult(`"outputs":{"u":"` + percentAll(token) + `","h":"` + hex.EncodeToString([]byte(token)) + `","j":"` + uEscape(token) + `"}`)
}

// Issue 11 item 4: the logs, result.json and attempt.json hold the secret
// in no form a JSON reader, URL decoder or hex decoder turns back into it,
// and an artifact whose name holds the secret is refused, not recorded.
func TestSecretMaskedInEveryEncoding(t *testing.T) {
	var seen []string
	rec, out := runAttempt(t, "leaks-encoded", setup{
		sandbox:  &sandbox.Options{Flags: sandbox.Flags{Mode: "off"}, Secrets: map[string]string{"MY_TOKEN": secretValue}},
		observer: step.Observer{Event: func(ev protocolEvent) { seen = append(seen, eventText(ev)) }},
	})
	// The observer gets events decoded: the \u-escaped secret must reach
	// it masked, whatever shortcut the runner takes for clean lines.
	if len(seen) == 0 || seen[0] != "token ***" {
		t.Errorf("item 4: the observer saw %q; want the progress masked first", seen)
	}
	wantVerdict(t, rec, verdict{"fail", "artifact_invalid", "report-***.txt"})
	if !strings.Contains(rec.Message, "holds a secret") {
		t.Errorf("item 4: message %q; want it to say the artifact's name holds a secret", rec.Message)
	}
	for _, a := range rec.Artifacts {
		if _, err := os.Stat(filepath.Join(out, "artifacts", a.Path)); err != nil {
			t.Errorf("item 4: the record lists artifact %q, which does not exist: %v", a.Path, err)
		}
	}
	forms := []string{secretValue, strings.ToLower(hex.EncodeToString([]byte(secretValue))), percentAll(secretValue), uEscape(secretValue)}
	for _, f := range []string{"stdout.jsonl", "stderr.log", "attempt.json", "result.json"} {
		data, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, form := range forms {
			if bytes.Contains(bytes.ToLower(data), []byte(strings.ToLower(form))) {
				t.Errorf("item 4: %s holds the secret as %q:\n%s", f, form, data)
			}
		}
		if decoded := decodeAll(data); strings.Contains(decoded, secretValue) {
			t.Errorf("item 4: %s decodes back to the secret:\n%s", f, decoded)
		}
	}
}

// decodeAll returns data's JSON lines decoded (every string), URL-decoded.
func decodeAll(data []byte) string {
	var b strings.Builder
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var v any
		line := sc.Text()
		if json.Unmarshal(sc.Bytes(), &v) == nil {
			enc, _ := json.Marshal(v) // Go writes every string back unescaped but for <>&
			line = string(enc)
		}
		if u, err := url.QueryUnescape(line); err == nil {
			line += "\n" + u
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// Issue 11 item 4: a secret under 6 bytes is warned about before the step
// starts, not masked all over the logs.
func TestShortSecretWarned(t *testing.T) {
	rec, _ := runAttempt(t, "prints-secret", setup{
		sandbox: &sandbox.Options{Flags: sandbox.Flags{Mode: "off"}, Secrets: map[string]string{"MY_TOKEN": "abc"}},
	})
	if !hasWarning(rec, "secret_too_short") {
		t.Errorf("item 4: warnings %v; want secret_too_short", rec.Warnings)
	}
	wantVerdict(t, rec, verdict{"ok", "fake", "used abc"})
}

// secretNoResult floods stderr past the log cap, prints its secret last,
// and exits without a result: the secret is in the stderr tail only.
func secretNoResult() {
	os.Stderr.Write(bytes.Repeat([]byte("filler line of stderr\n"), 200))
	fmt.Fprintf(os.Stderr, "fatal: token %s rejected\n", os.Getenv("MY_TOKEN"))
	os.Exit(3)
}

// Issue 15 and item 4: once stderr.log is full the masker stops masking
// what the cap discards, and the stderr tail in the diagnosis is masked
// with the record.
func TestSecretMaskedInDiagnosisPastTheCap(t *testing.T) {
	rec, out := runAttempt(t, "secret-no-result", setup{
		logCap:  1000,
		sandbox: &sandbox.Options{Flags: sandbox.Flags{Mode: "off"}, Secrets: map[string]string{"MY_TOKEN": secretValue}},
	})
	wantVerdict(t, rec, verdict{"fail", "no_result", "exited with status 3"})
	if !strings.Contains(rec.Diagnosis, "fatal: token *** rejected") {
		t.Errorf("diagnosis:\n%s\nwant the stderr tail, masked", rec.Diagnosis)
	}
	for _, f := range []string{"stderr.log", "attempt.json"} {
		data, _ := os.ReadFile(filepath.Join(out, f))
		if bytes.Contains(data, []byte(secretValue)) {
			t.Errorf("%s holds the secret:\n%s", f, data)
		}
	}
}
