package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kusaw.dev/step/attemptdir"
)

// update (cli_test.go) rewrites these golden files too.

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (go test -run %s -update rewrites it):\n%s\nwant:\n%s", path, t.Name(), got, want)
	}
}

const (
	okRecord = `{"status":"ok","reason_code":"greeted","message":"hello, Kusaw","outputs":{"greeting":"hello, Kusaw"},` +
		`"artifacts":[{"path":"greeting.txt","kind":"log"}],"warnings":[{"code":"exit_after_result","message":"the step exited with status 3 after its ok result; exit 0 once the result is printed"}],` +
		`"step":{"command":["/bin/hello"],"name":"hello","version":"1.0.0"},"exit_code":3,"started_at":"2026-12-01T19:00:05Z","duration_ms":1250,` +
		`"events":{"progress":4},"usage":{"tokens_input":1200,"tokens_output":300,"cost_usd":0.0123},` +
		`"logs":{"stdout":{"path":"x","bytes":606,"total":606,"truncated":false},"stderr":{"path":"y","bytes":0,"total":0,"truncated":false}},"request_path":"r"}`
	failRecord = `{"status":"fail","reason_code":"handshake_failed","message":"the handshake printed nothing","warnings":[],` +
		`"step":{"command":["/bin/broken"]},"exit_code":1,"started_at":"2026-12-01T18:00:00Z","duration_ms":40,"events":{},` +
		`"logs":{"stdout":{"path":"x","bytes":0,"total":0,"truncated":false},"stderr":{"path":"y","bytes":0,"total":0,"truncated":false}},"request_path":"r",` +
		`"diagnosis":"The handshake printed nothing on stdout.\nRun it by hand: KUSAW_HANDSHAKE=1 /bin/broken"}`
	marker = `{"pid":4242,"started_at":"2026-12-01T20:00:00Z"}` + "\n"
)

// runsFixture lays out a runs folder: two finished attempts, one
// unfinished (its runner killed), one running (held by this test).
func runsFixture(t *testing.T) string {
	root := t.TempDir()
	for _, a := range []struct{ name, record string }{{"hello-1", okRecord}, {"broken-1", failRecord}} {
		w, err := attemptdir.Create(filepath.Join(root, a.name), attemptdir.Options{})
		if err != nil {
			t.Fatal(err)
		}
		w.WriteFile(attemptdir.Request, []byte(`{"mode":"pipeline"}`), 0o600)
		w.WriteFile(attemptdir.Record, []byte(a.record+"\n"), 0o644)
		w.Close()
	}
	dead, err := attemptdir.Create(filepath.Join(root, "hello-2"), attemptdir.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dead.WriteFile(attemptdir.Request, []byte(`{"mode":"score","step":{"name":"hello"}}`), 0o600)
	dead.WriteFile(attemptdir.Marker, []byte(marker), 0o644)
	dead.Close() // without a record: what a SIGKILLed runner leaves
	live, err := attemptdir.Create(filepath.Join(root, "hello-3"), attemptdir.Options{})
	if err != nil {
		t.Fatal(err)
	}
	live.WriteFile(attemptdir.Marker, []byte(strings.Replace(marker, "20:00:00", "20:30:00", 1)), 0o644)
	t.Cleanup(func() { live.Close() })
	return root
}

// TestShowAndLs proves issue 16 item 5 with golden files.
func TestShowAndLs(t *testing.T) {
	root := runsFixture(t)
	clean := func(s string) string { return strings.ReplaceAll(s, root, "RUNS") }
	for _, tc := range []struct {
		golden string
		args   []string
		code   int
	}{
		{"ls.golden", []string{"ls", root}, exitOK},
		{"show-ok.golden", []string{"show", filepath.Join(root, "hello-1")}, exitOK},
		{"show-fail.golden", []string{"show", filepath.Join(root, "broken-1")}, exitOK},
		{"show-unfinished.golden", []string{"show", filepath.Join(root, "hello-2")}, exitFailed},
		{"show-running.golden", []string{"show", filepath.Join(root, "hello-3")}, exitFailed},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			stdout, stderr, code := runCmd(t, "", tc.args...)
			if code != tc.code {
				t.Errorf("kusaw-step %s: exit %d; want %d\n%s", strings.Join(tc.args, " "), code, tc.code, stderr)
			}
			golden(t, tc.golden, clean(stdout+stderr))
		})
	}
	stdout, _, code := runCmd(t, "", "show", "--json", filepath.Join(root, "hello-1"))
	if code != exitOK || stdout != okRecord+"\n" {
		t.Errorf("show --json: exit %d, %q; want the record as it is", code, stdout)
	}
	for _, args := range [][]string{{"show"}, {"show", t.TempDir()}, {"show", filepath.Join(root, "nope")}, {"ls", "a", "b"}, {"ls", filepath.Join(root, "nope")}} {
		if _, _, code := runCmd(t, "", args...); code != exitUsage {
			t.Errorf("kusaw-step %q: exit %d; want 2", args, code)
		}
	}
}

// TestSchemaAttempt: kusaw-step schema attempt prints the record's schema
// (issue 16 item 6).
func TestSchemaAttempt(t *testing.T) {
	stdout, _, code := runCmd(t, "", "schema", "attempt")
	if code != exitOK || !strings.Contains(stdout, `"title": "Attempt record"`) {
		t.Errorf("schema attempt: exit %d, %.200q", code, stdout)
	}
}
