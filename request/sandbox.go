package request

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"kusaw.dev/step/protocol"
)

// SandboxInfo is an attempt's sandbox as the runner decided it, in plain
// values, for the request's sandbox member (spec row sandbox, GF-88).
type SandboxInfo struct {
	Backend  string   // "bwrap" or "seatbelt"; "" when the attempt is not sandboxed
	Network  string   // "open" or "allowlist"
	Tmp      string   // the private temp folder; "" when there is none to name
	Writable []string // the host folders the step may write
	Allow    []string // the hosts the egress proxy lets through (allowlist only)
	Injected []string // the names of the headers the proxy injects, never their values
	Proxy    string   // the proxy's URL inside the sandbox (allowlist only)
}

// Sandbox returns the request's sandbox object for info, or nil when the
// attempt is not sandboxed (spec: "omitted when the attempt is not
// sandboxed"). mode is "required" whenever the attempt runs in a sandbox:
// the enum has required and off, and off means none; a step reads it as
// "you are sandboxed", however the operator asked for it. egress is set
// when the network is an allowlist, its lists never null.
func Sandbox(info SandboxInfo) *protocol.Sandbox {
	if info.Backend == "" {
		return nil
	}
	sb := &protocol.Sandbox{
		Mode: "required", Backend: new(info.Backend), Network: info.Network,
		Tmp: info.Tmp, Writable: slices.Clone(info.Writable),
	}
	if sb.Network == "" {
		sb.Network = "open"
	}
	if sb.Network == "allowlist" {
		sb.Egress = &protocol.Egress{
			Allow: orEmpty(info.Allow), Injected: orEmpty(info.Injected), Proxy: info.Proxy,
		}
	}
	return sb
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return slices.Clone(s)
}

// WithSandbox returns raw, a request, with its top-level sandbox member
// set to sb (added last when raw has none), or removed when sb is nil.
// Every other member keeps its bytes, unknown ones included, in its
// order; only the white space between top-level members is not kept. The
// result is checked like [Decode] checks a request.
func WithSandbox(raw []byte, sb *protocol.Sandbox) ([]byte, error) {
	var value []byte
	if sb != nil {
		var err error
		if value, err = json.Marshal(sb, json.Deterministic(true)); err != nil {
			return nil, fmt.Errorf("encode sandbox: %w", err)
		}
	}
	out, err := replaceMember(raw, "sandbox", value)
	if err != nil {
		return nil, err
	}
	if _, err := Decode(out); err != nil {
		return nil, err
	}
	return out, nil
}

// replaceMember rebuilds the JSON object raw with its member name's value
// replaced by value (appended when absent; removed when value is nil).
func replaceMember(raw []byte, name string, value []byte) ([]byte, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return nil, fmt.Errorf("%w: not a JSON object", ErrInvalid)
	}
	var b bytes.Buffer
	b.WriteByte('{')
	found := false
	member := func(k, v []byte) {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	for dec.PeekKind() != '}' {
		k, err := dec.ReadValue()
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		k = bytes.Clone(k)
		v, err := dec.ReadValue()
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		var key string
		if err := json.Unmarshal(k, &key); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		if key != name {
			member(k, v)
			continue
		}
		found = true
		if value != nil {
			member(k, value)
		}
	}
	if !found && value != nil {
		member([]byte(`"`+name+`"`), value)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
