package slipsim

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// flags is one parsed command line.
type flags struct {
	vals  map[string]string
	bools map[string]bool
	pos   []string
}

// parseFlags reads args strictly: only the named flags, each at most once,
// values as the next element (never --flag=value), and positionals.
func parseFlags(args, valued, boolean []string) (*flags, error) {
	f := &flags{vals: map[string]string{}, bools: map[string]bool{}}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case !strings.HasPrefix(a, "-"):
			f.pos = append(f.pos, a)
		case slices.Contains(valued, a):
			if _, dup := f.vals[a]; dup {
				return nil, usage("duplicate_flag", "flag %s given twice", a)
			}
			if i+1 >= len(args) {
				return nil, usage("missing_value", "flag %s needs a value", a)
			}
			i++
			f.vals[a] = args[i]
		case slices.Contains(boolean, a):
			if f.bools[a] {
				return nil, usage("duplicate_flag", "flag %s given twice", a)
			}
			f.bools[a] = true
		default:
			return nil, usage("unknown_flag", "unknown flag %q", a)
		}
	}
	return f, nil
}

// need returns the values of required flags.
func (f *flags) need(names ...string) ([]string, error) {
	out := make([]string, len(names))
	for i, n := range names {
		v, ok := f.vals[n]
		if !ok || v == "" {
			return nil, usage("missing_flag", "flag %s is required", n)
		}
		out[i] = v
	}
	return out, nil
}

// checkRoot requires an absolute, clean Git worktree folder.
func (s *sim) checkRoot(root string) error {
	if !filepath.IsAbs(root) || filepath.Clean(root) != root {
		return usage("root_not_absolute", "--root %q must be an absolute clean path", root)
	}
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return usage("invalid_root", "--root %q is not a directory", root)
	}
	ws, err := discover(root)
	if err != nil {
		return err
	}
	s.ws = ws
	return nil
}

// readPrivate reads a host's input file: a regular file, not a symlink,
// at most max bytes and, when private, readable by its owner only.
func readPrivate(flag, path string, max int64, private bool) ([]byte, error) {
	if !filepath.IsAbs(path) {
		return nil, usage("path_not_absolute", "%s %q must be absolute", flag, path)
	}
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, usage("goal_unavailable", "%s: %v", flag, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, runtime("input_file_not_regular", nil, "%s %q is not a regular file", flag, path)
	}
	if private && fi.Mode().Perm()&0o077 != 0 {
		return nil, runtime("input_file_not_private", nil, "%s %q has mode %v; want it private to its owner", flag, path, fi.Mode().Perm())
	}
	if fi.Size() > max {
		return nil, runtime("input_too_large", nil, "%s %q has %d bytes, over %d", flag, path, fi.Size(), max)
	}
	return os.ReadFile(path)
}
