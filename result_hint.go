package step

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"kusaw.dev/step/events"
	"kusaw.dev/step/protocol"
	"kusaw.dev/step/schemas"
)

// resultBytesMax is how much of a rejected result the diagnosis shows.
const resultBytesMax = 1 << 10

// hintResultSchema is the hint for a result that breaks its schema.
const hintResultSchema = "the result's fields are listed by `kusaw-step schema result` and in the step protocol reference"

// explainResult gives a result that broke its schema the diagnosis an
// event's protocol error gets: what is wrong and where, the result as the
// step wrote it (cut, secrets masked), and a hint: a misspelt field it
// likely meant, or a Python repr where JSON belongs.
func (at *attempt) explainResult(raw []byte, line int, out *output) {
	rec := at.rec
	if rec.ReasonCode != protocol.ReasonProtocolError || rec.Diagnosis != "" {
		return
	}
	where := fmt.Sprintf("stdout line %d", line)
	if out.interactive {
		where = "KUSAW_RESULT (result.json)"
	}
	shown := at.maskBytes(raw)
	size := fmt.Sprintf("%d bytes", len(shown))
	if len(shown) > resultBytesMax {
		shown = cutUTF8(shown, resultBytesMax)
		size += fmt.Sprintf(", the first %d shown", len(shown))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "result (%s): %s\n", where, rec.Message)
	fmt.Fprintf(&b, "---8<--- %s (%s)\n%s\n---8<---\n", where, size, events.Visible(shown))
	fmt.Fprintf(&b, "Hint: %s\n", resultHint(raw))
	if tail := out.stderrTail.Lines(20); tail != "" {
		fmt.Fprintf(&b, "The last lines of stderr:\n%s\n", strings.TrimSuffix(tail, "\n"))
	}
	rec.Diagnosis = b.String()
}

// resultHint picks the hint for a rejected result.
func resultHint(raw []byte) string {
	doc, err := protocol.Parse(raw)
	if err != nil {
		if events.LooksLikePythonRepr(raw) {
			return events.HintPythonRepr
		}
		return "write the result as one JSON object: " + hintResultSchema
	}
	var meant []string
	for _, u := range schemas.UnknownFields("result", doc) {
		if u.Suggest != "" {
			meant = append(meant, fmt.Sprintf("%s for %s", u.Suggest, u.Pointer))
		}
	}
	if len(meant) > 0 {
		return "did you mean " + strings.Join(meant, ", ") + "? " + hintResultSchema
	}
	return hintResultSchema
}

// cutUTF8 returns at most n bytes of b, not splitting a UTF-8 sequence.
func cutUTF8(b []byte, n int) []byte {
	for n > 0 && n < len(b) && !utf8.RuneStart(b[n]) {
		n--
	}
	return b[:n]
}
