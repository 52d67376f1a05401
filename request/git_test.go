package request_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Issue 15, item 1: git starts only when a repo must be described. A fake
// git first on PATH leaves a mark when it runs; outside any checkout it
// must not run, inside one (a .git folder, or the .git file of a linked
// worktree) it must.
func TestSynthesizeRunsGitOnlyInACheckout(t *testing.T) {
	bin := t.TempDir()
	mark := filepath.Join(t.TempDir(), "git-ran")
	fake := "#!/bin/sh\ntouch '" + mark + "'\nexit 128\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	checkout, linked := t.TempDir(), t.TempDir()
	if err := os.Mkdir(filepath.Join(checkout, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(linked, ".git"), []byte("gitdir: /elsewhere\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	deep := filepath.Join(checkout, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		dir     string
		wantGit bool
	}{
		{"plain folder", t.TempDir(), false},
		{"checkout", checkout, true},
		{"folder deep in a checkout", deep, true},
		{"linked worktree", linked, true},
	}
	for _, tt := range tests {
		os.Remove(mark)
		o := options(t)
		o.Worktree = tt.dir
		req, _ := mustSynthesize(t, o)
		_, err := os.Stat(mark)
		if ran := err == nil; ran != tt.wantGit {
			t.Errorf("%s: git ran = %v; want %v", tt.name, ran, tt.wantGit)
		} else if err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		if len(req.Repos) != 0 {
			t.Errorf("%s: repos %+v; want none (the fake git fails)", tt.name, req.Repos)
		}
	}
}
