package slipway_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"kusaw.dev/step/slipway"
)

// simBin is the simulator executable TestMain builds.
var simBin string

// TestMain runs the test binary in one of three roles: a fake agent
// (argv "fake-agent NAME"), the slipway step itself (SLIPWAY_TEST_ROLE=step,
// so step.Run drives the real step protocol; with SLIPWAY_TEST_INTERACTIVE=1
// the interactive variant, on a pty), or the tests, after building
// the Slipway simulator once.
func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == "fake-agent" {
		os.Exit(fakeAgent(os.Args[2]))
	}
	if len(os.Args) > 1 && os.Args[1] == "fake-claude" {
		os.Exit(fakeClaude(os.Args[2:]))
	}
	if os.Getenv("SLIPWAY_TEST_ROLE") == "step" {
		serve := slipway.Main
		if os.Getenv("SLIPWAY_TEST_INTERACTIVE") == "1" {
			serve = slipway.MainInteractive
		}
		if err := serve(context.Background(), os.Stdin, os.Stdout, os.Stderr, os.Environ()); err != nil {
			fmt.Fprintln(os.Stderr, "slipway step:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "slipsim-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	simBin = filepath.Join(dir, "slipway")
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		goBin = "go"
	}
	cmd := exec.Command(goBin, "build", "-o", simBin, "kusaw.dev/step/internal/slipsim/cmd/slipway")
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build the slipway simulator: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}
