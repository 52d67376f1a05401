package main

import (
	"context"
	"flag"
	"io"
	"os"

	"kusaw.dev/step/sandbox"
)

// sandboxFlags are the operator's say on a step's sandbox and secrets.
type sandboxFlags struct {
	mode        string
	allowHosts  listFlag
	writable    listFlag
	secrets     listFlag
	secretsFile string
}

func (sf *sandboxFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&sf.mode, "sandbox", "auto", "the step's sandbox: auto (bwrap or seatbelt when it works here), bwrap, seatbelt or off")
	fs.Var(&sf.allowHosts, "allow-host", "a `HOST` (or *.suffix) the step may reach through the egress proxy; repeat it; any cuts the network to an allowlist")
	fs.Var(&sf.writable, "writable", "a host `DIR` the step may also write; repeat it")
	fs.Var(&sf.secrets, "secret", "pass the secret `NAME` from this environment to a step that declares it in needs_env; repeat it")
	fs.StringVar(&sf.secretsFile, "secrets-file", "", "a `FILE` of NAME=value lines: secrets for a step that declares them")
}

// options returns the sandbox options of the attempt: a secret named but
// not to be found is a usage error.
func (sf *sandboxFlags) options() (*sandbox.Options, error) {
	var file io.Reader
	if sf.secretsFile != "" {
		f, err := os.Open(sf.secretsFile)
		if err != nil {
			return nil, usageErrorf("--secrets-file: %v", err)
		}
		defer f.Close()
		file = f
	}
	secrets, err := sandbox.Secrets(sf.secrets, os.Environ(), file)
	if err != nil {
		return nil, usageErrorf("%v", err)
	}
	return &sandbox.Options{
		Flags:   sandbox.Flags{Mode: sf.mode, AllowHosts: sf.allowHosts, Writable: sf.writable},
		Secrets: secrets,
	}, nil
}

// sandboxHelper returns the hidden subcommand name that the sandbox runs:
// the supervisor between the runner and bwrap, or the bridge from the
// sandbox's loopback to the egress proxy. People never run them, and the
// usage text does not list them.
func sandboxHelper(name string) func(ctx context.Context, env *cmdEnv, args []string) error {
	return func(ctx context.Context, _ *cmdEnv, args []string) error {
		code, _ := sandbox.RunHelper(ctx, append([]string{name}, args...), os.Stdin, os.Stdout, os.Stderr)
		if code != 0 {
			return &exitError{code: code, err: errSilent}
		}
		return nil
	}
}
