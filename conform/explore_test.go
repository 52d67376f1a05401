package conform_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"kusaw.dev/step/conform"
	"kusaw.dev/step/steptest"
)

// TestExploreFindsFlaws runs --explore 200 --seed 1 on steps that each
// break on one class of valid request, and wants each flaw found and its
// request shrunk to the base plus the field that shows it (a golden file
// per step, paths and ids replaced).
func TestExploreFindsFlaws(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("the golden requests hold the scratch worktree's repo, which needs git; no git here")
	}
	brittle := steptest.Build(t, "./testdata/explore/brittle")
	for _, tc := range []struct{ flaw, reason string }{
		{"empty-repos", "no_result"},
		{"null-task", "no_result"},
		{"unicode", "no_result"},
		{"tiny-outputs", "outputs_too_large"},
		{"unknown-context-field", "no_result"},
	} {
		t.Run(tc.flaw, func(t *testing.T) {
			t.Parallel()
			opts := quick(t)
			opts.Explore, opts.Seed = 200, 1
			opts.Progress = func(done, total, findings int) { t.Logf("explore: %d/%d, %d findings", done, total, findings) }
			opts.Selection = conform.Selection{Focus: []string{"HS-001", "EX"}}
			rep := steptest.Conform(&lenient{T: t}, []string{brittle, tc.flaw}, opts)
			ex := rep.Explore
			if ex == nil || len(ex.Findings) != 1 {
				t.Fatalf("exploration %+v; want one finding\n%s", ex, table(t, rep))
			}
			f := ex.Findings[0]
			if f.Check != "EX-001" || f.Reason != tc.reason {
				t.Errorf("finding %s %s: %s; want EX-001 %s", f.Check, f.Reason, f.Message, tc.reason)
			}
			if got := steptest.Statuses(rep, "EX-001"); len(got) != 1 || got[0] != conform.Fail {
				t.Errorf("EX-001: %v; want [fail]", got)
			}
			if !strings.Contains(f.Replay, "kusaw-step run --request "+f.Request) {
				t.Errorf("replay %q does not run the saved request %s", f.Replay, f.Request)
			}
			raw, err := os.ReadFile(f.Request)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("testdata", "explore", tc.flaw+".golden.json"), normalize(t, raw, ex.Folder))
		})
	}
}

// TestExploreExamples: the bundled example steps hold up under explored
// requests: the Go one under the 200 the issue names, the interpreted
// ones (each attempt starts an interpreter twice, behind a version
// manager's shim a slow start) under fewer, to keep CI's time.
func TestExploreExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: explored attempts take a while")
	}
	root := filepath.Join("..", "examples", "steps")
	for _, tc := range []struct {
		name string
		argv func(t *testing.T) []string
		n    int
	}{
		{"hello", func(t *testing.T) []string { return []string{steptest.Build(t, "kusaw.dev/step/examples/steps/hello")} }, 200},
		{"shell", func(*testing.T) []string { return []string{filepath.Join(root, "shell", "hello.sh")} }, 40},
		{"python", func(t *testing.T) []string {
			if _, err := exec.LookPath("python3"); err != nil {
				t.Skip("no python3")
			}
			return []string{filepath.Join(root, "python", "hello.py")}
		}, 10},
		{"python-kit", func(t *testing.T) []string {
			if _, err := exec.LookPath("python3"); err != nil {
				t.Skip("no python3")
			}
			return []string{filepath.Join(root, "python-kit", "greet.py")}
		}, 10},
		{"node-kit", func(t *testing.T) []string {
			if _, err := exec.LookPath("node"); err != nil {
				t.Skip("no node")
			}
			return []string{filepath.Join(root, "node", "greet.mjs")}
		}, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			opts := quick(t)
			opts.HandshakeTimeout = 30 * time.Second // an interpreter (behind a pyenv shim, say) may start slowly
			opts.Explore, opts.Seed = tc.n, 1
			opts.Selection = conform.Selection{Focus: []string{"HS-001", "EX"}}
			rep := steptest.Conform(t, tc.argv(t), opts)
			if ex := rep.Explore; ex == nil || ex.Attempts != tc.n || len(ex.Findings) != 0 {
				t.Errorf("exploration %+v; want %d attempts and no finding", ex, tc.n)
			}
		})
	}
}

// ids are the run and task ids a synthesized request is stamped with.
var ids = regexp.MustCompile(`local-\d{8}T\d{6}Z-[0-9a-f]+`)

// normalize makes a saved request comparable across runs: the keep
// folder and the ids replaced, the JSON indented.
func normalize(t *testing.T, raw []byte, folder string) []byte {
	t.Helper()
	raw = bytes.ReplaceAll(raw, []byte(folder), []byte("$KEEP"))
	raw = ids.ReplaceAllLiteral(raw, []byte("$ID"))
	v := jsontext.Value(raw)
	if err := v.Indent(); err != nil {
		t.Fatal(err)
	}
	return append(v, '\n')
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs; got\n%s", path, got)
	}
}
