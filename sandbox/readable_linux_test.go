package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 12, item 4: the operator's files a config names (the slipway
// kind's binary, agent and source file) are visible read-only inside the
// sandbox, though they lie in the host's /tmp, which the sandbox masks;
// a file of the same folder that is not named stays hidden.
func TestReadableShownReadOnly(t *testing.T) {
	needBwrap(t)
	dir := t.TempDir() // under /tmp
	named, other := filepath.Join(dir, "source.json"), filepath.Join(dir, "other.json")
	for _, f := range []string{named, other} {
		if err := os.WriteFile(f, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pol := bwrapPolicy()
	pol.Readable = []string{named}
	script := `cat "$1"; test -e "$2" && echo " other visible" || echo " other hidden"; echo x >> "$1" 2>/dev/null && echo written || echo read-only`
	out, stderr, err := sandboxed(t, pol, nil, "/bin/sh", "-c", script, "sh", named, other)
	if err != nil || strings.TrimSpace(out) != "{} other hidden\nread-only" {
		t.Fatalf("inside the sandbox: %q, %v\n%s\nwant the named file read-only, the other hidden", out, err, stderr)
	}
}
