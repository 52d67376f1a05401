package conform_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kusaw.dev/step/conform"
	"kusaw.dev/step/steptest"
)

// TestExamples runs the battery on every example step: each passes, and
// hello, slowed down, is also judged on SIGTERM and streaming.
func TestExamples(t *testing.T) {
	root := filepath.Join("..", "examples", "steps")
	t.Run("hello", func(t *testing.T) {
		t.Parallel()
		bin := steptest.Build(t, "kusaw.dev/step/examples/steps/hello")
		opts := quick(t)
		opts.Config = []byte(`{"name":"conform","delay":"400ms"}`)
		rep := steptest.Conform(t, []string{bin}, opts)
		for _, id := range []string{"AT-004", "AT-005", "AT-009", "AT-012"} {
			if got := steptest.Statuses(rep, id); len(got) != 1 || got[0] != conform.Pass {
				t.Errorf("%s: %v; want [pass]\n%s", id, got, table(t, rep))
			}
		}
	})
	t.Run("shell", func(t *testing.T) {
		t.Parallel()
		steptest.Conform(t, []string{filepath.Join(root, "shell", "hello.sh")}, quick(t))
	})
	t.Run("python", func(t *testing.T) {
		t.Parallel()
		if _, err := exec.LookPath("python3"); err != nil {
			t.Skip("no python3")
		}
		opts := quick(t)
		// An interpreter (behind a pyenv shim, say) may start slowly, and
		// three handshakes start at once while the other batteries run:
		// on a loaded 2-core machine that took more than 30 s. The timeout
		// only stops a hung step; a timed-out handshake fails the battery.
		opts.HandshakeTimeout = 2 * time.Minute
		steptest.Conform(t, []string{filepath.Join(root, "python", "hello.py")}, opts)
	})
}

// TestInteractive runs the battery on an interactive step that follows
// the file flow, with a scripted answer it must have read.
func TestInteractive(t *testing.T) {
	t.Parallel()
	opts := quick(t)
	opts.Answers = []string{"Ada"}
	rep := steptest.Conform(t, []string{filepath.Join("testdata", "interactive", "ask.sh")}, opts)
	for _, o := range rep.Outcomes {
		if o.ID == "IA-001" && (o.Status != conform.Pass || !strings.Contains(o.Message, "hello, Ada")) {
			t.Errorf("IA-001 %s: %s; want pass, greeting Ada", o.Status, o.Message)
		}
	}
	if got := steptest.Statuses(rep, "IA-001"); len(got) != 1 {
		t.Errorf("IA-001 reported %d times; want once", len(got))
	}
}

// table renders the report for a failure message.
func table(t *testing.T, rep *conform.Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := rep.Write(&b, "table"); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// TestInteractiveWithoutAnswer: an interactive step that needs an answer
// and gets none fails IA-001 with a hint to give one with --answer and
// what its terminal showed last (issue 16 item 10).
func TestInteractiveWithoutAnswer(t *testing.T) {
	t.Parallel()
	rep := steptest.Conform(&lenient{T: t}, []string{filepath.Join("testdata", "interactive", "ask-strict.sh")}, quick(t))
	for _, o := range rep.Outcomes {
		if o.ID != "IA-001" {
			continue
		}
		for _, want := range []string{"--answer TEXT", `The terminal's last lines: "Whom shall I greet?" | "no name given"`} {
			if o.Status != conform.Fail || !strings.Contains(o.Message, want) {
				t.Errorf("IA-001 %s: %s; want fail, and %q", o.Status, o.Message, want)
			}
		}
	}
	if got := steptest.Statuses(rep, "IA-001"); len(got) != 1 {
		t.Errorf("IA-001 reported %d times; want once", len(got))
	}
}
