// Package attemptdir owns the attempt folder: the folder one attempt of a
// step writes its request, logs, result and record to. It knows the
// folder's file names and enforces its rules:
//
//  1. One attempt per folder. [Create] takes an exclusive lock (flock on a
//     lock file) for the whole attempt, so a second attempt on the same
//     folder is refused with [ErrBusy]; and it refuses a folder that holds
//     an earlier attempt with [ErrNotEmpty], unless told to force it.
//  2. No half records. [Writer.WriteFile] writes a temporary file in the
//     folder, syncs it and renames it over the final name; [Writer.Close]
//     syncs the folder once, which makes every rename durable.
//  3. An unfinished attempt shows. A running marker ([Marker]) is written when the
//     attempt starts and removed when its record is written; a reader
//     ([Read]) that finds the marker while nobody holds the lock knows the
//     runner died (for example was SIGKILLed) and says [Unfinished].
//
// It does not decide what goes into the files (the root package writes
// the record, cmd/kusaw-step shows it), and it never deletes a file whose
// name it does not own.
package attemptdir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// The names of the files in an attempt folder.
const (
	Request      = "request.json"        // the request, exactly as the step got it
	Result       = "result.json"         // the step's result line, masked
	Record       = "attempt.json"        // the attempt record: what happened
	Stdout       = "stdout.jsonl"        // the step's stdout, capped
	Stderr       = "stderr.log"          // the step's stderr, capped
	Terminal     = "terminal.log"        // an interactive step's terminal, capped
	Events       = "events.jsonl"        // an interactive step's events (KUSAW_EVENTS)
	Egress       = "egress.jsonl"        // the sandbox proxy's log of requests
	Notes        = "notes.jsonl"         // the live notes of the running attempt
	SentNotes    = "notes.sent.jsonl"    // Notes, once the attempt is over
	PendingNotes = "notes.pending.jsonl" // notes waiting for the next start
	Artifacts    = "artifacts"           // the default artifacts folder
	Marker       = "running"             // present while the attempt has no record yet
	lockName     = ".lock"               // flocked for the whole attempt
)

// owned lists every name an attempt writes: what --force may remove. A
// name not in it is left alone.
var owned = []string{Request, Result, Record, Stdout, Stderr, Terminal, Events, Egress, Notes, SentNotes, Artifacts, Marker}

// Errors of [Create].
var (
	// ErrBusy means another attempt holds the folder's lock.
	ErrBusy = errors.New("another attempt is running in the folder")
	// ErrNotEmpty means the folder holds files already, such as an
	// earlier attempt: an attempt folder belongs to one attempt.
	ErrNotEmpty = errors.New("the folder is not empty")
)

// Options change how [Create] treats a folder in use.
type Options struct {
	// Force lets an attempt take a folder that holds an earlier attempt:
	// the earlier attempt's files (the names this package owns) are
	// removed first; other files are left alone. It never takes a folder
	// another attempt holds.
	Force bool
}

// Writer is an attempt folder held by one running attempt. Its methods
// are not safe for concurrent use, except Path.
type Writer struct {
	dir  string
	lock *os.File // flocked until Close
}

// Create makes or takes the folder dir for one attempt: it creates it,
// locks it for the attempt, checks that it is free ([ErrNotEmpty]) and
// marks it [Running]. Pending notes (PendingNotes) do not make a folder
// taken: they wait for its first attempt. The caller must Close the
// Writer when the attempt's record is written.
func Create(dir string, opts Options) (*Writer, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	lock, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	w := &Writer{dir: dir, lock: lock}
	if err := w.claim(opts); err != nil {
		lock.Close()
		return nil, err
	}
	return w, nil
}

// claim checks the locked folder is free, clears it when forced, and
// writes the running marker.
func (w *Writer) claim(opts Options) error {
	taken, err := takenNames(w.dir)
	if err != nil {
		return err
	}
	if len(taken) > 0 && !opts.Force {
		return fmt.Errorf("%w: %s holds %s; give a new --out, or --force to replace it", ErrNotEmpty, w.dir, listNames(taken))
	}
	for _, name := range taken {
		if slices.Contains(owned, name) {
			if err := os.RemoveAll(filepath.Join(w.dir, name)); err != nil {
				return err
			}
		}
	}
	// Not synced, nor renamed into place: a marker cut by a crash still
	// marks, and a sync here would cost every attempt a disk flush.
	return os.WriteFile(w.Path(Marker), runningMarker(), 0o644)
}

// takenNames lists the folder's entries other than the lock and pending
// notes.
func takenNames(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if n := e.Name(); n != lockName && n != PendingNotes {
			names = append(names, n)
		}
	}
	return names, nil
}

func listNames(names []string) string {
	if len(names) > 3 {
		return fmt.Sprintf("%s, %s, %s and %d more", names[0], names[1], names[2], len(names)-3)
	}
	s := ""
	for i, n := range names {
		if i > 0 {
			s += ", "
		}
		s += n
	}
	return s
}

// Dir returns the folder's path.
func (w *Writer) Dir() string { return w.dir }

// Path returns the path of the file name in the folder.
func (w *Writer) Path(name string) string { return filepath.Join(w.dir, name) }

// WriteFile writes data to the file name in the folder atomically, with
// permissions perm: a reader sees the old file or the whole new one, even
// after a crash.
func (w *Writer) WriteFile(name string, data []byte, perm os.FileMode) error {
	return writeAtomic(w.dir, name, data, perm)
}

// Close ends the attempt: it removes the running marker, when the record
// was written, syncs the folder (the renames of every WriteFile become
// durable) and releases the lock. A folder closed without a record stays
// marked unfinished.
func (w *Writer) Close() error {
	var err error
	if _, serr := os.Stat(w.Path(Record)); serr == nil {
		err = os.Remove(w.Path(Marker))
	}
	if serr := syncDir(w.dir); err == nil {
		err = serr
	}
	if cerr := w.lock.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeAtomic writes data to dir/name through a synced temporary file in
// dir and a rename. The rename is atomic at once; it is made durable by
// the folder's sync in Close, one for the whole attempt instead of one
// per file.
func writeAtomic(dir, name string, data []byte, perm os.FileMode) error {
	f, err := os.CreateTemp(dir, "."+name+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, perm)
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, name))
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", name, err)
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
