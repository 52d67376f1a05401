package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"kusaw.dev/step/handshake"
	"kusaw.dev/step/protocol"
	"kusaw.dev/step/sandbox"
)

// cmdHandshake runs a step's handshake and prints what it declared.
func cmdHandshake(ctx context.Context, env *cmdEnv, args []string) error {
	fs := newFlags("handshake", env)
	asJSON := fs.Bool("json", false, "print {handshake, warnings} as JSON")
	timeout := fs.Duration("timeout", 0, "how long the step may take to answer (default 10s)")
	mode := fs.String("sandbox", "auto", "the handshake's sandbox, as run's: auto, bwrap, seatbelt or off; its environment is built either way")
	var allow listFlag
	fs.Var(&allow, "allow-host", "a `HOST` (or *.suffix) of the allowlist the step runs under: declared egress it lacks is a warning; repeat it")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageErrorf("usage: kusaw-step handshake [--json] STEP [ARG...]")
	}
	opts, err := handshakeSandbox(*mode, allow)
	if err != nil {
		return err
	}
	opts.Timeout = *timeout
	info, err := handshake.Run(ctx, fs.Args(), opts)
	var he *handshake.Error
	if errors.As(err, &he) {
		fmt.Fprintln(env.stderr, he.Error())
		return failed(errSilent)
	}
	if err != nil {
		return err
	}
	if len(allow) > 0 {
		pol := &sandbox.Policy{Network: sandbox.NetworkAllowlist, Allow: allow}
		info.Warnings = append(info.Warnings, sandbox.EgressWarnings(pol, info.Handshake.Egress)...)
	}
	if *asJSON {
		return printJSON(env, map[string]any{"handshake": jsontext.Value(info.Raw), "warnings": nonNil(info.Warnings)})
	}
	printHandshake(env, info)
	return nil
}

// handshakeSandbox returns the options that run a handshake as run does:
// in the sandbox (mode and allowlist as given; no folder writable), with
// an environment built from this one's base variables only.
func handshakeSandbox(mode string, allow []string) (handshake.Options, error) {
	plan, err := sandbox.PrepareHandshake(&protocol.Request{}, sandbox.Options{
		Flags: sandbox.Flags{Mode: mode, AllowHosts: allow}, Base: os.Environ(),
	})
	if err != nil {
		return handshake.Options{}, &exitError{code: exitFailed, err: err}
	}
	return handshake.Options{
		Env: plan.Env, Sandbox: plan.Policy.Backend,
		Wrap: func(cmd *exec.Cmd) (io.Closer, error) { return sandbox.Wrap(cmd, plan.Policy) },
	}, nil
}

func printHandshake(env *cmdEnv, info *handshake.Info) {
	h := info.Handshake
	w := env.stdout
	fmt.Fprintf(w, "%s %s\n", h.Name, h.Version)
	if h.Description != "" {
		fmt.Fprintf(w, "  %s\n", h.Description)
	}
	fmt.Fprintf(w, "  protocol versions  %v\n  interactive        %v\n", h.ProtocolVersions, h.Interactive)
	field(w, "features", h.Features)
	for _, n := range h.NeedsEnv {
		secret := ""
		if n.Secret {
			secret = " (secret)"
		}
		fmt.Fprintf(w, "  needs env          %s%s\n", n.Name, secret)
	}
	if p := h.NeedsPaths; p != nil {
		field(w, "needs to read", p.Read)
		field(w, "needs to write", p.Write)
	}
	field(w, "egress", h.Egress)
	if info.OutputsSchema != nil {
		fmt.Fprintf(w, "  outputs_schema     compiled\n")
	}
	for _, wn := range info.Warnings {
		fmt.Fprintf(w, "warning: %s: %s\n", wn.Code, wn.Message)
	}
}

func field(w interface{ Write([]byte) (int, error) }, name string, vals []string) {
	if len(vals) > 0 {
		fmt.Fprintf(w, "  %-18s %v\n", name, vals)
	}
}

func nonNil(ws []protocol.Warning) []protocol.Warning {
	if ws == nil {
		return []protocol.Warning{}
	}
	return ws
}

func printJSON(env *cmdEnv, v any) error {
	data, err := json.Marshal(v, json.Deterministic(true))
	if err != nil {
		return err
	}
	_, err = env.stdout.Write(append(data, '\n'))
	return err
}
