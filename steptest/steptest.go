// Package steptest runs steps in tests, as net/http/httptest runs
// handlers: a step binary through the real runner ([Run], [Conform]), or a
// stepkit.Program in-process with its stdout in a [Recorder] ([Serve]).
//
// [Run] and [Conform] make the test process a child subreaper (on Linux),
// as kusaw-step does: the orphans of a step are then reaped by the test, and
// a step whose children die with it is not taken to linger.
//
// Every helper takes a testing.TB, puts its files under t.TempDir() and
// fails the test on the runner's own errors; what the step did is returned
// for the test to assert on. It does not mock the runner: [Run] is
// step.Run and [Conform] is conform.Run.
package steptest

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	step "kusaw.dev/step"
	"kusaw.dev/step/conform"
	"kusaw.dev/step/internal/proc"
	"kusaw.dev/step/protocol"
	"kusaw.dev/step/request"
)

// Options say how a step is run. The zero value runs mode pipeline with
// config {} and a minute's time.
type Options struct {
	Mode    string        // the request's mode; "" means pipeline
	Config  string        // the step's config, a JSON object; "" means {}
	Timeout time.Duration // limits.time_left_ms; 0 means a minute
	Env     []string      // the base environment; nil means the test's own
	// HandshakeTimeout bounds the handshake; 0 means 10 s. An interpreted
	// step (behind a version manager's shim, on a loaded machine) may need
	// more.
	HandshakeTimeout time.Duration
}

// Attempt is a finished attempt of a step binary.
type Attempt struct {
	Record       *step.Record     // what step.Run recorded
	Events       []protocol.Event // every valid event, in order
	Request      []byte           // the request the step was given
	Dir          string           // the attempt folder
	ArtifactsDir string           // the attempt's KUSAW_ARTIFACTS_DIR
}

// NewRequest returns a request synthesized for a new worktree and
// artifacts folder under t.TempDir(), and the artifacts folder.
func NewRequest(t testing.TB, opts Options) (req []byte, artifactsDir string) {
	t.Helper()
	dir := t.TempDir()
	artifactsDir = filepath.Join(dir, "artifacts")
	r, err := request.Synthesize(request.Options{
		Mode: opts.Mode, Config: []byte(opts.Config), Worktree: dir, ArtifactsDir: artifactsDir,
		Timeout: cmpDur(opts.Timeout, time.Minute), StepName: "steptest",
	})
	if err != nil {
		t.Fatalf("steptest: synthesize the request: %v", err)
	}
	raw, err := request.Encode(r)
	if err != nil {
		t.Fatalf("steptest: encode the request: %v", err)
	}
	return raw, artifactsDir
}

func cmpDur(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// Run runs the step argv once through step.Run and returns the attempt.
// A runner error fails the test; a step that misbehaves does not: its
// verdict is in the record.
func Run(t testing.TB, argv []string, opts Options) *Attempt {
	t.Helper()
	subreaper(t)
	req, artifacts := NewRequest(t, opts)
	a := &Attempt{Request: req, Dir: t.TempDir(), ArtifactsDir: artifacts}
	rec, err := step.Run(context.Background(), step.Attempt{
		Command: absolute(argv), Request: req, OutDir: a.Dir, Env: opts.Env, HandshakeTimeout: opts.HandshakeTimeout,
		Observer: step.Observer{Event: func(ev protocol.Event) { a.Events = append(a.Events, ev) }},
	})
	if err != nil {
		t.Fatalf("steptest: run %v: %v", argv, err)
	}
	a.Record = rec
	return a
}

// absolute makes a relative program path absolute: the step runs in its
// worktree, and step.Run would take a relative path from there.
func absolute(argv []string) []string {
	argv = slices.Clone(argv)
	if strings.ContainsRune(argv[0], filepath.Separator) && !filepath.IsAbs(argv[0]) {
		if abs, err := filepath.Abs(argv[0]); err == nil {
			argv[0] = abs
		}
	}
	return argv
}

// Want fails the test unless the attempt's verdict is status with
// reasonCode; reasonCode "" matches any.
func (a *Attempt) Want(t testing.TB, status, reasonCode string) {
	t.Helper()
	r := a.Record
	if r.Status != status || (reasonCode != "" && r.ReasonCode != reasonCode) {
		t.Errorf("verdict %s/%s (%s); want %s/%s\n%s", r.Status, r.ReasonCode, r.Message, status, reasonCode, r.Diagnosis)
	}
}

// Conform runs the conformance battery on argv and fails the test once
// for each failed MUST check; failed SHOULD checks are logged. It returns
// the report.
func Conform(t testing.TB, argv []string, opts conform.Options) *conform.Report {
	t.Helper()
	subreaper(t)
	opts.Command = argv
	if opts.Scratch == "" {
		opts.Scratch = t.TempDir()
	}
	rep, err := conform.Run(context.Background(), opts)
	if err != nil {
		t.Fatalf("steptest: conform %v: %v", argv, err)
	}
	for _, o := range rep.Outcomes {
		switch {
		case o.Status == conform.Fail && o.Level == conform.Must:
			t.Errorf("%s %s %s: %s", o.ID, o.Mode, o.Title, o.Message)
		case o.Status == conform.Fail:
			t.Logf("warning: %s %s %s: %s", o.ID, o.Mode, o.Title, o.Message)
		}
	}
	return rep
}

// subreaper makes the test process a child subreaper where it can be.
func subreaper(t testing.TB) {
	if err := proc.BecomeSubreaper(); err != nil && !errors.Is(err, proc.ErrUnsupported) {
		t.Logf("steptest: cannot become a child subreaper: %v", err)
	}
}

// Build builds the Go main package pkg (an import path, or a folder such as
// "." or "./cmd/my-step") into t.TempDir() and returns the binary's path.
// The binary is named as go build names it: for the package's import path.
func Build(t testing.TB, pkg string) string {
	t.Helper()
	dir := t.TempDir()
	// An -o that ends in a separator is a folder go build puts the binary
	// in, under the name it would give it.
	cmd := exec.Command("go", "build", "-o", dir+string(filepath.Separator), pkg)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("steptest: go build %s: %v\n%s", pkg, err, out)
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 || !entries[0].Type().IsRegular() {
		t.Fatalf("steptest: go build %s made %v (%v); want one binary: is it a main package?", pkg, entries, err)
	}
	return filepath.Join(dir, entries[0].Name())
}

// Statuses returns the statuses of the report's outcomes for check id, in
// order: a short way to assert on one check.
func Statuses(rep *conform.Report, id string) []conform.Status {
	var out []conform.Status
	for _, o := range rep.Outcomes {
		if o.ID == id {
			out = append(out, o.Status)
		}
	}
	return slices.Clip(out)
}
