package protocol

import "github.com/go-json-experiment/json/jsontext"

// Request is the document a step reads on stdin (or from KUSAW_REQUEST).
// The core fields are typed; every other field is kept in Unknown, so a
// request loaded from a file is written back to the step unchanged.
type Request struct {
	ProtocolVersion        int            `json:"protocol_version"`
	Mode                   string         `json:"mode"`
	RunID                  *string        `json:"run_id"`
	TaskID                 *string        `json:"task_id"`
	Worktree               *string        `json:"worktree"`
	ArtifactsDir           string         `json:"artifacts_dir"`
	Config                 jsontext.Value `json:"config"`
	Context                Context        `json:"context"`
	Limits                 Limits         `json:"limits"`
	Loop                   *Loop          `json:"loop"`
	Repos                  []Repo         `json:"repos"`
	Step                   StepInfo       `json:"step"`
	CompletionGraceSeconds *int           `json:"completion_grace_seconds,omitzero"`
	Effects                *Effects       `json:"effects,omitzero"`
	Resume                 *Resume        `json:"resume,omitzero"`
	Sandbox                *Sandbox       `json:"sandbox,omitzero"`
	Unknown                jsontext.Value `json:",embed"`
}

// Modes are the values of Request.Mode.
var Modes = []string{"pipeline", "intake", "finally", "atlas_scan", "atlas_chunk", "atlas_embed", "atlas_map", "check", "score", "match", "triage", "select", "classify"}

// Context is what the step can see of the task and earlier steps.
type Context struct {
	Task    *Task                     `json:"task"`
	Steps   map[string]jsontext.Value `json:"steps"`
	Notes   []Note                    `json:"notes,omitzero"`
	Unknown jsontext.Value            `json:",embed"`
}

// Task is the task a pipeline step works on.
type Task struct {
	ID       string   `json:"id,omitzero"`
	Title    string   `json:"title,omitzero"`
	Spec     string   `json:"spec,omitzero"`
	SpecPath string   `json:"spec_path,omitzero"`
	Repos    []string `json:"repos,omitzero"`
}

// Note is a steer note from a person.
type Note struct {
	ID        string `json:"id"`
	Text      string `json:"text"`
	CreatedAt string `json:"created_at"`
}

// Limits are the caps still available to the attempt. Nil means the
// spec's default (see the Default constants).
type Limits struct {
	BudgetLeftUSD   *float64 `json:"budget_left_usd"`
	TimeLeftMS      int64    `json:"time_left_ms"`
	MaxLineBytes    *int64   `json:"max_line_bytes,omitzero"`
	LogCapBytes     *int64   `json:"log_cap_bytes,omitzero"`
	OutputsMaxBytes *int64   `json:"outputs_max_bytes,omitzero"`
	FinalTextBytes  *int64   `json:"final_text_bytes,omitzero"`
}

// The spec's defaults for the limits a request may omit.
const (
	DefaultMaxLineBytes           = 1 << 20
	DefaultLogCapBytes            = 50 << 20
	DefaultOutputsMaxBytes        = 64 << 10
	DefaultFinalTextBytes         = 1 << 20
	DefaultCompletionGraceSeconds = 5
	MaxEffects                    = 100
)

// Loop is set when the attempt runs inside a loop.
type Loop struct {
	Name             string         `json:"name"`
	Iteration        int            `json:"iteration"`
	MaxIterations    int            `json:"max_iterations"`
	PreviousFeedback jsontext.Value `json:"previous_feedback"`
}

// Repo is one repo of the run the step may work on.
type Repo struct {
	Label     string         `json:"label"`
	Branch    string         `json:"branch"`
	BaseRef   string         `json:"base_ref"`
	Worktree  string         `json:"worktree"`
	Standards string         `json:"standards"`
	Status    string         `json:"status"` // running or verified
	Unknown   jsontext.Value `json:",embed"`
}

// StepInfo names the step attempt being started.
type StepInfo struct {
	ID      string  `json:"id"`
	Name    string  `json:"name"`
	Attempt int     `json:"attempt"`
	Stage   *string `json:"stage,omitzero"`
}

// Effects says which effect kinds a step may return.
type Effects struct {
	Allowed      []EffectKind `json:"allowed"`
	AppliedSoFar int          `json:"applied_so_far"`
	Mode         string       `json:"mode"` // apply, dry_run or off
}

// EffectKind is one kind of effect a step may return.
type EffectKind struct {
	Kind   string         `json:"kind"`
	Schema jsontext.Value `json:"schema,omitzero"`
	Scope  string         `json:"scope"` // outside or local
}

// Resume names a provider session to continue.
type Resume struct {
	Provider  string `json:"provider"`
	SessionID string `json:"session_id"`
	Fork      bool   `json:"fork"`
	Note      string `json:"note,omitzero"`
}

// Sandbox is the OS sandbox the attempt runs in.
type Sandbox struct {
	Mode     string   `json:"mode"`    // required or off
	Backend  *string  `json:"backend"` // seatbelt, bwrap or null
	Network  string   `json:"network"` // open or allowlist
	Egress   *Egress  `json:"egress,omitzero"`
	Tmp      string   `json:"tmp,omitzero"`
	Writable []string `json:"writable,omitzero"`
}

// Egress is the allowlist of an attempt whose network is "allowlist".
type Egress struct {
	Allow    []string `json:"allow"`
	Injected []string `json:"injected"`
	Proxy    string   `json:"proxy"`
}
