package main

import (
	"context"
	"os"

	"kusaw.dev/step/slipway"
)

// cmdSlipway is the slipway step kind: a conforming step that hosts a
// Slipway Run (see package slipway). The runner starts it as
// `kusaw-step slipway`, or `kusaw-step slipway --interactive` for the
// interactive step that asks a person on its terminal when the Run pauses;
// it takes no other arguments.
func cmdSlipway(ctx context.Context, env *cmdEnv, args []string) error {
	fs := newFlags("slipway", env)
	interactive := fs.Bool("interactive", false, "ask a person on the terminal when the Run pauses (an interactive step: the request is in KUSAW_REQUEST)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case fs.NArg() != 0:
		return usageErrorf("usage: kusaw-step slipway [--interactive] (a step: the request comes on stdin, or in KUSAW_REQUEST)")
	case *interactive:
		return slipway.MainInteractive(ctx, env.stdin, env.stdout, env.stderr, os.Environ())
	}
	return slipway.Main(ctx, env.stdin, env.stdout, env.stderr, os.Environ())
}
