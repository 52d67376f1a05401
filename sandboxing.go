package step

import (
	"io"
	"os"
	"os/exec"

	"github.com/go-json-experiment/json"

	"kusaw.dev/step/attemptdir"
	"kusaw.dev/step/handshake"
	"kusaw.dev/step/protocol"
	"kusaw.dev/step/request"
	"kusaw.dev/step/sandbox"
)

// prepareSandbox decides the attempt's sandbox and the step's environment
// before the step starts, when the attempt has sandbox options: a secret
// the step did not declare, a path it needs that is not visible, or a
// sandbox the request requires that does not work here fails the attempt
// here, with the step never started.
func (at *attempt) prepareSandbox() error {
	if at.a.Sandbox == nil {
		return nil
	}
	o := at.sandboxOptions()
	o.Terminal = at.info.Handshake.Interactive
	if at.stepWritesOutDir() {
		// The step writes its events, result or notes acks there.
		o.Flags.Writable = append(o.Flags.Writable[:len(o.Flags.Writable):len(o.Flags.Writable)], at.path("."))
	}
	o.KusawEnv = func(backend string) []string {
		eo := at.envOptions()
		eo.Sandbox = backend
		return request.Env([]string{}, at.req, eo)
	}
	plan, err := sandbox.Prepare(at.req, at.info.Handshake, o)
	if err != nil {
		return err
	}
	at.plan = plan
	at.rec.Warnings = append(at.rec.Warnings, plan.Warnings...)
	for _, w := range plan.Warnings {
		if w.Code == "secret_too_short" { // said now, not only in the record
			at.a.Log.Warn().Str("code", w.Code).Msg(w.Message)
		}
	}
	return nil
}

// handshakeOptions returns how the handshake runs: with sandbox options,
// in the attempt's sandbox with the environment built for it (no secret,
// nothing of the runner's but the base variables), its output masked in
// the record; without, as the library's caller asked (Env inherited).
func (at *attempt) handshakeOptions() (handshake.Options, error) {
	o := handshake.Options{Timeout: at.handshakeTimeout, Dir: at.dir, Env: at.a.Env, MaxLine: int(at.limits.maxLine)}
	if at.a.Sandbox == nil {
		return o, nil
	}
	so := at.sandboxOptions()
	plan, err := sandbox.PrepareHandshake(at.req, so)
	if err != nil {
		return o, err
	}
	at.plan = plan // masks a failed handshake's record; replaced by the attempt's
	o.Env, o.Sandbox = plan.Env, plan.Policy.Backend
	o.Wrap = func(cmd *exec.Cmd) (io.Closer, error) { return sandbox.Wrap(cmd, plan.Policy) }
	return o, nil
}

// sandboxOptions are the attempt's sandbox options with the runner's
// defaults filled in.
func (at *attempt) sandboxOptions() sandbox.Options {
	o := *at.a.Sandbox
	o.Base = at.a.Env
	if o.Base == nil {
		o.Base = os.Environ()
	}
	o.EgressLog = at.path(attemptdir.Egress)
	return o
}

// stepWritesOutDir reports whether the step writes files of the attempt
// folder: an interactive step's events and result, live notes.
func (at *attempt) stepWritesOutDir() bool {
	h := at.info.Handshake
	return h.Interactive || h.Notes == "live"
}

// sandboxFailed records why the attempt could not be prepared.
func (at *attempt) sandboxFailed(err error) {
	at.rec.ReasonCode = protocol.ReasonSandboxUnavailable
	if reason, ok := sandbox.Reason(err); ok {
		at.rec.ReasonCode = reason
	}
	at.rec.Message = err.Error()
}

// command returns the step's command: its environment, and its sandbox
// when the attempt has one. configure sets its streams.
func (at *attempt) command(configure func(*exec.Cmd)) (*exec.Cmd, error) {
	cmd := exec.Command(at.a.Command[0], at.a.Command[1:]...)
	cmd.Dir = at.dir
	configure(cmd)
	if at.plan == nil {
		cmd.Env = request.Env(at.a.Env, at.req, at.envOptions())
		return cmd, nil
	}
	cmd.Env = at.plan.Env
	sb, err := sandbox.Wrap(cmd, at.plan.Policy)
	if err != nil {
		return nil, err
	}
	at.sb = sb
	return cmd, at.noteSandbox(sb)
}

// closeSandbox ends the sandbox's egress proxy, once the step is gone.
func (at *attempt) closeSandbox() {
	if at.sb != nil {
		if err := at.sb.Close(); err != nil {
			at.warn("sandbox_close", err.Error())
		}
		at.recordEgress()
	}
}

// masks reports whether the attempt has a secret to mask: without one,
// masking costs nothing.
func (at *attempt) masks() bool { return at.plan != nil && at.plan.Masks() }

// mask returns w behind a masker of the attempt's secrets (w itself when
// there are none); flushMasks writes out what the maskers hold back.
func (at *attempt) mask(w io.Writer) io.Writer {
	if !at.masks() {
		return w
	}
	m := at.plan.Masker(w)
	at.maskers = append(at.maskers, m)
	return m
}

func (at *attempt) flushMasks() {
	for _, m := range at.maskers {
		m.Flush()
	}
}

// maskBytes returns a copy of b with the attempt's secrets masked.
func (at *attempt) maskBytes(b []byte) []byte {
	if !at.masks() {
		return append([]byte(nil), b...)
	}
	return []byte(at.plan.MaskString(string(b)))
}

// maskEvent returns ev, built from the line raw, with the attempt's
// secrets masked, for the observer.
func (at *attempt) maskEvent(ev protocol.Event, raw []byte) protocol.Event {
	if !at.masks() {
		return ev // nothing to mask (injected secrets count): no need to encode every event
	}
	if !at.plan.Finds(raw) {
		// The masker knows every form a JSON reader turns back into a
		// secret: a line without one decodes to an event without one.
		return ev
	}
	line, err := protocol.EncodeEvent(ev)
	if err != nil {
		return ev
	}
	masked := at.plan.MaskString(string(line))
	if masked == string(line) {
		return ev
	}
	if back, err := protocol.DecodeEvent([]byte(masked)); err == nil {
		return back
	}
	return &protocol.Progress{Message: sandbox.Mask}
}

// maskRecord masks the attempt's secrets everywhere in the record.
func (at *attempt) maskRecord() {
	if !at.masks() {
		return
	}
	data, err := json.Marshal(at.rec)
	if err != nil {
		return
	}
	masked := at.plan.MaskString(string(data))
	if masked == string(data) {
		return
	}
	var rec Record
	if err := json.Unmarshal([]byte(masked), &rec); err != nil {
		at.rec.Message, at.rec.Diagnosis, at.rec.Outputs = sandbox.Mask, "", nil
		at.warn("record_masked", "a secret sat in a value that masking could not keep valid; the message, diagnosis and outputs were dropped")
		return
	}
	*at.rec = rec
}
