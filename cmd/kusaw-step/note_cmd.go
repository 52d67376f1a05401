package main

import (
	"context"
	"fmt"
	"io"
	"os"

	step "kusaw.dev/step"
	"kusaw.dev/step/request"
)

// cmdNote sends a steer note to an attempt folder: kusaw-step note OUT_DIR
// TEXT. A step running there that takes live notes gets it at once; any
// other waits in the folder for the next kusaw-step run --out OUT_DIR,
// which hands it over in the request's context.notes.
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
		return usageErrorf("%s is not an attempt folder", dir)
	}
	note, live, err := step.SendNote(dir, fs.Arg(1))
	if err != nil {
		return &exitError{code: exitRunner, err: err}
	}
	if live {
		fmt.Fprintf(env.stdout, "note %s sent to the running step\n", note.ID)
	} else {
		fmt.Fprintf(env.stdout, "note %s waits for the next start: kusaw-step run --out %s ...\n", note.ID, dir)
	}
	return nil
}

// withPendingNotes adds the notes waiting in the attempt folder dir to the
// request's context.notes, and takes them out of the folder. The returned
// function puts them back unless the step was started and given them.
func withPendingNotes(raw []byte, dir string) ([]byte, func(*step.Record), error) {
	notes, err := step.TakePendingNotes(dir)
	if err != nil || len(notes) == 0 {
		return raw, func(*step.Record) {}, err
	}
	giveBack := func(rec *step.Record) {
		if rec == nil || len(rec.Notes) == 0 {
			_ = step.PendNotes(dir, notes) // best effort: the record says what the step got
		}
	}
	req, err := request.Decode(raw)
	if err == nil {
		req.Context.Notes = append(req.Context.Notes, notes...)
		raw, err = request.Encode(req)
	}
	if err != nil {
		giveBack(nil)
	}
	return raw, giveBack, err
}

// screenOf is where an interactive step's terminal is shown: stdout, or
// stderr when stdout carries the record (--json).
func screenOf(env *cmdEnv, asJSON bool) io.Writer {
	if asJSON {
		return env.stderr
	}
	return env.stdout
}
