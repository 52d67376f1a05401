package slipsim_test

import (
	"encoding/json"
	"os"
	"testing"

	"kusaw.dev/step/slipway"
)

// sourceEnvelope returns a valid issue-backed source with five sections,
// one file for the simulator's tests and the step's.
func sourceEnvelope(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("testdata/source-envelope.json")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestMaterialPinnedArgv(t *testing.T) {
	w := newWorld(t)
	src := sourceEnvelope(t)
	w.validAs("source-envelope", []byte(src))
	st := w.start("--source-file", w.private("source.json", src))
	req := st.Action.Requirements
	if req == nil || len(req.RequiredForAction) != 5 || len(req.Reader.BaseArgv) != 9 {
		t.Fatalf("requirements %+v; want five sections and a nine-element reader", req)
	}
	argv := append(append([]string(nil), req.Reader.BaseArgv...), "--section", req.RequiredForAction[1])
	r := w.call(argv[1:]...)
	var m slipway.Material
	if r.exit != 0 || json.Unmarshal(r.stdout, &m) != nil || m.Section.Markdown != "# Requirements\n\nPrint `hello, NAME` on start.\n" {
		t.Fatalf("material: exit %d %s %s", r.exit, r.stdout, r.stderr)
	}
	synopsis := []string{"protocol", "material", "--run", st.RunID, "--action", st.Action.ActionID, "--root", w.root, "--section", "outcome"}
	wantError(t, w.call(synopsis...), 2, "material_argv_not_pinned")
}

func chmod(path string, mode os.FileMode) error { return os.Chmod(path, mode) }
