package sandbox

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"kusaw.dev/step/protocol"
)

// BaseVars are the only variables a step inherits from the runner without
// declaring them.
var BaseVars = []string{"PATH", "HOME", "LANG", "TERM", "TZ", "USER"}

// BuildEnv returns the step's environment, built rather than inherited:
// from base (the runner's, e.g. os.Environ()) the [BaseVars] and the
// non-secret names needs declares; then kusaw, the KUSAW_* variables (as
// request.Env gives them, each "NAME=value"; they win over base); then
// each secret of secrets (name to value, from --secret and
// --secrets-file), which needs must declare with secret: true. A secret
// the step did not declare fails with [ErrSecretNotDeclared], naming it
// (never its value). Secrets never come from base.
func BuildEnv(base, kusaw []string, needs []protocol.EnvNeed, secrets map[string]string) ([]string, error) {
	declared := make(map[string]bool) // name -> secret
	for _, n := range needs {
		declared[n.Name] = declared[n.Name] || n.Secret
	}
	var undeclared []string
	for name := range secrets {
		if !declared[name] {
			undeclared = append(undeclared, name)
		}
	}
	if len(undeclared) > 0 {
		slices.Sort(undeclared)
		return nil, fmt.Errorf("%w: %s provided but not declared secret in needs_env",
			ErrSecretNotDeclared, strings.Join(undeclared, ", "))
	}
	env := inherit(base, declared)
	env = append(env, kusaw...)
	for _, n := range needs {
		if v, ok := secrets[n.Name]; ok && n.Secret {
			env = append(env, n.Name+"="+v)
		}
	}
	return env, nil
}

// inherit keeps from base the base variables and the declared non-secret
// ones, never a KUSAW_* one.
func inherit(base []string, declared map[string]bool) []string {
	var env []string
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "KUSAW_") {
			continue
		}
		secret, isDeclared := declared[name]
		if slices.Contains(BaseVars, name) || isDeclared && !secret {
			env = append(env, kv)
		}
	}
	return env
}

// Secrets returns the values of the secrets the operator names: each of
// names (--secret NAME) read from environ (the runner's "NAME=value"
// list), then each "NAME=value" line of the secrets file r (nil for
// none; blank lines and lines starting with # are skipped). A name with
// no value is an error.
func Secrets(names []string, environ []string, r io.Reader) (map[string]string, error) {
	out := make(map[string]string)
	for _, name := range names {
		v, ok := lookup(environ, name)
		if !ok {
			return nil, fmt.Errorf("sandbox: secret %s: not in the environment", name)
		}
		out[name] = v
	}
	if r == nil {
		return out, nil
	}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, v, ok := strings.Cut(line, "=")
		if !ok || name == "" {
			return nil, fmt.Errorf("sandbox: secrets file line %d: want NAME=value", n)
		}
		out[name] = v
	}
	return out, sc.Err()
}

func lookup(environ []string, name string) (string, bool) {
	for i := len(environ) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(environ[i], name+"="); ok {
			return v, true
		}
	}
	return "", false
}

// CheckPaths checks that each needs_paths entry will be visible inside
// p's sandbox: every read path exists and is not hidden by the sandbox's
// private /tmp, /run or /var/tmp (unless in a writable folder), every
// write path exists and lies in one of p.Writable (without a sandbox, is
// writable by the runner). It fails with [ErrDependencyMissing] listing
// every path that is not, before the step starts. needs may be nil.
func CheckPaths(p *Policy, needs *protocol.PathNeeds) error {
	if needs == nil {
		return nil
	}
	var missing []string
	for _, path := range needs.Read {
		path = absPath(path)
		if why := p.readable(path); why != "" {
			missing = append(missing, path+" ("+why+")")
		}
	}
	for _, path := range needs.Write {
		path = absPath(path)
		if why := p.writable(path); why != "" {
			missing = append(missing, path+" ("+why+")")
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: %s", ErrDependencyMissing, strings.Join(missing, ", "))
	}
	return nil
}

// readable returns why path is not readable in the sandbox, or "".
func (p *Policy) readable(path string) string {
	if _, err := os.Stat(path); err != nil {
		return "does not exist"
	}
	if p.Backend == BackendBwrap && hidden(path) && !p.granted(path) {
		return "hidden by the sandbox (a private temp folder or a home); grant it with --readable"
	}
	return ""
}

// writable returns why path is not writable in the sandbox, or "".
func (p *Policy) writable(path string) string {
	if _, err := os.Stat(path); err != nil {
		return "does not exist"
	}
	if p.Backend == "" {
		if !canWrite(path) {
			return "not writable"
		}
		return ""
	}
	if !p.inWritable(path) {
		return "not in a writable folder of the sandbox"
	}
	return ""
}

func (p *Policy) inWritable(path string) bool {
	for _, dir := range p.Writable {
		if within(path, dir) {
			return true
		}
	}
	return false
}

// EgressWarnings returns a warning (code "egress_not_allowed") for each
// host the step declares in egress that p's allowlist lacks; none when
// the network is open. The hosts are never added to the allowlist.
func EgressWarnings(p *Policy, egress []string) []protocol.Warning {
	if p.Network != NetworkAllowlist {
		return nil
	}
	var ws []protocol.Warning
	for _, host := range egress {
		if !Allowed(host, p.Allow) {
			ws = append(ws, protocol.Warning{
				Code:    "egress_not_allowed",
				Message: fmt.Sprintf("the step declares egress to %s, which the allowlist lacks: its requests there will be refused (add --allow-host %s to allow it)", host, host),
			})
		}
	}
	return ws
}

func absPath(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

// canWrite reports whether the runner can write path: create a file in a
// folder, open a file for writing (without truncating it).
func canWrite(path string) bool {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		f, err := os.CreateTemp(path, ".kusaw-probe-")
		if err != nil {
			return false
		}
		f.Close()
		return os.Remove(f.Name()) == nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return false
	}
	return f.Close() == nil
}
