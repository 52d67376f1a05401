package sandbox

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"kusaw.dev/step/protocol"
)

// TestSecretPrintedIsMasked: a declared secret reaches the sandboxed step
// through BuildEnv, and what the step prints of it, plain, JSON or
// base64, reaches the log as ***.
func TestSecretPrintedIsMasked(t *testing.T) {
	needBwrap(t)
	t.Parallel()
	const value = "hunter2-very-secret"
	needs := []protocol.EnvNeed{{Name: "API_TOKEN", Secret: true}}
	env, err := BuildEnv([]string{"PATH=/usr/bin:/bin"}, []string{"KUSAW_SANDBOX=bwrap"}, needs, map[string]string{"API_TOKEN": value})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c",
		`echo "plain $API_TOKEN"; printf '{"t":"%s"}\n' "$API_TOKEN"; printf %s "$API_TOKEN" | base64; echo "sandbox=$KUSAW_SANDBOX"`)
	cmd.Env = env
	sb, err := Wrap(cmd, bwrapPolicy())
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	var log bytes.Buffer
	m := NewMasker(&log, []string{value})
	cmd.Stdout = m
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	m.Close()
	want := "plain ***\n{\"t\":\"***\"}\n***\nsandbox=bwrap\n"
	if got := log.String(); got != want || strings.Contains(got, value) {
		t.Errorf("log = %q; want %q", got, want)
	}
}
