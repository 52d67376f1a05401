package attemptdir

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// State is how far an attempt in a folder got.
type State string

// The states of an attempt folder.
const (
	Empty      State = "empty"      // no attempt yet (perhaps pending notes)
	Running    State = "running"    // an attempt holds the folder now
	Unfinished State = "unfinished" // the attempt's runner ended without a record
	Finished   State = "finished"   // the record is written
)

// Folder is an attempt folder read back.
type Folder struct {
	// Dir is the folder's path.
	Dir string
	// State is how far its attempt got.
	State State
	// Started is when the attempt began: from the running marker, or
	// else the record's file time; zero for an empty folder.
	Started time.Time
	// PID is the runner's process id, from the running marker; 0 when
	// the attempt is finished.
	PID int
	// Record is attempt.json's bytes; nil unless Finished.
	Record []byte
	// Request is request.json's bytes; nil when there is none.
	Request []byte
}

// Path returns the path of the file name in the folder.
func (f *Folder) Path(name string) string { return filepath.Join(f.Dir, name) }

// marker is the running marker's content.
type marker struct {
	PID       int       `json:"pid"`
	StartedAt time.Time `json:"started_at"`
}

func runningMarker() []byte {
	data, _ := json.Marshal(marker{PID: os.Getpid(), StartedAt: time.Now().UTC()})
	return append(data, '\n')
}

// ErrNotAttempt is returned by [Read] for a path that is not an attempt
// folder.
var ErrNotAttempt = errors.New("not an attempt folder")

// Read reads the attempt folder dir back. A folder without a record, a
// running marker or a lock file is [ErrNotAttempt].
func Read(dir string) (*Folder, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s: %w", dir, ErrNotAttempt)
	}
	f := &Folder{Dir: dir}
	f.Request, err = readOptional(f.Path(Request))
	if err != nil {
		return nil, err
	}
	if f.Record, err = readOptional(f.Path(Record)); err != nil {
		return nil, err
	}
	return f, f.readState()
}

// readState sets the folder's state from its record, marker and lock.
func (f *Folder) readState() error {
	mark, err := readOptional(f.Path(Marker))
	if err != nil {
		return err
	}
	switch {
	case mark != nil:
		var m marker
		_ = json.Unmarshal(mark, &m) // a marker cut by a crash still marks
		f.PID, f.Started = m.PID, m.StartedAt
		f.State, f.Record = Unfinished, nil
		if locked(f.Dir) {
			f.State = Running
		}
	case f.Record != nil:
		f.State = Finished
		if fi, err := os.Stat(f.Path(Record)); err == nil {
			f.Started = fi.ModTime()
		}
	case exists(f.Path(lockName)) || exists(f.Path(PendingNotes)):
		f.State = Empty
	default:
		return fmt.Errorf("%s: %w: no %s, %s or %s", f.Dir, ErrNotAttempt, Record, Marker, lockName)
	}
	return nil
}

func readOptional(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return data, err
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// List reads every attempt folder directly under root, newest first.
// Entries that are not attempt folders are skipped; a folder that cannot
// be read is reported in the error, after the others are listed.
func List(root string) ([]*Folder, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	var out []*Folder
	var errs []error
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		f, err := Read(filepath.Join(root, e.Name()))
		switch {
		case errors.Is(err, ErrNotAttempt):
		case err != nil:
			errs = append(errs, err)
		default:
			out = append(out, f)
		}
	}
	slices.SortStableFunc(out, func(a, b *Folder) int { return b.Started.Compare(a.Started) })
	return out, errors.Join(errs...)
}

// Owner returns the attempt folder that path lies in (path itself or a
// folder above it), or "" when it lies in none. A folder is an attempt
// folder when it holds a record, a running marker or a lock file.
func Owner(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	for dir := abs; ; {
		if exists(filepath.Join(dir, Record)) || exists(filepath.Join(dir, Marker)) || exists(filepath.Join(dir, lockName)) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}
