package slipway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"kusaw.dev/step/protocol"
	"kusaw.dev/step/request"
	"kusaw.dev/step/slipway"
)

// fakeClaude plays `claude -p --output-format json`: the prompt on stdin,
// the Outcome (in a fence, as models write it) in its JSON envelope.
func fakeClaude(args []string) int {
	if !slices.Equal(args, []string{"-p", "--output-format", "json"}) {
		fmt.Fprintf(os.Stderr, "fake claude: args %q\n", args)
		return 2
	}
	prompt, _ := io.ReadAll(os.Stdin)
	_, envelope, ok := strings.Cut(string(prompt), "The Action envelope:\n")
	var env slipway.Envelope
	var a slipway.Action
	if !ok || !strings.Contains(string(prompt), "Legal combinations") ||
		json.Unmarshal([]byte(envelope), &env) != nil || json.Unmarshal(env.Action, &a) != nil {
		fmt.Fprintf(os.Stderr, "fake claude: no contract or envelope in the prompt\n")
		return 1
	}
	outcome, _ := json.Marshal(plainOutcome(&a))
	reply, _ := json.Marshal(map[string]any{"type": "result", "is_error": false, "total_cost_usd": 0.02,
		"result": "```json\n" + string(outcome) + "\n```",
		"usage":  map[string]any{"input_tokens": 100, "output_tokens": 20, "cache_read_input_tokens": 7}})
	os.Stdout.Write(reply)
	return 0
}

// TestProviderAgentInPrintMode runs Main in process, as the factory would
// start it with KUSAW_AGENT_PROVIDER (the runner alone strips KUSAW_*).
func TestProviderAgentInPrintMode(t *testing.T) {
	exe, _ := os.Executable()
	root := gitWorktree(t)
	cfg, _ := json.Marshal(map[string]any{"slipway": simBin, "goal": "Add a greeting."})
	req, err := request.Synthesize(request.Options{Config: cfg, Worktree: root,
		ArtifactsDir: filepath.Join(t.TempDir(), "artifacts"), Timeout: 3 * time.Minute, StepName: "slipway"})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := request.Encode(req)
	env := []string{"PATH=" + os.Getenv("PATH"), "GORACE=atexit_sleep_ms=0", "KUSAW_AGENT_PROVIDER=claude-code",
		"KUSAW_CLAUDE_COMMAND=" + exe, `KUSAW_CLAUDE_EXTRA_ARGS=["fake-claude"]`}
	var stdout, stderr bytes.Buffer
	if err := slipway.Main(context.Background(), bytes.NewReader(raw), &stdout, &stderr, env); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	var res protocol.Result
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil {
		t.Fatal(err)
	}
	if res.Status != protocol.StatusOK || res.Cost == nil || *res.Cost.TokensInput != 500 || res.Cost.USD == nil {
		t.Fatalf("result %s; want ok with the provider's usage summed over five actions\nstderr: %s", lines[len(lines)-1], stderr.String())
	}
	if !strings.Contains(stdout.String(), `"type":"usage","provider":"claude-code"`) {
		t.Errorf("no claude-code usage event in %s", stdout.String())
	}
}

func TestHandshake(t *testing.T) {
	var out bytes.Buffer
	if err := slipway.Main(context.Background(), strings.NewReader(""), &out, io.Discard, []string{"KUSAW_HANDSHAKE=1"}); err != nil {
		t.Fatal(err)
	}
	var hs protocol.Handshake
	if err := json.Unmarshal(out.Bytes(), &hs); err != nil || hs.Name != "slipway" || !hs.Speaks(2) || hs.Interactive {
		t.Fatalf("handshake %s (%v)", out.Bytes(), err)
	}
	if strings.Count(out.String(), "\n") != 1 {
		t.Errorf("handshake %q: want exactly one line", out.String())
	}
}
