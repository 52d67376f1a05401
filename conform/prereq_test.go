package conform_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kusaw.dev/step/conform"
	"kusaw.dev/step/steptest"
)

// TestNeverPassWrongly proves issue 14 item 4: a broken handshake fails
// the battery whatever the selection, with its reason, and a battery that
// skipped every selected MUST check does not pass.
func TestNeverPassWrongly(t *testing.T) {
	for _, tc := range []struct {
		name, step string
		sel        conform.Selection
		wantFailed []string
		why        string // in Report.Why
	}{
		{"item 4: --focus AT, broken handshake", "broken/hs-exit-1", conform.Selection{Focus: []string{"AT"}}, []string{"HS-001"}, "MUST checks failed: HS-001"},
		{"item 4: --skip HS, broken handshake", "broken/hs-exit-1", conform.Selection{Skip: []string{"HS"}}, []string{"HS-001"}, "MUST checks failed: HS-001"},
		{"item 4: only skipped MUST checks", "good/caller-env", conform.Selection{Focus: []string{"AT-005"}}, nil, "every selected MUST check (1) was skipped"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			opts := quick(t)
			opts.Selection = tc.sel
			rep := steptest.Conform(&lenient{T: t}, []string{filepath.Join("testdata", tc.step+".sh")}, opts)
			if rep.Passed() || !strings.Contains(rep.Why(), tc.why) || !strings.Contains(rep.Summary(), "FAIL ("+rep.Why()) {
				t.Errorf("Passed() = %v, Why() = %q, Summary() = %q; want a failure saying %q\n%s", rep.Passed(), rep.Why(), rep.Summary(), tc.why, table(t, rep))
			}
			if got := rep.Failed(); !slices.Equal(got, tc.wantFailed) {
				t.Errorf("failed checks %v; want %v", got, tc.wantFailed)
			}
		})
	}
}

// TestRunsAsRunDoes proves issue 14 item 5: the battery's attempts get the
// environment run builds, not the caller's; InheritEnv gives them the
// caller's, and the step that sees it fails AT-015.
func TestRunsAsRunDoes(t *testing.T) {
	t.Setenv("CONFORM_TEST_CALLER", "1")
	step := []string{filepath.Join("testdata", "good", "caller-env.sh")}
	opts := quick(t)
	opts.Selection = conform.Selection{Focus: []string{"AT-015"}}
	if rep := steptest.Conform(t, step, opts); !rep.Passed() {
		t.Errorf("the step saw the caller's environment:\n%s", table(t, rep))
	}
	opts.InheritEnv, opts.Scratch = true, t.TempDir()
	if rep := steptest.Conform(&lenient{T: t}, step, opts); rep.Passed() || !slices.Equal(rep.Failed(), []string{"AT-015"}) {
		t.Errorf("InheritEnv: the step did not see the caller's environment, or AT-015 missed its exit status:\n%s", table(t, rep))
	}
}

// TestStreamingEvidence proves issue 14 item 6: of two steps that print
// the same lines with the same pause, the one that flushes passes AT-012
// and the one that buffers fails it (TestBroken/at-buffered), on step-side
// evidence: whether the result was written when the first event arrived.
func TestStreamingEvidence(t *testing.T) {
	t.Parallel()
	opts := quick(t)
	opts.Selection = conform.Selection{Focus: []string{"AT-012"}}
	rep := steptest.Conform(t, []string{filepath.Join("testdata", "good", "flushed.sh")}, opts)
	if got := steptest.Statuses(rep, "AT-012"); !slices.Equal(got, []conform.Status{conform.Pass}) {
		t.Errorf("AT-012 of a flushing step: %v; want [pass]\n%s", got, table(t, rep))
	}
}

// TestSandboxedAttempts runs the battery's attempts in run's default
// sandbox (issue 14 item 5), where this system has one.
func TestSandboxedAttempts(t *testing.T) {
	t.Parallel()
	opts := quick(t)
	opts.Sandbox = "auto"
	opts.Selection = conform.Selection{Focus: []string{"AT-001", "AT-015"}}
	rep := steptest.Conform(t, []string{filepath.Join("testdata", "good", "caller-env.sh")}, opts)
	if !rep.Passed() {
		t.Errorf("a good step in the sandbox did not pass:\n%s", table(t, rep))
	}
}

// TestScratchReused: a battery may work again in the scratch folder of an
// earlier one (kusaw-step conform --keep DIR): its attempt folders are the
// battery's own, replaced, not refused as taken (issue 14 item 1).
func TestScratchReused(t *testing.T) {
	t.Parallel()
	opts := quick(t)
	opts.Selection = conform.Selection{Focus: []string{"AT-001"}}
	step := []string{filepath.Join("testdata", "good", "caller-env.sh")}
	for i := range 2 {
		if rep := steptest.Conform(t, step, opts); !rep.Passed() {
			t.Errorf("battery %d in the same scratch folder:\n%s", i+1, table(t, rep))
		}
	}
}
