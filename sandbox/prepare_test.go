package sandbox

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"kusaw.dev/step/protocol"
)

func TestPrepare(t *testing.T) {
	withBackend(t, nil)
	art := t.TempDir()
	req := &protocol.Request{ArtifactsDir: art, Sandbox: &protocol.Sandbox{Mode: "required", Network: NetworkAllowlist,
		Egress: &protocol.Egress{Allow: []string{"api.github.com"}}}}
	hs := &protocol.Handshake{
		NeedsEnv:   []protocol.EnvNeed{{Name: "TOKEN", Secret: true}},
		NeedsPaths: &protocol.PathNeeds{Write: []string{art}},
		Egress:     []string{"api.github.com", "pypi.org"},
	}
	plan, err := Prepare(req, hs, Options{
		Secrets:  map[string]string{"TOKEN": "tok-123456789"},
		Base:     []string{"PATH=/bin", "SECRET_AWS=x"},
		KusawEnv: func(b string) []string { return []string{"KUSAW_SANDBOX=" + b} },
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"PATH=/bin", "KUSAW_SANDBOX=" + nativeBackend(), "TOKEN=tok-123456789"}
	if !slices.Equal(plan.Env, want) {
		t.Errorf("Env = %q; want %q", plan.Env, want)
	}
	if len(plan.Warnings) != 1 || !strings.Contains(plan.Warnings[0].Message, "pypi.org") {
		t.Errorf("Warnings = %v; want one about pypi.org", plan.Warnings)
	}
	if got := plan.MaskString("token tok-123456789"); got != "token ***" {
		t.Errorf("MaskString = %q", got)
	}
}

// TestPrepareFailsBeforeStart: an undeclared secret, a missing path and
// no working backend each stop the attempt before any process starts,
// with their reason code.
func TestPrepareFailsBeforeStart(t *testing.T) {
	req := &protocol.Request{ArtifactsDir: t.TempDir(), Sandbox: &protocol.Sandbox{Mode: "required", Network: NetworkOpen}}
	for _, tc := range []struct {
		name   string
		hs     *protocol.Handshake
		o      Options
		probe  error
		reason string
	}{
		{"undeclared secret", &protocol.Handshake{}, Options{Secrets: map[string]string{"TOKEN": "v"}}, nil, protocol.ReasonSecretNotDeclared},
		{"missing path", &protocol.Handshake{NeedsPaths: &protocol.PathNeeds{Read: []string{"/no/such"}}}, Options{}, nil, protocol.ReasonDependencyMissing},
		{"no backend", nil, Options{}, errors.New("no user namespaces"), protocol.ReasonSandboxUnavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			withBackend(t, tc.probe)
			plan, err := Prepare(req, tc.hs, tc.o)
			if got, ok := Reason(err); !ok || got != tc.reason || plan != nil {
				t.Errorf("Prepare = %v, %v; want reason %s", plan, err, tc.reason)
			}
		})
	}
	if _, ok := Reason(errors.New("other")); ok {
		t.Error("Reason(other error) is ok")
	}
}
