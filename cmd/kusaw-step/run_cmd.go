package main

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
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
	var sf sandboxFlags
	sf.register(fs)
	kind := fs.String("kind", "", "run a built-in step `KIND` instead of a STEP command: slipway")
	out := fs.String("out", "", "the attempt folder `DIR`, new or empty (default RUNS/STEP-TIME; see README, Attempt folders)")
	force := fs.Bool("force", false, "replace the earlier attempt in a non-empty --out")
	after := fs.String("after", "", "the previous attempt's folder `PREV_OUT`: its pending notes and its request's step.attempt + 1 carry over")
	grace := fs.Duration("grace", step.DefaultGrace, "how long the step has between SIGTERM and SIGKILL")
	hsTimeout := fs.Duration("handshake-timeout", step.DefaultHandshakeTimeout, "how long the handshake may take")
	keepGoing := fs.Bool("keep-going", false, "let the step run on after a protocol error, to collect every problem")
	asJSON := fs.Bool("json", false, "print the attempt record on stdout, and nothing else")
	level := fs.String("log-level", "warn", "the runner's own diagnostics on stderr: debug, info, warn, error")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	command, err := stepCommand(*kind, fs.Args(), isTerminal(env.stdin))
	if err != nil {
		return err
	}
	sandboxing, err := sf.options()
	if err != nil {
		return err
	}
	log, err := newLogger(env.stderr, *level)
	if err != nil {
		return err
	}
	dir, err := outDir(*out, stepName(command), rf.worktree)
	if err != nil {
		return err
	}
	req, err := rf.build(dir, stepName(command))
	if err != nil {
		return err
	}
	withSlipwayPaths(sandboxing, command, req)
	if err := proc.BecomeSubreaper(); err != nil && !errors.Is(err, proc.ErrUnsupported) {
		log.Warn().Err(err).Msg("cannot become a child subreaper; orphans of the step may outlive it")
	}
	v := newView(env.stdout, *asJSON)
	defer v.stop()
	tty, restore := newTerminal(env.stdin, screenOf(env, *asJSON))
	defer restore()
	rec, err := step.Run(ctx, step.Attempt{
		Command: command, Request: req, OutDir: dir, Force: *force, After: *after, Grace: *grace, Sandbox: sandboxing,
		HandshakeTimeout: *hsTimeout, KeepGoing: *keepGoing, Observer: v.observer(), Log: log, Terminal: tty,
	})
	v.stop()
	if err != nil {
		return runError(err)
	}
	return show(env, v, rec, dir, *asJSON)
}

// show prints the verdict, or with --json the record, and turns a verdict
// other than ok into exit status 1.
func show(env *cmdEnv, v *view, rec *step.Record, dir string, asJSON bool) error {
	if asJSON {
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

// stepCommand returns the step's argv: the arguments, or for --kind
// slipway this binary's own slipway step, interactive when the runner's
// stdin is a terminal (a person is there to answer its pauses).
func stepCommand(kind string, args []string, interactive bool) ([]string, error) {
	switch {
	case kind == "" && len(args) > 0:
		return args, nil
	case kind == "":
		return nil, usageErrorf("usage: kusaw-step run [flags] (STEP [ARG...] | --kind slipway)")
	case kind != "slipway" || len(args) > 0:
		return nil, usageErrorf("--kind %q: want --kind slipway, and no STEP", kind)
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	if interactive {
		return []string{self, "slipway", "--interactive"}, nil
	}
	return []string{self, "slipway"}, nil
}

// stepName names the step for its request and attempt folder: the
// program's base name, or "slipway".
func stepName(command []string) string {
	if isSlipwayKind(command) {
		return "slipway"
	}
	return filepath.Base(command[0])
}

// isSlipwayKind reports whether command is one stepCommand gives for
// --kind slipway: SELF slipway [--interactive].
func isSlipwayKind(command []string) bool {
	switch len(command) {
	case 2:
		return command[1] == "slipway"
	case 3:
		return command[1] == "slipway" && command[2] == "--interactive"
	}
	return false
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

// isTerminal reports whether the stdin or stdout (or stderr) it is given is
// a terminal.
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
