package conform

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strings"

	"kusaw.dev/step/protocol"
	"kusaw.dev/step/result"
	"kusaw.dev/step/schemas"
)

// checkUnknownFields is AT-016: the result and the events name only
// fields the protocol defines. Unknown fields are accepted (forward
// compatibility), so this is a SHOULD: one is most often a misspelt field
// whose value is lost ("percentage" for percent, "output" for outputs).
// The runner warns of the result's; the battery, not bound to the event
// fast path, reads every event line back as well.
func (b *battery) checkUnknownFields(r *attemptRun) {
	if r.rec == nil {
		return
	}
	var found []string
	for _, w := range r.rec.Warnings {
		if w.Code == result.WarnUnknownField {
			found = append(found, "result: "+w.Message)
		}
	}
	for _, path := range eventLogs(r) {
		found = append(found, unknownEventFields(path)...)
	}
	if len(found) == 0 {
		b.report("AT-016", r.mode, Pass, "every field of the result and the events is the protocol's")
		return
	}
	const shown = 4
	if len(found) > shown {
		found = append(found[:shown], fmt.Sprintf("and %d more", len(found)-shown))
	}
	b.report("AT-016", r.mode, Fail, "%s; spell each field as kusaw-step schema names it", strings.Join(found, "; "))
}

// eventLogs are the files that hold the attempt's event lines: stdout.jsonl,
// and an interactive step's events.jsonl.
func eventLogs(r *attemptRun) []string {
	paths := []string{r.rec.Logs.Stdout.Path}
	if e := r.rec.Logs.Events; e != nil {
		paths = append(paths, e.Path)
	}
	return paths
}

// unknownEventFields reads the event lines of a log and says, for each
// unknown field, where it is: "event on line 3 /percentage is not ...".
func unknownEventFields(path string) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, protocol.DefaultMaxLineBytes+1)
	for n := 1; sc.Scan(); n++ {
		doc, err := protocol.Parse(sc.Bytes())
		m, _ := doc.(map[string]any)
		typ, _ := m["type"].(string)
		if err != nil || !slices.Contains(schemas.EventTypes, typ) {
			continue
		}
		for _, w := range result.UnknownFieldWarnings("event:"+typ, doc) {
			out = append(out, fmt.Sprintf("%s event on line %d: %s", typ, n, w.Message))
		}
	}
	return out
}
