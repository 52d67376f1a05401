package main

import (
	"context"
	"path/filepath"
)

// cmdRequest prints the request a local run would get.
func cmdRequest(_ context.Context, env *cmdEnv, args []string) error {
	fs := newFlags("request", env)
	var rf requestFlags
	rf.register(fs)
	out := fs.String("out", "", "the attempt folder `DIR` the request's artifacts_dir defaults under")
	name := fs.String("step", "step", "the step's `name`, for step.id and step.name")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usageErrorf("request takes no arguments; see kusaw-step request -h")
	}
	dir := *out
	if dir == "" {
		root, err := runsDir(rf.worktree)
		if err != nil {
			return err
		}
		dir = filepath.Join(root, *name)
	}
	data, err := rf.build(dir, *name)
	if err != nil {
		return err
	}
	_, err = env.stdout.Write(append(data, '\n'))
	return err
}
