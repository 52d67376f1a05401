package request

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"kusaw.dev/step/protocol"
)

// gitTimeout bounds all the git commands one probe runs together.
const gitTimeout = 5 * time.Second

// probeRepos returns the git checkout dir lies in as the request's one
// repo, or an empty list when git is missing, dir is not in a checkout
// (or git refuses it, e.g. for dubious ownership), HEAD has no commit yet,
// or git takes longer than gitTimeout. Only read-only commands run, and
// none when no folder from dir up holds a .git: git is not started for
// nothing on every run.
func probeRepos(dir string) []protocol.Repo {
	if !inCheckout(dir) {
		return []protocol.Repo{}
	}
	ctx, cancel := context.WithTimeout(context.Background(), gitTimeout)
	defer cancel()
	// One git for the top folder, the commit (which fails on an unborn
	// branch: no commit to start from) and the branch ("HEAD" when
	// detached); "--" makes every argument a revision.
	out, err := git(ctx, dir, "rev-parse", "--show-toplevel", "HEAD^{commit}", "--abbrev-ref", "HEAD", "--")
	lines := strings.Split(out, "\n")
	if err != nil || len(lines) != 4 || lines[3] != "--" {
		return []protocol.Repo{} // a folder name with a newline, say: no line is sure
	}
	top, head, branch := lines[0], lines[1], lines[2]
	return []protocol.Repo{{
		Label:     filepath.Base(top),
		Branch:    branch, // "HEAD" when detached
		BaseRef:   baseRef(ctx, dir, head),
		Worktree:  top,
		Standards: "",
		Status:    "running",
	}}
}

// inCheckout reports whether dir or a folder above it holds a .git entry:
// a folder in a checkout, a file in a linked worktree or submodule. Only
// then can git find a repository there, the GIT_* variables being dropped.
func inCheckout(dir string) bool {
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return false
		}
		dir = parent
	}
}

// baseRef is the commit the branch started from: where HEAD leaves the
// remote's default branch (origin/HEAD, which clone sets), or HEAD itself
// when there is no such branch or no common commit. The branch's upstream
// would be no better a guess: once a branch is pushed, its upstream is
// usually the same branch on the remote.
func baseRef(ctx context.Context, dir, head string) string {
	base, err := git(ctx, dir, "merge-base", "HEAD", "refs/remotes/origin/HEAD")
	if err != nil || base == "" {
		return head
	}
	return base
}

// git runs one git command in dir and returns its stdout, trimmed. Its
// stderr is kept from the terminal (it is in the *exec.ExitError).
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	cmd.Env = gitEnv(os.Environ())
	cmd.WaitDelay = time.Second
	out, err := cmd.Output()
	return strings.TrimSpace(string(out)), err
}

// gitEnv is env without any GIT_* variable, so nothing inherited (GIT_DIR,
// GIT_WORK_TREE, GIT_INDEX_FILE, GIT_CEILING_DIRECTORIES, GIT_CONFIG_* and
// the rest, as set inside a git hook) can point git at another repository
// than the one dir is in, and with git told never to prompt or take
// optional locks.
func gitEnv(env []string) []string {
	out := make([]string, 0, len(env)+2)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "GIT_") {
			out = append(out, kv)
		}
	}
	return append(out, "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0")
}
