package conform

import (
	"errors"
	"io"
	"os/exec"

	"kusaw.dev/step/handshake"
	"kusaw.dev/step/protocol"
	"kusaw.dev/step/sandbox"
)

// handshakeOptions returns how the battery's handshakes (both probes and
// handshake.Run) run: as run's does, in the sandbox the attempts get (the
// same backend and network policy; the worktree and artifacts dir
// writable, so HS-008 sees what a handshake writes there) with the
// environment built for a handshake (the base variables and the KUSAW_*
// ones, no secret, nothing else of the caller's), plus the battery's
// marker; with InheritEnv, unsandboxed in the caller's environment. The
// plan masks what the handshakes print; it is nil with InheritEnv. An
// error is the sandbox's: it cannot run here, say.
func (b *battery) handshakeOptions(d *dirs) (handshake.Options, *sandbox.Plan, error) {
	const run = "handshake"
	o := handshake.Options{Timeout: b.opts.HandshakeTimeout, Dir: d.worktree, Env: b.env(d, run)}
	so := b.sandbox()
	if so == nil {
		return o, nil, nil
	}
	so.Base = o.Env
	worktree := d.worktree
	plan, err := sandbox.PrepareHandshake(&protocol.Request{Worktree: &worktree, ArtifactsDir: d.artifacts}, *so)
	if err != nil {
		return o, nil, err
	}
	o.Env = append(plan.Env, b.markerEntry(run))
	o.Sandbox = plan.Policy.Backend
	if o.Sandbox != "" {
		o.Wrap = func(cmd *exec.Cmd) (io.Closer, error) { return sandbox.Wrap(cmd, plan.Policy) }
	}
	return o, plan, nil
}

// markerEntry is the environment entry that marks the processes of run.
func (b *battery) markerEntry(run string) string {
	return markerVar + "=" + b.marker + "-" + run
}

// maskHandshakes masks, with plan's secrets, everything of the handshakes
// that may reach the report: what the probes printed, the line and the
// declaration handshake.Run read, and its error. A nil plan, or one with
// no secret, masks nothing.
func maskHandshakes(hr *handshakeRun, plan *sandbox.Plan) {
	if plan == nil || !plan.Masks() {
		return
	}
	for _, p := range []*probeResult{hr.plain, hr.openStdin} {
		if p != nil {
			p.stdout = []byte(plan.MaskString(string(p.stdout)))
		}
	}
	if hr.info != nil {
		hr.info.Raw = []byte(plan.MaskString(string(hr.info.Raw)))
		if h := hr.info.Handshake; h != nil {
			h.Name, h.Version, h.Description = plan.MaskString(h.Name), plan.MaskString(h.Version), plan.MaskString(h.Description)
		}
	}
	var he *handshake.Error
	if errors.As(hr.err, &he) {
		masked := *he
		masked.Cause, masked.Hint, masked.Stderr = plan.MaskString(he.Cause), plan.MaskString(he.Hint), plan.MaskString(he.Stderr)
		masked.Line = []byte(plan.MaskString(string(he.Line)))
		hr.err = &masked
	}
}
