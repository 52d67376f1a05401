package sandbox

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

func TestRunBridgeExitStatus(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the bridge runs inside a unix sandbox")
	}
	sock := filepath.Join(t.TempDir(), "none.sock")
	var out bytes.Buffer
	code, err := RunBridge(context.Background(), []string{sock, "0", "--", "/bin/sh", "-c", "echo hi; exit 3"}, nil, &out, &out)
	if err != nil || code != 3 || out.String() != "hi\n" {
		t.Errorf("RunBridge = %d, %v, %q; want 3, nil, hi", code, err, out.String())
	}
	code, _ = RunBridge(context.Background(), []string{sock, "0", "--", "/bin/sh", "-c", "kill -TERM $$"}, nil, &out, &out)
	if code != 128+15 {
		t.Errorf("RunBridge(killed by TERM) = %d; want 143", code)
	}
	for _, args := range [][]string{{sock}, {sock, "80", "x", "step"}, {sock, "port", "--", "step"}} {
		if code, err := RunBridge(context.Background(), args, nil, &out, &out); err == nil || code != 2 {
			t.Errorf("RunBridge(%q) = %d, %v; want a usage error", args, code, err)
		}
	}
}

func TestWrapWithoutSandbox(t *testing.T) {
	cmd := exec.Command("/bin/true")
	path, args := cmd.Path, cmd.Args
	sb, err := Wrap(cmd, &Policy{})
	if err != nil || cmd.Path != path || len(cmd.Args) != len(args) || cmd.ExtraFiles != nil {
		t.Errorf("Wrap(no backend) = %v, changed cmd to %q %q", err, cmd.Path, cmd.Args)
	}
	if err := sb.Close(); err != nil {
		t.Error(err)
	}
}

func TestWrapForeignBackend(t *testing.T) {
	other := BackendSeatbelt
	if nativeBackend() == BackendSeatbelt {
		other = BackendBwrap
	}
	_, err := Wrap(exec.Command("/bin/true"), &Policy{Backend: other, Network: NetworkOpen})
	if !errors.Is(err, ErrUnavailable) {
		t.Errorf("Wrap(%s on %s) = %v; want ErrUnavailable", other, runtime.GOOS, err)
	}
}
