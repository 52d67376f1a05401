package result_test

import (
	"slices"
	"testing"

	"kusaw.dev/step/protocol"
	"kusaw.dev/step/result"
	"kusaw.dev/step/schemas"
)

// FuzzCheck checks that Check never panics, never returns nil, and never
// accepts a result the result schema rejects for anything but the values
// the spec says to ignore (a phase or recovery items of the wrong type,
// see ignoredByType): such a result is always fail/protocol_error,
// whatever the options.
func FuzzCheck(f *testing.F) {
	dir, _ := artifactsFixture(f)
	outputs := compile(f, `{"type":"object","properties":{"n":{"type":"integer"},"kids":{"type":"array","items":{"$ref":"#"}}}}`)
	optSets := []result.Options{
		{ArtifactsDir: dir},
		{Request: withEffects("score"), ArtifactsDir: dir, OutputsSchema: outputs},
		{Request: triageRequest(`[]`), ArtifactsDir: dir},
		{Request: withOutputsMax(16), ArtifactsDir: dir},
		{Request: withContext("classify", `"classify":{"item":{"title":"t","body":"b","source":"add"},"workflows":[{"name":"w","description":"d"}]}`), ArtifactsDir: dir},
		{Request: withContext("match", `"match":{"bugs":[{"id":"b1"}],"findings":[{}]}`), ArtifactsDir: dir},
		{Request: withContext("atlas_embed", `"atlas":{"dims":2,"texts":[{"id":"h","text":"t"}]}`), ArtifactsDir: dir},
		{Request: withContext("atlas_map", `"atlas":{"out_dir":"`+dir+`"}`), ArtifactsDir: dir},
		{Request: request("atlas_scan"), ArtifactsDir: dir},
		{Request: triageRequest(`[{"id":"g","items":["a"],"root_cause":"r"}]`), ArtifactsDir: dir},
	}
	for _, seed := range fuzzSeeds() {
		f.Add([]byte(seed), uint8(0))
		f.Add([]byte(seed), uint8(1))
	}
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		v := result.Check(data, optSets[int(which)%len(optSets)])
		if v == nil {
			t.Fatalf("Check(%q) = nil", data)
		}
		doc, err := protocol.Parse(data)
		if err == nil {
			err = schemas.Validate("result", ignoredByType(doc))
		}
		if err != nil && (v.Status != protocol.StatusFail || v.ReasonCode != protocol.ReasonProtocolError) {
			t.Fatalf("Check(%q) = %s/%s; the schema says %v", data, v.Status, v.ReasonCode, err)
		}
		if !slices.Contains([]string{"ok", "fail", "retry", "reject"}, v.Status) {
			t.Fatalf("Check(%q) status = %q", data, v.Status)
		}
		if v.Status == protocol.StatusOK && (len(v.Failures) > 0 || v.Result == nil) {
			t.Fatalf("Check(%q) = ok with failures %v", data, v.Failures)
		}
	})
}

func fuzzSeeds() []string {
	return []string{
		line(),
		line(`"outputs":{"score":0.5}`, `"phase":"p_1"`, `"retry_after_ms":1e3`, `"resets_at":"2026-01-02T15:04:05Z"`),
		line(`"effects":[{"kind":"run.note","args":{"text":"hi"}},{"kind":"nope"}]`),
		line(`"artifacts":[{"path":"shot.png","kind":"evidence","caption":"c"},{"path":"../x","kind":"log"}]`),
		line(`"recovery":[{"title":"t","command":"c"},{}]`, `"provenance":{"model":1,"tools":{"a":"1","b":2}}`),
		line(`"outputs":{"kids":[{"n":1.5}]}`, `"cost":{"tokens_input":1.0}`),
		lineStatus("retry", `"retry_after_ms":99999999999999999999`, `"provenance":[]`),
		`{"type":"result","protocol_version":2,"status":"ok","reason_code":"","message":"","status":"ok"}`,
		line(`"phase":5`, `"recovery":[{"title":7,"command":"c"},"x"]`),
		line(`"recovery":{"title":"t"}`, `"phase":null`),
		line(`"outputs":{"workflow":"x","confidence":0.5,"rationale":"r"}`),
		line(`"outputs":{"pairs":[{"bug":"b1","finding":3},{"bug":"b1","finding":0}]}`),
		line(`"outputs":{"vectors":[{"id":"h","vector":[1]},{"id":"z","vector":[1,2]}]}`),
		line(`"outputs":{"pages":[{"file":"../x","slug":"s"},{"file":"escape","slug":"t"}]}`),
		line(`"outputs":{"scanner":{"name":"s"},"findings":[{"rule_id":"r","snippet":"x"},1]}`),
		line(`"outputs":{"assessments":[{"id":"a","difficulty":"small","role":"wontfix","verdict":"v"},{"id":"q","difficulty":"small","role":"wontfix","verdict":"v"}]}`),
		`{"type":"result"}`, `[]`, `null`, "\xef\xbb\xbf{}", `{"type":"result","protocol_version":2.0,"status":"ok","reason_code":"d","message":"m"}`,
	}
}

// ignoredByType returns doc without the values Check ignores, with a
// warning, for their wrong JSON type: a phase that is not a string, a
// recovery that is not an array, recovery items that are not objects of
// string title and command.
func ignoredByType(doc any) any {
	obj, ok := doc.(map[string]any)
	if !ok {
		return doc
	}
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		out[k] = v
	}
	if _, ok := out["phase"].(string); !ok {
		delete(out, "phase")
	}
	items, ok := out["recovery"].([]any)
	if !ok {
		delete(out, "recovery")
		return out
	}
	kept := []any{}
	for _, it := range items {
		item, ok := it.(map[string]any)
		if !ok {
			continue
		}
		_, badTitle := item["title"]
		_, badCommand := item["command"]
		if _, ok := item["title"].(string); ok {
			badTitle = false
		}
		if _, ok := item["command"].(string); ok {
			badCommand = false
		}
		if !badTitle && !badCommand {
			kept = append(kept, it)
		}
	}
	out["recovery"] = kept
	return out
}
