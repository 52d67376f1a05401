package slipsim_test

import (
	"encoding/json"
	"os"
	"testing"

	"kusaw.dev/step/slipway"
)

// sourceEnvelope is a valid issue-backed source with five sections, for
// tests.
var sourceEnvelope = `{"source_version":2,"provider":"github","host":"github.com","repository_id":"R_kgDOA1",` +
	`"issue_id":"I_kwDOA1","issue_number":7,"canonical_url":"https://github.com/acme/app/issues/7",` +
	`"updated_at":"2026-11-30T00:00:00Z","fetched_at":"2026-11-30T00:00:01Z","title":"Greeting","body":"x","labels":[],` +
	`"comments":[` + comment(1, "The app greets.") + `,` + comment(2, "Print hello.") + `,` + comment(3, "hello -> hello") +
	`,` + comment(4, "No new deps.") + `,` + comment(5, "No i18n.") + `]}`

func comment(n int, body string) string {
	b, _ := json.Marshal(body)
	id := string(rune('0' + n))
	return `{"node_id":"IC_` + id + `","database_id":` + id + `,"url":"https://github.com/acme/app/issues/7#issuecomment-` + id +
		`","updated_at":"2026-11-30T00:00:00Z","author_id":"U_1","is_minimized":false,"body":` + string(b) + `}`
}

func TestMaterialPinnedArgv(t *testing.T) {
	w := newWorld(t)
	w.validAs("source-envelope", []byte(sourceEnvelope))
	st := w.start("--source-file", w.private("source.json", sourceEnvelope))
	req := st.Action.Requirements
	if req == nil || len(req.RequiredForAction) != 5 || len(req.Reader.BaseArgv) != 9 {
		t.Fatalf("requirements %+v; want five sections and a nine-element reader", req)
	}
	argv := append(append([]string(nil), req.Reader.BaseArgv...), "--section", req.RequiredForAction[1])
	r := w.call(argv[1:]...)
	var m slipway.Material
	if r.exit != 0 || json.Unmarshal(r.stdout, &m) != nil || m.Section.Markdown != "Print hello." {
		t.Fatalf("material: exit %d %s %s", r.exit, r.stdout, r.stderr)
	}
	synopsis := []string{"protocol", "material", "--run", st.RunID, "--action", st.Action.ActionID, "--root", w.root, "--section", "outcome"}
	wantError(t, w.call(synopsis...), 2, "material_argv_not_pinned")
}

func chmod(path string, mode os.FileMode) error { return os.Chmod(path, mode) }
