package slipway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"kusaw.dev/step/protocol"
)

// ErrAgent is wrapped by every error an agent call returns: the agent could
// not be started, failed, or said nothing usable.
var ErrAgent = errors.New("agent failed")

// UsageFileEnv names the file a config.agent command may write its usage to
// (a JSON object with tokens_input, tokens_output, cost_usd, model), read
// after each call and reported as a usage event.
const UsageFileEnv = "KUSAW_SLIPWAY_USAGE_FILE"

// agent calls the model for one Action.
type agent struct {
	argv     []string // the command; for a provider, its print-mode argv
	provider string   // "" for config.agent, else claude-code or cursor
	env      []string
	dir      string
	tmp      string // a private folder for the usage file
}

// newAgent returns config.agent, or the provider CLI env names.
func newAgent(cfg *Config, env []string, dir, tmp string) (*agent, error) {
	a := &agent{env: env, dir: dir, tmp: tmp}
	if len(cfg.Agent) > 0 {
		a.argv = cfg.Agent
		return a, nil
	}
	a.provider = lookupEnv(env, "KUSAW_AGENT_PROVIDER")
	var prefix, fallback string
	switch a.provider {
	case "claude-code":
		prefix, fallback = "KUSAW_CLAUDE", "claude"
	case "cursor":
		prefix, fallback = "KUSAW_CURSOR", "cursor-agent"
	case "":
		return nil, fmt.Errorf("%w: no config.agent and no KUSAW_AGENT_PROVIDER", ErrConfig)
	default:
		return nil, fmt.Errorf("%w: KUSAW_AGENT_PROVIDER %q: want claude-code or cursor", ErrConfig, a.provider)
	}
	bin := lookupEnv(env, prefix+"_COMMAND")
	if bin == "" {
		bin = fallback
	}
	var extra []string
	if raw := lookupEnv(env, prefix+"_EXTRA_ARGS"); raw != "" {
		if err := json.Unmarshal([]byte(raw), &extra); err != nil {
			return nil, fmt.Errorf("%w: %s_EXTRA_ARGS: want a JSON array of strings: %v", ErrConfig, prefix, err)
		}
	}
	a.argv = append(append([]string{bin}, extra...), "-p", "--output-format", "json")
	return a, nil
}

// ask hands the agent one Action envelope and returns its Outcome bytes
// and, when it reported any, its usage.
func (a *agent) ask(ctx context.Context, envelope []byte) ([]byte, *protocol.Usage, error) {
	input := envelope
	if a.provider != "" {
		input = []byte(prompt(envelope))
	}
	usageFile := filepath.Join(a.tmp, "usage.json")
	os.Remove(usageFile)
	cmd := exec.CommandContext(ctx, a.argv[0], a.argv[1:]...)
	cmd.Dir, cmd.Env = a.dir, append(append([]string(nil), a.env...), UsageFileEnv+"="+usageFile)
	cmd.Stdin = bytes.NewReader(input)
	cmd.WaitDelay = 5 * time.Second
	stdout := &capped{max: MaxOutcomeBytes + 1}
	stderr := &capped{max: 8 << 10}
	if a.provider != "" {
		stdout.max = maxReply
	}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		if sig, ok := stoppedBy(err); ok {
			// The runner stops the whole process group: the agent may
			// see SIGTERM before this step does. It is an interruption,
			// not an agent failure.
			return nil, nil, fmt.Errorf("%w: the agent was stopped by %v", context.Canceled, sig)
		}
		return nil, nil, fmt.Errorf("%w: %s: %v: %s", ErrAgent, a.argv[0], err, tail(stderr.buf.Bytes()))
	}
	if a.provider != "" {
		return providerOutcome(stdout.buf.Bytes())
	}
	return stdout.buf.Bytes(), readUsage(usageFile), nil
}

// stoppedBy reports the signal that ended a process, when it was
// SIGINT or SIGTERM: a stop, not a crash.
func stoppedBy(err error) (os.Signal, bool) {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return nil, false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || (ws.Signal() != syscall.SIGINT && ws.Signal() != syscall.SIGTERM) {
		return nil, false
	}
	return ws.Signal(), true
}

func isStop(err error) bool {
	_, ok := stoppedBy(err)
	return ok
}

// readUsage reads a config.agent's usage file, if it wrote a valid one.
func readUsage(path string) *protocol.Usage {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var u struct {
		Model        *string  `json:"model"`
		TokensInput  *int64   `json:"tokens_input"`
		TokensOutput *int64   `json:"tokens_output"`
		TokensCached *int64   `json:"tokens_cached"`
		CostUSD      *float64 `json:"cost_usd"`
	}
	if _, err := protocol.Parse(data); err != nil || json.Unmarshal(data, &u) != nil {
		return nil
	}
	return &protocol.Usage{Model: u.Model, TokensInput: u.TokensInput, TokensOutput: u.TokensOutput,
		TokensCached: u.TokensCached, CostUSD: u.CostUSD}
}

// providerOutcome takes the Outcome out of a provider CLI's JSON print-mode
// answer ({"result": "...", "usage": {...}, "total_cost_usd": ...}). One
// surrounding ```json fence is removed; nothing else is repaired.
func providerOutcome(out []byte) ([]byte, *protocol.Usage, error) {
	var env struct {
		Result  string  `json:"result"`
		IsError bool    `json:"is_error"`
		CostUSD float64 `json:"total_cost_usd"`
		Usage   struct {
			Input  int64 `json:"input_tokens"`
			Output int64 `json:"output_tokens"`
			Cached int64 `json:"cache_read_input_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(out, &env); err != nil {
		return nil, nil, fmt.Errorf("%w: the provider's answer is not its JSON print format: %v", ErrAgent, err)
	}
	if env.IsError {
		return nil, nil, fmt.Errorf("%w: the provider reported an error: %.300s", ErrAgent, env.Result)
	}
	text := strings.TrimSpace(env.Result)
	if body, ok := strings.CutPrefix(text, "```json"); ok {
		text = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(body), "```"))
	}
	u := &protocol.Usage{TokensInput: &env.Usage.Input, TokensOutput: &env.Usage.Output, TokensCached: &env.Usage.Cached}
	if env.CostUSD > 0 {
		src := "reported"
		u.CostUSD, u.CostSource = &env.CostUSD, &src
	}
	return []byte(text), u, nil
}
