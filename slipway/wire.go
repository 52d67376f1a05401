package slipway

import "encoding/json"

// ContractVersion is the Slipway machine-protocol contract this host speaks.
const ContractVersion = 2

// The five Action kinds, in the order a plain Run meets them.
const (
	KindOrient    = "orient"
	KindClarify   = "clarify"
	KindImplement = "implement"
	KindReview    = "review"
	KindSummarize = "summarize"
)

// The pause reasons a paused Run may give.
const (
	PauseDecision        = "decision_required"
	PauseDestructive     = "destructive_confirmation_required"
	PauseEnvironment     = "environment_unavailable"
	PauseBudgetExhausted = "budget_exhausted"
)

// Action is one unit of work the Slipway CLI hands its host. Source and
// DestructiveAuthorization are kept raw: the host passes them to the agent
// untouched.
type Action struct {
	ContractVersion          int             `json:"contract_version"`
	RunID                    string          `json:"run_id"`
	ActionID                 string          `json:"action_id"`
	Kind                     string          `json:"kind"`
	Goal                     string          `json:"goal"`
	Brief                    string          `json:"brief"`
	Context                  string          `json:"context"`
	Source                   json.RawMessage `json:"source,omitempty"`
	Requirements             *Requirements   `json:"requirements,omitempty"`
	DestructiveAuthorization json.RawMessage `json:"destructive_authorization,omitempty"`
	RemainingBudget          int             `json:"remaining_budget"`
}

// Requirements is an issue-backed Action's section catalog and the reader
// that returns each section's text.
type Requirements struct {
	RequirementsRevision string               `json:"requirements_revision"`
	Sections             []RequirementSection `json:"sections"`
	RequiredForAction    []string             `json:"required_for_action"`
	Reader               MaterialReader       `json:"reader"`
}

// RequirementSection describes one section of an issue-backed Run.
type RequirementSection struct {
	Key             string `json:"key"`
	Role            string `json:"role"`
	Title           string `json:"title"`
	SectionRevision string `json:"section_revision"`
	MaterialSHA256  string `json:"material_sha256"`
	Bytes           int    `json:"bytes"`
}

// MaterialReader is the pinned invocation that reads one section: BaseArgv
// plus the input's flag and a key, as separate argv elements.
type MaterialReader struct {
	Operation string   `json:"operation"`
	BaseArgv  []string `json:"base_argv"`
	Input     Input    `json:"input"`
}

// Material is the CLI's answer to a material read.
type Material struct {
	ContractVersion      int             `json:"contract_version"`
	MessageType          string          `json:"message_type"`
	RunID                string          `json:"run_id"`
	ActionID             string          `json:"action_id"`
	RequirementsRevision string          `json:"requirements_revision"`
	Section              MaterialSection `json:"section"`
}

// MaterialSection is one section's text.
type MaterialSection struct {
	Key             string `json:"key"`
	Role            string `json:"role"`
	Title           string `json:"title"`
	SectionRevision string `json:"section_revision"`
	Markdown        string `json:"markdown"`
}

// Outcome is what the agent reports for one Action. Every field is present
// on the wire; inapplicable branches are null.
type Outcome struct {
	ContractVersion  int             `json:"contract_version"`
	ActionID         string          `json:"action_id"`
	ActionKind       string          `json:"action_kind"`
	Status           string          `json:"status"`
	Summary          string          `json:"summary"`
	Observations     []string        `json:"observations"`
	KnownIssues      []string        `json:"known_issues"`
	SuggestedActions []Suggestion    `json:"suggested_actions"`
	Pause            *Pause          `json:"pause"`
	Implementation   *Implementation `json:"implementation"`
	Review           *Review         `json:"review"`
}

// Suggestion is an advisory next Action.
type Suggestion struct {
	Kind  string `json:"kind"`
	Brief string `json:"brief"`
}

// Pause is why an Outcome needs a person.
type Pause struct {
	Reason                   string              `json:"reason"`
	Question                 string              `json:"question"`
	DestructiveRequest       *DestructiveRequest `json:"destructive_request"`
	SupersedesAnswerActionID string              `json:"supersedes_answer_action_id,omitempty"`
}

// DestructiveRequest is the exact scope an Implement asks to be allowed to
// destroy.
type DestructiveRequest struct {
	RequestID   string   `json:"request_id"`
	Targets     []Target `json:"targets"`
	Impact      string   `json:"impact"`
	ScopeSHA256 string   `json:"scope_sha256"`
}

// Target is one thing a destructive request names.
type Target struct {
	Kind  string `json:"kind"`
	Value string `json:"value"`
}

// Implementation is a non-paused Implement's report.
type Implementation struct {
	Result        string     `json:"result"`
	FilesChanged  []string   `json:"files_changed"`
	Activities    []Activity `json:"activities"`
	Uncertainties []string   `json:"uncertainties"`
	Attempts      int        `json:"attempts"`
}

// Activity is a test, type-check, build or lint the agent ran.
type Activity struct {
	Kind     string `json:"kind"`
	Command  string `json:"command"`
	ExitCode int    `json:"exit_code"`
	Summary  string `json:"summary"`
}

// Review is a non-paused Review's report.
type Review struct {
	Result        string    `json:"result"`
	Findings      []Finding `json:"findings"`
	Uncertainties []string  `json:"uncertainties"`
}

// Finding is one review finding.
type Finding struct {
	Location string `json:"location"`
	Summary  string `json:"summary"`
	Detail   string `json:"detail"`
}

// Next is the typed next operation: pick a variant, append its inputs.
type Next struct {
	Operation         string    `json:"operation"`
	WorkspaceIdentity string    `json:"workspace_identity"`
	Variants          []Variant `json:"variants"`
}

// Variant is one way to carry out a Next: BaseArgv plus each supplied
// input's flag and value, as separate argv elements, in schema order.
type Variant struct {
	ID       string   `json:"id"`
	BaseArgv []string `json:"base_argv"`
	Inputs   []Input  `json:"inputs"`
}

// Input is one typed value a Variant takes.
type Input struct {
	Name     string   `json:"name"`
	Type     string   `json:"type"`
	Flag     string   `json:"flag"`
	Required bool     `json:"required"`
	Choices  []string `json:"choices,omitempty"`
}

// State is a successful mutation's answer: the Run's state, its Action
// when active, and what to do next.
type State struct {
	ContractVersion int     `json:"contract_version"`
	RunID           string  `json:"run_id"`
	State           string  `json:"state"`
	PauseReason     string  `json:"pause_reason,omitempty"`
	Summary         string  `json:"summary,omitempty"`
	Action          *Action `json:"action,omitempty"`
	Next            Next    `json:"next"`

	actionRaw json.RawMessage // the Action's bytes, exactly as the CLI wrote them
}

// CLIError is a structured error the CLI writes on stderr with exit
// status 2 (usage) or 3 (runtime).
type CLIError struct {
	ContractVersion int             `json:"contract_version"`
	Code            string          `json:"code"`
	Message         string          `json:"message"`
	Next            Next            `json:"next"`
	ExitCode        int             `json:"exit_code"`
	Details         json.RawMessage `json:"details,omitempty"`
}

// Error gives the code and the message; branch on Code, not on this text.
func (e *CLIError) Error() string { return "slipway: " + e.Code + ": " + e.Message }

// CodeMutationCommittedOutputFailed is the error code of a mutation that
// committed but whose response was lost: never replay it.
const CodeMutationCommittedOutputFailed = "mutation_committed_output_failed"

// RunStatus is the part of `slipway status RUN` the host reads.
type RunStatus struct {
	ContractVersion int     `json:"contract_version"`
	ID              string  `json:"id"`
	State           string  `json:"state"`
	PauseReason     string  `json:"pause_reason,omitempty"`
	Summary         string  `json:"summary,omitempty"`
	CurrentAction   *Action `json:"current_action,omitempty"`
	Next            Next    `json:"next"`
	// Actions is the Run's journal of Actions and their accepted Outcomes.
	Actions []ActionRecord `json:"actions"`
}

// ActionRecord is one journalled Action and, once accepted, its Outcome.
type ActionRecord struct {
	Action  Action   `json:"action"`
	Outcome *Outcome `json:"outcome"`
}
