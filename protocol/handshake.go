package protocol

import "github.com/go-json-experiment/json/jsontext"

// Version is the protocol version this runner speaks.
const Version = 2

// Handshake is the one line a step prints when KUSAW_HANDSHAKE=1.
type Handshake struct {
	Type             string     `json:"type"` // always "handshake"
	Name             string     `json:"name"`
	Version          string     `json:"version"`
	Description      string     `json:"description,omitzero"`
	Interactive      bool       `json:"interactive"`
	ContinueHint     string     `json:"continue_hint,omitzero"`
	ProtocolVersions []int      `json:"protocol_versions"`
	Features         []string   `json:"features,omitzero"`
	NeedsEnv         []EnvNeed  `json:"needs_env,omitzero"`
	NeedsPaths       *PathNeeds `json:"needs_paths,omitzero"`
	Egress           []string   `json:"egress,omitzero"`
	Notes            string     `json:"notes,omitzero"` // "live" or "start"; "" means start
	// OutputsSchema is an inline JSON Schema object, or a JSON string: a
	// path relative to the step's folder.
	OutputsSchema jsontext.Value `json:"outputs_schema,omitzero"`
	Unknown       jsontext.Value `json:",embed"`
}

// Speaks reports whether the step lists protocol version v.
func (h *Handshake) Speaks(v int) bool {
	for _, have := range h.ProtocolVersions {
		if have == v {
			return true
		}
	}
	return false
}

// EnvNeed is one environment variable a step expects.
type EnvNeed struct {
	Name   string `json:"name"`
	Secret bool   `json:"secret"`
}

// PathNeeds are the paths a step expects to read and write.
type PathNeeds struct {
	Read  []string `json:"read,omitzero"`
	Write []string `json:"write,omitzero"`
}
