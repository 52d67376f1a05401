package handshake_test

import (
	"slices"
	"strings"
	"testing"

	"kusaw.dev/step/handshake"
	"kusaw.dev/step/schemas"
)

// envMap returns env as a map, and the names set more than once.
func envMap(env []string) (m map[string]string, dups []string) {
	m = make(map[string]string)
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if _, ok := m[k]; ok {
			dups = append(dups, k)
		}
		m[k] = v
	}
	return m, dups
}

func TestEnv(t *testing.T) {
	t.Parallel()
	base := []string{"PATH=/bin", "KUSAW_RUN_ID=x", "KUSAW_HANDSHAKE=0", "KUSAW_TOKEN=secret", "HOME=/home/u", "KUSAW_RUN_ID=y"}
	got, dups := envMap(handshake.Env(base))
	if len(dups) > 0 {
		t.Errorf("Env() sets %q more than once", dups)
	}
	want := map[string]string{
		"PATH": "/bin", "HOME": "/home/u",
		"KUSAW_PROTOCOL": "2", "KUSAW_HANDSHAKE": "1", "KUSAW_RUN_ID": "", "KUSAW_SANDBOX": "",
	}
	for k, v := range want {
		if have, ok := got[k]; !ok || have != v {
			t.Errorf("Env(%q)[%s] = %q (set: %v); want %q", base, k, have, ok, v)
		}
	}
	if v, ok := got["KUSAW_TOKEN"]; ok {
		t.Errorf("Env() passes KUSAW_TOKEN=%q from the base; want every inherited KUSAW_* removed", v)
	}
	for _, v := range schemas.EnvVars() {
		_, ok := got[v.Name]
		if handshakeTime := v.When == "handshake and attempt" || v.Name == "KUSAW_SANDBOX"; ok != handshakeTime {
			t.Errorf("Env() sets %s: %v; the table says it is set %q", v.Name, ok, v.When)
		}
	}
}

// TestEnvNil takes the base from the process. Not parallel: it sets the
// process's environment.
func TestEnvNil(t *testing.T) {
	t.Setenv("KUSAW_RUN_ID", "from-the-runner")
	t.Setenv("HANDSHAKE_TEST_MARK", "kept")
	got, _ := envMap(handshake.Env(nil))
	if got["KUSAW_RUN_ID"] != "" || got["HANDSHAKE_TEST_MARK"] != "kept" {
		t.Errorf("Env(nil): KUSAW_RUN_ID=%q, HANDSHAKE_TEST_MARK=%q; want empty and kept", got["KUSAW_RUN_ID"], got["HANDSHAKE_TEST_MARK"])
	}
}

// TestEnvTable guards what Env takes from the table: that KUSAW_SANDBOX,
// which Env names itself, is a row of it, and that the variables with a
// value during the handshake are "handshake and attempt" rows.
func TestEnvTable(t *testing.T) {
	t.Parallel()
	var hs []string
	var sandbox bool
	for _, v := range schemas.EnvVars() {
		if v.When == "handshake and attempt" {
			hs = append(hs, v.Name)
		}
		sandbox = sandbox || v.Name == "KUSAW_SANDBOX"
	}
	if !sandbox {
		t.Error("the environment table has no KUSAW_SANDBOX; Env sets it")
	}
	for _, name := range []string{"KUSAW_PROTOCOL", "KUSAW_HANDSHAKE", "KUSAW_RUN_ID"} {
		if !slices.Contains(hs, name) {
			t.Errorf("%s is not a \"handshake and attempt\" row of the table (rows: %q)", name, hs)
		}
	}
}
