package sandbox

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRootRunsStepUnprivileged is issue 11 item 2: a root runner's step
// has no owner access to root's files, sees no home, and can still use
// what it is given inside a mktemp -d folder (0700, root-owned): run its
// program there, write its worktree, artifacts and tmp.
func TestRootRunsStepUnprivileged(t *testing.T) {
	needBwrap(t)
	if os.Getuid() != 0 {
		t.Skip("the runner is not root")
	}
	t.Parallel()
	top := t.TempDir()
	if err := os.Chmod(top, 0o700); err != nil {
		t.Fatal(err)
	}
	wt, art, tmp := filepath.Join(top, "wt"), filepath.Join(top, "art"), filepath.Join(top, "tmp")
	for _, d := range []string{wt, art, tmp} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	granted, err := os.MkdirTemp("/root", ".kusaw-sandbox-test-") // a folder the operator grants with --readable
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { os.RemoveAll(granted) })
	os.WriteFile(filepath.Join(granted, "note"), []byte("granted"), 0o600)
	prog := filepath.Join(top, "step.sh")
	script := `#!/bin/sh
echo "uid=$(id -u)"
cat /etc/shadow >/dev/null 2>&1 && echo read-shadow
{ ls -A /root; ls -A /home; } | grep -v '^\.kusaw-sandbox-test-' | grep . && echo listed-homes
cat "$1/note"
echo w > file && echo a > "$2/file" && echo t > "$3/file" && echo wrote
`
	if err := os.WriteFile(prog, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	pol := bwrapPolicy(wt, art, tmp)
	pol.Readable = []string{granted}
	self, _ := os.Executable()
	pol.Self = self
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, granted, art, tmp)
	cmd.Dir = wt
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	sb, err := Wrap(cmd, pol)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("step: %v\n%s%s", err, out.String(), errb.String())
	}
	got := out.String()
	for _, want := range []string{"uid=65534", "granted", "wrote"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s%s", want, got, errb.String())
		}
	}
	for _, bad := range []string{"read-shadow", "listed-homes"} {
		if strings.Contains(got, bad) {
			t.Errorf("the step %s:\n%s", bad, got)
		}
	}
	for _, f := range []string{filepath.Join(wt, "file"), filepath.Join(art, "file"), filepath.Join(tmp, "file")} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("the step's file is not on the host: %v", err)
		}
	}
}
