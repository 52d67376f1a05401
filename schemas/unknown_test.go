package schemas_test

import (
	"fmt"
	"testing"

	"kusaw.dev/step/protocol"
	"kusaw.dev/step/schemas"
)

// TestUnknownFields proves issue 16 item 9: misspelt fields are found
// with their JSON pointer, and the field they likely meant is named.
func TestUnknownFields(t *testing.T) {
	const ok = `"type":"result","protocol_version":2,"status":"ok","reason_code":"done","message":"m"`
	tests := []struct {
		kind, doc string
		want      string // fmt of the []UnknownField
	}{
		{"result", `{` + ok + `}`, "[]"},
		{"result", `{` + ok + `,"output":{"a":1}}`, "[{/output outputs}]"},
		{"result", `{` + ok + `,"outputz":{}}`, "[{/outputz outputs}]"},
		{"result", `{` + ok + `,"Status":"x","reason":"r"}`, "[{/Status status} {/reason reason_code}]"},
		{"result", `{` + ok + `,"cost":{"cost_usd":1,"input_tokens":3}}`, "[{/cost/cost_usd usd} {/cost/input_tokens tokens_input}]"},
		{"result", `{` + ok + `,"artifacts":[{"path":"a","kind":"log"},{"path":"b","kind":"log","pth":"c"}]}`, "[{/artifacts/1/pth path}]"},
		{"result", `{` + ok + `,"x_future":true}`, "[{/x_future }]"},
		{"result", `{` + ok + `,"outputs":{"anything":{"goes":1}}}`, "[]"},
		{"result", `{` + ok + `,"a/b~":1}`, "[{/a~1b~0 }]"},
		{"event:progress", `{"type":"progress","message":"m","percentage":50}`, "[{/percentage percent}]"},
		{"event:usage", `{"type":"usage","input_tokens":1,"output_tokens":2,"cost":0.1}`, "[{/cost cost_usd} {/input_tokens tokens_input} {/output_tokens tokens_output}]"},
		{"event:usage", `{"type":"usage","tokens_input":1,"cost_usd":0.1}`, "[]"},
		{"nope", `{"a":1}`, "[]"},
	}
	for _, tt := range tests {
		doc, err := protocol.Parse([]byte(tt.doc))
		if err != nil {
			t.Fatal(err)
		}
		got := fmt.Sprint(schemas.UnknownFields(tt.kind, doc))
		if got != tt.want {
			t.Errorf("UnknownFields(%s, %s) = %s; want %s", tt.kind, tt.doc, got, tt.want)
		}
	}
}
