package steptest_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"kusaw.dev/step/conform"
	"kusaw.dev/step/steptest"
)

const shellHello = "../examples/steps/shell/hello.sh"

func TestRun(t *testing.T) {
	a := steptest.Run(t, []string{shellHello}, steptest.Options{Config: `{"x":1}`})
	a.Want(t, "ok", "counted")
	if len(a.Events) != 2 || a.Events[0].EventType() != "progress" {
		t.Errorf("events %v; want progress, artifact", a.Events)
	}
	if _, err := os.Stat(filepath.Join(a.ArtifactsDir, "count.txt")); err != nil {
		t.Errorf("the artifact: %v", err)
	}
	if _, err := os.Stat(filepath.Join(a.Dir, "attempt.json")); err != nil {
		t.Errorf("the attempt folder: %v", err)
	}
}

// TestWantFails checks that Want fails a test on another verdict.
func TestWantFails(t *testing.T) {
	a := steptest.Run(t, []string{shellHello}, steptest.Options{})
	rec := &recorder{T: t}
	a.Want(rec, "fail", "")
	if !rec.failed {
		t.Errorf("Want(fail) on an ok attempt did not fail the test")
	}
}

func TestConform(t *testing.T) {
	opts := conform.Options{Selection: conform.Selection{Focus: []string{"HS-00[1-4]"}}}
	rep := steptest.Conform(t, []string{shellHello}, opts)
	if got := steptest.Statuses(rep, "HS-004"); !slices.Equal(got, []conform.Status{conform.Pass}) {
		t.Errorf("HS-004: %v; want [pass]", got)
	}
	if len(rep.Outcomes) != 4 {
		t.Errorf("%d outcomes; want 4", len(rep.Outcomes))
	}
}

func TestRecorder(t *testing.T) {
	rec := steptest.NewRecorder()
	if _, err := rec.Result(); !errors.Is(err, steptest.ErrNoResult) {
		t.Errorf("Result() of nothing: %v; want ErrNoResult", err)
	}
	rec.Write([]byte(`{"type":"progress","message":"a"}` + "\n"))
	rec.Write([]byte(`{"type":"result","protocol_version":2,"status":"ok","reason_code":"r","message":"m"}` + "\n"))
	if evs := rec.Events(); len(evs) != 1 {
		t.Errorf("Events() = %v; want one", evs)
	}
	if res, err := rec.Result(); err != nil || res.ReasonCode != "r" {
		t.Errorf("Result() = %+v, %v; want reason r", res, err)
	}
	if lines := rec.Lines(); len(lines) != 2 {
		t.Errorf("Lines() = %q; want 2", lines)
	}
}

// recorder is a testing.TB that notes a failure instead of failing.
type recorder struct {
	*testing.T
	failed bool
}

func (r *recorder) Errorf(string, ...any) { r.failed = true }

// TestBuildDot proves issue 16 item 12: Build(t, ".") returns the binary,
// not the folder it is in.
func TestBuildDot(t *testing.T) {
	t.Chdir("../examples/steps/hello")
	bin := steptest.Build(t, ".")
	fi, err := os.Stat(bin)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o100 == 0 || filepath.Base(bin) != "hello" {
		t.Fatalf("Build(t, \".\") = %s (%v, %v); want an executable file named hello", bin, fi, err)
	}
	a := steptest.Run(t, []string{bin}, steptest.Options{Config: `{"name":"dot"}`})
	a.Want(t, "ok", "greeted")
}
