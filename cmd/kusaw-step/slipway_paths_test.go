package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"kusaw.dev/step/sandbox"
)

// Issue 12, item 4: for the slipway kind the runner makes the config's
// operator files readable in the sandbox: the binary (and, for a
// symlink, its target), the agent's program and the source file; never
// for another step, never a bare name found on PATH.
func TestSlipwayPathsReadable(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "slipway-1.0.0")
	os.WriteFile(real, []byte("#!/bin/sh\n"), 0o755)
	link := filepath.Join(dir, "slipway")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	cfg, _ := json.Marshal(map[string]any{"slipway": link, "agent": []string{"/opt/agent/run", "--fast"},
		"source_file": filepath.Join(dir, "source.json")})
	req, _ := json.Marshal(map[string]any{"protocol_version": 2, "config": jsontext.Value(cfg)})
	self := []string{"/usr/bin/kusaw-step", "slipway"}

	opts := &sandbox.Options{}
	withSlipwayPaths(opts, self, req)
	want := []string{link, real, "/opt/agent/run", filepath.Join(dir, "source.json")}
	if !slices.Equal(opts.Flags.Readable, want) {
		t.Errorf("readable %q; want %q", opts.Flags.Readable, want)
	}
	opts = &sandbox.Options{}
	withSlipwayPaths(opts, []string{"/usr/bin/other-step"}, req)
	if len(opts.Flags.Readable) != 0 {
		t.Errorf("readable %q for a step that is not the slipway kind; want none", opts.Flags.Readable)
	}
	cfg, _ = json.Marshal(map[string]any{"slipway": "slipway", "agent": []string{"claude"}})
	req, _ = json.Marshal(map[string]any{"protocol_version": 2, "config": jsontext.Value(cfg)})
	opts = &sandbox.Options{}
	withSlipwayPaths(opts, self, req)
	if len(opts.Flags.Readable) != 0 {
		t.Errorf("readable %q for names on PATH; want none", opts.Flags.Readable)
	}
}
