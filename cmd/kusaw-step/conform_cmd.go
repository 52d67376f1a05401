package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"kusaw.dev/step/conform"
	"kusaw.dev/step/internal/proc"
)

// cmdConform runs the conformance battery on a step and reports check by
// check. It exits 0 when no MUST check failed.
func cmdConform(ctx context.Context, env *cmdEnv, args []string) error {
	fs := newFlags("conform", env)
	var cf conformFlags
	cf.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageErrorf("usage: kusaw-step conform [flags] STEP [ARG...]")
	}
	o, err := cf.options(fs.Args())
	if err != nil {
		return err
	}
	if err := proc.BecomeSubreaper(); err != nil && !errors.Is(err, proc.ErrUnsupported) {
		fmt.Fprintf(env.stderr, "kusaw-step: cannot become a child subreaper (%v); orphans of the step may make it look slow to stop\n", err)
	}
	if o.Explore > 0 {
		o.Progress = exploreProgress(env.stderr)
	}
	rep, err := conform.Run(ctx, o)
	if rep != nil && rep.Explore != nil {
		fmt.Fprintf(env.stderr, "explore: seed %d; repeat with --seed %d\n", rep.Explore.Seed, rep.Explore.Seed)
	}
	if errors.Is(err, conform.ErrSelection) {
		return usageErrorf("%v", err)
	}
	if err != nil {
		return &exitError{code: exitRunner, err: err}
	}
	if err := writeReport(env.stdout, rep, cf.format, cf.file); err != nil {
		return &exitError{code: exitRunner, err: err}
	}
	if !rep.Passed() {
		return &exitError{code: exitFailed, err: errSilent}
	}
	return nil
}

// conformFlags are conform's flags.
type conformFlags struct {
	o                    conform.Options
	focus, skip, modes   listFlag
	answers              []string
	format, file, config string
}

func (cf *conformFlags) register(fs *flag.FlagSet) {
	fs.Var(&cf.focus, "focus", "run only the checks `IDS` match: ids, prefixes (HS, AT) or globs, comma-separated; repeatable")
	fs.Var(&cf.skip, "skip", "leave out the checks `IDS` match; repeatable")
	fs.Var(&cf.modes, "mode", "also run the attempt checks in `MODE` (pipeline always runs, and the atlas modes the features list); repeatable")
	fs.Func("answer", "tell an interactive step `TEXT` on its terminal, one line; repeatable", func(v string) error {
		cf.answers = append(cf.answers, v)
		return nil
	})
	fs.StringVar(&cf.format, "report", "table", "the report `FORMAT`: table, json, junit or tap")
	fs.StringVar(&cf.file, "report-file", "", "write the report to `FILE`, and the table to stdout")
	fs.StringVar(&cf.config, "config", "{}", "the step's config: a JSON object, or @FILE")
	fs.DurationVar(&cf.o.HandshakeTimeout, "handshake-timeout", conform.DefaultHandshakeTimeout, "how long each handshake may take")
	fs.DurationVar(&cf.o.Timeout, "timeout", conform.DefaultTimeout, "each attempt's time: limits.time_left_ms")
	fs.DurationVar(&cf.o.Grace, "grace", conform.DefaultGrace, "how long the step has between SIGTERM and SIGKILL")
	fs.DurationVar(&cf.o.CompletionGrace, "completion-grace", conform.DefaultCompletionGrace, "completion_grace_seconds of the requests")
	fs.StringVar(&cf.o.Sandbox, "sandbox", "auto", "the sandbox of the handshakes and attempts, as run's: auto, bwrap, seatbelt or off")
	fs.BoolVar(&cf.o.InheritEnv, "inherit-env", false, "run the handshakes and attempts unsandboxed with this environment, not the one run builds (a step may then pass here and fail under run)")
	fs.StringVar(&cf.o.Scratch, "keep", "", "work in `DIR` and keep it (worktrees, artifacts, attempt folders, explore findings); default a temporary folder")
	fs.IntVar(&cf.o.Explore, "explore", 0, "after the battery, run `N` attempts on requests generated from the request schema (checks EX-001, EX-002)")
	fs.Uint64Var(&cf.o.Seed, "seed", 0, "the `SEED` of --explore's requests; the same seed gives the same requests (default random, printed)")
}

// options returns the battery's options for the step argv, or a usage
// error.
func (cf *conformFlags) options(argv []string) (conform.Options, error) {
	if !slices.Contains(conform.Formats, cf.format) {
		return cf.o, usageErrorf("--report %q: want one of %s", cf.format, strings.Join(conform.Formats, ", "))
	}
	cfg, err := configFlag(cf.config)
	if err != nil {
		return cf.o, asUsage(err)
	}
	o := cf.o
	o.Command, o.Modes, o.Config, o.Answers = argv, cf.modes, cfg, cf.answers
	o.Selection = conform.Selection{Focus: cf.focus, Skip: cf.skip}
	if o.Explore < 0 {
		return o, usageErrorf("--explore %d: want a number of attempts, 0 or more", o.Explore)
	}
	return o, nil
}

// writeReport writes the report in format to file, and the table to
// stdout; with no file, the report in format to stdout.
func writeReport(stdout io.Writer, rep *conform.Report, format, file string) error {
	if file == "" {
		return rep.Write(stdout, format)
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if err := rep.Write(f, format); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return rep.Write(stdout, "table")
}

// configFlag returns the config: the text itself, or the file's after @.
func configFlag(v string) ([]byte, error) {
	if name, ok := strings.CutPrefix(v, "@"); ok {
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("--config: %v", err)
		}
		return data, jsonFlag("--config "+v, data)
	}
	return []byte(v), jsonFlag("--config", []byte(v))
}

// exploreProgress returns the progress line of --explore: rewritten in
// place on a terminal, else a line at every tenth of the way.
func exploreProgress(w io.Writer) func(done, total, findings int) {
	tty, last := isTerminal(w), 0
	return func(done, total, findings int) {
		line := fmt.Sprintf("explore: %d/%d attempts, %d findings", done, total, findings)
		switch {
		case tty:
			fmt.Fprintf(w, "\r\033[K%s", line)
			if done == total || findings > 0 {
				fmt.Fprintln(w)
			}
		case done*10/total > last || done == total || findings > 0:
			last = done * 10 / total
			fmt.Fprintln(w, line)
		}
	}
}
