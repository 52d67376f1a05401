package sandbox

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sync"

	"kusaw.dev/step/protocol"
)

// Options are what the runner knows of an attempt besides the request
// and the handshake.
type Options struct {
	// Flags are the operator's --sandbox, --allow-host and --writable.
	Flags Flags
	// Secrets are the operator's secrets by name (see [Secrets]).
	Secrets map[string]string
	// Base is the runner's environment (nil means none is inherited).
	Base []string
	// KusawEnv returns the KUSAW_* variables for the chosen backend ("",
	// "bwrap" or "seatbelt"), e.g.
	//
	//	func(b string) []string { return request.Env([]string{}, req, request.EnvOptions{Sandbox: b}) }
	KusawEnv func(backend string) []string
	// Inject are the headers the egress proxy sets for their host (the
	// request's sandbox.egress.injected names them; the operator gives
	// host, header and value). Only with a network allowlist.
	Inject []Inject
	// EgressLog is the egress proxy's JSONL log, in the attempt folder.
	EgressLog string
	// Terminal says the step runs on a pty the runner owns.
	Terminal bool
}

// Plan is an attempt's sandbox, decided before the step starts.
type Plan struct {
	Policy   *Policy            // give it to [Wrap]
	Env      []string           // the step's whole environment: cmd.Env
	Warnings []protocol.Warning // for the record
	secrets  []string

	mu     sync.Mutex // guards masker
	masker *Masker    // for MaskString, made once
}

// Prepare decides everything about the attempt's sandbox before the step
// starts: the policy (or [ErrUnavailable]), the environment (or
// [ErrSecretNotDeclared]), the needs_paths check (or
// [ErrDependencyMissing]) and the egress warnings. hs may be nil.
func Prepare(req *protocol.Request, hs *protocol.Handshake, o Options) (*Plan, error) {
	if hs == nil {
		hs = &protocol.Handshake{}
	}
	pol, err := NewPolicy(req, o.Flags)
	if err != nil {
		return nil, err
	}
	pol.EgressLog, pol.Terminal, pol.Inject = o.EgressLog, o.Terminal, o.Inject
	var kusaw []string
	if o.KusawEnv != nil {
		kusaw = o.KusawEnv(pol.Backend)
	}
	env, err := BuildEnv(o.Base, kusaw, hs.NeedsEnv, o.Secrets)
	if err != nil {
		return nil, err
	}
	if err := CheckPaths(pol, hs.NeedsPaths); err != nil {
		return nil, err
	}
	plan := &Plan{Policy: pol, Env: env, Warnings: EgressWarnings(pol, hs.Egress)}
	plan.addSecrets(o)
	if req.Limits.LogCapBytes != nil {
		pol.EgressLogCap = *req.Limits.LogCapBytes
	}
	return plan, nil
}

// PrepareHandshake decides the sandbox of the step's handshake: the
// attempt's policy (or [ErrUnavailable]), and an environment built as
// the attempt's is, but with nothing the step declares, since the
// handshake is where it declares: the [BaseVars] of o.Base and no secret
// at all (handshake.Env adds the KUSAW_* variables). No header is
// injected. Its masker still masks every secret of o, so nothing the
// handshake prints of one reaches a log or the record.
func PrepareHandshake(req *protocol.Request, o Options) (*Plan, error) {
	pol, err := NewPolicy(req, o.Flags)
	if err != nil {
		return nil, err
	}
	pol.EgressLog = o.EgressLog
	env, err := BuildEnv(o.Base, nil, nil, nil)
	if err != nil {
		return nil, err
	}
	plan := &Plan{Policy: pol, Env: env}
	plan.addSecrets(o)
	if req.Limits.LogCapBytes != nil {
		pol.EgressLogCap = *req.Limits.LogCapBytes
	}
	return plan, nil
}

// addSecrets gives the plan's maskers every secret of o, provided or
// injected, in a fixed order; the egress log masks the provided ones
// (Policy.Mask). A secret too short to mask is warned of.
func (p *Plan) addSecrets(o Options) {
	for _, name := range slices.Sorted(maps.Keys(o.Secrets)) {
		p.secrets = append(p.secrets, o.Secrets[name])
		p.warnShort(name, o.Secrets[name])
	}
	p.Policy.Mask = slices.Clone(p.secrets)
	for _, in := range o.Inject {
		p.secrets = append(p.secrets, in.Value)
		p.warnShort(in.Name, in.Value)
	}
}

// warnShort warns, before the step starts, about a secret too short to
// mask: masking it would hide ordinary text all over the logs.
func (p *Plan) warnShort(name, value string) {
	if value == "" || len(value) >= MinSecretLen {
		return
	}
	p.Warnings = append(p.Warnings, protocol.Warning{Code: "secret_too_short", Message: fmt.Sprintf(
		"the secret %s is %d bytes, under %d: too short to mask without hiding ordinary text, so it is NOT masked in the logs and the record; use a longer secret", name, len(value), MinSecretLen)})
}

// Masker returns a [Masker] of every secret of the plan (provided or
// injected) writing to w.
func (p *Plan) Masker(w io.Writer) *Masker { return NewMasker(w, p.secrets) }

// Masks reports whether the plan has a secret to mask; without one,
// masking is a no-op the caller may skip.
func (p *Plan) Masks() bool {
	for _, s := range p.secrets {
		if len(s) >= MinSecretLen {
			return true
		}
	}
	return false
}

// MaskString masks every secret of the plan in s. It is safe for
// concurrent use.
func (p *Plan) MaskString(s string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.masker == nil {
		p.masker = p.Masker(nil)
	}
	return p.masker.MaskString(s)
}

// Finds reports whether b holds a form of a secret of the plan: whether
// masking would change it. It is safe for concurrent use.
func (p *Plan) Finds(b []byte) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.masker == nil {
		p.masker = p.Masker(nil)
	}
	return p.masker.Finds(b)
}

// Reason returns the reason code of an error from this package's checks
// (sandbox_unavailable, secret_not_declared, dependency_missing), and
// false for any other error.
func Reason(err error) (string, bool) {
	switch {
	case errors.Is(err, ErrUnavailable):
		return protocol.ReasonSandboxUnavailable, true
	case errors.Is(err, ErrSecretNotDeclared):
		return protocol.ReasonSecretNotDeclared, true
	case errors.Is(err, ErrDependencyMissing):
		return protocol.ReasonDependencyMissing, true
	}
	return "", false
}
