package slipway

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ErrDependency is wrapped by the errors of a dependency the Run needs
// and does not have: the slipway binary, a Git worktree.
var ErrDependency = errors.New("dependency missing")

// findBinary resolves the configured slipway binary before the Run
// starts: a name is looked up on PATH, a path must be an executable
// file. A symlink is followed. What cannot be found is named with the
// fix, and with why when the sandbox hides it.
func findBinary(bin string, env []string) (string, error) {
	if !strings.ContainsRune(bin, filepath.Separator) {
		path, err := lookPath(bin, lookupEnv(env, "PATH"))
		if err != nil {
			return "", fmt.Errorf("%w: the slipway binary %q is not on PATH (%s): install Slipway or set config.slipway to its absolute path",
				ErrDependency, bin, lookupEnv(env, "PATH"))
		}
		return path, nil
	}
	abs, err := filepath.Abs(bin)
	if err != nil {
		return "", fmt.Errorf("%w: config.slipway %q: %v", ErrDependency, bin, err)
	}
	fi, err := os.Stat(abs)
	switch {
	case err != nil:
		return "", fmt.Errorf("%w: config.slipway %q: %v%s", ErrDependency, bin, err, hiddenWhy(abs, env))
	case fi.IsDir() || fi.Mode().Perm()&0o111 == 0:
		return "", fmt.Errorf("%w: config.slipway %q is not an executable file (mode %v): chmod +x it or name the built binary", ErrDependency, bin, fi.Mode())
	}
	return abs, nil
}

// lookPath finds name in the PATH list of the step's environment.
func lookPath(name, path string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode().Perm()&0o111 != 0 {
			return p, nil
		}
	}
	return exec.LookPath(name)
}

// hiddenWhy explains a path the sandbox may hide: the runner mounts a
// private /tmp (and /run, /var/tmp) inside it.
func hiddenWhy(path string, env []string) string {
	if lookupEnv(env, "KUSAW_SANDBOX") == "" {
		return ""
	}
	path, _ = filepath.Abs(path)
	for _, dir := range []string{"/tmp", "/run", "/var/tmp"} {
		if path == dir || strings.HasPrefix(path, dir+"/") {
			return fmt.Sprintf(" (%s is private inside the sandbox; the runner makes config paths visible read-only, so check that the file exists on the host, or move it out of %s)", dir, dir)
		}
	}
	return " (the sandbox shows the host read-only; check that the file exists)"
}
