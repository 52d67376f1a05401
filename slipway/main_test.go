package slipway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

	"kusaw.dev/step/slipway"
)

// simBin is the simulator executable TestMain builds.
var simBin string

// realBinEnv names the real Slipway CLI binary the real-CLI tests run.
const realBinEnv = "KUSAW_SLIPWAY_BIN"

// realCLI is the real Slipway CLI (KUSAW_SLIPWAY_BIN), or "" when there
// is none; recorderBin is the test binary, linked as "slipway", that logs
// each argv and then runs the real CLI in its place.
var realCLI, recorderBin string

// recorderEnv passes the real CLI to the recorder through the step's
// environment (the runner keeps no KUSAW_ variable it does not set).
const recorderEnv = "SLIPWAY_TEST_REAL_BIN"

const skipRealCLI = "no real Slipway CLI: set " + realBinEnv + " to a built slipway binary to run the real-CLI tests " +
	"(git clone https://github.com/signalridge/slipway && cd slipway && go build -o /tmp/slipway . ; see README)"

// TestMain runs the test binary in one of three roles: a fake agent
// (argv "fake-agent NAME"), the slipway step itself (SLIPWAY_TEST_ROLE=step,
// so step.Run drives the real step protocol; with SLIPWAY_TEST_INTERACTIVE=1
// the interactive variant, on a pty), or the tests, after building
// the Slipway simulator once.
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == "slipway" {
		os.Exit(recordThenExec(os.Args[1:]))
	}
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
		// As kusaw-step does: SIGINT and SIGTERM cancel the Run's context.
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		if err := serve(ctx, os.Stdin, os.Stdout, os.Stderr, os.Environ()); err != nil {
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
	if realCLI = os.Getenv(realBinEnv); realCLI != "" {
		if realCLI, err = filepath.Abs(realCLI); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		exe, _ := os.Executable()
		recorderBin = filepath.Join(dir, "recorder", "slipway")
		if err := os.MkdirAll(filepath.Dir(recorderBin), 0o755); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		// A person's command (an answer, a stop) runs the recorder too.
		os.Setenv(recorderEnv, realCLI)
		if err := os.Symlink(exe, recorderBin); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return m.Run()
}

// recordThenExec is the recorder's role: append argv to SLIPSIM_ARGV_LOG,
// as the simulator does, then become the real CLI.
func recordThenExec(args []string) int {
	if log := os.Getenv("SLIPSIM_ARGV_LOG"); log != "" {
		data, _ := json.Marshal(args)
		f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err == nil {
			f.Write(append(data, '\n'))
			f.Close()
		}
	}
	bin := os.Getenv(recorderEnv)
	if err := syscall.Exec(bin, append([]string{bin}, args...), os.Environ()); err != nil {
		fmt.Fprintf(os.Stderr, "slipway recorder: exec %s: %v\n", bin, err)
	}
	return 1
}
