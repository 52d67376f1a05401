package protocol

import "github.com/go-json-experiment/json/jsontext"

// Result is a step's final word: its last stdout line, or the
// KUSAW_RESULT file of an interactive step.
type Result struct {
	Type            string         `json:"type"` // always "result"
	ProtocolVersion int            `json:"protocol_version"`
	Status          string         `json:"status"` // ok, fail, retry or reject
	ReasonCode      string         `json:"reason_code"`
	Message         string         `json:"message"`
	Outputs         jsontext.Value `json:"outputs,omitzero"`
	Artifacts       []Artifact     `json:"artifacts,omitzero"`
	Feedback        []Feedback     `json:"feedback,omitzero"`
	Effects         []Effect       `json:"effects,omitzero"`
	Recovery        []Recovery     `json:"recovery,omitzero"`
	Phase           string         `json:"phase,omitzero"`
	Cause           string         `json:"cause,omitzero"`
	RetryAfterMS    *int64         `json:"retry_after_ms,omitzero"`
	ResetsAt        string         `json:"resets_at,omitzero"`
	Cost            *Cost          `json:"cost,omitzero"`
	Session         *Session       `json:"session,omitzero"`
	// Provenance is kept raw: a field of the wrong type is ignored with a
	// warning, never a failure.
	Provenance jsontext.Value `json:"provenance,omitzero"`
	Unknown    jsontext.Value `json:",embed"`
}

// The statuses a result may give.
const (
	StatusOK     = "ok"
	StatusFail   = "fail"
	StatusRetry  = "retry"
	StatusReject = "reject"
	StatusKilled = "killed" // the runner's verdict only
)

// Artifact is a file a step published under KUSAW_ARTIFACTS_DIR.
type Artifact struct {
	Path    string `json:"path"`
	Kind    string `json:"kind"`
	Title   string `json:"title,omitzero"`
	Caption string `json:"caption,omitzero"`
	Media   string `json:"media,omitzero"`
	Page    string `json:"page,omitzero"`
	Repo    string `json:"repo,omitzero"`
}

// Feedback is one finding from a step or gate.
type Feedback struct {
	Message   string  `json:"message"`
	Severity  string  `json:"severity"` // blocker, major, minor or info
	File      string  `json:"file,omitzero"`
	Line      int     `json:"line,omitzero"`
	Rule      string  `json:"rule,omitzero"`
	Repo      *string `json:"repo,omitzero"`
	Source    string  `json:"source,omitzero"`
	Assertion string  `json:"assertion,omitzero"`
}

// Effect is one typed effect in a result's plan.
type Effect struct {
	Kind string         `json:"kind"`
	Args jsontext.Value `json:"args,omitzero"`
}

// Recovery is a copy-paste command that helps a person recover.
type Recovery struct {
	Title   string `json:"title,omitzero"`
	Command string `json:"command,omitzero"`
}

// Cost is the token and dollar cost of an attempt.
type Cost struct {
	Source       *string  `json:"source,omitzero"`
	TokensInput  *int64   `json:"tokens_input,omitzero"`
	TokensOutput *int64   `json:"tokens_output,omitzero"`
	TokensCached *int64   `json:"tokens_cached,omitzero"`
	USD          *float64 `json:"usd,omitzero"`
}

// Session is a provider session the step wants recorded.
type Session struct {
	ID          string `json:"id"`
	Provider    string `json:"provider"`
	Dir         string `json:"dir"`
	ResumedFrom string `json:"resumed_from,omitzero"`
}
