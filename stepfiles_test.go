package step_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"kusaw.dev/step/protocol"
	"kusaw.dev/step/sandbox"
)

// stepFilesFake reads the files its variables name and reports them.
func stepFilesFake() {
	var parts []string
	for _, name := range []string{"KUSAW_CONFIG_SNAPSHOT", "KUSAW_PROMPT_FILE"} {
		path := os.Getenv(name)
		data, err := os.ReadFile(path)
		if err != nil || !filepath.IsAbs(path) {
			result("fail", fmt.Sprintf("%s=%q: %v", name, path, err))
			return
		}
		parts = append(parts, name+"="+strings.TrimSpace(string(data)))
	}
	if path, ok := os.LookupEnv("KUSAW_REPO_CAPABILITIES"); ok {
		data, err := os.ReadFile(path)
		parts = append(parts, fmt.Sprintf("KUSAW_REPO_CAPABILITIES=%s%v", strings.TrimSpace(string(data)), err))
	}
	if err := os.WriteFile(os.Getenv("KUSAW_CONFIG_SNAPSHOT"), []byte("{}"), 0o644); err == nil && os.Getenv("KUSAW_SANDBOX") != "" {
		parts = append(parts, "the snapshot is writable")
	}
	result("ok", strings.Join(parts, " "))
}

// TestStepFiles is issue 13 item 4: the files KUSAW_CONFIG_SNAPSHOT and
// KUSAW_PROMPT_FILE name are written into the attempt and readable by the
// step, in a sandbox too.
func TestStepFiles(t *testing.T) {
	t.Parallel()
	prompt := filepath.Join(t.TempDir(), "prompt.md")
	if err := os.WriteFile(prompt, []byte("Sample prompt: say hello."), 0o600); err != nil {
		t.Fatal(err)
	}
	edit := func(req *protocol.Request) {
		req.Unknown = jsontext.Value(`{"prompt":{"file":"` + prompt + `","args_used":[],"warnings":[]}}`)
	}
	want := `KUSAW_CONFIG_SNAPSHOT={"greeting":"hi"} KUSAW_PROMPT_FILE=Sample prompt: say hello.`
	withRepo := func(req *protocol.Request) {
		edit(req)
		req.Repos = []protocol.Repo{{Label: "app", Branch: "b", BaseRef: "c", Worktree: *req.Worktree, Status: "running",
			Unknown: jsontext.Value(`{"capabilities":{"mcp":{"servers":["app-db"]}}}`)}}
	}
	for _, tt := range []struct {
		name string
		sb   *sandbox.Options
		edit func(*protocol.Request)
		more string
	}{
		{"env.KUSAW_CONFIG_SNAPSHOT and env.KUSAW_PROMPT_FILE", nil, edit, ""},
		{"env.KUSAW_CONFIG_SNAPSHOT and env.KUSAW_PROMPT_FILE, sandboxed", &sandbox.Options{Flags: sandbox.Flags{Mode: "bwrap"}}, edit, ""},
		{"env.KUSAW_REPO_CAPABILITIES", nil, withRepo, ` KUSAW_REPO_CAPABILITIES={"mcp":{"servers":["app-db"]}}<nil>`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.sb != nil {
				needBwrap(t)
			}
			rec, out := runAttempt(t, "step-files", setup{config: `{"greeting":"hi"}`, edit: tt.edit, sandbox: tt.sb})
			wantVerdict(t, rec, verdict{"ok", "fake", want})
			if rec.Message != want+tt.more {
				t.Errorf("message %q; want exactly %q", rec.Message, want+tt.more)
			}
			fi, err := os.Stat(filepath.Join(out, "artifacts", "config-snapshot.json"))
			if err != nil || fi.Mode().Perm() != 0o444 {
				t.Errorf("config-snapshot.json: %v, %v; want a read-only file", fi, err)
			}
		})
	}
}
