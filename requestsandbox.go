package step

import (
	"os"

	"kusaw.dev/step/protocol"
	"kusaw.dev/step/request"
	"kusaw.dev/step/sandbox"
)

// noteSandbox writes the sandbox the step runs in into its request (spec
// row sandbox, GF-88: "OS sandbox for this attempt ... omitted when the
// attempt is not sandboxed"), once sb is set up and before the step reads
// the request: the bytes it gets on stdin and request.json, which an
// interactive step reads. An unsandboxed attempt's request is left as it
// was given.
func (at *attempt) noteSandbox(sb *sandbox.Sandbox) error {
	p := at.plan.Policy
	if p.Backend == "" {
		return nil
	}
	info := request.SandboxInfo{
		Backend: p.Backend, Network: p.Network, Tmp: sandboxTmp(at.req, p.Backend),
		Writable: p.Writable, Allow: p.Allow, Proxy: sb.ProxyURL(),
	}
	for _, in := range p.Inject {
		info.Injected = append(info.Injected, in.Name)
	}
	obj := request.Sandbox(info)
	raw, err := request.WithSandbox(at.a.Request, obj)
	if err != nil {
		return err
	}
	at.a.Request, at.req.Sandbox = raw, obj
	return os.WriteFile(at.rec.RequestPath, raw, 0o600)
}

// sandboxTmp is the private temp folder the step gets: the request's
// sandbox.tmp when it names one, else /tmp under bwrap, where a private
// tmpfs hides the host's; none to name under seatbelt.
func sandboxTmp(req *protocol.Request, backend string) string {
	if req.Sandbox != nil && req.Sandbox.Tmp != "" {
		return req.Sandbox.Tmp
	}
	if backend == sandbox.BackendBwrap {
		return "/tmp"
	}
	return ""
}
