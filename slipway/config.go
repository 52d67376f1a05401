package slipway

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// DefaultBudget is the Run's budget when the config names none.
const DefaultBudget = 8

// Config is the step's request.config.
type Config struct {
	// Slipway is the CLI binary; "" means "slipway" found on PATH.
	Slipway string `json:"slipway"`
	// Budget is the Run's Action budget, 1 to 1000; nil means 8 for a new
	// Run, and on resume that the CLI keeps or replenishes its own.
	Budget *int `json:"budget"`
	// Review asks Slipway to interpose Review after code changes; nil
	// means true, and false adds --no-review.
	Review *bool `json:"review"`
	// Agent is the agent command's argv: Action JSON on stdin, Outcome JSON
	// on stdout. Empty means the provider CLI KUSAW_AGENT_PROVIDER names.
	Agent []string `json:"agent"`
	// SourceFile is an issue-backed Run's source envelope.
	SourceFile string `json:"source_file"`
	// Goal is the goal when the request has no task spec.
	Goal string `json:"goal"`
	// ResumeStopped takes over a Run a person stopped (`slipway stop`)
	// when the request resumes it. A stopped Run is never resumed without
	// it: the person stopped it for a reason.
	ResumeStopped bool `json:"resume_stopped"`
}

// ErrConfig is wrapped by every error [ParseConfig] returns.
var ErrConfig = errors.New("config invalid")

// ParseConfig decodes raw (a JSON object, or empty) strictly: an unknown
// field is an error, so a misspelt setting is never silently ignored.
func ParseConfig(raw []byte) (*Config, error) {
	var c Config
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return c.withDefaults(), nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	if c.Budget != nil && (*c.Budget < 1 || *c.Budget > 1000) {
		return nil, fmt.Errorf("%w: budget %d: want 1 to 1000", ErrConfig, *c.Budget)
	}
	if len(c.Agent) > 0 && c.Agent[0] == "" {
		return nil, fmt.Errorf("%w: agent[0] is empty", ErrConfig)
	}
	return c.withDefaults(), nil
}

func (c *Config) withDefaults() *Config {
	if c.Slipway == "" {
		c.Slipway = "slipway"
	}
	return c
}

// startBudget is the budget of a new Run.
func (c *Config) startBudget() int {
	if c.Budget == nil {
		return DefaultBudget
	}
	return *c.Budget
}

// reviewOn reports whether Review is enabled.
func (c *Config) reviewOn() bool { return c.Review == nil || *c.Review }

// lookupEnv returns the value of key in env (KEY=VALUE strings), the last
// one winning as in os/exec.
func lookupEnv(env []string, key string) string {
	val := ""
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			val = v
		}
	}
	return val
}

// OperatorPaths are the files config names that are the operator's, not
// the step's: the slipway binary and the agent's program when they are
// paths, and source_file; each as given (made absolute) and, for a
// symlink, also its target. A runner that sandboxes the step makes them
// visible read-only inside the sandbox.
func (c *Config) OperatorPaths() []string {
	var out []string
	add := func(path string) {
		if path == "" {
			return
		}
		abs, err := filepath.Abs(path)
		if err != nil {
			return
		}
		out = append(out, abs)
		if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
			out = append(out, real)
		}
	}
	isPath := func(name string) bool { return strings.ContainsRune(name, filepath.Separator) }
	if isPath(c.Slipway) {
		add(c.Slipway)
	}
	if len(c.Agent) > 0 && isPath(c.Agent[0]) {
		add(c.Agent[0])
	}
	add(c.SourceFile)
	return out
}
