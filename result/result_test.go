package result_test

import (
	"slices"
	"strings"
	"testing"

	"kusaw.dev/step/protocol"
	"kusaw.dev/step/result"
	"kusaw.dev/step/schemas"
)

// checkCase is one row of TestCheck: a result line, the options, and the
// verdict it must give.
type checkCase struct {
	name   string
	line   string
	opts   result.Options // Request defaults to mode pipeline, ArtifactsDir to the fixture
	noDir  bool           // leave ArtifactsDir ""
	status string         // "" means ok
	reason string         // "" means the step's own, done
	warns  []string       // warning codes, in order
	msg    []string       // substrings of the verdict's message
	check  func(t *testing.T, v *result.Verdict)
}

func TestCheck(t *testing.T) {
	t.Parallel()
	dir, root := artifactsFixture(t)
	var cases []checkCase
	for _, rows := range [][]checkCase{
		schemaCases(), outputsCases(t), effectsCases(), fieldCases(),
		artifactCases(root), precedenceCases(), modeCases(root),
	} {
		cases = append(cases, rows...)
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			opts := tt.opts
			if opts.Request == nil {
				opts.Request = request("pipeline")
			}
			if opts.ArtifactsDir == "" && !tt.noDir {
				opts.ArtifactsDir = dir
			}
			v := result.Check([]byte(tt.line), opts)
			want(t, tt, v)
		})
	}
}

func want(t *testing.T, tt checkCase, v *result.Verdict) {
	t.Helper()
	status, reason := tt.status, tt.reason
	if status == "" {
		status = protocol.StatusOK
	}
	if reason == "" {
		reason = "done"
	}
	if v.Status != status || v.ReasonCode != reason {
		t.Errorf("Check(%.200s) = %s/%s %q; want %s/%s", tt.line, v.Status, v.ReasonCode, v.Message, status, reason)
	}
	for _, s := range tt.msg {
		if !strings.Contains(v.Message, s) {
			t.Errorf("Check(%.200s) message = %q; want it to contain %q", tt.line, v.Message, s)
		}
	}
	var codes []string
	for _, w := range v.Warnings {
		codes = append(codes, w.Code)
	}
	if !slices.Equal(codes, tt.warns) {
		t.Errorf("Check(%.200s) warnings = %v; want codes %v", tt.line, v.Warnings, tt.warns)
	}
	if tt.check != nil {
		tt.check(t, v)
	}
}

func schemaCases() []checkCase {
	pe := protocol.ReasonProtocolError
	return []checkCase{
		{name: "schema/ok", line: line(), check: func(t *testing.T, v *result.Verdict) {
			if v.Result == nil || v.Message != "all good" || len(v.Failures) != 0 {
				t.Errorf("verdict = %+v; want the step's own", v)
			}
		}},
		{name: "schema/not JSON", line: `{"type":"result"`, status: "fail", reason: pe, msg: []string{"byte offset"}},
		{name: "schema/duplicate key", line: line(`"status":"fail"`), status: "fail", reason: pe, msg: []string{"duplicate object key"}},
		{name: "schema/missing status", line: `{"type":"result","protocol_version":2,"reason_code":"x","message":"m"}`, status: "fail", reason: pe, msg: []string{"status"}},
		{name: "schema/integer past int64", line: line(`"cost":{"tokens_input":99999999999999999999}`), status: "fail", reason: pe,
			msg: []string{"/cost/tokens_input", "64 bits"}},
		{name: "schema/unknown members are kept", line: line(`"future":{"x":1}`, `"retry_after_ms":2000`), warns: []string{"unknown_field"}, check: func(t *testing.T, v *result.Verdict) {
			if string(v.Result.Unknown) != `{"future":{"x":1}}` || *v.Result.RetryAfterMS != 2000 {
				t.Errorf("Result.Unknown = %s, RetryAfterMS = %v; want the future member alone, 2000", v.Result.Unknown, v.Result.RetryAfterMS)
			}
		}},
		{name: "schema/keeps feedback, session and cost",
			line: line(`"feedback":[{"message":"m","severity":"info"}]`, `"session":{"id":"s","provider":"p","dir":"/d"}`, `"cost":{"usd":0.5}`),
			check: func(t *testing.T, v *result.Verdict) {
				if len(v.Feedback) != 1 || v.Session == nil || v.Session.ID != "s" || v.Cost == nil || *v.Cost.USD != 0.5 {
					t.Errorf("verdict = %+v; want feedback, session and cost", v)
				}
			}},
	}
}

func precedenceCases() []checkCase {
	all := line(`"artifacts":[{"path":"nope","kind":"log"}]`, outputsOfSize(64<<10+1), effectsOf(1, note), `"phase":"Bad"`)
	return []checkCase{
		{name: "precedence/artifact over outputs over effects", line: all, status: "fail", reason: protocol.ReasonArtifactInvalid,
			warns: []string{"phase_ignored"}, msg: []string{"also outputs_too_large", "effects_invalid"},
			check: failures(protocol.ReasonArtifactInvalid, protocol.ReasonOutputsTooLarge, protocol.ReasonEffectsInvalid)},
		{name: "precedence/outputs_invalid over effects", line: line(`"outputs":{"score":2}`, effectsOf(1, note)),
			opts: result.Options{Request: request("score")}, status: "fail", reason: protocol.ReasonOutputsInvalid,
			check: failures(protocol.ReasonOutputsInvalid, protocol.ReasonEffectsInvalid)},
		{name: "precedence/effects alone is retry, warnings kept", line: lineStatus("fail", effectsOf(1, note), `"retry_after_ms":5`),
			status: "retry", reason: protocol.ReasonEffectsInvalid, warns: []string{"retry_after_ignored"}},
		{name: "precedence/protocol_error checks nothing else", line: line(`"phase":"Bad"`, `"status":"ok"`), status: "fail",
			reason: protocol.ReasonProtocolError, check: failures(protocol.ReasonProtocolError)},
		{name: "precedence/the step's own reject stands", line: lineStatus("reject", `"phase":"Bad"`), status: "reject", warns: []string{"phase_ignored"}},
	}
}

func failures(codes ...string) func(*testing.T, *result.Verdict) {
	return func(t *testing.T, v *result.Verdict) {
		var got []string
		for _, f := range v.Failures {
			got = append(got, f.ReasonCode)
		}
		if !slices.Equal(got, codes) {
			t.Errorf("Failures = %v; want %v", v.Failures, codes)
		}
	}
}

// TestSelfReferringSchema checks that a schema that refers to itself in
// place is refused cleanly, as outputs_schema and as an effect kind's.
func TestSelfReferringSchema(t *testing.T) {
	t.Parallel()
	for _, src := range []string{`{"$ref":"#"}`, `{"allOf":[{"$ref":"#"}]}`} {
		doc, _ := protocol.Parse([]byte(src))
		if _, err := schemas.Compile("outputs_schema", doc); err == nil || !strings.Contains(err.Error(), "does not compile") {
			t.Errorf("Compile(%s) = %v; want a compile error", src, err)
		}
	}
}
