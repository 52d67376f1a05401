package result_test

import (
	"fmt"
	"testing"

	"kusaw.dev/step/result"
)

// TestUnknownFieldWarnings proves issue 16 item 9 on whole results: a
// misspelt field keeps the step's verdict, and is warned of with its
// pointer and the field it likely meant.
func TestUnknownFieldWarnings(t *testing.T) {
	const head = `{"type":"result","protocol_version":2,"status":"ok","reason_code":"done","message":"m"`
	for _, tt := range []struct {
		line string
		want string
	}{
		{head + `}`, "[]"},
		{head + `,"output":{"a":1}}`, "[{unknown_field /output is not a field of the protocol; it is ignored; did you mean outputs?}]"},
		{head + `,"cost":{"cost":0.5}}`, "[{unknown_field /cost/cost is not a field of the protocol; it is ignored; did you mean usd?}]"},
		{head + `,"x_next_version":1}`, "[{unknown_field /x_next_version is not a field of the protocol; it is ignored}]"},
		{head + `,"outputs":{"percentage":5}}`, "[]"},
	} {
		v := result.Check([]byte(tt.line), result.Options{})
		if v.Status != "ok" {
			t.Errorf("%s: verdict %s/%s; an unknown field must not fail the result", tt.line, v.Status, v.ReasonCode)
		}
		if got := fmt.Sprint(v.Warnings); got != tt.want {
			t.Errorf("%s: warnings %s; want %s", tt.line, got, tt.want)
		}
	}
}
