package slipway_test

import (
	"bytes"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"

	step "kusaw.dev/step"
	"kusaw.dev/step/internal/slipsim"
	"kusaw.dev/step/protocol"
	"kusaw.dev/step/slipway"
)

// screen is what the step wrote to its terminal.
type screen struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// newInteractive is a harness for `slipway --interactive` whose person
// types typed (then the input ends).
func newInteractive(t *testing.T, agent, typed string) (*harness, *screen) {
	h := newHarness(t, agent)
	scr := &screen{}
	h.interactive = true
	h.terminal = step.Terminal{Input: strings.NewReader(typed), Output: scr}
	return h, scr
}

// theDigest is the scope digest of the destructive fake agent's request.
func theDigest() string {
	return slipsim.ScopeDigest("6f1c2d3e-4a5b-4c6d-8e7f-8091a2b3c4d5",
		[][2]string{{"path", "legacy/"}}, "deletes legacy/")
}

func TestInteractiveClarifyAnsweredOnThePty(t *testing.T) {
	h, scr := newInteractive(t, "decision", "English, please\n")
	rec := h.attempt("")
	want(t, rec, protocol.StatusOK, slipway.ReasonSummarized)
	if !strings.Contains(scr.String(), "English or French?") {
		t.Errorf("the terminal never showed the question:\n%s", scr)
	}
	answers := h.calls("protocol", "answer")
	if len(answers) != 1 {
		t.Fatalf("answer calls %q; want one", answers)
	}
	a := answers[0]
	if len(a) != 10 || a[7] != h.root || a[8] != "--text-file" || slices.Contains(a, "--confirm-destructive") {
		t.Fatalf("answer argv %q; want the answer-decision variant: base_argv, then --text-file FILE", a)
	}
	for _, arg := range a {
		if strings.Contains(arg, "English") {
			t.Fatalf("the answer is on argv: %q", a)
		}
	}
	// The simulator read the answer from the file: the next Action has it.
	out, err := exec.Command(simBin, "status", rec.Session.ID, "--root", h.root, "--json").Output()
	if err != nil {
		t.Fatalf("slipway status: %v", err)
	}
	if !strings.Contains(string(out), `decision:\n  English, please`) {
		t.Errorf("the Run never got the answer:\n%s", out)
	}
}

func TestInteractiveClarifyEndOfInputRejects(t *testing.T) {
	h, _ := newInteractive(t, "decision", "")
	rec := h.attempt("")
	want(t, rec, protocol.StatusReject, slipway.PauseDecision)
	recoveryNamed(t, rec.Recovery, "answer")
	if n := len(h.calls("protocol", "answer")); n != 0 {
		t.Errorf("%d answer calls with no answer typed; want none", n)
	}
}

func TestInteractiveDestructiveGrantedByTheDigest(t *testing.T) {
	digest := theDigest()
	h, scr := newInteractive(t, "destructive", digest+"\n")
	rec := h.attempt("")
	want(t, rec, protocol.StatusOK, slipway.ReasonSummarized)
	for _, s := range []string{"target path: legacy/", "impact: deletes legacy/", "scope:  " + digest} {
		if !strings.Contains(scr.String(), s) {
			t.Errorf("the terminal never showed %q:\n%s", s, scr)
		}
	}
	var grants [][]string
	for _, a := range h.calls("protocol", "answer") {
		if slices.Contains(a, "--confirm-destructive") {
			grants = append(grants, a)
		}
	}
	if len(grants) != 1 || !slices.Equal(grants[0][len(grants[0])-3:], []string{"--confirm-destructive", "--scope-sha256", digest}) {
		t.Fatalf("grants %q; want one, of exactly the scope digest", grants)
	}
}

func TestInteractiveDestructiveNotGrantedByYes(t *testing.T) {
	h, _ := newInteractive(t, "destructive", "yes\n")
	rec := h.attempt("")
	want(t, rec, protocol.StatusReject, slipway.PauseDestructive)
	grant := recoveryNamed(t, rec.Recovery, "grant")
	if !strings.Contains(grant, "--confirm-destructive --scope-sha256 "+theDigest()) {
		t.Errorf("grant command %q", grant)
	}
	for _, a := range h.argv() {
		if slices.Contains(a, "--confirm-destructive") {
			t.Fatalf("a destructive confirmation was granted for \"yes\": %q", a)
		}
	}
}

func TestInteractiveHandshake(t *testing.T) {
	var out bytes.Buffer
	if err := slipway.MainInteractive(t.Context(), strings.NewReader(""), &out, &out, []string{"KUSAW_HANDSHAKE=1"}); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	if !strings.Contains(s, `"interactive":true`) || !strings.Contains(s, `"continue_hint":"`) {
		t.Errorf("handshake %s", s)
	}
}
