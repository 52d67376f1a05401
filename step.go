// Package step runs one attempt of a Kusaw step protocol v2 step: the
// handshake, the request on stdin, the event stream on stdout, the result,
// and the attempt record that says what happened.
//
// [Run] is synchronous and cancellable. It owns the step's process group:
// nothing the step spawns outlives the attempt. It prints nothing; events go
// to the caller's [Observer] and everything else to the [Record] and the
// attempt folder. It does not synthesize requests (see package request) or
// decide how anything is shown to a person (see cmd/kusaw-step).
package step

import (
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/rs/zerolog"

	"kusaw.dev/step/events"
	"kusaw.dev/step/handshake"
	"kusaw.dev/step/protocol"
	"kusaw.dev/step/result"
	"kusaw.dev/step/sandbox"
)

// Attempt is one run of a step.
type Attempt struct {
	// Command is the step's argv: the program and its arguments.
	Command []string
	// Dir is the step's working directory; "" means the request's
	// worktree, or the runner's own folder when the worktree is null.
	Dir string
	// Request is the v2 request, exactly as the step reads it on stdin
	// (an interactive step: in KUSAW_REQUEST).
	// Its limits.time_left_ms is the attempt's timeout. A sandboxed
	// attempt's step reads it with its sandbox member set to the sandbox
	// it runs in (spec row sandbox); every other member keeps its bytes.
	Request []byte
	// OutDir is the attempt folder (package attemptdir): request.json,
	// stdout.jsonl, stderr.log, result.json and attempt.json are written
	// there. It is created, and locked while the attempt runs; one that
	// holds an earlier attempt is refused (attemptdir.ErrNotEmpty), one
	// another attempt holds too (attemptdir.ErrBusy). Notes pending in
	// it are given to the step in the request's context.notes.
	OutDir string
	// Force lets the attempt replace an earlier attempt in OutDir.
	Force bool
	// After is the folder of the previous attempt of the same step, or
	// "": its pending notes are given to the step, the request's
	// step.attempt counts up from its request's, and the record names it.
	After string
	// Env is the base environment; nil means the runner's own. Inherited
	// KUSAW_* variables are replaced by the attempt's.
	Env []string
	// HandshakeTimeout bounds the handshake; 0 means 10 s.
	HandshakeTimeout time.Duration
	// Grace is how long a step has between SIGTERM and SIGKILL; 0 means 5 s.
	Grace time.Duration
	// KeepGoing lets the step run on after a protocol error, so every
	// problem is collected; by default the first one stops it.
	KeepGoing bool
	// Terminal is the person's side of an interactive step's
	// pseudo-terminal; it is not used for other steps.
	Terminal Terminal
	// Observer hears of the attempt while it runs; its zero value hears
	// nothing.
	Observer Observer
	// Sandbox, when not nil, decides the step's sandbox and environment
	// (package sandbox): the policy from the request and the operator's
	// flags; an environment built from a small base, the KUSAW_* variables
	// and what the step declares in needs_env; the operator's secrets, for
	// a step that declares them, masked in every log, event and the
	// record. Nil runs the step unsandboxed with Env inherited; the CLI
	// always sets it.
	Sandbox *sandbox.Options
	// Log receives the runner's own diagnostics; the zero value discards.
	Log zerolog.Logger
}

// Observer hears of an attempt as it happens. Each function may be nil.
// They are called from the attempt's own goroutines, one call at a time,
// and must return quickly.
type Observer struct {
	// Handshake is called once the step has said who it is.
	Handshake func(info *handshake.Info)
	// Event is called for each valid event, in order.
	Event func(ev protocol.Event)
	// Problem is called for each protocol error as it is found.
	Problem func(p *events.ProtocolError)
}

// Record is what happened in one attempt: the attempt.json that other tools
// parse. Its field names are stable.
type Record struct {
	Status          string                 `json:"status"`
	ReasonCode      string                 `json:"reason_code"`
	Message         string                 `json:"message"`
	Outputs         jsontext.Value         `json:"outputs,omitzero"`
	Artifacts       []protocol.Artifact    `json:"artifacts,omitzero"`
	Feedback        []protocol.Feedback    `json:"feedback,omitzero"`
	Effects         *result.Plan           `json:"effects,omitzero"`
	EffectsFeedback []result.EffectProblem `json:"effects_feedback,omitzero"`
	Recovery        []protocol.Recovery    `json:"recovery,omitzero"`
	Phase           string                 `json:"phase,omitzero"`
	RetryAfterMS    *int64                 `json:"retry_after_ms,omitzero"`
	ResetsAt        string                 `json:"resets_at,omitzero"` // a valid RFC 3339 resets_at of the result
	Provenance      *result.Provenance     `json:"provenance,omitzero"`
	Warnings        []protocol.Warning     `json:"warnings"`
	Step            StepIdentity           `json:"step"`
	Handshake       jsontext.Value         `json:"handshake,omitzero"`
	ExitCode        *int                   `json:"exit_code"`
	Signal          string                 `json:"signal,omitzero"`
	StartedAt       time.Time              `json:"started_at"`
	DurationMS      int64                  `json:"duration_ms"`
	Events          map[string]int         `json:"events"`
	Usage           *protocol.Usage        `json:"usage,omitzero"`
	Session         *protocol.Session      `json:"session,omitzero"`
	Cost            *protocol.Cost         `json:"cost,omitzero"`
	ProtocolErrors  []ProblemRecord        `json:"protocol_errors,omitzero"`
	Logs            Logs                   `json:"logs"`
	Egress          *EgressRecord          `json:"egress,omitzero"`
	RequestPath     string                 `json:"request_path"`
	After           string                 `json:"after,omitzero"` // the previous attempt's folder
	ResultPath      string                 `json:"result_path,omitzero"`
	Notes           []NoteRecord           `json:"notes,omitzero"`
	// Sandbox is the sandbox the step actually ran in; nil when the
	// attempt had no sandbox options (a library caller's choice).
	Sandbox *SandboxRecord `json:"sandbox,omitzero"`
	// Resources is what the step's process tree used.
	Resources *Resources `json:"resources,omitzero"`
	// Diagnosis explains a failed handshake or protocol error at length,
	// for a person: the cause, the offending bytes, the stderr tail.
	Diagnosis string `json:"diagnosis,omitzero"`
}

// StepIdentity is who the step said it is.
type StepIdentity struct {
	Command []string `json:"command"`
	Name    string   `json:"name,omitzero"`
	Version string   `json:"version,omitzero"`
}

// ProblemRecord is one protocol error in the record.
type ProblemRecord struct {
	Line  int    `json:"line"`
	Cause string `json:"cause"`
	Hint  string `json:"hint,omitzero"`
}

// Logs are the attempt's log files.
type Logs struct {
	Stdout LogFile `json:"stdout"`
	Stderr LogFile `json:"stderr"`
	// Terminal and Events are an interactive step's terminal.log and
	// events.jsonl; nil for other steps.
	Terminal *LogFile `json:"terminal,omitzero"`
	Events   *LogFile `json:"events,omitzero"`
}

// LogFile is one capped log.
type LogFile struct {
	Path      string `json:"path"`
	Bytes     int64  `json:"bytes"`     // bytes kept in the file
	Total     int64  `json:"total"`     // bytes the step wrote to the stream
	Truncated bool   `json:"truncated"` // the stream went past log_cap_bytes
}
