package events

import "testing"

// Issue 15, item 2: the flat path takes the plain lines a step prints most
// and leaves everything else to the decoder. (Whether each verdict is
// right is FuzzFastPath's business.)
func TestFlatTakesPlainLines(t *testing.T) {
	tests := []struct {
		line string
		take bool
	}{
		{`{"type":"progress","message":"step 3 of 9","percent":33}`, true},
		{` { "percent" : 3.5e1 , "type" : "progress" , "message" : "é" } `, true},
		{`{"type":"usage","tokens_input":1,"model":null,"cost_usd":-0.5e-3}`, true},
		{`{"type":"tool_call","tool":"bash","allowed":false}`, true},
		{`{"type":"progress","message":"an \"escape\""}`, false},
		{`{"type":"progress","message":"m","extra":1}`, false},
		{`{"type":"progress","message":"m","percent":{}}`, false},
		{`{"type":"progress","message":"m","message":"m"}`, false},
		{`{"type":"progress","message":"m","percent":101}`, false},
		{`{"type":"progress"}`, false},
		{`{"type":"result","protocol_version":2}`, false},
		{`{"type":"progress","message":"m"} {}`, false},
	}
	c := newChecker()
	for _, tt := range tests {
		spec, ev, ok := c.flat([]byte(tt.line), true)
		if ok != tt.take {
			t.Errorf("flat(%s) took it: %v; want %v", tt.line, ok, tt.take)
			continue
		}
		if ok && (ev == nil || ev.EventType() != spec.name) {
			t.Errorf("flat(%s) built %s for spec %s", tt.line, dump(ev), spec.name)
		}
	}
}
