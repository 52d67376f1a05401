package conform

import (
	"crypto/rand"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"kusaw.dev/step/protocol"
)

const millisecond = time.Millisecond

// markerVar names the variable that marks every process a step starts, so
// the battery can find those it leaves behind. It must not start with
// KUSAW_: the runner strips those.
const markerVar = "CONFORM_RUN"

func marker() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// dirs are the folders of one handshake or attempt, under the scratch
// folder: root/{worktree,artifacts,tmp,home,out}.
type dirs struct {
	root, worktree, artifacts, tmp, home, out string
}

// newDirs makes the folders of a run named name, and a file in the
// worktree for the step to find; the worktree is a Git checkout with one
// commit, as a factory's is.
func (b *battery) newDirs(name string) (*dirs, error) {
	root := filepath.Join(b.scratch, name)
	d := &dirs{
		root: root, worktree: filepath.Join(root, "worktree"), artifacts: filepath.Join(root, "artifacts"),
		tmp: filepath.Join(root, "tmp"), home: filepath.Join(root, "home"), out: filepath.Join(root, "out"),
	}
	// A scratch folder kept from an earlier battery (--keep DIR) holds
	// this run's folders already: each run starts from fresh ones.
	if err := os.RemoveAll(root); err != nil {
		return nil, err
	}
	for _, dir := range []string{d.worktree, d.artifacts, d.tmp, d.home} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
	}
	if err := os.WriteFile(filepath.Join(d.worktree, "README.md"), []byte("A worktree of kusaw-step conform.\n"), 0o644); err != nil {
		return nil, err
	}
	return d, gitCheckout(d.worktree)
}

// env is the base environment of a run: the battery's own, with HOME and
// TMPDIR in the run's folders, and the marker.
func (b *battery) env(d *dirs, run string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if name != "HOME" && name != "TMPDIR" && name != markerVar {
			env = append(env, kv)
		}
	}
	return append(env, "HOME="+d.home, "TMPDIR="+d.tmp, markerVar+"="+b.marker+"-"+run)
}

// fileState is what a snapshot keeps of a file.
type fileState struct {
	size    int64
	modTime time.Time
	mode    fs.FileMode
}

// maxSnapshot bounds a snapshot, so a huge folder cannot stall the battery.
const maxSnapshot = 20000

// snapshot records every file under roots, except under the skipped
// folders.
func snapshot(roots, skipped []string) map[string]fileState {
	out := make(map[string]fileState)
	for _, root := range roots {
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || len(out) >= maxSnapshot {
				return filepath.SkipDir
			}
			if d.IsDir() && slices.Contains(skipped, path) {
				return filepath.SkipDir
			}
			if fi, err := d.Info(); err == nil {
				out[path] = fileState{fi.Size(), fi.ModTime(), fi.Mode()}
			}
			return nil
		})
	}
	return out
}

// diff returns the paths created, changed or removed between two
// snapshots, sorted.
func diff(before, after map[string]fileState) []string {
	var changed []string
	for p, st := range after {
		if old, ok := before[p]; !ok || (old != st && !st.mode.IsDir()) {
			changed = append(changed, p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			changed = append(changed, p)
		}
	}
	slices.Sort(changed)
	return changed
}

// listCut lists at most three paths.
func listCut(paths []string) string {
	if len(paths) <= 3 {
		return strings.Join(paths, ", ")
	}
	return strings.Join(paths[:3], ", ") + " and " + strconv.Itoa(len(paths)-3) + " more"
}

// quoteCut quotes b, cut to 120 bytes.
func quoteCut(b []byte) string {
	if len(b) > 120 {
		return strconv.Quote(string(b[:120])) + "…"
	}
	return strconv.Quote(string(b))
}

// modeRank orders modes as protocol.Modes lists them, "" first.
func modeRank(mode string) int {
	return slices.Index(protocol.Modes, mode) + 1
}

// reportAll reports every selected check whose id starts with prefix.
func (b *battery) reportAll(prefix, mode string, s Status, format string, args ...any) {
	for _, c := range Checks {
		if strings.HasPrefix(c.ID, prefix) {
			b.report(c.ID, mode, s, format, args...)
		}
	}
}
