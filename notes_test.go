package step_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	step "kusaw.dev/step"
	"kusaw.dev/step/protocol"
)

func TestLiveNote(t *testing.T) {
	ss := startInteractive(t, "tty-notes", setup{}, step.Terminal{})
	ss.screen.waitFor(t, "waiting for a note")
	note, live, err := step.SendNote(ss.out, "go left")
	if err != nil || !live {
		t.Fatalf("SendNote = %v, live %v; want a live note", err, live)
	}
	rec := ss.wait(t)
	wantVerdict(t, rec, verdict{protocol.StatusOK, "fake", "noted"})
	if got := string(rec.Outputs); got != `{"greeting":"go left"}` {
		t.Errorf("outputs = %s; want the note's text", got)
	}
	want := step.NoteRecord{ID: note.ID, Text: "go left", CreatedAt: note.CreatedAt, Delivery: "live", Acknowledged: true}
	if len(rec.Notes) != 1 || rec.Notes[0] != want {
		t.Errorf("notes = %+v; want [%+v]", rec.Notes, want)
	}
	// The attempt is over: a note now waits for the next start.
	late, live, err := step.SendNote(ss.out, "too late")
	if err != nil || live {
		t.Fatalf("SendNote after the attempt = %v, live %v; want a pending note", err, live)
	}
	pending, err := step.TakePendingNotes(ss.out)
	if err != nil || len(pending) != 1 || pending[0] != late {
		t.Errorf("TakePendingNotes = %+v, %v; want [%+v]", pending, err, late)
	}
	if again, err := step.TakePendingNotes(ss.out); err != nil || len(again) != 0 {
		t.Errorf("TakePendingNotes again = %+v, %v; want none", again, err)
	}
}

// A step that is not interactive takes live notes the same way.
func TestLiveNotePipes(t *testing.T) {
	ss := startInteractive(t, "pipe-notes", setup{}, step.Terminal{})
	notes := filepath.Join(ss.out, step.NotesFile)
	deadline := time.Now().Add(time.Minute)
	for _, err := os.Stat(notes); err != nil; _, err = os.Stat(notes) {
		if time.Now().After(deadline) {
			t.Fatalf("no live notes file: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	note, live, err := step.SendNote(ss.out, "go right")
	if err != nil || !live {
		t.Fatalf("SendNote = %v, live %v; want a live note", err, live)
	}
	rec := ss.wait(t)
	wantVerdict(t, rec, verdict{protocol.StatusOK, "fake", "done"})
	if len(rec.Notes) != 1 || rec.Notes[0].ID != note.ID || !rec.Notes[0].Acknowledged || rec.Logs.Terminal != nil {
		t.Errorf("notes %+v, terminal log %+v; want the note acknowledged, and no terminal", rec.Notes, rec.Logs.Terminal)
	}
}

func TestNotesFileByHand(t *testing.T) {
	ss := startInteractive(t, "tty-notes", setup{}, step.Terminal{})
	ss.screen.waitFor(t, "waiting for a note")
	// Written straight to the file, as a careless tool might: a note with
	// an id the step acknowledges, and a line that is not a note.
	f, err := os.OpenFile(filepath.Join(ss.out, step.NotesFile), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"id":"n1","text":"hi","created_at":"2026-01-01T00:00:00Z"}` + "\nnot a note\n")
	f.Close()
	rec := ss.wait(t)
	if len(rec.Notes) != 1 || !rec.Notes[0].Acknowledged || !hasWarning(rec, "notes_unreadable") {
		t.Errorf("notes %+v, warnings %+v; want n1 acknowledged and the bad line reported", rec.Notes, rec.Warnings)
	}
	if _, err := os.Stat(filepath.Join(ss.out, step.SentNotesFile)); err != nil {
		t.Errorf("the live notes file was not closed: %v", err)
	}
}

func TestSendNoteConcurrent(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			if _, _, err := step.SendNote(dir, strings.Repeat("n", 5000)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	notes, err := step.TakePendingNotes(dir)
	if err != nil || len(notes) != 20 {
		t.Fatalf("TakePendingNotes = %d notes, %v; want 20 whole notes", len(notes), err)
	}
	ids := map[string]bool{}
	for _, n := range notes {
		ids[n.ID] = true
	}
	if len(ids) != 20 {
		t.Errorf("%d distinct ids; want 20", len(ids))
	}
}

func TestReadNotes(t *testing.T) {
	notes, err := step.ReadNotes(filepath.Join(t.TempDir(), "none.jsonl"))
	if err != nil || notes != nil {
		t.Errorf("ReadNotes(missing) = %v, %v; want none", notes, err)
	}
}
