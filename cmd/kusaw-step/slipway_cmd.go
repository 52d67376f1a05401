package main

import (
	"context"
	"os"

	"kusaw.dev/step/slipway"
)

// cmdSlipway is the slipway step kind: a conforming step that hosts a
// Slipway Run (see package slipway). The runner starts it as
// `kusaw-step slipway`; it takes no arguments of its own.
func cmdSlipway(ctx context.Context, env *cmdEnv, args []string) error {
	if len(args) > 0 {
		return usageErrorf("usage: kusaw-step slipway (a step: the request comes on stdin)")
	}
	return slipway.Main(ctx, env.stdin, env.stdout, env.stderr, os.Environ())
}
