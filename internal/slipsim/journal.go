package slipsim

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"kusaw.dev/step/slipway"
)

// run is one simulated Run, kept in ROOT/.slipway/runs/ID/run.json; its
// journal.jsonl beside it records every accepted mutation in order.
type run struct {
	ID            string                      `json:"id"`
	Root          string                      `json:"root"`
	Goal          string                      `json:"goal"`
	State         string                      `json:"state"`
	PauseReason   string                      `json:"pause_reason,omitempty"`
	Summary       string                      `json:"summary,omitempty"`
	Review        bool                        `json:"review"`
	ReviewPending bool                        `json:"review_pending"`
	InitialBudget int                         `json:"initial_budget"`
	Remaining     int                         `json:"remaining"`
	Seq           int                         `json:"seq"`
	Action        *slipway.Action             `json:"action,omitempty"`
	Suggested     *slipway.Suggestion         `json:"suggested,omitempty"`
	Accepted      map[string]accepted         `json:"accepted"`
	Pending       *slipway.DestructiveRequest `json:"pending,omitempty"`
	Sections      []section                   `json:"sections,omitempty"`
	Source        json.RawMessage             `json:"source,omitempty"`
	Submits       int                         `json:"submits"`
	Implements    int                         `json:"implements"`
	Records       []json.RawMessage           `json:"records"`
	CreatedAt     string                      `json:"created_at"`
	UpdatedAt     string                      `json:"updated_at"`
	unlock        func()
}

// accepted is an accepted Outcome: the hash of its exact bytes and the
// response, replayed for an identical retry.
type accepted struct {
	SHA256   string          `json:"sha256"`
	Response json.RawMessage `json:"response"`
}

// section is one section of an issue-backed Run.
type section struct {
	Key      string `json:"key"`
	Role     string `json:"role"`
	Title    string `json:"title"`
	Markdown string `json:"markdown"`
}

func runDir(root, id string) string { return filepath.Join(root, ".slipway", "runs", id) }

func newRunID() string {
	b := make([]byte, 6)
	rand.Read(b)
	return "run-" + hex.EncodeToString(b)
}

func digest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

func now() string { return time.Now().UTC().Format(time.RFC3339) }

// create makes a new Run's folder and takes its lock.
func create(r *run) error {
	if err := os.MkdirAll(runDir(r.Root, r.ID), 0o700); err != nil {
		return err
	}
	return r.lock()
}

// load reads and locks the Run id under root.
func load(root, id string) (*run, error) {
	data, err := os.ReadFile(filepath.Join(runDir(root, id), "run.json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, runtime("run_not_found", nil, "no run %q under %s", id, root)
	}
	if err != nil {
		return nil, err
	}
	var r run
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("journal corrupt: %v", err)
	}
	if r.Root != root {
		return nil, runtime("workspace_mismatch", nil, "run %s belongs to %s", id, r.Root)
	}
	return &r, r.lock()
}

// lock takes the Run's single-writer lock.
func (r *run) lock() error {
	path := filepath.Join(runDir(r.Root, r.ID), "lock")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return runtime("run_locked", nil, "run %s has another writer", r.ID)
	}
	f.Close()
	r.unlock = func() { os.Remove(path) }
	return nil
}

// save writes run.json and appends what happened to the journal.
func (r *run) save(event string, detail any) error {
	r.UpdatedAt = now()
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	dir := runDir(r.Root, r.ID)
	if err := appendJSONLine(filepath.Join(dir, "journal.jsonl"), map[string]any{"event": event, "detail": detail, "at": r.UpdatedAt}); err != nil {
		return err
	}
	tmp := filepath.Join(dir, "run.json.tmp")
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, "run.json"))
}

func (r *run) release() {
	if r != nil && r.unlock != nil {
		r.unlock()
	}
}
