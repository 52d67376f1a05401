package result_test

import (
	"slices"
	"testing"

	"kusaw.dev/step/protocol"
	"kusaw.dev/step/result"
	"kusaw.dev/step/schemas"
)

// FuzzCheck checks that Check never panics, never returns nil, and never
// accepts a result the result schema rejects: such a result is always
// fail/protocol_error, whatever the options.
func FuzzCheck(f *testing.F) {
	dir, _ := artifactsFixture(f)
	outputs := compile(f, `{"type":"object","properties":{"n":{"type":"integer"},"kids":{"type":"array","items":{"$ref":"#"}}}}`)
	optSets := []result.Options{
		{ArtifactsDir: dir},
		{Request: withEffects("score"), ArtifactsDir: dir, OutputsSchema: outputs},
		{Request: triageRequest(`[]`), ArtifactsDir: dir},
		{Request: withOutputsMax(16), ArtifactsDir: dir},
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
			err = schemas.Validate("result", doc)
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
		`{"type":"result"}`, `[]`, `null`, "\xef\xbb\xbf{}", `{"type":"result","protocol_version":2.0,"status":"ok","reason_code":"d","message":"m"}`,
	}
}
