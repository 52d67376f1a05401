// Hello is a small step of the Kusaw step protocol v2, written in Go with
// package stepkit: it reports progress and usage, publishes an artifact and
// returns a greeting.
//
// Run it with: kusaw-step run bin/hello --config '{"name":"Ada"}'
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"kusaw.dev/step/protocol"
	"kusaw.dev/step/stepkit"
)

// hello is this step: its handshake and what it does.
var hello = &stepkit.Program{
	Handshake: protocol.Handshake{
		Name: "hello", Version: "1.0.0",
		Description: "Greets someone, with progress, usage and an artifact.",
		OutputsSchema: jsontext.Value(`{"type":"object","required":["greeting"],` +
			`"properties":{"greeting":{"type":"string"}}}`),
	},
	Run: greet,
}

func main() {
	// SIGTERM cancels ctx; greet then stops at its next wait.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := hello.Main(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "hello:", err) // logs go to stderr
		os.Exit(1)
	}
}

// config is this step's config.
type config struct {
	Name  string `json:"name"`
	Delay string `json:"delay"` // between progress events, e.g. "200ms"
}

func greet(ctx context.Context, s *stepkit.Step) (*protocol.Result, error) {
	var cfg config
	if err := s.Config(&cfg); err != nil {
		return stepkit.Fail("bad_config", err.Error()), nil
	}
	name := cfg.Name
	if name == "" {
		name = "world"
	}
	delay, _ := time.ParseDuration(cfg.Delay)
	for i, msg := range []string{"reading the request", "choosing words", "writing the greeting"} {
		if err := s.Progress(msg, float64(i)*40); err != nil {
			return nil, err
		}
		if err := sleep(ctx, delay); err != nil {
			return nil, err
		}
	}
	greeting := "hello, " + name
	artifact := protocol.Artifact{Path: "greeting.txt", Kind: "log", Title: "The greeting"}
	if err := s.WriteArtifact(artifact, []byte(greeting+"\n")); err != nil {
		return nil, err
	}
	if err := s.Emit(usage()); err != nil {
		return nil, err
	}
	if err := s.Progress("done", 100); err != nil {
		return nil, err
	}
	res, err := stepkit.OK("greeted", greeting, map[string]string{"greeting": greeting})
	if res != nil {
		res.Artifacts = []protocol.Artifact{{Path: "greeting.txt", Kind: "log"}}
	}
	return res, err
}

// usage is what greeting someone costs.
func usage() *protocol.Usage {
	in, out, cost, source := int64(12), int64(3), 0.0001, "computed"
	return &protocol.Usage{TokensInput: &in, TokensOutput: &out, CostUSD: &cost, CostSource: &source}
}

// sleep waits d, or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}
