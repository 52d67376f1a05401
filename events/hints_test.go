package events_test

import (
	"strings"
	"testing"

	"kusaw.dev/step/events"
)

// TestPythonReprHint proves issue 16 item 10: a Python print(dict) line
// on stdout is named as one, with what to print instead.
func TestPythonReprHint(t *testing.T) {
	for _, tt := range []struct {
		line   string
		python bool
	}{
		{`{'type': 'progress', 'message': 'hi'}`, true},
		{`{"type": "progress", "message": "hi", "done": True}`, true},
		{`{"type": "usage", "cost_usd": None}`, true},
		{`['a', 'b']`, true},
		{`starting up`, false},
		{`{"type": "progress", "message": 'hi'}`, false},
		{`{"type":"progress","message":"None of it"}x`, false},
	} {
		if got := events.LooksLikePythonRepr([]byte(tt.line)); got != tt.python {
			t.Errorf("LooksLikePythonRepr(%s) = %v; want %v", tt.line, got, tt.python)
		}
		sum, err := events.Read(strings.NewReader(tt.line+"\n"), events.Options{})
		if err != nil || len(sum.Problems) != 1 {
			t.Fatalf("Read(%s): %v, %v; want one problem", tt.line, sum, err)
		}
		if got := sum.Problems[0].Hint == events.HintPythonRepr; got != tt.python {
			t.Errorf("Read(%s): hint %q; want the Python hint: %v", tt.line, sum.Problems[0].Hint, tt.python)
		}
	}
}

// TestRejectedEventNamesMeantField: an event rejected by its schema whose
// unknown field is a misspelt known one says which (issue 16 item 9).
func TestRejectedEventNamesMeantField(t *testing.T) {
	sum, err := events.Read(strings.NewReader(`{"type":"progress","msg":"hi","percentage":5}`+"\n"), events.Options{})
	if err != nil || len(sum.Problems) != 1 {
		t.Fatalf("Read: %v, %v; want one problem", sum, err)
	}
	if want := "; did you mean message for /msg, percent for /percentage?"; !strings.HasSuffix(sum.Problems[0].Hint, want) {
		t.Errorf("hint %q; want it to end with %q", sum.Problems[0].Hint, want)
	}
}
