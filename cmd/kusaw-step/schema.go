package main

import (
	"context"
	"strings"

	step "kusaw.dev/step"
	"kusaw.dev/step/schemas"
)

// cmdSchema prints one embedded schema, or with --doc the whole reference.
func cmdSchema(_ context.Context, env *cmdEnv, args []string) error {
	fs := newFlags("schema", env)
	doc := fs.Bool("doc", false, "print the whole reference: every field table, rendered from the schemas")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case *doc && fs.NArg() == 0:
		return schemas.Doc(env.stdout)
	case !*doc && fs.NArg() == 1 && fs.Arg(0) == "attempt":
		_, err := env.stdout.Write(step.RecordSchema)
		return err
	case !*doc && fs.NArg() == 1:
		src, err := schemas.Source(fs.Arg(0))
		if err != nil {
			return usageErrorf("%v", err)
		}
		_, err = env.stdout.Write(src)
		return err
	}
	return usageErrorf("usage: kusaw-step schema --doc | kusaw-step schema KIND\nkinds: attempt (the attempt record), %s", strings.Join(schemas.Kinds(), ", "))
}
