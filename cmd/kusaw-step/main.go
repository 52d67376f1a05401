package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"

	"kusaw.dev/step/sandbox"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == sandbox.InitCommand {
		// The sandbox's init: its exit status is the step's, whatever
		// signal it caught (see sandbox.RunInit).
		code, _ := sandbox.RunHelper(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
		os.Exit(code)
	}
	ctx, caught := cancelOnSignal(context.Background())
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	if err != nil && !errors.Is(err, errSilent) {
		fmt.Fprintf(os.Stderr, "kusaw-step: %v\n", err)
	}
	os.Exit(signalExit(exitCode(err), caught()))
}

// cancelOnSignal returns a context cancelled by the first SIGINT or
// SIGTERM, and a function that tells which signal came, if any. Later
// signals are caught too: the attempt is already stopping the step.
func cancelOnSignal(parent context.Context) (context.Context, func() os.Signal) {
	ctx, cancel := context.WithCancel(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	var got atomic.Value
	go func() {
		s := <-ch
		got.Store(s)
		cancel()
		for range ch {
		}
	}()
	return ctx, func() os.Signal {
		s, _ := got.Load().(os.Signal)
		return s
	}
}

// signalExit is the exit status of a command that a signal cancelled: as
// shells have it, 128 plus the signal's number (130 for Ctrl-C, 143 for
// SIGTERM), unless the command still succeeded.
func signalExit(code int, sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok && code != exitOK {
		return 128 + int(s)
	}
	return code
}

// commands maps each subcommand to its function. Each one's help is in
// helps (help.go), and commandOrder lists the ones people run.
var commands map[string]func(ctx context.Context, env *cmdEnv, args []string) error

func init() {
	commands = map[string]func(ctx context.Context, env *cmdEnv, args []string) error{
		"completion": cmdCompletion,
		"conform":    cmdConform,
		"handshake":  cmdHandshake,
		"help":       cmdHelp,
		"ls":         cmdLs,
		"note":       cmdNote,
		"request":    cmdRequest,
		"run":        cmdRun,
		"schema":     cmdSchema,
		"show":       cmdShow,
		"slipway":    cmdSlipway,
		"validate":   cmdValidate,
		"version":    cmdVersion,

		sandbox.BridgeCommand:    sandboxHelper(sandbox.BridgeCommand),
		sandbox.SuperviseCommand: sandboxHelper(sandbox.SuperviseCommand),
	}
}

// cmdEnv is what a subcommand may touch of the outside world.
type cmdEnv struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	flags          *flag.FlagSet // the command's flags, once newFlags made them
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	env := &cmdEnv{stdin: stdin, stdout: stdout, stderr: stderr}
	switch {
	case len(args) == 0:
		fmt.Fprint(stderr, usage)
		return errSilentUsage
	case args[0] == "-h" || args[0] == "-help" || args[0] == "--help":
		return cmdHelp(ctx, env, args[1:])
	case args[0] == "-version" || args[0] == "--version":
		return cmdVersion(ctx, env, args[1:])
	}
	cmd, ok := commands[args[0]]
	if !ok {
		if strings.HasPrefix(args[0], "-") {
			return usageErrorf("unknown flag %s; see kusaw-step --help", dashes(args[0]))
		}
		return usageErrorf("unknown command %q; see kusaw-step --help", args[0])
	}
	return cmd(ctx, env, args[1:])
}

// newFlags returns the flag set of a subcommand: parseFlags reports its
// errors in one line, and prints its help (help.go) on -h or --help.
func newFlags(name string, env *cmdEnv) *flag.FlagSet {
	fs := flag.NewFlagSet("kusaw-step "+name, flag.ContinueOnError)
	fs.SetOutput(flagOut{env: env})
	fs.Usage = func() {}
	env.flags = fs
	return fs
}

// parseFlags parses args. -h or --help prints the command's help on
// stdout and returns errHelped (exit status 0); any other flag error is
// one line on stderr and exit status 2.
func parseFlags(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		printHelp(envOf(fs).stdout, fs)
		return errHelped
	}
	fmt.Fprintln(envOf(fs).stderr, flagError(fs, err))
	return &exitError{code: exitUsage, err: errSilent}
}

// listFlag is a repeatable flag whose values may also be comma-separated.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	for s := range strings.SplitSeq(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}
