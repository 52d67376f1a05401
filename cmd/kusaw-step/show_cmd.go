package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/go-json-experiment/json"

	step "kusaw.dev/step"
	"kusaw.dev/step/attemptdir"
)

// cmdShow shows a finished attempt again as its run ended: kusaw-step show
// [--json] OUT. A running or unfinished attempt is said to be one.
func cmdShow(_ context.Context, env *cmdEnv, args []string) error {
	fs := newFlags("show", env)
	asJSON := fs.Bool("json", false, "print the attempt record, as run --json did")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErrorf("usage: kusaw-step show [--json] OUT_DIR")
	}
	f, err := readFolder(fs.Arg(0))
	if err != nil {
		return err
	}
	if f.State != attemptdir.Finished {
		return failed(fmt.Errorf("%s: %s", f.Dir, stateText(f)))
	}
	if *asJSON {
		_, err := env.stdout.Write(f.Record)
		return err
	}
	rec, err := decodeRecord(f)
	if err != nil {
		return failed(err)
	}
	fmt.Fprintf(env.stdout, "%s — %s, mode %s, started %s\n", stepLabel(rec), f.Dir, modeOf(f), stamp(rec.StartedAt))
	fmt.Fprintln(env.stdout)
	writeVerdict(env.stdout, rec, f.Dir)
	return nil
}

// cmdLs lists the attempts in a runs folder, newest first: kusaw-step ls
// [DIR].
func cmdLs(_ context.Context, env *cmdEnv, args []string) error {
	fs := newFlags("ls", env)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 1 {
		return usageErrorf("usage: kusaw-step ls [DIR]")
	}
	root := fs.Arg(0)
	if root == "" {
		var err error
		if root, err = runsDir(""); err != nil {
			return err
		}
	}
	list, err := attemptdir.List(root)
	if errors.Is(err, os.ErrNotExist) && fs.NArg() == 0 {
		fmt.Fprintf(env.stdout, "no attempts in %s yet\n", root)
		return nil
	}
	if list == nil && err != nil {
		return usageErrorf("%v", err)
	}
	rows := make([]lsRow, 0, len(list))
	for _, f := range list {
		rows = append(rows, newRow(f))
	}
	sortRows(rows)
	writeRows(env.stdout, rows)
	if err != nil {
		fmt.Fprintf(env.stderr, "kusaw-step: %v\n", err)
	}
	return nil
}

// readFolder reads an attempt folder; a path that is none is a usage
// error.
func readFolder(dir string) (*attemptdir.Folder, error) {
	f, err := attemptdir.Read(dir)
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, attemptdir.ErrNotAttempt) {
		return nil, usageErrorf("%v", err)
	}
	return f, err
}

func decodeRecord(f *attemptdir.Folder) (*step.Record, error) {
	var rec step.Record
	if err := json.Unmarshal(f.Record, &rec); err != nil {
		return nil, fmt.Errorf("%s: %v", f.Path(attemptdir.Record), err)
	}
	return &rec, nil
}

// stateText says what became of an attempt without a record.
func stateText(f *attemptdir.Folder) string {
	switch f.State {
	case attemptdir.Running:
		return fmt.Sprintf("the attempt is running (runner pid %d, started %s); see it when it ends", f.PID, stamp(f.Started))
	case attemptdir.Unfinished:
		return fmt.Sprintf("the attempt is unfinished: its runner (pid %d, started %s) ended without writing the record, killed or crashed; its logs are in the folder", f.PID, stamp(f.Started))
	}
	return "no attempt yet"
}

// stepLabel is name@version, or the program's name when the step never
// said who it is.
func stepLabel(rec *step.Record) string {
	if rec.Step.Name != "" {
		return rec.Step.Name + "@" + rec.Step.Version
	}
	if len(rec.Step.Command) > 0 {
		return filepath.Base(rec.Step.Command[0])
	}
	return "?"
}

// requestHead is what ls and show read of an attempt's request.
type requestHead struct {
	Mode string `json:"mode"`
	Step struct {
		Name string `json:"name"`
	} `json:"step"`
}

func readHead(f *attemptdir.Folder) requestHead {
	var req requestHead
	_ = json.Unmarshal(f.Request, &req) // a missing or odd request shows as "?"
	return req
}

// modeOf is the mode of the attempt's request, or "?".
func modeOf(f *attemptdir.Folder) string {
	return or(readHead(f).Mode, "?")
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "?"
	}
	return t.UTC().Format("2006-01-02 15:04:05Z")
}

// lsRow is one attempt in kusaw-step ls.
type lsRow struct {
	started                        time.Time
	step, mode, verdict, took, use string
	dir                            string
}

func newRow(f *attemptdir.Folder) lsRow {
	r := lsRow{started: f.Started, step: or(readHead(f).Step.Name, "?"), mode: modeOf(f), verdict: string(f.State), took: "-", use: "-", dir: filepath.Base(f.Dir)}
	if f.State != attemptdir.Finished {
		return r
	}
	rec, err := decodeRecord(f)
	if err != nil {
		r.verdict = "unreadable record"
		return r
	}
	r.started, r.step = rec.StartedAt, stepLabel(rec)
	r.verdict = rec.Status + " (" + rec.ReasonCode + ")"
	r.took = durationText(time.Duration(rec.DurationMS) * time.Millisecond)
	r.use = or(usageText(rec), "-")
	return r
}

// sortRows puts the newest attempt first; the record's start time may
// differ from the folder's, so List's order is not enough.
func sortRows(rows []lsRow) {
	slices.SortStableFunc(rows, func(a, b lsRow) int { return b.started.Compare(a.started) })
}

func writeRows(w io.Writer, rows []lsRow) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STARTED\tSTEP\tMODE\tVERDICT\tDURATION\tUSAGE\tFOLDER")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", stamp(r.started), r.step, r.mode, r.verdict, r.took, r.use, r.dir)
	}
	tw.Flush()
}
