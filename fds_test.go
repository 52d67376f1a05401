package step_test

import (
	"os"
	"strings"
	"syscall"
	"testing"

	"kusaw.dev/step/sandbox"
)

// listFds gives as its result's message the targets of its descriptors
// from 3 up.
func listFds() {
	entries, _ := os.ReadDir("/proc/self/fd")
	var targets []string
	for _, e := range entries {
		if e.Name() > "2" || len(e.Name()) > 1 {
			t, _ := os.Readlink("/proc/self/fd/" + e.Name())
			targets = append(targets, e.Name()+"="+t)
		}
	}
	result("ok", strings.Join(targets, " "))
}

// TestInheritedFdsClosed is issue 11 item 9: a descriptor the runner
// inherited without close-on-exec does not reach the step, sandboxed or
// not.
func TestInheritedFdsClosed(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc")
	}
	path := t.TempDir() + "/inherited-secret"
	if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	fd, err := syscall.Open(path, syscall.O_RDONLY, 0) // no O_CLOEXEC, as a parent may hand it
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	for _, mode := range []string{"off", "bwrap"} {
		t.Run(mode, func(t *testing.T) {
			if mode == "bwrap" {
				needBwrap(t)
			}
			rec, _ := runAttempt(t, "list-fds", setup{sandbox: &sandbox.Options{Flags: sandbox.Flags{Mode: mode}}})
			if rec.Status != "ok" || strings.Contains(rec.Message, "inherited-secret") {
				t.Errorf("verdict %s %q; want ok, with no descriptor of %s", rec.Status, rec.Message, path)
			}
		})
	}
}
