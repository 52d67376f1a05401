package result_test

import (
	"testing"

	"kusaw.dev/step/protocol"
	"kusaw.dev/step/result"
)

func outputsCases(t *testing.T) []checkCase {
	answer := compile(t, `{"type":"object","required":["answer"],"properties":{"answer":{"type":"string"}}}`)
	draft7 := compile(t, `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"n":{"$ref":"#/definitions/small"}},"definitions":{"small":{"type":"integer","maximum":3}}}`)
	tree := compile(t, `{"$ref":"#/$defs/node","$defs":{"node":{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/$defs/node"}}}}}}`)
	big, inv := protocol.ReasonOutputsTooLarge, protocol.ReasonOutputsInvalid
	return []checkCase{
		{name: "outputs/exactly 64 KiB", line: line(outputsOfSize(64 << 10)), check: func(t *testing.T, v *result.Verdict) {
			if len(v.Outputs) != 64<<10 {
				t.Errorf("Outputs = %d bytes; want 65536", len(v.Outputs))
			}
		}},
		{name: "outputs/64 KiB and a byte", line: line(outputsOfSize(64<<10 + 1)), status: "fail", reason: big,
			msg: []string{"65537 bytes", "outputs_max_bytes 65536"}, check: noOutputs},
		{name: "outputs/white space inside counts", line: line(`"outputs": {"a": 1} `), opts: result.Options{Request: withOutputsMax(7)},
			status: "fail", reason: big, msg: []string{"8 bytes", "outputs_max_bytes 7"}},
		{name: "outputs/white space around does not", line: line(`"outputs": {"a":1} `), opts: result.Options{Request: withOutputsMax(7)}},
		{name: "outputs/outputs_schema ok", line: line(`"outputs":{"answer":"yes"}`), opts: result.Options{OutputsSchema: answer}},
		{name: "outputs/outputs_schema violated", line: line(`"outputs":{"answer":3}`), opts: result.Options{OutputsSchema: answer},
			status: "fail", reason: inv, msg: []string{"/outputs/answer", "outputs_schema"}, check: problemAt("/outputs/answer")},
		{name: "outputs/absent, outputs_schema not checked", line: line(), opts: result.Options{OutputsSchema: answer}},
		{name: "outputs/draft-07 ok", line: line(`"outputs":{"n":3}`), opts: result.Options{OutputsSchema: draft7}},
		{name: "outputs/draft-07 violated", line: line(`"outputs":{"n":4}`), opts: result.Options{OutputsSchema: draft7},
			status: "fail", reason: inv, check: problemAt("/outputs/n")},
		{name: "outputs/recursive schema ok", line: line(`"outputs":{"name":"a","children":[{"name":"b","children":[{"name":"c"}]}]}`),
			opts: result.Options{OutputsSchema: tree}},
		{name: "outputs/recursive schema violated deep", line: line(`"outputs":{"name":"a","children":[{"name":"b","children":[{"name":1}]}]}`),
			opts: result.Options{OutputsSchema: tree}, status: "fail", reason: inv, check: problemAt("/outputs/children/0/children/0/name")},
		{name: "outputs/score ok", line: line(`"outputs":{"score":0.5,"rationale":"fine"}`), opts: result.Options{Request: request("score")}},
		{name: "outputs/score null ok", line: line(`"outputs":{"score":null}`), opts: result.Options{Request: request("score")}},
		{name: "outputs/score violated", line: line(`"outputs":{"score":2}`), opts: result.Options{Request: request("score")},
			status: "fail", reason: inv, msg: []string{"/outputs/score", "outputs:score"}, check: problemAt("/outputs/score")},
		{name: "outputs/score missing", line: line(), opts: result.Options{Request: request("score")},
			status: "fail", reason: inv, msg: []string{"missing property 'outputs'", "mode score"}},
		{name: "outputs/score missing on a fail keeps its reason", line: lineStatus("fail"), opts: result.Options{Request: request("score")},
			status: "fail"},
		{name: "outputs/score and outputs_schema both apply", line: line(`"outputs":{"score":0.5}`),
			opts: result.Options{Request: request("score"), OutputsSchema: answer}, status: "fail", reason: inv, msg: []string{"outputs_schema"}},
		{name: "outputs/select violated", line: line(`"outputs":{"choice":"two"}`), opts: result.Options{Request: request("select")},
			status: "fail", reason: inv, msg: []string{"outputs:selection"}},
		{name: "outputs/select ok", line: line(`"outputs":{"choice":null}`), opts: result.Options{Request: request("select")}},
		{name: "outputs/match ok", line: line(`"outputs":{"pairs":[{"bug":"b1","finding":0}]}`), opts: result.Options{Request: request("match")}},
		{name: "outputs/match violated", line: line(`"outputs":{"pairs":[{"bug":"b1"}]}`), opts: result.Options{Request: request("match")},
			status: "fail", reason: inv, msg: []string{"outputs:review-match"}},
		{name: "outputs/classify violated", line: line(`"outputs":{"workflow":"w"}`), opts: result.Options{Request: request("classify")},
			status: "fail", reason: inv, msg: []string{"outputs:classify"}},
		{name: "outputs/triage groups null wants groups", line: line(`"outputs":{"groups":[{"items":["a"],"root_cause":"r"}]}`),
			opts: result.Options{Request: triageRequest("null")}},
		{name: "outputs/triage groups absent wants groups", line: line(`"outputs":{"assessments":[]}`),
			opts: result.Options{Request: triageRequest("")}, status: "fail", reason: inv, msg: []string{"outputs:triage-groups"}},
		{name: "outputs/triage with groups wants assessments", line: line(`"outputs":{"assessments":[{"id":"a","difficulty":"small","role":"wontfix","verdict":"v"}]}`),
			opts: result.Options{Request: triageRequest(`[{"id":"b1-g1","items":["a"],"root_cause":"r"}]`)}},
		{name: "outputs/triage with groups rejects groups", line: line(`"outputs":{"groups":[]}`),
			opts:   result.Options{Request: triageRequest(`[{"id":"b1-g1","items":["a"],"root_cause":"r"}]`)},
			status: "fail", reason: inv, msg: []string{"outputs:triage-assessments"}},
		{name: "outputs/pipeline has no built-in", line: line(`"outputs":{"score":2}`)},
	}
}

func noOutputs(t *testing.T, v *result.Verdict) {
	if v.Outputs != nil || v.Result.Outputs != nil {
		t.Errorf("Outputs = %.40s, Result.Outputs = %.40s; want both nil", v.Outputs, v.Result.Outputs)
	}
}

func problemAt(ptr string) func(*testing.T, *result.Verdict) {
	return func(t *testing.T, v *result.Verdict) {
		if len(v.Problems) == 0 || v.Problems[0].Pointer != ptr {
			t.Errorf("Problems = %v; want the first at %s", v.Problems, ptr)
		}
		noOutputs(t, v)
	}
}
