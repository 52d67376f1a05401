package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestValidateValidExamples(t *testing.T) {
	files, _ := filepath.Glob("../../schemas/testdata/valid/*.json")
	if len(files) == 0 {
		t.Fatal("no examples")
	}
	for _, f := range files {
		kind := strings.Replace(strings.TrimSuffix(filepath.Base(f), ".json"), "outputs-", "outputs:", 1)
		// request.json carries a field of a later version on purpose: a warning.
		out, errs, code := runCmd(t, "", "validate", kind, f)
		if code != exitOK || strings.TrimSpace(out) != "" && !strings.HasPrefix(out, "warning: unknown_field: ") {
			t.Errorf("validate %s %s: exit %d, %q %q; want exit 0 and nothing but warnings", kind, f, code, out, errs)
		}
		data, _ := os.ReadFile(f)
		if _, _, code := runCmd(t, string(data), "validate", kind, "-"); code != exitOK {
			t.Errorf("validate %s - (from stdin): exit %d; want 0", kind, code)
		}
	}
}

func TestValidateInvalid(t *testing.T) {
	tests := []struct {
		kind, doc string
		want      string // every line printed
	}{
		{"handshake", `{"type":"handshake","name":"x","version":"1","protocol_versions":["2"]}`,
			"(root): missing property 'interactive'\n/protocol_versions/0: got string, want integer\n"},
		{"request", `{"protocol_version":2,"mode":"ci","run_id":null,"task_id":null,"worktree":null,"artifacts_dir":"/a","config":{},"context":{"task":null,"steps":{}},"limits":{"budget_left_usd":null,"time_left_ms":-1},"loop":null,"repos":[],"step":{"id":"s","name":"s","attempt":0}}`,
			"/limits/time_left_ms: minimum: got -1, want 0\n/mode: value must be one of 'pipeline', 'intake', 'finally', 'atlas_scan', 'atlas_chunk', 'atlas_embed', 'atlas_map', 'check', 'score', 'match', 'triage', 'select', 'classify'\n/step/attempt: minimum: got 0, want 1\n"},
		{"event", `{"type":"tool_call","tool":"bash"}`, "(root): missing property 'allowed'\n"},
		{"event", `{"type":"result"}`, `/type: unknown event type "result"; want one of agent_action, artifact, note_ack, progress, tool_call, usage (or result)` + "\n"},
		{"result", `{"type":"result","protocol_version":2,"status":"ok","reason_code":"x","message":"m","artifacts":[{"path":"a"}]}`, "/artifacts/0: missing property 'kind'\n"},
		{"outputs:score", `{"rationale":"r"}`, "(root): missing property 'score'\n"},
		{"outputs:classify", `{"workflow":"w","confidence":1.5,"rationale":"r"}`, "/confidence: maximum: got 1.5, want 1\n"},
		{"outputs:improvement-draft", `{"title":"t","rationale":"r","target":"x","target_kind":"file","change":1}`, "/target_kind: value must be one of 'config_key', 'instructions_file', 'skill_file'\n"},
		{"outputs:plan", `{"reason":5}`, "/reason: got number, want string\n"},
		{"outputs:retro", `{}`, "(root): got object, want array\n"},
		{"outputs:review-findings", `{"findings":[{"rule":"r","severity":"bad","message":"m"}]}`, "/findings/0/severity: value must be one of 'blocker', 'major', 'minor', 'info'\n"},
		{"outputs:review-fix", `{"changes":[],"findings":[],"notes":[{"id":"n","action":"ignored","reply":"r"}]}`, "/notes/0/action: value must be one of 'addressed', 'declined', 'deferred'\n"},
		{"outputs:review-match", `{"pairs":[{"bug":"b","finding":"0"}]}`, "/pairs/0/finding: got string, want integer\n"},
		{"outputs:review", `{"findings":[1]}`, "/findings/0: got number, want object\n"},
		{"outputs:selection", `{"choice":1.5}`, "/choice: got number, want null or integer\n"},
		{"outputs:triage-assessments", `{"assessments":[{"id":"a","role":"wontfix","verdict":"v","difficulty":"huge"}]}`, "/assessments/0/difficulty: value must be one of 'small', 'medium', 'large'\n"},
		// Issue 13 item 8: the outputs rules that need no request are the schemas'.
		{"outputs:triage-assessments", `{"assessments":[{"id":"a","role":"needs-triage","verdict":"v","difficulty":"small"}]}`, "/assessments/0/role: 'needs-triage' does not match pattern '^(needs-info|ready-for-agent|ready-for-human|wontfix)$'\n"},
		{"outputs:triage-assessments", `{"assessments":[{"id":"a","role":"wontfix","verdict":"` + strings.Repeat("v", 501) + `","difficulty":"small"}]}`, "/assessments/0/verdict: maxLength: got 501, want 500\n"},
		{"outputs:selection", `{"choice":0}`, "/choice: minimum: got 0, want 1\n"},
		{"outputs:review-match", `{"pairs":[{"bug":"b","finding":-1}]}`, "/pairs/0/finding: minimum: got -1, want 0\n"},
		{"outputs:triage-groups", `{"groups":[{"items":["a","a"],"root_cause":"c"}]}`, "/groups/0/items: items at 0 and 1 are equal\n"},
		{"outputs:triage-groups", `{"groups":[{"root_cause":"c"}]}`, "/groups/0: missing property 'items'\n"},
		// Strict decoding comes before any schema, each fault named with its offset.
		{"result", `{"type":"result","type":"result"}`, `/type: byte offset 17: duplicate object key "type"; each key may appear once in an object` + "\n"},
		{"event", "{\"type\":\"progress\",\"message\":\"\xfe\"}", "(root): byte offset 30: invalid UTF-8; JSON text must be valid UTF-8\n"},
		{"handshake", "\xef\xbb\xbf{}", "(root): byte offset 0: UTF-8 byte order mark (BOM) before the JSON value; write the JSON without a BOM\n"},
		{"request", "{}\n{}", `(root): byte offset 3: trailing data after the JSON value ("{}"); write exactly one JSON value` + "\n"},
	}
	for _, tt := range tests {
		out, errs, code := runCmd(t, tt.doc, "validate", tt.kind, "-")
		if code != exitFailed || out != tt.want {
			t.Errorf("validate %s %s: exit %d, stdout:\n%s\nstderr %q\nwant exit 1 and:\n%s", tt.kind, tt.doc, code, out, errs, tt.want)
		}
	}
}

// TestValidateUnknownField: a valid document with a misspelt field stays
// valid (exit 0) but is warned of, with the field it likely meant (issue
// 16 item 9).
func TestValidateUnknownField(t *testing.T) {
	for _, tt := range []struct{ kind, doc, want string }{
		{"event", `{"type":"progress","message":"m","percentage":5}`, "warning: unknown_field: /percentage is not a field of the protocol; it is ignored; did you mean percent?\n"},
		{"event:usage", `{"type":"usage","input_tokens":5}`, "did you mean tokens_input?\n"},
		{"result", `{"type":"result","protocol_version":2,"status":"ok","reason_code":"x","message":"m","output":{}}`, "did you mean outputs?\n"},
	} {
		out, _, code := runCmd(t, tt.doc, "validate", tt.kind, "-")
		if code != exitOK || !strings.HasSuffix(out, tt.want) {
			t.Errorf("validate %s: exit %d, %q; want exit 0 and %q", tt.kind, code, out, tt.want)
		}
	}
}
