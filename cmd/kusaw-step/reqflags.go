package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"kusaw.dev/step/request"
)

// requestFlags are the flags that say which request an attempt gets.
type requestFlags struct {
	file      string
	mode      string
	config    string
	context   string
	worktree  string
	artifacts string
	timeout   time.Duration
	grace     time.Duration
}

func (rf *requestFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&rf.file, "request", "", "a full v2 request `FILE` to hand the step (validated); other request flags are then ignored")
	fs.StringVar(&rf.mode, "mode", "pipeline", "the request's `mode`")
	fs.StringVar(&rf.config, "config", "{}", "the step's config: a JSON object, or @FILE")
	fs.StringVar(&rf.context, "context", "", "the request's context, merged over the mode's sample context: a JSON object, or @FILE (objects merge member by member; other values, null included, replace)")
	fs.StringVar(&rf.worktree, "worktree", "", "the worktree `DIR` (default the current folder; a git checkout fills repos[])")
	fs.StringVar(&rf.artifacts, "artifacts", "", "the artifacts `DIR` (default OUT/artifacts)")
	fs.DurationVar(&rf.timeout, "timeout", 30*time.Minute, "the attempt's time: limits.time_left_ms")
	fs.DurationVar(&rf.grace, "completion-grace", 5*time.Second, "completion_grace_seconds: how long the step may take to exit after its result")
}

// build returns the request's bytes: the file's, exactly, or a synthesized
// request. A request that is not valid is a usage error.
func (rf *requestFlags) build(outDir, stepName string) ([]byte, error) {
	if rf.file != "" {
		raw, _, err := request.Load(rf.file)
		if err != nil {
			return nil, usageErrorf("--request: %v", err)
		}
		return raw, nil
	}
	opts, err := rf.options(outDir, stepName)
	if err != nil {
		return nil, asUsage(err)
	}
	req, err := request.Synthesize(opts)
	if err != nil {
		return nil, usageErrorf("%v", err)
	}
	return request.Encode(req)
}

func (rf *requestFlags) options(outDir, stepName string) (request.Options, error) {
	config, err := rf.configBytes()
	if err != nil {
		return request.Options{}, err
	}
	ctx, err := jsonArg("--context", rf.context)
	if err != nil {
		return request.Options{}, err
	}
	worktree := rf.worktree
	if worktree == "" {
		if worktree, err = os.Getwd(); err != nil {
			return request.Options{}, err
		}
	}
	artifacts := rf.artifacts
	if artifacts == "" {
		artifacts = filepath.Join(outDir, "artifacts")
	}
	if rf.timeout <= 0 {
		return request.Options{}, errors.New("--timeout must be positive")
	}
	return request.Options{
		Mode: rf.mode, Config: config, Context: ctx, Worktree: worktree, ArtifactsDir: artifacts,
		Timeout: rf.timeout, StepName: stepName, CompletionGrace: rf.grace,
	}, nil
}

func (rf *requestFlags) configBytes() ([]byte, error) {
	if name, ok := strings.CutPrefix(rf.config, "@"); ok {
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("--config: %v", err)
		}
		return data, jsonFlag("--config "+rf.config, data)
	}
	return []byte(rf.config), jsonFlag("--config", []byte(rf.config))
}

// jsonArg returns the value of a flag that takes JSON or @FILE.
func jsonArg(flag, value string) ([]byte, error) {
	if name, ok := strings.CutPrefix(value, "@"); ok {
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", flag, err)
		}
		return data, nil
	}
	return []byte(value), nil
}
