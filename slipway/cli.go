package slipway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"kusaw.dev/step/protocol"
)

// ErrDefect is returned for a CLI process that failed without a structured
// error (exit 1, a signal, or a body that is not the contract's).
var ErrDefect = errors.New("slipway defect")

// ErrUsage wraps a [*CLIError] with exit status 2: the invocation or its
// environment was wrong (not a Git worktree, no goal, an invalid source);
// the result maps its code to config_invalid or dependency_missing.
var ErrUsage = errors.New("slipway usage error")

// ErrLostResponse is returned when a mutation exited 0 but its response
// could not be read; the same request may be retried with identical bytes.
var ErrLostResponse = errors.New("slipway response lost")

// maxReply bounds what the host reads of one CLI answer.
const maxReply = 16 << 20

// cli runs the Slipway binary. Argv from the CLI starts with the literal
// "slipway", which is replaced by Bin.
type cli struct {
	Bin string   // the configured binary
	Dir string   // the working directory: the worktree
	Env []string // the CLI's environment
}

// reply is one finished CLI process.
type reply struct {
	argv   []string
	exit   int
	stdout []byte
	stderr []byte
}

// call runs argv (argv[0] must be "slipway") and returns what it said.
func (c *cli) call(ctx context.Context, argv []string) (*reply, error) {
	if len(argv) == 0 || argv[0] != "slipway" {
		return nil, fmt.Errorf("%w: argv must start with the literal slipway: %q", ErrDefect, argv)
	}
	cmd := exec.CommandContext(ctx, c.Bin, argv[1:]...)
	cmd.Dir, cmd.Env = c.Dir, c.Env
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr capped
	stdout.max, stderr.max = maxReply, maxReply
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := &reply{argv: argv, stdout: stdout.buf.Bytes(), stderr: stderr.buf.Bytes()}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case err != nil && isStop(err):
		// The runner stops the process group; the CLI saw it first.
		return nil, fmt.Errorf("%w: %s was stopped by a signal", context.Canceled, c.Bin)
	case errors.As(err, &ee):
		r.exit = ee.ExitCode()
	case err != nil:
		return nil, fmt.Errorf("%w: run %s: %v", ErrDefect, c.Bin, err)
	}
	return r, nil
}

// decode returns the reply's body decoded into v, or its structured error:
// a *CLIError (wrapped in ErrUsage for exit 2), ErrDefect, or
// ErrLostResponse for an exit 0 whose stdout is not one strict object.
func (r *reply) decode(v any) error {
	switch r.exit {
	case 0:
		if err := strictInto(r.stdout, v); err != nil {
			return fmt.Errorf("%w: %s: %v", ErrLostResponse, r.argv[1], err)
		}
		return nil
	case 2, 3:
		var ce CLIError
		if err := strictInto(bytes.TrimSpace(r.stderr), &ce); err != nil || ce.ExitCode != r.exit || ce.Code == "" {
			return fmt.Errorf("%w: exit %d without a structured error: %s", ErrDefect, r.exit, tail(r.stderr))
		}
		if r.exit == 2 {
			return fmt.Errorf("%w: %w", ErrUsage, &ce)
		}
		return &ce
	}
	return fmt.Errorf("%w: exit %d: %s", ErrDefect, r.exit, tail(r.stderr))
}

// strictInto decodes one strict JSON object (no duplicate keys, no
// trailing data, valid UTF-8) of contract_version 2 into v.
func strictInto(data []byte, v any) error {
	parsed, err := protocol.Parse(data)
	if err != nil {
		return err
	}
	obj, ok := parsed.(map[string]any)
	if !ok {
		return errors.New("not a JSON object")
	}
	if fmt.Sprint(obj["contract_version"]) != fmt.Sprint(ContractVersion) {
		return fmt.Errorf("contract_version %v, want %d", obj["contract_version"], ContractVersion)
	}
	return json.Unmarshal(data, v)
}

// tail returns the last line or so of a stderr, for a message.
func tail(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 300 {
		s = "…" + s[len(s)-300:]
	}
	if s == "" {
		return "(no stderr)"
	}
	return s
}

// capped is a buffer that keeps at most max bytes.
type capped struct {
	buf bytes.Buffer
	max int
}

// Write keeps what fits and reports every byte written, so a chatty
// process never blocks on its pipe.
func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
