package attemptdir_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kusaw.dev/step/attemptdir"
)

func create(t *testing.T, dir string, opts attemptdir.Options) *attemptdir.Writer {
	t.Helper()
	w, err := attemptdir.Create(dir, opts)
	if err != nil {
		t.Fatalf("Create(%s): %v", dir, err)
	}
	return w
}

func read(t *testing.T, dir string) *attemptdir.Folder {
	t.Helper()
	f, err := attemptdir.Read(dir)
	if err != nil {
		t.Fatalf("Read(%s): %v", dir, err)
	}
	return f
}

// TestLifecycle follows a folder through its states (issue 14 items 1, 2).
func TestLifecycle(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a")
	w := create(t, dir, attemptdir.Options{})
	if f := read(t, dir); f.State != attemptdir.Running || f.PID != os.Getpid() || f.Started.IsZero() {
		t.Errorf("while held: %+v; want running, our pid, a start time", f)
	}
	if _, err := attemptdir.Create(dir, attemptdir.Options{Force: true}); !errors.Is(err, attemptdir.ErrBusy) {
		t.Errorf("second Create of a held folder, forced: %v; want ErrBusy", err)
	}
	if err := w.WriteFile(attemptdir.Record, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f := read(t, dir)
	if f.State != attemptdir.Finished || string(f.Record) != "{}\n" {
		t.Errorf("after Close: %+v; want finished with the record", f)
	}
	if _, err := os.Stat(filepath.Join(dir, attemptdir.Marker)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the running marker outlived the record: %v", err)
	}
}

// TestClosedWithoutRecord: a runner that ends before the record leaves the
// folder unfinished, not empty-looking (issue 14 item 2).
func TestClosedWithoutRecord(t *testing.T) {
	dir := t.TempDir()
	create(t, dir, attemptdir.Options{}).Close()
	if f := read(t, dir); f.State != attemptdir.Unfinished {
		t.Errorf("state %s; want unfinished", f.State)
	}
}

// TestNotEmpty: a folder holding anything but pending notes is refused;
// Force removes only the names an attempt writes (issue 14 item 1).
func TestNotEmpty(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, attemptdir.PendingNotes), []byte("{}\n"), 0o600)
	w := create(t, dir, attemptdir.Options{}) // pending notes wait for a first attempt
	w.WriteFile(attemptdir.Record, []byte("{}\n"), 0o644)
	w.Close()
	os.WriteFile(filepath.Join(dir, "mine.txt"), []byte("keep"), 0o644)
	_, err := attemptdir.Create(dir, attemptdir.Options{})
	if !errors.Is(err, attemptdir.ErrNotEmpty) || !strings.Contains(err.Error(), "attempt.json") {
		t.Fatalf("Create of a used folder: %v; want ErrNotEmpty naming attempt.json", err)
	}
	w = create(t, dir, attemptdir.Options{Force: true})
	defer w.Close()
	if _, err := os.Stat(filepath.Join(dir, attemptdir.Record)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("--force kept the earlier record: %v", err)
	}
	for _, keep := range []string{"mine.txt", attemptdir.PendingNotes} {
		if _, err := os.Stat(filepath.Join(dir, keep)); err != nil {
			t.Errorf("--force removed %s, a file it does not own: %v", keep, err)
		}
	}
}

// TestWriteFileAtomic: the file is replaced whole, with its mode, and no
// temporary file is left (issue 14 item 2).
func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	w := create(t, dir, attemptdir.Options{})
	defer w.Close()
	for _, data := range []string{"first, and longer\n", "second\n"} {
		if err := w.WriteFile(attemptdir.Request, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := os.ReadFile(filepath.Join(dir, attemptdir.Request))
	fi, _ := os.Stat(filepath.Join(dir, attemptdir.Request))
	if string(got) != "second\n" || fi.Mode().Perm() != 0o600 {
		t.Errorf("request.json = %q, mode %v; want %q, 0600", got, fi.Mode().Perm(), "second\n")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}

func TestOwnerAndList(t *testing.T) {
	root := t.TempDir()
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	wa := create(t, a, attemptdir.Options{})
	wa.WriteFile(attemptdir.Record, []byte("{}\n"), 0o644)
	wa.Close()
	wb := create(t, b, attemptdir.Options{})
	defer wb.Close()
	os.Mkdir(filepath.Join(root, "not-an-attempt"), 0o755)
	if got := attemptdir.Owner(filepath.Join(a, "artifacts", "x")); got != a {
		t.Errorf("Owner(a/artifacts/x) = %q; want %q", got, a)
	}
	if got := attemptdir.Owner(filepath.Join(root, "not-an-attempt")); got != "" {
		t.Errorf("Owner(not-an-attempt) = %q; want none", got)
	}
	list, err := attemptdir.List(root)
	if err != nil || len(list) != 2 {
		t.Fatalf("List = %d folders, %v; want 2", len(list), err)
	}
	if _, err := attemptdir.Read(filepath.Join(root, "not-an-attempt")); !errors.Is(err, attemptdir.ErrNotAttempt) {
		t.Errorf("Read(not-an-attempt): %v; want ErrNotAttempt", err)
	}
}
