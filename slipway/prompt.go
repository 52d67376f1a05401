package slipway

import (
	"encoding/json"
	"strings"
)

// Envelope is what the agent reads on stdin: the Action exactly as the CLI
// gave it and, for an issue-backed Action, every required section's text
// in required_for_action order.
type Envelope struct {
	Action   json.RawMessage   `json:"action"`
	Material []MaterialSection `json:"material"`
}

// outcomeContract is the Outcome contract a provider agent is told, from
// the page's table of legal combinations.
const outcomeContract = `Reply with exactly one JSON object and nothing else: the Outcome of the Action below.
Every field is present: contract_version (2), action_id and action_kind (copied from the
Action), status (completed, needs_input, partial or error), summary (non-empty),
observations, known_issues, suggested_actions (arrays, possibly empty), pause,
implementation and review (objects, or null when they do not apply).
Legal combinations, by action kind:
- orient: completed/partial/error with implementation=null, review=null, pause=null and
  at most one suggested action (kind clarify, implement or summarize, with a brief); or
  needs_input with a pause (reason decision_required or environment_unavailable,
  a question, destructive_request null) and no suggestion.
- clarify: completed/error as orient (no partial); needs_input as orient.
- implement: completed with implementation.result applied or not_needed; partial with
  partial; error with unable (implementation = {result, files_changed, activities
  [{kind test|typecheck|build|lint, command, exit_code, summary}], uncertainties,
  attempts >= 1}, review=null, pause=null, no suggestion); or needs_input with
  implementation=null and a pause: decision_required, environment_unavailable, or
  destructive_confirmation_required with destructive_request {request_id (a new
  lowercase UUID), targets [{kind path|git_ref|external_resource|data_domain, value}]
  sorted by kind then value, impact, scope_sha256}. scope_sha256 is "sha256:" and the
  lowercase hex SHA-256 of the UTF-8 bytes of exactly
  {"impact":IMPACT,"request_id":REQUEST_ID,"scope_version":1,"targets":[{"kind":KIND,"value":VALUE}]}
  with the keys in that order, no spaces, the targets in your order, and JSON strings
  that escape only " \ and control characters (\n, \t, \u00xx); compute it, e.g.
  printf '%s' '{"impact":...}' | sha256sum.
- review: completed with review.result no_findings_reported (no findings) or
  findings_reported (findings [{location, summary, detail}]); partial with inconclusive;
  error with error (review = {result, findings, uncertainties}); never needs_input,
  never a suggestion.
- summarize: completed/error with every branch null and no suggestion.
A needs_input Outcome never suggests an Action. Texts that are required (summary, question,
briefs, finding location/summary/detail, activity command/summary) are not blank; no text
has a control character, except tab and line breaks in prose (never in files_changed or a
location). No other fields, no prose, no fences.`

// prompt is a provider agent's whole input: the contract, then the
// envelope.
func prompt(envelope []byte) string {
	var b strings.Builder
	b.WriteString("You are the agent of a Slipway Run, working in the current directory.\n")
	b.WriteString("Carry out the Action (its goal, brief and context; the material is the issue's text).\n\n")
	b.WriteString(outcomeContract)
	b.WriteString("\n\nThe Action envelope:\n")
	b.Write(envelope)
	b.WriteString("\n")
	return b.String()
}
