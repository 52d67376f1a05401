package step

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/go-json-experiment/json"

	"kusaw.dev/step/attemptdir"
	"kusaw.dev/step/protocol"
)

// Steer notes are what a person tells a running step. A step says when it
// can take them with its handshake's "notes":
//
//   - "live": while it runs, KUSAW_NOTES_FILE names NotesFile in the
//     attempt folder, a JSONL file of {id, text, created_at} that
//     [SendNote] appends to, one whole line per note; the step reads it as
//     it grows and answers each note it took with a note_ack event.
//   - "start" (or nothing): notes wait in PendingNotesFile in the attempt
//     folder until the next start there, which hands them over in the
//     request's context.notes ([TakePendingNotes] takes them out).
//
// When the attempt is over, NotesFile is renamed SentNotesFile, so a note
// sent after that waits for the next start, and the record lists every note
// the step was given, live or at the start, and whether it acknowledged it.
const (
	NotesFile        = attemptdir.Notes        // the live notes of the running attempt
	SentNotesFile    = attemptdir.SentNotes    // NotesFile, once the attempt is over
	PendingNotesFile = attemptdir.PendingNotes // notes for the next start
)

// NoteRecord is a steer note the step was given, in the [Record].
type NoteRecord struct {
	ID        string `json:"id"`
	Text      string `json:"text"`
	CreatedAt string `json:"created_at"`
	// Delivery is "start" for a note in the request's context.notes and
	// "live" for one appended to KUSAW_NOTES_FILE while the step ran.
	Delivery string `json:"delivery"`
	// Acknowledged says that a note_ack event named the note.
	Acknowledged bool `json:"acknowledged"`
}

// NewNote returns a note with text, a new random id and the current time.
func NewNote(text string) protocol.Note {
	return protocol.Note{ID: "note-" + rand.Text()[:16], Text: text, CreatedAt: time.Now().UTC().Format(time.RFC3339)}
}

// SendNote gives a new note with text to the attempt in the folder outDir:
// to the running step, when it takes live notes (its NotesFile exists), or
// else to the folder's pending notes, for the next start. It reports
// whether the note went live.
func SendNote(outDir, text string) (note protocol.Note, live bool, err error) {
	note = NewNote(text)
	err = appendNote(filepath.Join(outDir, NotesFile), 0, note)
	if err == nil {
		return note, true, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return note, false, err
	}
	return note, false, appendNote(filepath.Join(outDir, PendingNotesFile), os.O_CREATE, note)
}

// appendNote appends n to the file path as one line, with one write to a
// file opened with O_APPEND, so notes from several writers never mix.
// Without O_CREATE in flags a missing file is an error.
func appendNote(path string, flags int, n protocol.Note) error {
	line, err := json.Marshal(n)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|flags, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(append(line, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// ReadNotes reads a JSONL file of notes. A missing file has none. A line
// that is not a note is skipped, and the first one is reported in the
// error, with the notes of every other line.
func ReadNotes(path string) ([]protocol.Note, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var notes []protocol.Note
	var first error
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, len(data)+1)
	for n := 1; sc.Scan(); n++ {
		var note protocol.Note
		if err := json.Unmarshal(sc.Bytes(), &note); err != nil || note.ID == "" {
			first = cmpErr(first, fmt.Errorf("%s line %d: not a note", path, n))
			continue
		}
		notes = append(notes, note)
	}
	return notes, first
}

func cmpErr(err, def error) error {
	if err != nil {
		return err
	}
	return def
}

// TakePendingNotes takes the pending notes out of the attempt folder
// outDir, for a request's context.notes. The file is renamed away before it
// is read, so a note sent meanwhile waits for the start after.
func TakePendingNotes(outDir string) ([]protocol.Note, error) {
	pending := filepath.Join(outDir, PendingNotesFile)
	taken := pending + ".taken"
	if err := os.Rename(pending, taken); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	notes, err := ReadNotes(taken)
	if rerr := os.Remove(taken); err == nil {
		err = rerr
	}
	return notes, err
}

// PendNotes puts notes back among the pending notes of the attempt folder
// outDir, for the next start: a runner that took them with
// [TakePendingNotes] and never started the step gives them back.
func PendNotes(outDir string, notes []protocol.Note) error {
	for _, n := range notes {
		if err := appendNote(filepath.Join(outDir, PendingNotesFile), os.O_CREATE, n); err != nil {
			return err
		}
	}
	return nil
}

// openNotes creates the live notes file of a step that takes live notes.
func (at *attempt) openNotes() error {
	if at.info.Handshake.Notes != "live" {
		return nil
	}
	at.notesPath = at.path(NotesFile)
	f, err := os.OpenFile(at.notesPath, os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("notes file: %w", err)
	}
	return f.Close()
}

// closeNotes ends live notes and records every note the step was given,
// with its acknowledgement.
func (at *attempt) closeNotes(out *output) {
	notes := noteRecords(at.req.Context.Notes, "start")
	if at.notesPath != "" {
		sent := at.path(SentNotesFile)
		if err := os.Rename(at.notesPath, sent); err != nil {
			at.warn("notes_not_closed", err.Error())
			sent = at.notesPath
		}
		live, err := ReadNotes(sent)
		if err != nil {
			at.warn("notes_unreadable", err.Error())
		}
		notes = append(notes, noteRecords(live, "live")...)
	}
	at.rec.Notes = at.acknowledge(notes, out.acks)
}

func noteRecords(notes []protocol.Note, delivery string) []NoteRecord {
	var out []NoteRecord
	for _, n := range notes {
		out = append(out, NoteRecord{ID: n.ID, Text: n.Text, CreatedAt: n.CreatedAt, Delivery: delivery})
	}
	return out
}

// acknowledge marks the notes that acks name; an ack of no note given is a
// warning.
func (at *attempt) acknowledge(notes []NoteRecord, acks []string) []NoteRecord {
	for _, id := range acks {
		found := false
		for i := range notes {
			if notes[i].ID == id {
				notes[i].Acknowledged, found = true, true
			}
		}
		if !found {
			at.warn("note_ack_unknown", fmt.Sprintf("a note_ack event names %q, a note the step was not given", id))
		}
	}
	return notes
}
