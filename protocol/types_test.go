package protocol_test

import (
	"os"
	"reflect"
	"testing"

	"github.com/go-json-experiment/json"

	"kusaw.dev/step/protocol"
	"kusaw.dev/step/schemas"
)

// roundTrip decodes the valid example of kind into v, encodes v again and
// checks that the encoding is valid and carries the same document.
func roundTrip(t *testing.T, kind string, v any) {
	t.Helper()
	data, err := os.ReadFile("../schemas/testdata/valid/" + kind + ".json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("decode %s: %v", kind, err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("encode %s: %v", kind, err)
	}
	again, err := protocol.Parse(out)
	if err != nil {
		t.Fatalf("Parse(encoded %s) = %v", kind, err)
	}
	if err := schemas.Validate(kind, again); err != nil {
		t.Errorf("encoded %s is invalid: %v\n%s", kind, err, out)
	}
	orig, _ := protocol.Parse(data)
	if !reflect.DeepEqual(orig, again) {
		t.Errorf("%s changed in a round trip:\n got %s\nwant %s", kind, out, data)
	}
}

func TestRoundTrip(t *testing.T) {
	roundTrip(t, "handshake", new(protocol.Handshake))
	roundTrip(t, "request", new(protocol.Request))
	roundTrip(t, "result", new(protocol.Result))
}

func TestEventsRoundTrip(t *testing.T) {
	pct := 50.0
	cost, model := 0.25, "m1"
	events := []protocol.Event{
		&protocol.Progress{Message: "half", Percent: &pct, Turn: true},
		&protocol.Usage{Model: &model, CostUSD: &cost},
		&protocol.AgentAction{Summary: "edited a.go"},
		&protocol.ToolCall{Tool: "bash", Allowed: true, ArgsSummary: "ls"},
		&protocol.NoteAck{ID: "n1"},
		&protocol.ArtifactEvent{Artifact: protocol.Artifact{Path: "a.txt", Kind: "log"}},
	}
	seen := make(map[string]bool)
	for _, ev := range events {
		line, err := protocol.EncodeEvent(ev)
		if err != nil {
			t.Fatalf("EncodeEvent(%#v) = %v", ev, err)
		}
		doc, err := protocol.Parse(line)
		if err != nil {
			t.Fatalf("Parse(%s) = %v", line, err)
		}
		if err := schemas.Validate("event", doc); err != nil {
			t.Errorf("EncodeEvent(%T) = %s, invalid: %v", ev, line, err)
		}
		back, err := protocol.DecodeEvent(line)
		if err != nil || !reflect.DeepEqual(back, ev) {
			t.Errorf("DecodeEvent(%s) = %#v, %v; want %#v", line, back, err, ev)
		}
		seen[ev.EventType()] = true
	}
	for _, typ := range schemas.EventTypes {
		if !seen[typ] {
			t.Errorf("event type %s has no Go type in this test", typ)
		}
	}
}

func TestDecodeEventErrors(t *testing.T) {
	for _, line := range []string{`{"type":"nope"}`, `{"type":"progress","message":"a","message":"b"}`, "{\"type\":\"progress\",\"message\":\"\xff\"}", `{"type":"progress"} x`} {
		if ev, err := protocol.DecodeEvent([]byte(line)); err == nil {
			t.Errorf("DecodeEvent(%q) = %#v, nil; want an error", line, ev)
		}
	}
}
