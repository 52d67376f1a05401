package slipsim_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kusaw.dev/step/internal/slipsim"
	"kusaw.dev/step/internal/slipsim/schemacheck"
	"kusaw.dev/step/slipway"
)

// simRun is one in-process invocation of the simulator.
type simRun struct {
	exit           int
	stdout, stderr []byte
}

// world is a worktree and the simulator's environment.
type world struct {
	t        *testing.T
	root     string
	env      map[string]string
	checker  *schemacheck.Checker
	goalFile string
	bin      string // a real Slipway CLI to run instead of the simulator
}

func newWorld(t *testing.T) *world {
	t.Helper()
	w := &world{t: t, root: gitWorktree(t), env: map[string]string{}}
	c, err := schemacheck.Open(schemacheck.DefaultDir())
	switch {
	case errors.Is(err, schemacheck.ErrNoSchemas):
		t.Logf("not validating against the published schemas: %v", err)
	case err != nil:
		t.Fatalf("open the schemas: %v", err)
	}
	w.checker = c
	w.goalFile = w.private("goal.txt", "Add a greeting.")
	return w
}

// write writes a file into the worktree, as an agent's edit.
func (w *world) write(name, text string) {
	w.t.Helper()
	if err := os.WriteFile(filepath.Join(w.root, name), []byte(text), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

// gitWorktree is a new Git worktree with one commit, as the CLI needs.
func gitWorktree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for _, args := range [][]string{{"init", "-q"}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "start"}} {
		if out, err := exec.Command("git", append([]string{"-C", root}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return root
}

// private writes a 0600 file in a temp folder.
func (w *world) private(name, text string) string {
	path := filepath.Join(w.t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		w.t.Fatal(err)
	}
	return path
}

func (w *world) call(args ...string) simRun {
	var out, errb bytes.Buffer
	var code int
	if w.bin != "" {
		cmd := exec.Command(w.bin, args...)
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			w.t.Fatalf("%s: %v", w.bin, err)
		}
	} else {
		code = slipsim.Main(args, strings.NewReader(""), &out, &errb, func(k string) string { return w.env[k] })
	}
	r := simRun{exit: code, stdout: out.Bytes(), stderr: errb.Bytes()}
	switch code {
	case 0:
		w.valid(args, r.stdout)
	case 2, 3:
		w.validAs("cliError", bytes.TrimSpace(r.stderr))
	}
	return r
}

// valid checks a success body against the schema of its command.
func (w *world) valid(args []string, body []byte) {
	def := "protocolState"
	switch {
	case args[0] == "status" && !slices.Contains(args, "--json"):
		return // text for a person
	case args[0] == "status":
		def = "runStatus"
	case len(args) > 1 && args[1] == "material":
		def = "actionMaterial"
	}
	w.validAs(def, body)
}

func (w *world) validAs(def string, body []byte) {
	w.t.Helper()
	if w.checker == nil {
		return
	}
	if err := w.checker.Validate(def, body); err != nil {
		w.t.Errorf("%s does not validate: %v\n%s", def, err, body)
	}
}

func (w *world) start(extra ...string) *slipway.State {
	w.t.Helper()
	args := append([]string{"run", "--budget", "8", "--json", "--root", w.root, "--goal-file", w.goalFile}, extra...)
	r := w.call(args...)
	if r.exit != 0 {
		w.t.Fatalf("run: exit %d: %s", r.exit, r.stderr)
	}
	return decodeState(w.t, r.stdout)
}

func decodeState(t *testing.T, data []byte) *slipway.State {
	t.Helper()
	var st slipway.State
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatalf("decode state: %v\n%s", err, data)
	}
	return &st
}

// wantError checks an invocation failed with exit and code.
func wantError(t *testing.T, r simRun, exit int, code string) *slipway.CLIError {
	t.Helper()
	var ce slipway.CLIError
	if r.exit != exit || json.Unmarshal(bytes.TrimSpace(r.stderr), &ce) != nil || ce.Code != code {
		t.Fatalf("exit %d, stderr %s; want exit %d with code %s", r.exit, r.stderr, exit, code)
	}
	return &ce
}

// outcome is a legal Outcome for a, as a Go value to adjust.
func outcome(a *slipway.Action) *slipway.Outcome {
	o := &slipway.Outcome{ContractVersion: 2, ActionID: a.ActionID, ActionKind: a.Kind, Status: "completed",
		Summary: "did " + a.Kind, Observations: []string{}, KnownIssues: []string{}, SuggestedActions: []slipway.Suggestion{}}
	switch a.Kind {
	case slipway.KindImplement:
		o.Implementation = &slipway.Implementation{Result: "applied", FilesChanged: []string{"main.go"},
			Activities: []slipway.Activity{}, Uncertainties: []string{}, Attempts: 1}
	case slipway.KindReview:
		o.Review = &slipway.Review{Result: "no_findings_reported", Findings: []slipway.Finding{}, Uncertainties: []string{}}
	}
	return o
}

// submit writes o to a private file and submits it for st's Action.
func (w *world) submit(st *slipway.State, o any) simRun {
	w.t.Helper()
	data, err := json.Marshal(o)
	if err != nil {
		w.t.Fatal(err)
	}
	w.validAs("outcome", data)
	return w.submitBytes(st, data)
}

func (w *world) submitBytes(st *slipway.State, data []byte) simRun {
	v, _ := st.Next.Variant("submit-outcome-file")
	argv, err := v.Resolve(map[string]string{"outcome_file": w.private("outcome.json", string(data))})
	if err != nil {
		w.t.Fatal(err)
	}
	return w.call(argv[1:]...)
}
