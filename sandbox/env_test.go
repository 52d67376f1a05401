package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kusaw.dev/step/protocol"
)

func TestBuildEnv(t *testing.T) {
	base := []string{"PATH=/bin", "HOME=/h", "AWS_SECRET_ACCESS_KEY=leak", "EDITOR=vi", "KUSAW_RUN_ID=old", "API_TOKEN=from-env", "LANG=C"}
	kusaw := []string{"KUSAW_PROTOCOL=2", "KUSAW_SANDBOX=bwrap"}
	needs := []protocol.EnvNeed{{Name: "EDITOR"}, {Name: "API_TOKEN", Secret: true}}
	env, err := BuildEnv(base, kusaw, needs, map[string]string{"API_TOKEN": "tok"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"PATH=/bin", "HOME=/h", "EDITOR=vi", "LANG=C", "KUSAW_PROTOCOL=2", "KUSAW_SANDBOX=bwrap", "API_TOKEN=tok"}
	if !slices.Equal(env, want) {
		t.Errorf("BuildEnv = %q; want %q", env, want)
	}
}

func TestBuildEnvUndeclaredSecret(t *testing.T) {
	needs := []protocol.EnvNeed{{Name: "EDITOR"}, {Name: "API_TOKEN", Secret: true}}
	for _, name := range []string{"OTHER", "EDITOR"} {
		_, err := BuildEnv(nil, nil, needs, map[string]string{name: "the-value"})
		if !errors.Is(err, ErrSecretNotDeclared) {
			t.Errorf("BuildEnv(secret %s) = %v; want ErrSecretNotDeclared", name, err)
		} else if !strings.Contains(err.Error(), name) || strings.Contains(err.Error(), "the-value") {
			t.Errorf("error should name %s, not its value: %v", name, err)
		}
	}
}

func TestSecrets(t *testing.T) {
	file := strings.NewReader("# comment\n\nB=two=2\nC=three\n")
	got, err := Secrets([]string{"A"}, []string{"A=one", "X=y"}, file)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got["A"] != "one" || got["B"] != "two=2" || got["C"] != "three" {
		t.Errorf("Secrets = %v", got)
	}
	if _, err := Secrets([]string{"MISSING"}, nil, nil); err == nil {
		t.Error("a --secret not in the environment was accepted")
	}
	if _, err := Secrets(nil, nil, strings.NewReader("novalue\n")); err == nil {
		t.Error("a secrets file line without = was accepted")
	}
}

func TestCheckPaths(t *testing.T) {
	rw, other := t.TempDir(), visibleDir(t)
	pol := bwrapPolicy(rw)
	ok := &protocol.PathNeeds{Read: []string{"/etc", other, rw}, Write: []string{rw}}
	if err := CheckPaths(pol, ok); err != nil {
		t.Errorf("CheckPaths(visible paths) = %v", err)
	}
	hiddenTmp := t.TempDir()
	bad := &protocol.PathNeeds{Read: []string{"/no/such/path", hiddenTmp}, Write: []string{other}}
	err := CheckPaths(pol, bad)
	if !errors.Is(err, ErrDependencyMissing) {
		t.Fatalf("CheckPaths(missing) = %v; want ErrDependencyMissing", err)
	}
	for _, p := range []string{"/no/such/path", hiddenTmp, other} {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error does not list %s: %v", p, err)
		}
	}
	if err := CheckPaths(&Policy{}, &protocol.PathNeeds{Write: []string{other}}); err != nil {
		t.Errorf("CheckPaths(no sandbox, writable folder) = %v", err)
	}
	if err := CheckPaths(&Policy{}, &protocol.PathNeeds{Write: []string{filepath.Join(other, "nope")}}); !errors.Is(err, ErrDependencyMissing) {
		t.Errorf("CheckPaths(no sandbox, missing) = %v", err)
	}
	if os.Getuid() != 0 {
		if err := CheckPaths(&Policy{}, &protocol.PathNeeds{Write: []string{"/etc"}}); !errors.Is(err, ErrDependencyMissing) {
			t.Errorf("CheckPaths(no sandbox, /etc) = %v", err)
		}
	}
}

func TestEgressWarnings(t *testing.T) {
	pol := &Policy{Network: NetworkAllowlist, Allow: []string{"*.github.com"}}
	ws := EgressWarnings(pol, []string{"api.github.com", "pypi.org"})
	if len(ws) != 1 || ws[0].Code != "egress_not_allowed" || !strings.Contains(ws[0].Message, "pypi.org") {
		t.Errorf("EgressWarnings = %v; want one about pypi.org", ws)
	}
	if ws := EgressWarnings(&Policy{Network: NetworkOpen}, []string{"pypi.org"}); ws != nil {
		t.Errorf("EgressWarnings(open) = %v; want none", ws)
	}
}
