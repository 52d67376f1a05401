package slipsim

import "encoding/json"

// The simulator's own copy of the wire shapes it reads and writes. It is
// written from the Slipway CLI's observable behaviour and its published
// schemas, never from a host's types, so a host's misreading of the
// protocol is not mirrored here.

// The Action kinds.
const (
	kindOrient    = "orient"
	kindClarify   = "clarify"
	kindImplement = "implement"
	kindReview    = "review"
	kindSummarize = "summarize"
)

// The pause reasons.
const (
	pauseDecision    = "decision_required"
	pauseDestructive = "destructive_confirmation_required"
	pauseEnvironment = "environment_unavailable"
	pauseBudget      = "budget_exhausted"
)

// actionBody is one issued Action as the CLI prints it.
type actionBody struct {
	ContractVersion          int             `json:"contract_version"`
	RunID                    string          `json:"run_id"`
	ActionID                 string          `json:"action_id"`
	Kind                     string          `json:"kind"`
	Goal                     string          `json:"goal"`
	Brief                    string          `json:"brief"`
	Context                  string          `json:"context"`
	Source                   json.RawMessage `json:"source,omitempty"`
	Requirements             json.RawMessage `json:"requirements,omitempty"`
	DestructiveAuthorization json.RawMessage `json:"destructive_authorization,omitempty"`
	RemainingBudget          int             `json:"remaining_budget"`
}

// outcomeBody is a submitted Outcome, decoded after its shape is checked.
type outcomeBody struct {
	ContractVersion  int          `json:"contract_version"`
	ActionID         string       `json:"action_id"`
	ActionKind       string       `json:"action_kind"`
	Status           string       `json:"status"`
	Summary          string       `json:"summary"`
	Observations     []string     `json:"observations"`
	KnownIssues      []string     `json:"known_issues"`
	SuggestedActions []suggestion `json:"suggested_actions"`
	Pause            *pauseBody   `json:"pause"`
	Implementation   *implBody    `json:"implementation"`
	Review           *reviewBody  `json:"review"`
}

type suggestion struct {
	Kind  string `json:"kind"`
	Brief string `json:"brief"`
}

type pauseBody struct {
	Reason             string       `json:"reason"`
	Question           string       `json:"question"`
	DestructiveRequest *destructive `json:"destructive_request"`
	Supersedes         *string      `json:"supersedes_answer_action_id"`
}

type destructive struct {
	RequestID   string   `json:"request_id"`
	Targets     []target `json:"targets"`
	Impact      string   `json:"impact"`
	ScopeSHA256 string   `json:"scope_sha256"`
}

type target struct {
	Kind  string `json:"kind"`
	Value string `json:"value"`
}

type implBody struct {
	Result        string     `json:"result"`
	FilesChanged  []string   `json:"files_changed"`
	Activities    []activity `json:"activities"`
	Uncertainties []string   `json:"uncertainties"`
	Attempts      int        `json:"attempts"`
}

type activity struct {
	Kind     string `json:"kind"`
	Command  string `json:"command"`
	ExitCode int    `json:"exit_code"`
	Summary  string `json:"summary"`
}

type reviewBody struct {
	Result        string    `json:"result"`
	Findings      []finding `json:"findings"`
	Uncertainties []string  `json:"uncertainties"`
}

type finding struct {
	Location string `json:"location"`
	Summary  string `json:"summary"`
	Detail   string `json:"detail"`
}
