package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"kusaw.dev/step/sandbox"
)

// sandboxFlags are the operator's say on a step's sandbox and secrets.
type sandboxFlags struct {
	mode        string
	allowHosts  listFlag
	writable    listFlag
	readable    listFlag
	pidsMax     int
	memoryMax   string
	secrets     listFlag
	secretsFile string
	inject      listFlag
	fs          *flag.FlagSet // to tell which flags the operator set
}

// sandboxOnly are the flags that mean nothing without a sandbox: egress
// control, injected headers and read grants are the sandbox's to enforce.
var sandboxOnly = []string{"allow-host", "inject", "readable"}

func (sf *sandboxFlags) register(fs *flag.FlagSet) {
	sf.fs = fs
	fs.StringVar(&sf.mode, "sandbox", "auto", "the step's sandbox: auto (bwrap or seatbelt when it works here), bwrap, seatbelt or off")
	fs.Var(&sf.allowHosts, "allow-host", "a `HOST` (or *.suffix) the step may reach through the egress proxy; repeat it; any cuts the network to an allowlist")
	fs.Var(&sf.writable, "writable", "a host `DIR` the step may also write; repeat it")
	fs.IntVar(&sf.pidsMax, "pids-max", sandbox.DefaultPidsMax, "the most processes (and threads) the sandboxed step may have at once; -1 for no limit")
	fs.StringVar(&sf.memoryMax, "memory-max", "", "at most `SIZE` of memory (e.g. 512M or 2G) for the sandboxed step's processes together (default no limit)")
	fs.Var(&sf.readable, "readable", "a host `DIR` the sandbox hides (a home: /root, /home, $HOME) that the step may read; repeat it")
	fs.Var(&sf.secrets, "secret", "pass the secret `NAME` from this environment to a step that declares it in needs_env; repeat it")
	fs.StringVar(&sf.secretsFile, "secrets-file", "", "a `FILE` of NAME=value lines: secrets for a step that declares them")
	fs.Var(&sf.inject, "inject", "`NAME=HOST:HEADER`: the egress proxy sets HEADER to the secret NAME on plain-HTTP requests to HOST (an --allow-host); the step never sees it; repeat it")
}

// options returns the sandbox options of the attempt: a secret named but
// not to be found is a usage error.
func (sf *sandboxFlags) options() (*sandbox.Options, error) {
	if err := sandboxMode(sf.mode); err != nil {
		return nil, err
	}
	if err := sf.checkOff(); err != nil {
		return nil, err
	}
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
	inject, err := sf.injections(secrets)
	if err != nil {
		return nil, err
	}
	memoryMax, err := parseSize(sf.memoryMax)
	if err != nil {
		return nil, usageErrorf("--memory-max %q: %v", sf.memoryMax, err)
	}
	if sf.pidsMax == 0 || sf.pidsMax < -1 {
		return nil, usageErrorf("--pids-max %d: want a positive number, or -1 for no limit", sf.pidsMax)
	}
	return &sandbox.Options{
		Flags: sandbox.Flags{Mode: sf.mode, AllowHosts: sf.allowHosts, Writable: sf.writable, Readable: sf.readable,
			PidsMax: sf.pidsMax, MemoryMax: memoryMax},
		Secrets: secrets, Inject: inject,
	}, nil
}

// checkOff refuses a sandbox-only flag with --sandbox off: an allowlist
// nothing enforces would be a lie (the step would have direct network).
func (sf *sandboxFlags) checkOff() error {
	if sf.mode != "off" || sf.fs == nil {
		return nil
	}
	var set []string
	sf.fs.Visit(func(f *flag.Flag) {
		if slices.Contains(sandboxOnly, f.Name) {
			set = append(set, "--"+f.Name)
		}
	})
	if len(set) == 0 {
		return nil
	}
	return usageErrorf("%s needs a sandbox, and --sandbox is off: without one nothing enforces it (the step would run with the host's network and files); drop --sandbox off, or drop %s", strings.Join(set, ", "), strings.Join(set, " and "))
}

// injections turns each --inject NAME=HOST:HEADER into a header the proxy
// sets. The secret NAME is taken out of secrets: the proxy holds it, the
// step never gets it.
func (sf *sandboxFlags) injections(secrets map[string]string) ([]sandbox.Inject, error) {
	var out []sandbox.Inject
	for _, spec := range sf.inject {
		name, target, ok1 := strings.Cut(spec, "=")
		host, header, ok2 := strings.Cut(target, ":")
		if !ok1 || !ok2 || name == "" || host == "" || header == "" {
			return nil, usageErrorf("--inject %q: want NAME=HOST:HEADER", spec)
		}
		value, ok := secrets[name]
		if !ok {
			return nil, usageErrorf("--inject %s: no secret %s; give it with --secret %s or --secrets-file", spec, name, name)
		}
		if !sandbox.Allowed(host, sf.allowHosts) {
			return nil, usageErrorf("--inject %s: %s is not allowed; add --allow-host %s", spec, host, host)
		}
		delete(secrets, name)
		out = append(out, sandbox.Inject{Name: name, Host: host, Header: header, Value: value})
	}
	return out, nil
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

// parseSize reads a size in bytes: a number with an optional K, M, G or
// T suffix (powers of 1024, an optional B or iB after it); "" is 0.
func parseSize(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	num := strings.TrimRight(strings.ToUpper(s), "IB")
	shift := 0
	if n := len(num); n > 0 {
		if i := strings.IndexByte("KMGT", num[n-1]); i >= 0 {
			shift, num = 10*(i+1), num[:n-1]
		}
	}
	v, err := strconv.ParseInt(num, 10, 64)
	if err != nil || v <= 0 || v > (1<<62)>>shift {
		return 0, fmt.Errorf("want a positive size such as 536870912, 512M or 2G")
	}
	return v << shift, nil
}
