package result

import (
	"bytes"
	"errors"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
)

// overflowingNumber returns the JSON pointer (relative to raw) and the
// text of the first number in raw that does not fit a float64, such as
// 1e400: no consumer of the outputs could read it back. ok is false when
// every number fits (or raw is not JSON, which other checks report).
// Numbers too small for a float64 (1e-400) read back as 0 and pass.
func overflowingNumber(raw []byte) (pointer, text string, ok bool) {
	dec := jsontext.NewDecoder(bytes.NewReader(raw))
	for {
		tok, err := dec.ReadToken()
		if err != nil {
			return "", "", false
		}
		if tok.Kind() != '0' {
			continue
		}
		text := tok.String()
		if _, err := strconv.ParseFloat(text, 64); errors.Is(err, strconv.ErrRange) {
			return string(dec.StackPointer()), text, true
		}
	}
}
