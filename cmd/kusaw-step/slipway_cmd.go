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
	switch {
	case len(args) == 0:
		return slipway.Main(ctx, env.stdin, env.stdout, env.stderr, os.Environ())
	case len(args) == 1 && args[0] == "--interactive":
		return slipway.MainInteractive(ctx, env.stdin, env.stdout, env.stderr, os.Environ())
	}
	return usageErrorf("usage: kusaw-step slipway [--interactive] (a step: the request comes on stdin, or in KUSAW_REQUEST)")
}
