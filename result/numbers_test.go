package result_test

import (
	"strings"
	"testing"

	"kusaw.dev/step/protocol"
	"kusaw.dev/step/result"
)

// Issue 11 item 11: a number that overflows a float64 in outputs is
// outputs_invalid, with the pointer to it; one that underflows reads back
// as 0 and passes.
func TestOutputsNumberOverflow(t *testing.T) {
	for _, tc := range []struct {
		name, outputs, pointer string
	}{
		{"item 11: 1e400", `{"n":1e400}`, "/outputs/n"},
		{"item 11: -1e400 deep", `{"a":[1,{"b":-1e400}]}`, "/outputs/a/1/b"},
		{"item 11: a long integer past float64", `{"big":` + "1" + strings.Repeat("0", 400) + `}`, "/outputs/big"},
		{"item 11: 1e-400 underflows to 0 and passes", `{"tiny":1e-400}`, ""},
		{"item 11: 1.7e308 fits", `{"max":1.7e308}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := result.Check([]byte(`{"type":"result","protocol_version":2,"status":"ok","reason_code":"done","message":"m","outputs":`+tc.outputs+`}`), result.Options{})
			if tc.pointer == "" {
				if v.Status != protocol.StatusOK {
					t.Errorf("verdict %s/%s %q; want ok", v.Status, v.ReasonCode, v.Message)
				}
				return
			}
			if v.ReasonCode != protocol.ReasonOutputsInvalid || !strings.Contains(v.Message, tc.pointer) || len(v.Problems) != 1 || v.Problems[0].Pointer != tc.pointer {
				t.Errorf("verdict %s/%s %q, problems %v; want outputs_invalid at %s", v.Status, v.ReasonCode, v.Message, v.Problems, tc.pointer)
			}
		})
	}
}
