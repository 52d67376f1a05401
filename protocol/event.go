package protocol

import (
	"errors"
	"fmt"

	"github.com/go-json-experiment/json"
)

// Event is one stdout line of a running step: *Progress, *Usage,
// *AgentAction, *ToolCall, *NoteAck or *ArtifactEvent. The set is closed.
type Event interface {
	// EventType is the event's "type" on the wire.
	EventType() string
	isEvent()
}

// Progress says what the step is doing now.
type Progress struct {
	Message string   `json:"message"`
	Percent *float64 `json:"percent,omitzero"`
	Turn    bool     `json:"turn,omitzero"`
}

// Usage is the cumulative usage of the attempt so far.
type Usage struct {
	Provider      *string  `json:"provider,omitzero"`
	Model         *string  `json:"model,omitzero"`
	TokensInput   *int64   `json:"tokens_input,omitzero"`
	TokensOutput  *int64   `json:"tokens_output,omitzero"`
	TokensCached  *int64   `json:"tokens_cached,omitzero"`
	ContextTokens *int64   `json:"context_tokens,omitzero"`
	ContextLimit  *int64   `json:"context_limit,omitzero"`
	CostUSD       *float64 `json:"cost_usd,omitzero"`
	CostSource    *string  `json:"cost_source,omitzero"`
}

// AgentAction summarizes what the agent did.
type AgentAction struct {
	Summary string `json:"summary"`
}

// ToolCall is a tool call the step made.
type ToolCall struct {
	Tool        string `json:"tool"`
	Allowed     bool   `json:"allowed"`
	ArgsSummary string `json:"args_summary,omitzero"`
}

// NoteAck acknowledges a steer note.
type NoteAck struct {
	ID string `json:"id"`
}

// ArtifactEvent publishes an artifact while the step runs.
type ArtifactEvent struct {
	Artifact
}

func (*Progress) EventType() string      { return "progress" }
func (*Usage) EventType() string         { return "usage" }
func (*AgentAction) EventType() string   { return "agent_action" }
func (*ToolCall) EventType() string      { return "tool_call" }
func (*NoteAck) EventType() string       { return "note_ack" }
func (*ArtifactEvent) EventType() string { return "artifact" }

func (*Progress) isEvent()      {}
func (*Usage) isEvent()         {}
func (*AgentAction) isEvent()   {}
func (*ToolCall) isEvent()      {}
func (*NoteAck) isEvent()       {}
func (*ArtifactEvent) isEvent() {}

// ErrUnknownEvent is returned by [DecodeEvent] for a type that is not one
// of the six event types.
var ErrUnknownEvent = errors.New("unknown event type")

// newEvent returns a zero event of type t, or nil.
func newEvent(t string) Event {
	switch t {
	case "progress":
		return new(Progress)
	case "usage":
		return new(Usage)
	case "agent_action":
		return new(AgentAction)
	case "tool_call":
		return new(ToolCall)
	case "note_ack":
		return new(NoteAck)
	case "artifact":
		return new(ArtifactEvent)
	}
	return nil
}

// DecodeEvent decodes one event line strictly (no duplicate keys, valid
// UTF-8, one value). It checks the type, not the schema, and decodes into
// Go types: an integer written 1.0, or beyond int64, is an error here
// though the schema accepts it. events.Read is the reader that agrees with
// the schema exactly.
func DecodeEvent(line []byte) (Event, error) {
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(line, &head); err != nil {
		return nil, err
	}
	ev := newEvent(head.Type)
	if ev == nil {
		return nil, fmt.Errorf("%w %q", ErrUnknownEvent, head.Type)
	}
	if err := json.Unmarshal(line, ev); err != nil {
		return nil, err
	}
	return ev, nil
}

// EncodeEvent encodes ev as one line's JSON, with its "type" first.
func EncodeEvent(ev Event) ([]byte, error) {
	body, err := json.Marshal(ev)
	if err != nil {
		return nil, err
	}
	typ, _ := json.Marshal(ev.EventType())
	out := append([]byte(`{"type":`), typ...)
	if len(body) > 2 {
		out = append(out, ',')
	}
	return append(out, body[1:]...), nil
}
