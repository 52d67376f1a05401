package events

import (
	"bytes"
	"regexp"
	"strings"

	"kusaw.dev/step/schemas"
)

// HintPythonRepr is the hint for a line that is a Python repr, not JSON.
const HintPythonRepr = "this looks like a Python repr (print(dict) writes single quotes and True/False/None): " +
	"print json.dumps(obj) instead, with flush=True, or use kits/python/kusaw_step.py"

// pythonLiteral matches True, False or None where JSON has a value.
var pythonLiteral = regexp.MustCompile(`[:\[,]\s*(True|False|None)\s*[,}\]]`)

// pythonKey matches a single-quoted key or first item: {'type': or ['a'.
var pythonKey = regexp.MustCompile(`[{\[,]\s*'[^']*'\s*[:,}\]]`)

// LooksLikePythonRepr reports whether a line that is not JSON is most
// likely what Python's print gives for a dict or a list.
func LooksLikePythonRepr(line []byte) bool {
	line = bytes.TrimSpace(line)
	if len(line) < 2 || line[0] != '{' && line[0] != '[' {
		return false
	}
	return pythonKey.Match(line) || pythonLiteral.Match(line)
}

// meantFields names, for an event that broke its schema, the known fields
// its unknown ones likely meant: "; did you mean message for /msg?". It
// runs on the slow path only, after a line was rejected.
func meantFields(eventType string, obj map[string]any) string {
	var meant []string
	for _, u := range schemas.UnknownFields("event:"+eventType, obj) {
		if u.Suggest != "" {
			meant = append(meant, u.Suggest+" for "+u.Pointer)
		}
	}
	if len(meant) == 0 {
		return ""
	}
	return "; did you mean " + strings.Join(meant, ", ") + "?"
}
