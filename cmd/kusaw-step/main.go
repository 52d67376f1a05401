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
	"syscall"

	"kusaw.dev/step/sandbox"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	if err != nil && !errors.Is(err, errSilent) {
		fmt.Fprintf(os.Stderr, "kusaw-step: %v\n", err)
	}
	os.Exit(exitCode(err))
}

// commands maps each subcommand to its function.
var commands = map[string]func(ctx context.Context, env *cmdEnv, args []string) error{
	"conform":   cmdConform,
	"handshake": cmdHandshake,
	"note":      cmdNote,
	"request":   cmdRequest,
	"run":       cmdRun,
	"schema":    cmdSchema,
	"slipway":   cmdSlipway,
	"validate":  cmdValidate,

	sandbox.BridgeCommand:    sandboxHelper(sandbox.BridgeCommand),
	sandbox.SuperviseCommand: sandboxHelper(sandbox.SuperviseCommand),
}

// cmdEnv is what a subcommand may touch of the outside world.
type cmdEnv struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stdout, usage)
		if len(args) == 0 {
			return errSilentUsage
		}
		return nil
	}
	cmd, ok := commands[args[0]]
	if !ok {
		return usageErrorf("unknown command %q; run kusaw-step help", args[0])
	}
	return cmd(ctx, &cmdEnv{stdin: stdin, stdout: stdout, stderr: stderr}, args[1:])
}

// newFlags returns a flag set for a subcommand that reports errors instead
// of exiting.
func newFlags(name string, env *cmdEnv) *flag.FlagSet {
	fs := flag.NewFlagSet("kusaw-step "+name, flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	return fs
}

// parseFlags parses args and turns a flag error into a usage error.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return errSilent
		}
		return &exitError{code: exitUsage, err: errSilent}
	}
	return nil
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
