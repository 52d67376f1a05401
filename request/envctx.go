package request

import (
	"strconv"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"kusaw.dev/step/protocol"
)

// requestContext is what the optional variables of an attempt are
// derived from: parts of the request the typed core keeps among the
// unknown fields.
type requestContext struct {
	Workflow *struct {
		Name string `json:"name"`
	} `json:"workflow"`
	Subtask *struct {
		ID string `json:"id"`
	} `json:"subtask"`
	Candidate *struct {
		Number   int     `json:"number"`
		Label    string  `json:"label"`
		Provider *string `json:"provider"`
		Model    *string `json:"model"`
	} `json:"candidate"`
	Order *struct {
		ID        string `json:"id"`
		NotesPath string `json:"notes_path"`
	} `json:"order"`
	Tracker *struct {
		Connector string `json:"connector"`
		ID        string `json:"id"`
	} `json:"tracker"`
	Logs *struct {
		Fingerprint string `json:"fingerprint"`
	} `json:"logs"`
	Triage *struct {
		BatchID string `json:"batch_id"`
	} `json:"triage"`
	Atlas *struct {
		Tools *struct {
			Socket string `json:"socket"`
		} `json:"tools"`
		Repos []struct {
			OverviewPath string `json:"overview_path"`
		} `json:"repos"`
	} `json:"atlas"`

	// From the request's top level.
	connectorSocket string
	promptFile      string
}

// requestContextOf decodes the parts of req the variables need; parts
// that do not decode are left out.
func requestContextOf(req *protocol.Request) requestContext {
	var rc requestContext
	if len(req.Context.Unknown) > 0 {
		_ = json.Unmarshal(req.Context.Unknown, &rc)
	}
	var top struct {
		Connectors *struct {
			Socket string `json:"socket"`
		} `json:"connectors"`
		Prompt *struct {
			File string `json:"file"`
		} `json:"prompt"`
	}
	if len(req.Unknown) > 0 {
		_ = json.Unmarshal(req.Unknown, &top)
	}
	if top.Connectors != nil {
		rc.connectorSocket = top.Connectors.Socket
	}
	if top.Prompt != nil {
		rc.promptFile = top.Prompt.File
	}
	return rc
}

// value returns the value of the variable name derived from the request,
// as the spec's table describes it, and false when the request does not
// carry its data.
func (rc requestContext) value(name string, req *protocol.Request, eo EnvOptions) (string, bool) {
	switch name {
	case "KUSAW_REPO_COMMAND_ENV":
		return commandEnv(req.Repos)
	case "KUSAW_REPO_CAPABILITIES":
		return eo.CapabilitiesFile, eo.CapabilitiesFile != "" && len(req.Repos) == 1
	case "KUSAW_PROMPT_FILE":
		if eo.PromptFile != "" {
			return eo.PromptFile, true
		}
		return rc.promptFile, rc.promptFile != ""
	case "KUSAW_CONNECTOR_SOCKET":
		return rc.connectorSocket, rc.connectorSocket != ""
	}
	return rc.contextValue(name)
}

// contextValue returns the variables that come from the request's context.
func (rc requestContext) contextValue(name string) (string, bool) {
	switch name {
	case "KUSAW_WORKFLOW":
		return str(rc.Workflow != nil, func() string { return rc.Workflow.Name })
	case "KUSAW_SUBTASK":
		return str(rc.Subtask != nil, func() string { return rc.Subtask.ID })
	case "KUSAW_TRIAGE_ID":
		return str(rc.Triage != nil, func() string { return rc.Triage.BatchID })
	case "KUSAW_ORDER_ID":
		return str(rc.Order != nil && rc.Order.ID != "", func() string { return rc.Order.ID })
	case "KUSAW_ORDER_NOTES":
		return str(rc.Order != nil && rc.Order.NotesPath != "", func() string { return rc.Order.NotesPath })
	case "KUSAW_TRACKER_ITEM":
		return str(rc.Tracker != nil, func() string { return rc.Tracker.Connector + ":" + rc.Tracker.ID })
	case "KUSAW_LOG_FINGERPRINT":
		return str(rc.Logs != nil && rc.Logs.Fingerprint != "", func() string { return rc.Logs.Fingerprint })
	case "KUSAW_ATLAS_SOCKET":
		return str(rc.Atlas != nil && rc.Atlas.Tools != nil && rc.Atlas.Tools.Socket != "", func() string { return rc.Atlas.Tools.Socket })
	case "KUSAW_ATLAS_OVERVIEW":
		return str(rc.Atlas != nil && len(rc.Atlas.Repos) == 1 && rc.Atlas.Repos[0].OverviewPath != "", func() string { return rc.Atlas.Repos[0].OverviewPath })
	}
	return rc.candidateValue(name)
}

// candidateValue returns the variables of a candidates stage's attempt.
func (rc requestContext) candidateValue(name string) (string, bool) {
	c := rc.Candidate
	if c == nil {
		return "", false
	}
	switch name {
	case "KUSAW_CANDIDATE":
		return "c" + strconv.Itoa(c.Number), true
	case "KUSAW_ATTEMPT_LABEL":
		return c.Label, true
	case "KUSAW_ATTEMPT_PROVIDER":
		return deref(c.Provider), true
	case "KUSAW_ATTEMPT_MODEL":
		return deref(c.Model), true
	}
	return "", false
}

// str returns get() and true when ok, else "" and false.
func str(ok bool, get func() string) (string, bool) {
	if !ok {
		return "", false
	}
	return get(), true
}

// commandEnv is KUSAW_REPO_COMMAND_ENV: the one repo's command_env as
// compact JSON ({shell, shell_init, wrap}), or null when it is null or
// unset; no value with other than one repo.
func commandEnv(repos []protocol.Repo) (string, bool) {
	if len(repos) != 1 {
		return "", false
	}
	var extra struct {
		CommandEnv jsontext.Value `json:"command_env"`
	}
	if len(repos[0].Unknown) > 0 {
		_ = json.Unmarshal(repos[0].Unknown, &extra)
	}
	v := extra.CommandEnv
	if len(v) == 0 {
		return "null", true
	}
	v = v.Clone()
	if err := v.Compact(); err != nil {
		return "null", true
	}
	return string(v), true
}

// RepoCapabilities returns the JSON of the capabilities object of req's
// one repo, for the file KUSAW_REPO_CAPABILITIES names: {} when the repo
// has none (the request omits capabilities then). ok is false unless req
// has exactly one repo, when the variable is not set.
func RepoCapabilities(req *protocol.Request) (data []byte, ok bool) {
	if len(req.Repos) != 1 {
		return nil, false
	}
	var extra struct {
		Capabilities jsontext.Value `json:"capabilities"`
	}
	if len(req.Repos[0].Unknown) > 0 {
		_ = json.Unmarshal(req.Repos[0].Unknown, &extra)
	}
	v := extra.Capabilities
	if len(v) == 0 || v.Kind() != '{' {
		return []byte("{}"), true
	}
	v = v.Clone()
	_ = v.Compact() // it decoded, so it compacts
	return v, true
}

// PromptFile returns the request's prompt.file, or "" when it has no
// prompt.
func PromptFile(req *protocol.Request) string {
	return requestContextOf(req).promptFile
}
