package slipway_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"kusaw.dev/step/conform"
)

// TestConform runs the conformance battery on the slipway step, driving
// the simulator with an agent that completes every Action: the step
// kind must pass every MUST check, like any other step.
func TestConform(t *testing.T) {
	runConform(t, simBin)
}

// TestConformRealCLI runs the battery with the real Slipway CLI: the
// scratch worktree is a Git checkout with one commit, as a factory's is,
// so the real CLI takes it (issue 12, item 4).
func TestConformRealCLI(t *testing.T) {
	if realCLI == "" {
		t.Skip(skipRealCLI)
	}
	runConform(t, realCLI)
}

func runConform(t *testing.T, bin string) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("SLIPWAY_TEST_ROLE", "step") // for the battery's children only: TestMain has run
	t.Setenv("SLIPSIM_ARGV_LOG", "")
	t.Setenv("GORACE", "atexit_sleep_ms=0")
	cfg, _ := json.Marshal(map[string]any{
		"slipway": bin, "agent": []string{exe, "fake-agent", "happy"}, "goal": "Add a greeting.",
	})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	// InheritEnv: the test binary is the step only with SLIPWAY_TEST_ROLE,
	// which the environment run builds would not hand it.
	rep, err := conform.Run(ctx, conform.Options{Command: []string{exe}, Config: cfg, Timeout: 2 * time.Minute, InheritEnv: true})
	if err != nil {
		t.Fatal(err)
	}
	var table strings.Builder
	rep.Write(&table, "table")
	t.Logf("%s", rep.Summary())
	if !rep.Passed() || rep.Count(conform.Pass) < 20 {
		t.Errorf("the slipway step fails the battery, or most of it was skipped: %v\n%s", rep.Failed(), table.String())
	}
}
