package step

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"kusaw.dev/step/protocol"
)

// TestFollower checks that a follower waits at the end of the file for
// more, returns a partial line as soon as it is written, and ends with
// io.EOF only once the writer has ended and everything is read.
func TestFollower(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	w, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ended := make(chan struct{})
	fl := newFollower(r, ended)
	got := make(chan string)
	go func() {
		b, err := io.ReadAll(fl)
		if err != nil {
			t.Errorf("ReadAll = %v", err)
		}
		got <- string(b)
	}()
	w.WriteString(`{"type":`)
	time.Sleep(5 * followPoll)
	select {
	case s := <-got:
		t.Fatalf("the follower ended at the end of the file (%q) while the writer runs", s)
	default:
	}
	w.WriteString(`"progress"}` + "\n")
	time.Sleep(2 * followPoll)
	w.WriteString("tail")
	close(ended)
	select {
	case s := <-got:
		if s != `{"type":"progress"}`+"\ntail" {
			t.Errorf("followed %q; want everything written", s)
		}
	case <-time.After(time.Minute):
		t.Fatal("the follower did not end after the writer did")
	}
}

func TestAcknowledge(t *testing.T) {
	at := &attempt{rec: &Record{}}
	notes := noteRecords([]protocol.Note{{ID: "a", Text: "x"}, {ID: "b", Text: "y"}}, "start")
	notes = at.acknowledge(notes, []string{"b", "zz", "b"})
	if notes[0].Acknowledged || !notes[1].Acknowledged || notes[1].Delivery != "start" {
		t.Errorf("notes = %+v; want b acknowledged only", notes)
	}
	if len(at.rec.Warnings) != 1 || at.rec.Warnings[0].Code != "note_ack_unknown" {
		t.Errorf("warnings = %+v; want one note_ack_unknown", at.rec.Warnings)
	}
}
