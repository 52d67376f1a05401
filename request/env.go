package request

import (
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"

	"kusaw.dev/step/protocol"
	"kusaw.dev/step/schemas"
)

// EnvOptions are the parts of an attempt's environment that a request does
// not say. An empty path leaves its variable out.
type EnvOptions struct {
	ConfigSnapshot string // KUSAW_CONFIG_SNAPSHOT, the run's read-only config snapshot; "" sets it empty
	// CapabilitiesFile is KUSAW_REPO_CAPABILITIES: the JSON file that holds
	// [RepoCapabilities] of the request's one repo, written by the caller;
	// "" leaves the variable out.
	CapabilitiesFile string
	// PromptFile is KUSAW_PROMPT_FILE: the rendered prompt of the attempt;
	// "" means the request's prompt.file, if any.
	PromptFile  string
	Sandbox     string // KUSAW_SANDBOX: "seatbelt", "bwrap" or "" when not sandboxed; always set
	RequestFile string // KUSAW_REQUEST, for an interactive step
	ResultFile  string // KUSAW_RESULT, for an interactive step
	EventsFile  string // KUSAW_EVENTS, for an interactive step
	NotesFile   string // KUSAW_NOTES_FILE, the JSONL file of steer notes
	// Tools are the operator's "NAME=value" settings of the agent tools
	// (see [ToolVars]), as [OperatorTools] takes them from the runner's
	// environment; other names are ignored.
	Tools []string
}

// ToolVars are the table's variables that name the operator's agent tools:
// the runner does not compute them, the operator configures them, and a
// step that calls an agent (the slipway kind) needs them.
var ToolVars = []string{"KUSAW_CLAUDE_COMMAND", "KUSAW_CLAUDE_EXTRA_ARGS", "KUSAW_AGENT_PROVIDER", "KUSAW_CURSOR_COMMAND", "KUSAW_CURSOR_EXTRA_ARGS"}

// OperatorTools returns the [ToolVars] set in environ, the runner's own
// environment.
func OperatorTools(environ []string) []string {
	var out []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if slices.Contains(ToolVars, name) {
			out = append(out, kv)
		}
	}
	return out
}

// reserved is the prefix of every variable the protocol owns.
const reserved = "KUSAW_"

// baseRefRow is the table's name for the per-repo KUSAW_BASE_REF_<LABEL>.
const baseRefRow = "KUSAW_BASE_REF_<LABEL>"

// FactoryOnly are the table's variables whose values only the factory can
// know, which [Env] never sets: KUSAW_BIN (the factory's own kusaw binary),
// KUSAW_ATLAS_TOKEN and KUSAW_CONNECTOR_TOKEN (per-attempt tokens minted by
// the factory's Atlas and connectors servers, which a local run does not
// have), and KUSAW_STEER_LIVE (set by the factory's built-in Claude Code
// step, which keeps stdin open for live notes; a custom step learns of
// live notes from KUSAW_NOTES_FILE). The agent tools ([ToolVars]) are the
// operator's, passed on from the runner's environment.
var FactoryOnly = []string{"KUSAW_BIN", "KUSAW_ATLAS_TOKEN", "KUSAW_CONNECTOR_TOKEN", "KUSAW_STEER_LIVE"}

// Env returns the environment of an attempt of req: base (nil means
// os.Environ()) in its order without any KUSAW_* variable it has, then
// the KUSAW_* variables of the spec's table (schemas.EnvVars), in the
// table's order, each once:
//
//   - every "handshake and attempt" and "every attempt" variable, from req
//     and eo (KUSAW_HANDSHAKE is empty during an attempt; a null id, no
//     loop or no snapshot leave their variable empty);
//   - KUSAW_REPO when req has exactly one repo;
//   - KUSAW_BASE_REF_<LABEL> for each repo, the label's ASCII letters
//     upper-cased and any other character than A-Z, 0-9 and _ made _
//     ("my-repo" gives KUSAW_BASE_REF_MY_REPO): the commit of the repo's
//     stacked_on, or empty when the repo starts at the base branch (the
//     first repo wins when two labels give the same name);
//   - KUSAW_SANDBOX, always, even when empty;
//   - KUSAW_REQUEST, KUSAW_RESULT, KUSAW_EVENTS and KUSAW_NOTES_FILE when
//     eo gives their paths;
//   - the variables derived from the request, exactly as the table says,
//     when the request carries their data (see requestContext.value):
//     KUSAW_REPO_COMMAND_ENV and KUSAW_REPO_CAPABILITIES (one repo),
//     KUSAW_WORKFLOW, KUSAW_SUBTASK, KUSAW_CANDIDATE ("c2"),
//     KUSAW_ATTEMPT_LABEL/PROVIDER/MODEL, KUSAW_ORDER_ID, KUSAW_ORDER_NOTES,
//     KUSAW_TRACKER_ITEM ("gh:42"), KUSAW_LOG_FINGERPRINT,
//     KUSAW_PROMPT_FILE, KUSAW_CONNECTOR_SOCKET, KUSAW_ATLAS_SOCKET,
//     KUSAW_ATLAS_OVERVIEW, KUSAW_TRIAGE_ID;
//   - the agent tools of [ToolVars] that eo.Tools sets;
//   - every other variable whose row says it is "Empty during/when ...",
//     set and empty.
//
// So the protocol's reserved names always win over inherited ones. A
// value cannot hold a NUL byte (the kernel would end it there, and Go
// refuses to start the process): NUL bytes are left out of the variable,
// and the step finds the exact value in the request. The variables of
// [FactoryOnly] are never set. req must not be nil.
func Env(base []string, req *protocol.Request, eo EnvOptions) []string {
	if base == nil {
		base = os.Environ()
	}
	env := make([]string, 0, len(base)+16)
	for _, kv := range base {
		if !strings.HasPrefix(kv, reserved) {
			env = append(env, kv)
		}
	}
	seen := make(map[string]bool)
	add := func(name, value string) {
		if !seen[name] {
			seen[name] = true
			env = append(env, name+"="+strings.ReplaceAll(value, "\x00", ""))
		}
	}
	rc := requestContextOf(req)
	for _, v := range schemas.EnvVars() {
		if v.Name == baseRefRow {
			for _, r := range req.Repos {
				add(baseRefName(r.Label), stackedOn(r))
			}
		} else if value, ok := attemptValue(v.Name, req, eo); ok {
			add(v.Name, value)
		} else if value, ok := rc.value(v.Name, req, eo); ok {
			add(v.Name, value)
		} else if value, ok := toolValue(v.Name, eo.Tools); ok {
			add(v.Name, value)
		} else if alwaysSet(v) {
			add(v.Name, "")
		}
	}
	return env
}

// alwaysSet reports whether the table says v is empty, rather than
// absent, when the attempt has no value for it: its description says
// "Empty during ..." or "Empty when ..." (KUSAW_WORKFLOW, KUSAW_SUBTASK,
// KUSAW_CANDIDATE, KUSAW_ATTEMPT_*, KUSAW_TRIAGE_ID). A step can then tell
// "not in a candidates stage" (empty) from a runner that does not know
// the variable (unset) no better than from the table; but a stale value
// inherited from the operator's shell can never show through.
func alwaysSet(v schemas.EnvVar) bool {
	return strings.Contains(v.Description, "Empty during") || strings.Contains(v.Description, "Empty when")
}

// toolValue is the operator's setting of a [ToolVars] name, if any.
func toolValue(name string, tools []string) (string, bool) {
	if !slices.Contains(ToolVars, name) {
		return "", false
	}
	for _, kv := range tools {
		if n, v, _ := strings.Cut(kv, "="); n == name {
			return v, true
		}
	}
	return "", false
}

// attemptValue returns the value of the variable name for an attempt of
// req, and false when the attempt does not set it.
func attemptValue(name string, req *protocol.Request, eo EnvOptions) (string, bool) {
	switch name {
	case "KUSAW_PROTOCOL":
		return strconv.Itoa(protocol.Version), true
	case "KUSAW_HANDSHAKE":
		return "", true
	case "KUSAW_RUN_ID":
		return deref(req.RunID), true
	case "KUSAW_TASK_ID":
		return deref(req.TaskID), true
	case "KUSAW_STEP_ID":
		return req.Step.ID, true
	case "KUSAW_WORKTREE":
		return deref(req.Worktree), true
	case "KUSAW_ARTIFACTS_DIR":
		return req.ArtifactsDir, true
	case "KUSAW_ATTEMPT":
		return strconv.Itoa(req.Step.Attempt), true
	case "KUSAW_ITERATION":
		return iteration(req.Loop), true
	case "KUSAW_CONFIG_SNAPSHOT":
		return eo.ConfigSnapshot, true
	case "KUSAW_REPOS":
		return repoLabels(req.Repos), true
	case "KUSAW_REPO":
		return oneRepo(req.Repos)
	case "KUSAW_SANDBOX":
		return eo.Sandbox, true
	}
	return pathValue(name, eo)
}

// pathValue returns the file paths eo gives, and false for any other name.
func pathValue(name string, eo EnvOptions) (string, bool) {
	var path string
	switch name {
	case "KUSAW_REQUEST":
		path = eo.RequestFile
	case "KUSAW_RESULT":
		path = eo.ResultFile
	case "KUSAW_EVENTS":
		path = eo.EventsFile
	case "KUSAW_NOTES_FILE":
		path = eo.NotesFile
	}
	return path, path != ""
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func iteration(l *protocol.Loop) string {
	if l == nil {
		return ""
	}
	return strconv.Itoa(l.Iteration)
}

func repoLabels(repos []protocol.Repo) string {
	labels := make([]string, len(repos))
	for i, r := range repos {
		labels[i] = r.Label
	}
	return strings.Join(labels, ",")
}

func oneRepo(repos []protocol.Repo) (string, bool) {
	if len(repos) != 1 {
		return "", false
	}
	return repos[0].Label, true
}

// baseRefName is KUSAW_BASE_REF_ and label with ASCII letters upper-cased
// and any other character than A-Z, 0-9 and _ replaced by _.
func baseRefName(label string) string {
	name := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_':
			return r
		}
		return '_'
	}, label)
	return "KUSAW_BASE_REF_" + name
}

// stackedOn returns the commit of the repo's stacked_on, a field the typed
// core keeps among the unknown ones, or "" when there is none.
func stackedOn(r protocol.Repo) string {
	if len(r.Unknown) == 0 {
		return ""
	}
	var extra struct {
		StackedOn *struct {
			Commit string `json:"commit"`
		} `json:"stacked_on"`
	}
	if json.Unmarshal(r.Unknown, &extra) != nil || extra.StackedOn == nil {
		return ""
	}
	return extra.StackedOn.Commit
}
