package step_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kusaw.dev/step/sandbox"
)

// artifactsDirToRoot swaps its artifacts folder for a symlink to / and
// returns /etc/passwd as evidence, so that a runner resolving by path
// would open (and sniff) a host file.
func artifactsDirToRoot() {
	dir := os.Getenv("KUSAW_ARTIFACTS_DIR")
	if err := os.RemoveAll(dir); err != nil {
		result("fail", "remove: "+err.Error())
		return
	}
	if err := os.Symlink("/", dir); err != nil {
		result("fail", "symlink: "+err.Error())
		return
	}
	withResult(`"artifacts":[{"path":"etc/passwd","kind":"evidence","caption":"the host's users"}]`)
}

// Issue 11 item 7: with no sandbox (--sandbox off, or none at all), a
// step that replaces the artifacts folder with a symlink to / gets
// artifact_invalid, not its host file; the runner resolves beneath the
// folder it created and removes the link.
func TestArtifactsDirSwappedForSymlink(t *testing.T) {
	for _, tc := range []struct {
		name string
		sb   *sandbox.Options
	}{
		{"item 7: --sandbox off", &sandbox.Options{Flags: sandbox.Flags{Mode: "off"}}},
		{"item 7: no sandbox options", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec, out := runAttempt(t, "artifacts-dir-to-root", setup{sandbox: tc.sb})
			wantVerdict(t, rec, verdict{"fail", "artifact_invalid", "etc/passwd"})
			if len(rec.Artifacts) != 0 {
				t.Errorf("record artifacts %+v; want none", rec.Artifacts)
			}
			if !hasWarning(rec, "artifacts_dir_replaced") {
				t.Errorf("warnings %v; want artifacts_dir_replaced", rec.Warnings)
			}
			if fi, err := os.Lstat(filepath.Join(out, "artifacts")); err == nil && fi.Mode()&os.ModeSymlink != 0 {
				t.Errorf("the attempt folder keeps the link the step planted")
			}
		})
	}
}

// manyArtifacts publishes one file 2,000 times and 1,500 distinct files,
// with artifact events.
func manyArtifacts() {
	dir := os.Getenv("KUSAW_ARTIFACTS_DIR")
	os.WriteFile(filepath.Join(dir, "same.txt"), []byte("x"), 0o644)
	var b strings.Builder
	for range 2000 {
		b.WriteString(`{"type":"artifact","path":"same.txt","kind":"log"}` + "\n")
	}
	for i := range 1500 {
		name := fmt.Sprintf("f%04d.txt", i)
		os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644)
		fmt.Fprintf(&b, `{"type":"artifact","path":"./%s","kind":"log"}`+"\n", name)
		fmt.Fprintf(&b, `{"type":"artifact","path":"%s","kind":"log"}`+"\n", name)
	}
	os.Stdout.WriteString(b.String())
	result("ok", "published")
}

// Issue 15: artifact events are deduplicated by path and bounded; the
// rest is said in a warning, not kept.
func TestEventArtifactsDedupedAndBounded(t *testing.T) {
	rec, _ := runAttempt(t, "many-artifacts", setup{})
	wantVerdict(t, rec, verdict{"ok", "fake", "published"})
	if len(rec.Artifacts) != 1000 || rec.Artifacts[0].Path != "same.txt" || rec.Artifacts[1].Path != "./f0000.txt" {
		t.Fatalf("record has %d artifacts, first %+v; want 1000, same.txt first, each path once", len(rec.Artifacts), rec.Artifacts[:min(2, len(rec.Artifacts))])
	}
	seen := map[string]bool{}
	for _, a := range rec.Artifacts {
		key := filepath.Clean(a.Path)
		if seen[key] {
			t.Fatalf("artifact %s recorded twice", a.Path)
		}
		seen[key] = true
	}
	if !hasWarning(rec, "artifacts_dropped") {
		t.Errorf("warnings %v; want artifacts_dropped", rec.Warnings)
	}
}
