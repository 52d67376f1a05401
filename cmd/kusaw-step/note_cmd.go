package main

import (
	"context"
	"fmt"
	"io"
	"os"

	step "kusaw.dev/step"
	"kusaw.dev/step/attemptdir"
)

// cmdNote sends a steer note to an attempt folder: kusaw-step note OUT_DIR
// TEXT. A step running there that takes live notes gets it at once; any
// other waits in the folder for the next attempt, which hands it over in
// the request's context.notes: kusaw-step run --after OUT_DIR (a folder
// holds one attempt), or run --out OUT_DIR when the folder has none yet.
func cmdNote(_ context.Context, env *cmdEnv, args []string) error {
	fs := newFlags("note", env)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 2 || fs.Arg(1) == "" {
		return usageErrorf("usage: kusaw-step note OUT_DIR TEXT")
	}
	dir := fs.Arg(0)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return usageErrorf("%s is not a folder; create it first to leave notes for its first attempt", dir)
	}
	note, live, err := step.SendNote(dir, fs.Arg(1))
	if err != nil {
		return &exitError{code: exitRunner, err: err}
	}
	if live {
		fmt.Fprintf(env.stdout, "note %s sent to the running step\n", note.ID)
	} else {
		fmt.Fprintf(env.stdout, "note %s waits for the next start: %s\n", note.ID, nextStart(dir))
	}
	return nil
}

// screenOf is where an interactive step's terminal is shown: stdout, or
// stderr when stdout carries the record (--json).
func screenOf(env *cmdEnv, asJSON bool) io.Writer {
	if asJSON {
		return env.stderr
	}
	return env.stdout
}

// nextStart says how to start the attempt that takes the notes pending in
// dir: into dir itself while it holds no attempt, or else into a new
// folder after it.
func nextStart(dir string) string {
	if f, err := attemptdir.Read(dir); err == nil && f.State == attemptdir.Empty {
		return "kusaw-step run --out " + dir + " ..."
	}
	return "kusaw-step run --after " + dir + " --out NEW_DIR ..."
}
