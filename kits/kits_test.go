// Package kits_test checks the step kits for Python (kits/python) and Node
// (kits/node) through the real runner: their example steps pass the
// conformance battery, their events and results reach the record, and
// their interactive file flow works on a pseudo-terminal. A test is skipped,
// with a message, when its interpreter is not installed.
package kits_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kusaw.dev/step/conform"
	"kusaw.dev/step/steptest"
)

// kit is one language's kit and its steps.
type kit struct {
	interpreter string
	example     string // under examples/steps
	ask, broken string // under testdata
}

var kits = map[string]kit{
	"python": {"python3", "python-kit/greet.py", "ask.py", "broken.py"},
	"node":   {"node", "node/greet.mjs", "ask.mjs", "broken.mjs"},
}

// need skips the test when the kit's interpreter is absent.
func need(t *testing.T, k kit) {
	t.Helper()
	if _, err := exec.LookPath(k.interpreter); err != nil {
		t.Skipf("%s is not installed: the kit is not tested here", k.interpreter)
	}
}

// options give an interpreter time to start on a loaded machine (a
// pyenv shim may take seconds).
func options(t *testing.T) conform.Options {
	return conform.Options{
		HandshakeTimeout: 60 * time.Second, Timeout: 2 * time.Minute, Grace: 5 * time.Second,
		CompletionGrace: 10 * time.Second, Scratch: t.TempDir(),
	}
}

// TestExamplesConform: each kit's example step passes the battery (issue
// 16 item 11), SHOULD checks included but for the timing one (AT-012),
// which a loaded machine may stretch.
func TestExamplesConform(t *testing.T) {
	for name, k := range kits {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			need(t, k)
			rep := steptest.Conform(t, []string{filepath.Join("..", "examples", "steps", k.example)}, options(t))
			for _, o := range rep.Outcomes {
				if o.Status == conform.Fail && o.ID != "AT-012" {
					t.Errorf("%s %s: %s", o.ID, o.Status, o.Message)
				}
			}
		})
	}
}

// TestExamplesRun: events, usage, the artifact and the outputs reach the
// record, in UTF-8 even where the locale's stdio encoding is ASCII.
func TestExamplesRun(t *testing.T) {
	for name, k := range kits {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			need(t, k)
			env := append(os.Environ(), "PYTHONIOENCODING=ascii")
			a := steptest.Run(t, []string{filepath.Join("..", "examples", "steps", k.example)},
				steptest.Options{Config: `{"name":"Zoë"}`, Timeout: 2 * time.Minute, Env: env, HandshakeTimeout: time.Minute})
			a.Want(t, "ok", "greeted")
			rec := a.Record
			if string(rec.Outputs) != `{"greeting":"hello, Zoë"}` || rec.Events["progress"] != 1 || rec.Usage == nil || *rec.Usage.TokensInput != 12 {
				t.Errorf("outputs %s, events %v, usage %+v", rec.Outputs, rec.Events, rec.Usage)
			}
			data, err := os.ReadFile(filepath.Join(a.ArtifactsDir, "greeting.txt"))
			if err != nil || string(data) != "hello, Zoë\n" || len(rec.Artifacts) != 1 {
				t.Errorf("greeting.txt %q, %v; artifacts %v", data, err, rec.Artifacts)
			}
			if len(rec.Warnings) != 0 {
				t.Errorf("warnings %v; want none", rec.Warnings)
			}
		})
	}
}

// TestErrorsBecomeResults: an exception in the step is a fail result with
// reason step_error, and a stray print goes to stderr, not stdout.
func TestErrorsBecomeResults(t *testing.T) {
	for name, k := range kits {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			need(t, k)
			a := steptest.Run(t, []string{filepath.Join("testdata", k.broken)}, steptest.Options{Timeout: 2 * time.Minute, HandshakeTimeout: time.Minute})
			a.Want(t, "fail", "step_error")
			if !strings.Contains(a.Record.Message, "the disk is full") {
				t.Errorf("message %q; want the exception's", a.Record.Message)
			}
			stderr, _ := os.ReadFile(a.Record.Logs.Stderr.Path)
			if !strings.Contains(string(stderr), "a stray") {
				t.Errorf("stderr.log lacks the stray print:\n%s", stderr)
			}
		})
	}
}

// TestInteractive: a kit step with "interactive": true reads its request,
// writes events and the result through the files, and reads its answer
// from the terminal (IA-001).
func TestInteractive(t *testing.T) {
	for name, k := range kits {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			need(t, k)
			opts := options(t)
			opts.Answers = []string{"Ada"}
			opts.Selection = conform.Selection{Focus: []string{"HS", "IA"}}
			rep := steptest.Conform(t, []string{filepath.Join("testdata", k.ask)}, opts)
			for _, o := range rep.Outcomes {
				if o.ID == "IA-001" && (o.Status != conform.Pass || !strings.Contains(o.Message, "hello, Ada")) {
					t.Errorf("IA-001 %s: %s; want pass, greeting Ada", o.Status, o.Message)
				}
			}
			if got := steptest.Statuses(rep, "IA-001"); len(got) != 1 {
				t.Errorf("IA-001 reported %d times; want once", len(got))
			}
		})
	}
}

// TestREADMESteps runs the ten-line steps the README shows for each kit
// through the battery, copied next to the kit as the README says, so the
// README cannot drift from the kits.
func TestREADMESteps(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for name, k := range kits {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			src := readmeBlock(t, string(readme), name)
			need(t, k)
			dir := t.TempDir()
			kitFile := map[string]string{"python": "python/kusaw_step.py", "node": "node/kusaw-step.mjs"}[name]
			stepFile := filepath.Join(dir, map[string]string{"python": "greet.py", "node": "greet.mjs"}[name])
			kitSrc, err := os.ReadFile(kitFile)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, filepath.Base(kitFile)), kitSrc, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(stepFile, []byte(src), 0o755); err != nil {
				t.Fatal(err)
			}
			rep := steptest.Conform(t, []string{stepFile}, options(t))
			for _, o := range rep.Outcomes {
				if o.Status == conform.Fail && o.ID != "AT-012" {
					t.Errorf("%s %s: %s", o.ID, o.Status, o.Message)
				}
			}
		})
	}
}

// readmeBlock returns the code block after the README's marker
// "<!-- kits_test: NAME -->".
func readmeBlock(t *testing.T, readme, name string) string {
	t.Helper()
	_, after, ok := strings.Cut(readme, "<!-- kits_test: "+name+" -->\n")
	if !ok {
		t.Fatalf("README.md lacks the marker <!-- kits_test: %s --> before the %s step", name, name)
	}
	_, block, ok1 := strings.Cut(after, "\n") // the ``` line
	block, _, ok2 := strings.Cut(block, "\n```")
	if !ok1 || !ok2 {
		t.Fatalf("README.md: no code block after <!-- kits_test: %s -->", name)
	}
	return block + "\n"
}
