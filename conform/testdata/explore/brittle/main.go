// Command brittle is a step with one flaw, named by its argument, that
// only some valid requests reveal. conform --explore must find each flaw
// and shrink the request that shows it to the base request plus the one
// field that matters. It reads the request as a naive step would: into
// plain maps, trusting what it expects to be there.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

func main() {
	flaw := os.Args[1]
	if os.Getenv("KUSAW_HANDSHAKE") == "1" {
		fmt.Printf(`{"type":"handshake","name":"brittle-%s","version":"1.0.0","interactive":false,"protocol_versions":[2]}`+"\n", flaw)
		return
	}
	var req map[string]any
	if err := json.NewDecoder(os.Stdin).Decode(&req); err != nil {
		panic(err)
	}
	ctx := req["context"].(map[string]any)
	outputs := map[string]any{}
	switch flaw {
	case "empty-repos":
		outputs["repo"] = req["repos"].([]any)[0].(map[string]any)["label"] // index out of range when repos is []
	case "null-task":
		outputs["title"] = ctx["task"].(map[string]any)["title"] // a nil map when task is null
	case "unicode":
		task, _ := ctx["task"].(map[string]any)
		title, _ := task["title"].(string)
		outputs["title"] = ascii(title) // panics on the first character past ASCII
	case "tiny-outputs":
		outputs["text"] = strings.Repeat("x", 500) // over a small limits.outputs_max_bytes
	case "unknown-context-field":
		for k := range ctx {
			if !known[k] {
				fmt.Fprintln(os.Stderr, "unexpected context field", k)
				os.Exit(1)
			}
		}
	}
	out, _ := json.Marshal(map[string]any{"type": "result", "protocol_version": 2, "status": "ok",
		"reason_code": "done", "message": "done", "outputs": outputs})
	fmt.Println(string(out))
}

// ascii returns s when it is plain ASCII, as a legacy encoder would, and
// panics otherwise.
func ascii(s string) string {
	for _, r := range s {
		if r > 127 {
			panic(fmt.Sprintf("cannot encode %q", r))
		}
	}
	return s
}

// known are the context fields of protocol v2: a strict step knows them
// all, and refuses the fields of a later version.
var known = map[string]bool{}

func init() {
	for _, k := range strings.Fields(`atlas bench budget candidate candidates classify connectors
		events_path evidence failed_repos idea logs notes order outcome ports regrade requeue_note
		scorecard services source_link steps subtask subtasks task tracker triage
		verification_commands workflow`) {
		known[k] = true
	}
}
