package conform_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"kusaw.dev/step/conform"
	"kusaw.dev/step/sandbox"
	"kusaw.dev/step/steptest"
)

// needBwrap skips a test when bwrap cannot run here.
func needBwrap(t *testing.T) {
	t.Helper()
	if err := sandbox.Available(sandbox.BackendBwrap); err != nil {
		t.Skipf("no bwrap sandbox here: %v", err)
	}
}

// handshakeOnly are quick options that select the HS checks alone, with
// the handshakes in sandbox mode.
func handshakeOnly(t *testing.T, mode string) conform.Options {
	opts := quick(t)
	opts.Sandbox = mode
	opts.Selection = conform.Selection{Focus: []string{"HS"}}
	return opts
}

// TestHandshakeWritesStayInSandbox proves issue 11 item 1 for conform: a
// handshake that writes a file outside its worktree (both probes and
// handshake.Run do) leaves nothing on the host under bwrap. With
// --sandbox off the same step does write it, so the step does try.
func TestHandshakeWritesStayInSandbox(t *testing.T) {
	needBwrap(t)
	for _, tc := range []struct {
		name, mode string
		written    bool
	}{
		{"item 1: bwrap keeps the write in the sandbox", sandbox.BackendBwrap, false},
		{"control: --sandbox off runs the handshake on the host", "off", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			target := filepath.Join(t.TempDir(), "escaped")
			step := []string{filepath.Join("testdata", "sandbox", "writes-outside.sh"), target}
			rep := steptest.Conform(t, step, handshakeOnly(t, tc.mode))
			if !rep.Passed() {
				t.Errorf("the handshake did not pass:\n%s", table(t, rep))
			}
			_, err := os.Stat(target)
			if written := err == nil; written != tc.written {
				t.Errorf("%s on the host: written %v (%v); want %v", target, written, err, tc.written)
			}
		})
	}
}

// TestHandshakeSeesNoCallerEnv proves issue 11 item 1 for conform: a
// handshake does not see a variable of the caller's (a token, say), under
// bwrap or with the sandbox off (the environment run builds); only
// InheritEnv hands it over, as it does to the attempts.
func TestHandshakeSeesNoCallerEnv(t *testing.T) {
	needBwrap(t)
	const token = "kusaw-test-token-4b1d9e"
	t.Setenv("CONFORM_TEST_TOKEN", token)
	for _, tc := range []struct {
		name, mode string
		inherit    bool
		wantStep   string
	}{
		{"item 1: bwrap", sandbox.BackendBwrap, false, "reads-token seen-unset"},
		{"item 1: --sandbox off builds the environment too", "off", false, "reads-token seen-unset"},
		{"control: InheritEnv hands the caller's environment over", "", true, "reads-token seen-" + token},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := handshakeOnly(t, tc.mode)
			opts.InheritEnv = tc.inherit
			rep := steptest.Conform(t, []string{filepath.Join("testdata", "sandbox", "reads-token.sh")}, opts)
			if rep.Step != tc.wantStep {
				t.Errorf("the step declared itself %q; want %q\n%s", rep.Step, tc.wantStep, table(t, rep))
			}
			var b bytes.Buffer
			if err := rep.Write(&b, "json"); err != nil {
				t.Fatal(err)
			}
			if leaked := bytes.Contains(b.Bytes(), []byte(token)); leaked != tc.inherit {
				t.Errorf("the token in the report: %v; want %v\n%s", leaked, tc.inherit, b.Bytes())
			}
		})
	}
}

// TestHandshakeChecksSandboxed proves that the HS checks judge a step
// the same under bwrap as without (issue 11 item 1): each broken step
// fails exactly its check, good steps pass, a step whose handshake wants
// the sandbox gets it, and HS-006 fails a step that reads the stdin held
// open, which reaches it through the supervisor and bwrap.
func TestHandshakeChecksSandboxed(t *testing.T) {
	needBwrap(t)
	for _, tc := range []struct {
		step []string
		want []string
	}{
		{step: []string{"broken/hs-exit-1.sh"}, want: []string{"HS-001"}},
		{step: []string{"broken/hs-two-lines.sh"}, want: []string{"HS-002"}},
		{step: []string{"broken/hs-schema.sh"}, want: []string{"HS-003"}},
		{step: []string{"broken/hs-version-1.sh"}, want: []string{"HS-004"}},
		{step: []string{"broken/hs-outputs-schema.sh"}, want: []string{"HS-005"}},
		{step: []string{"broken/hs-reads-stdin.sh"}, want: []string{"HS-006"}},
		{step: []string{"sandbox/reads-stdin-sandboxed.sh"}, want: []string{"HS-006"}},
		{step: []string{"broken/hs-varies.sh"}, want: []string{"HS-007"}},
		{step: []string{"broken/hs-writes.sh"}, want: []string{"HS-008"}},
		{step: []string{"broken/hs-no-name.sh"}, want: []string{"HS-009"}},
		{step: []string{"good/caller-env.sh"}},
		{step: []string{"good/flushed.sh"}},
		{step: []string{"sandbox/wants-sandbox.sh", sandbox.BackendBwrap}},
	} {
		t.Run(tc.step[0], func(t *testing.T) {
			t.Parallel()
			argv := append([]string{filepath.Join("testdata", tc.step[0])}, tc.step[1:]...)
			rep := steptest.Conform(&lenient{T: t}, argv, handshakeOnly(t, sandbox.BackendBwrap))
			if got := rep.Failed(); !slices.Equal(got, tc.want) {
				t.Errorf("failed checks %v; want %v\n%s", got, tc.want, table(t, rep))
			}
			if rep.Count(conform.Pass) == 0 {
				t.Errorf("no HS check passed: the handshakes did not run\n%s", table(t, rep))
			}
		})
	}
}

// TestHandshakeSandboxUnavailable: a sandbox that cannot run here fails
// the handshake with the reason, and no check passes.
func TestHandshakeSandboxUnavailable(t *testing.T) {
	if sandbox.Available(sandbox.BackendSeatbelt) == nil {
		t.Skip("seatbelt runs here")
	}
	rep := steptest.Conform(&lenient{T: t}, []string{filepath.Join("testdata", "good", "caller-env.sh")}, handshakeOnly(t, sandbox.BackendSeatbelt))
	if rep.Passed() || !slices.Equal(rep.Failed(), []string{"HS-001"}) || rep.Count(conform.Pass) > 0 {
		t.Errorf("want HS-001 failed and nothing passed:\n%s", table(t, rep))
	}
}
