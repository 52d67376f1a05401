package sandbox

import (
	"errors"
	"slices"
	"testing"

	"kusaw.dev/step/protocol"
)

// withBackend makes the probe report err for every backend during t.
func withBackend(t *testing.T, err error) {
	saved := available
	available = func(string) error { return err }
	t.Cleanup(func() { available = saved })
}

func ptr[T any](v T) *T { return &v }

func TestNewPolicy(t *testing.T) {
	wt := "/work/tree"
	req := &protocol.Request{Worktree: &wt, ArtifactsDir: "/work/tree/.art", Sandbox: &protocol.Sandbox{
		Mode: "required", Backend: ptr(BackendBwrap), Network: NetworkAllowlist, Tmp: "/scratch",
		Egress:   &protocol.Egress{Allow: []string{"api.github.com"}, Injected: []string{}, Proxy: "http://x"},
		Writable: []string{"/cache", "/scratch"},
	}}
	withBackend(t, nil)
	p, err := NewPolicy(req, Flags{AllowHosts: []string{"*.pypi.org"}, Writable: []string{"/extra"}})
	if err != nil {
		t.Fatal(err)
	}
	if p.Backend != nativeBackend() || p.Network != NetworkAllowlist {
		t.Errorf("backend %q network %q", p.Backend, p.Network)
	}
	if want := []string{"api.github.com", "*.pypi.org"}; !slices.Equal(p.Allow, want) {
		t.Errorf("Allow = %q; want %q", p.Allow, want)
	}
	if want := []string{"/cache", "/extra", "/scratch", "/work/tree", "/work/tree/.art"}; !slices.Equal(p.Writable, want) {
		t.Errorf("Writable = %q; want %q", p.Writable, want)
	}
}

func TestNewPolicyModes(t *testing.T) {
	required := &protocol.Request{Sandbox: &protocol.Sandbox{Mode: "required", Network: NetworkOpen}}
	off := &protocol.Request{Sandbox: &protocol.Sandbox{Mode: "off", Network: NetworkOpen}}
	none := &protocol.Request{}
	broken := errors.New("user namespaces disabled")
	for _, tc := range []struct {
		name    string
		req     *protocol.Request
		mode    string
		probe   error
		backend string
		wantErr error
	}{
		{"required, works", required, "auto", nil, nativeBackend(), nil},
		{"required, broken", required, "", broken, "", ErrUnavailable},
		{"required, --sandbox off", required, "off", nil, "", ErrUnavailable},
		{"off in the request", off, "auto", nil, "", nil},
		{"no request sandbox, works", none, "auto", nil, nativeBackend(), nil},
		{"no request sandbox, broken", none, "auto", broken, "", nil},
		{"--sandbox bwrap, broken", none, "bwrap", broken, "", ErrUnavailable},
		{"--sandbox bwrap over request off", off, "bwrap", nil, BackendBwrap, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			withBackend(t, tc.probe)
			p, err := NewPolicy(tc.req, Flags{Mode: tc.mode})
			if !errors.Is(err, tc.wantErr) || err != nil && tc.wantErr == nil {
				t.Fatalf("NewPolicy = %v; want %v", err, tc.wantErr)
			}
			if err == nil && p.Backend != tc.backend {
				t.Errorf("backend = %q; want %q", p.Backend, tc.backend)
			}
		})
	}
}

func TestNewPolicyWrongBackend(t *testing.T) {
	withBackend(t, nil)
	other := BackendSeatbelt
	if nativeBackend() == BackendSeatbelt {
		other = BackendBwrap
	}
	req := &protocol.Request{Sandbox: &protocol.Sandbox{Mode: "required", Backend: &other, Network: NetworkOpen}}
	if _, err := NewPolicy(req, Flags{}); !errors.Is(err, ErrUnavailable) {
		t.Errorf("NewPolicy(backend %s on %s) = %v; want ErrUnavailable", other, nativeBackend(), err)
	}
	if _, err := NewPolicy(&protocol.Request{}, Flags{Mode: "docker"}); err == nil {
		t.Error("an unknown --sandbox mode was accepted")
	}
}
