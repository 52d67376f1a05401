package step_test

import (
	"strings"
	"testing"
)

// TestResultDiagnosis proves issue 16 item 10: a result that breaks its
// schema is diagnosed as an event is, with the raw line between markers
// and a hint, and a misspelt field is named.
func TestResultDiagnosis(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		fake string
		want []string
	}{
		{"bad-result", []string{
			"result (stdout line 1): the result is invalid: /status: value must be one of",
			"---8<--- stdout line 1 (",
			`"status":"great"`, "\n---8<---\nHint: the result's fields are listed by `kusaw-step schema result`",
		}},
		{"misspelt-result", []string{"missing property 'status'", "Hint: did you mean status for /Status? "}},
	} {
		rec, _ := runAttempt(t, tt.fake, setup{})
		wantVerdict(t, rec, verdict{"fail", "protocol_error", ""})
		for _, w := range tt.want {
			if !strings.Contains(rec.Diagnosis, w) {
				t.Errorf("%s: the diagnosis lacks %q:\n%s", tt.fake, w, rec.Diagnosis)
			}
		}
	}
}
