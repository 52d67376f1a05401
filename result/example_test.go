package result_test

import (
	"fmt"

	"kusaw.dev/step/protocol"
	"kusaw.dev/step/result"
)

func ExampleCheck() {
	req := &protocol.Request{Mode: "score"}
	line := `{"type":"result","protocol_version":2,"status":"ok","reason_code":"scored","message":"judged",` +
		`"outputs":{"score":1.5},"phase":"Judge","retry_after_ms":10}`
	v := result.Check([]byte(line), result.Options{Request: req})
	fmt.Println(v.Status, v.ReasonCode)
	fmt.Println(v.Message)
	for _, w := range v.Warnings {
		fmt.Println(w.Code+":", w.Message)
	}
	// Output:
	// fail outputs_invalid
	// the outputs are invalid: /outputs/score: maximum: got 1.5, want 1 (outputs:score)
	// phase_ignored: phase "Judge" ignored: a phase is 1 to 40 characters matching ^[a-z][a-z0-9_]*$
	// retry_after_ignored: retry_after_ms 10 ignored: it is outside 1000 to 900000, so the normal backoff is used
}
