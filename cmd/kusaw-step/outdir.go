package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	step "kusaw.dev/step"
	"kusaw.dev/step/attemptdir"
)

// localRuns is the folder attempts go to by default, under the current
// folder, unless that lies inside the step's worktree.
const localRuns = "kusaw-runs"

// outDir returns the attempt folder: the one given, or a new one in the
// runs folder (see runsDir) named for the step and the time.
func outDir(given, stepPath, worktree string) (string, error) {
	if given != "" {
		return filepath.Abs(given)
	}
	root, err := runsDir(worktree)
	if err != nil {
		return "", err
	}
	name := strings.TrimSuffix(filepath.Base(stepPath), filepath.Ext(stepPath))
	stamp := time.Now().UTC().Format("20060102T150405.000Z")
	return filepath.Join(root, name+"-"+strings.ReplaceAll(stamp, ".", "")), nil
}

// runsDir returns the folder that holds attempt folders by default:
// ./kusaw-runs, unless it would lie inside the step's worktree (by default
// the current folder), where the step would see the runner's own files;
// then KUSAW_RUNS_DIR when set, or else kusaw-step/runs in the user's
// cache folder ($XDG_CACHE_HOME, ~/.cache; ~/Library/Caches on macOS).
func runsDir(worktree string) (string, error) {
	if dir := os.Getenv("KUSAW_RUNS_DIR"); dir != "" {
		return filepath.Abs(dir)
	}
	local, err := filepath.Abs(localRuns)
	if err != nil {
		return "", err
	}
	if worktree == "" {
		worktree = "."
	}
	if wt, err := filepath.Abs(worktree); err == nil && !within(local, wt) {
		return local, nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", errors.New("no folder for attempts: the current folder is the worktree and there is no user cache folder; give --out or set KUSAW_RUNS_DIR")
	}
	return filepath.Join(cache, "kusaw-step", "runs"), nil
}

// within reports whether path is dir or lies under it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// runError maps the errors of step.Run: a folder that is busy or taken,
// or a previous attempt still running, is the command line's fault (exit
// 2); anything else is the runner's (exit 3).
func runError(err error) error {
	for _, target := range []error{attemptdir.ErrBusy, attemptdir.ErrNotEmpty, attemptdir.ErrNotAttempt, step.ErrPreviousRunning, os.ErrNotExist} {
		if errors.Is(err, target) {
			return &exitError{code: exitUsage, err: err}
		}
	}
	return &exitError{code: exitRunner, err: err}
}
