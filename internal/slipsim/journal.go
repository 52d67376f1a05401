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
	"regexp"
	"syscall"
	"time"
)

// run is one simulated Run, kept where the CLI keeps it: in the
// worktree's Git directory, GITDIR/slipway/runs/ID/run.json, with
// journal.jsonl beside it recording every accepted mutation in order.
// Nothing of it is in the worktree, so it never shows in a Git diff.
type run struct {
	ID            string            `json:"id"`
	Root          string            `json:"root"`
	GitDir        string            `json:"git_dir"`
	Goal          string            `json:"goal"`
	State         string            `json:"state"`
	PauseReason   string            `json:"pause_reason,omitempty"`
	Summary       string            `json:"summary,omitempty"`
	Review        bool              `json:"review"`
	ReviewPending bool              `json:"review_pending"`
	InitialBudget int               `json:"initial_budget"`
	Remaining     int               `json:"remaining"`
	Action        *actionBody       `json:"action,omitempty"`
	Queue         []suggestion      `json:"queue"`
	Accepted      map[string]string `json:"accepted"`  // action id → sha256 of the accepted bytes
	Responses     map[string][]byte `json:"responses"` // action id → the accepted response
	Pending       *destructive      `json:"pending,omitempty"`
	Sections      []section         `json:"sections,omitempty"`
	Source        json.RawMessage   `json:"source,omitempty"`
	Initial       *observation      `json:"initial"`
	Current       *observation      `json:"current"`
	FinalObserved bool              `json:"final_observed"`
	Records       []record          `json:"records"`
	Answers       []answer          `json:"answers"`
	Observations  []string          `json:"observations"`
	KnownIssues   []string          `json:"known_issues"`
	Activities    []activity        `json:"activities"`
	Submits       int               `json:"submits"`
	Implements    int               `json:"implements"`
	LastResume    map[string]any    `json:"last_resume,omitempty"`
	CreatedAt     string            `json:"created_at"`
	UpdatedAt     string            `json:"updated_at"`
	unlock        func()
}

// record is one issued Action and what became of it.
type record struct {
	Action  actionBody      `json:"action"`
	Outcome json.RawMessage `json:"outcome,omitempty"`
	SHA256  string          `json:"outcome_payload_sha256,omitempty"`
	Skipped bool            `json:"skipped,omitempty"`
	Voided  bool            `json:"voided,omitempty"`
}

// answer is a person's decision text.
type answer struct {
	ActionID string `json:"action_id"`
	Text     string `json:"text"`
}

// section is one section of an issue-backed Run.
type section struct {
	Key      string `json:"key"`
	Role     string `json:"role"`
	Title    string `json:"title"`
	Markdown string `json:"markdown"`
	Revision string `json:"revision"`
	Material string `json:"material"`
}

func (w *workspace) runDir(id string) string { return filepath.Join(w.gitDir, "slipway", "runs", id) }

// newID is a random version 4 UUID, the form of the CLI's ids.
func newID() string {
	b := make([]byte, 16)
	rand.Read(b)
	b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
	h := hex.EncodeToString(b)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

var runIDForm = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

func digest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

func now() string { return time.Now().UTC().Format(time.RFC3339Nano) }

// create makes a new Run's folder and takes its lock.
func create(w *workspace, r *run) error {
	if err := os.MkdirAll(w.runDir(r.ID), 0o700); err != nil {
		return err
	}
	return r.lock(w)
}

// load reads and locks the Run id of the workspace.
func load(w *workspace, id string) (*run, error) {
	if !runIDForm.MatchString(id) {
		return nil, usage("invalid_run_id", "run id %q is not a canonical run id", id)
	}
	data, err := os.ReadFile(filepath.Join(w.runDir(id), "run.json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, runtime("run_not_found", nil, "run %s was not found", id)
	}
	if err != nil {
		return nil, err
	}
	var r run
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("journal corrupt: %v", err)
	}
	return &r, r.lock(w)
}

// lock takes the Run's single-writer lock: an advisory lock on run.lock,
// released by the kernel if the process dies, as the CLI's is.
func (r *run) lock(w *workspace) error {
	f, err := os.OpenFile(filepath.Join(w.runDir(r.ID), "run.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return runtime("run_busy", nil, "run %s has another writer", r.ID)
	}
	r.unlock = func() { f.Close() }
	return nil
}

// save writes run.json and appends what happened to the journal.
func (r *run) save(event string, detail any) error {
	r.UpdatedAt = now()
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	dir := filepath.Join(r.GitDir, "slipway", "runs", r.ID)
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
