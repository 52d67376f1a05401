package slipsim

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// workspace is a Git worktree the CLI works in: its top level and its
// Git directory, where the journal lives (GITDIR/slipway/runs/ID).
type workspace struct {
	root   string
	gitDir string
}

// discover finds the worktree of root with Git, as the CLI does: a
// folder that is not in a Git worktree is a usage error (exit 2).
func discover(root string) (*workspace, error) {
	out, err := git(root, "rev-parse", "--path-format=absolute", "--show-toplevel", "--absolute-git-dir")
	if err != nil {
		return nil, usage("git_repository_required", "git rev-parse --path-format=absolute --show-toplevel: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 {
		return nil, usage("git_repository_required", "git rev-parse printed %q", out)
	}
	return &workspace{root: lines[0], gitDir: lines[1]}, nil
}

func git(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%v: %s", err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// observation is what the CLI records of the worktree: HEAD, the dirty
// paths and a digest of their contents. It never keeps file content.
type observation struct {
	Head     string   `json:"head"`
	Snapshot string   `json:"snapshot_hash"`
	Dirty    []string `json:"dirty_files"`
}

// observe looks at the worktree: a difference from the Run-start
// observation is what makes Review due, whatever an agent claims.
func (w *workspace) observe() (*observation, error) {
	head, _ := git(w.root, "rev-parse", "--verify", "--quiet", "HEAD")
	status, err := git(w.root, "status", "--porcelain=v1", "-z", "--untracked-files=all")
	if err != nil {
		return nil, err
	}
	h := sha256.New()
	fmt.Fprintf(h, "head %s\x00", bytes.TrimSpace(head))
	h.Write(status)
	var dirty []string
	for _, entry := range strings.Split(string(status), "\x00") {
		if len(entry) < 4 {
			continue
		}
		path := entry[3:]
		dirty = append(dirty, path)
		if f, err := os.Open(filepath.Join(w.root, path)); err == nil {
			fmt.Fprintf(h, "\x00content %s\x00", path)
			io.Copy(h, f)
			f.Close()
		}
	}
	sort.Strings(dirty)
	if dirty == nil {
		dirty = []string{}
	}
	return &observation{Head: string(bytes.TrimSpace(head)), Snapshot: "sha256:" + hex.EncodeToString(h.Sum(nil)), Dirty: dirty}, nil
}
