package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/term"

	step "kusaw.dev/step"
	"kusaw.dev/step/internal/proc"
)

// cmdRun runs one attempt and shows it.
func cmdRun(ctx context.Context, env *cmdEnv, args []string) error {
	fs := newFlags("run", env)
	var rf requestFlags
	rf.register(fs)
	out := fs.String("out", "", "the attempt folder `DIR` (default kusaw-runs/STEP-TIME)")
	grace := fs.Duration("grace", step.DefaultGrace, "how long the step has between SIGTERM and SIGKILL")
	hsTimeout := fs.Duration("handshake-timeout", step.DefaultHandshakeTimeout, "how long the handshake may take")
	keepGoing := fs.Bool("keep-going", false, "let the step run on after a protocol error, to collect every problem")
	asJSON := fs.Bool("json", false, "print the attempt record on stdout, and nothing else")
	level := fs.String("log-level", "warn", "the runner's own diagnostics on stderr: debug, info, warn, error")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageErrorf("usage: kusaw-step run [flags] STEP [ARG...]")
	}
	log, err := newLogger(env.stderr, *level)
	if err != nil {
		return err
	}
	dir, err := outDir(*out, fs.Arg(0))
	if err != nil {
		return err
	}
	req, err := rf.build(dir, filepath.Base(fs.Arg(0)))
	if err != nil {
		return err
	}
	req, giveBack, err := withPendingNotes(req, dir)
	if err != nil {
		return &exitError{code: exitRunner, err: fmt.Errorf("pending notes: %w", err)}
	}
	if err := proc.BecomeSubreaper(); err != nil && !errors.Is(err, proc.ErrUnsupported) {
		log.Warn().Err(err).Msg("cannot become a child subreaper; orphans of the step may outlive it")
	}
	v := newView(env.stdout, *asJSON)
	defer v.stop()
	tty, restore := newTerminal(env.stdin, screenOf(env, *asJSON))
	defer restore()
	rec, err := step.Run(ctx, step.Attempt{
		Command: fs.Args(), Request: req, OutDir: dir, Grace: *grace,
		HandshakeTimeout: *hsTimeout, KeepGoing: *keepGoing, Observer: v.observer(), Log: log, Terminal: tty,
	})
	v.stop()
	giveBack(rec)
	if err != nil {
		return &exitError{code: exitRunner, err: err}
	}
	if *asJSON {
		if err := printJSON(env, rec); err != nil {
			return err
		}
	} else {
		v.verdict(rec, dir)
	}
	if rec.Status != "ok" {
		return &exitError{code: exitFailed, err: errSilent}
	}
	return nil
}

// outDir returns the attempt folder: the one given, or a new one under
// kusaw-runs named for the step and the time.
func outDir(given, stepPath string) (string, error) {
	if given != "" {
		return filepath.Abs(given)
	}
	name := strings.TrimSuffix(filepath.Base(stepPath), filepath.Ext(stepPath))
	stamp := time.Now().UTC().Format("20060102T150405.000Z")
	return filepath.Abs(filepath.Join("kusaw-runs", name+"-"+strings.ReplaceAll(stamp, ".", "")))
}

// newLogger returns the runner's own logger: console lines on a terminal,
// JSON otherwise.
func newLogger(w io.Writer, level string) (zerolog.Logger, error) {
	lvl, err := zerolog.ParseLevel(level)
	if err != nil || level == "" {
		return zerolog.Nop(), usageErrorf("--log-level %q: want debug, info, warn or error", level)
	}
	if isTerminal(w) {
		w = zerolog.ConsoleWriter{Out: w, TimeFormat: time.TimeOnly}
	}
	return zerolog.New(w).Level(lvl).With().Timestamp().Logger(), nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
