package request_test

import (
	"strings"
	"testing"

	"kusaw.dev/step/protocol"
	"kusaw.dev/step/request"
	"kusaw.dev/step/schemas"
)

// TestEnvFromRequest is issue 13 item 4: the variables the table says to
// derive from the request are set exactly as it describes, one row per
// variable, named after the table's row.
func TestEnvFromRequest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		ctx     string // members of context
		top     string // members of the request
		repo    string // members of the one repo
		eo      request.EnvOptions
		want    map[string]string
		unset   []string
		twoRepo bool
	}{
		{name: "env.KUSAW_REPO_COMMAND_ENV: the one repo's command_env", repo: `"command_env":{"shell":"bash","shell_init":["source .env"],"wrap":["nix","develop","-c"]}`,
			want: map[string]string{"KUSAW_REPO_COMMAND_ENV": `{"shell":"bash","shell_init":["source .env"],"wrap":["nix","develop","-c"]}`}},
		{name: "env.KUSAW_REPO_COMMAND_ENV: null when unset", want: map[string]string{"KUSAW_REPO_COMMAND_ENV": "null"}},
		{name: "env.KUSAW_REPO_COMMAND_ENV: null when null", repo: `"command_env":null`, want: map[string]string{"KUSAW_REPO_COMMAND_ENV": "null"}},
		{name: "env.KUSAW_REPO_COMMAND_ENV: not with two repos", twoRepo: true, unset: []string{"KUSAW_REPO_COMMAND_ENV", "KUSAW_REPO_CAPABILITIES"},
			eo: request.EnvOptions{CapabilitiesFile: "/out/caps.json"}},
		{name: "env.KUSAW_REPO_CAPABILITIES: the file the runner wrote", eo: request.EnvOptions{CapabilitiesFile: "/out/repo-capabilities.json"},
			want: map[string]string{"KUSAW_REPO_CAPABILITIES": "/out/repo-capabilities.json"}},
		{name: "env.KUSAW_WORKFLOW", ctx: `"workflow":{"name":"bugfix","routed_by":"classify"}`, want: map[string]string{"KUSAW_WORKFLOW": "bugfix"}},
		{name: "env.KUSAW_SUBTASK", ctx: `"subtask":{"id":"st-2","title":"t","spec":"s","owns":[],"depends_on":[],"parent_task":"p"}`, want: map[string]string{"KUSAW_SUBTASK": "st-2"}},
		{name: "env.KUSAW_CANDIDATE: c<number>", ctx: `"candidate":{"number":2,"count":3,"stage":"impl","label":"fast","provider":"cursor","model":null}`,
			want: map[string]string{"KUSAW_CANDIDATE": "c2", "KUSAW_ATTEMPT_LABEL": "fast", "KUSAW_ATTEMPT_PROVIDER": "cursor", "KUSAW_ATTEMPT_MODEL": ""}},
		{name: "env.KUSAW_ATTEMPT_MODEL", ctx: `"candidate":{"number":1,"count":2,"stage":"impl","model":"opus"}`,
			want: map[string]string{"KUSAW_CANDIDATE": "c1", "KUSAW_ATTEMPT_LABEL": "", "KUSAW_ATTEMPT_PROVIDER": "", "KUSAW_ATTEMPT_MODEL": "opus"}},
		{name: "env.KUSAW_ORDER_ID and env.KUSAW_ORDER_NOTES", ctx: `"order":{"id":"wo-7","role":"feature","phase":"","claims":[],"contract_path":"/c.yaml","notes_path":"/out/artifacts/notes.md"}`,
			want: map[string]string{"KUSAW_ORDER_ID": "wo-7", "KUSAW_ORDER_NOTES": "/out/artifacts/notes.md"}},
		{name: "env.KUSAW_TRACKER_ITEM: <connector>:<id>", ctx: `"tracker":{"connector":"gh","id":"42","status":"open","status_meaning":"todo","url":"u"}`,
			want: map[string]string{"KUSAW_TRACKER_ITEM": "gh:42"}},
		{name: "env.KUSAW_LOG_FINGERPRINT", ctx: `"logs":{"connector":"sentry","count":3,"fingerprint":"ext:abc","first_seen":"a","last_seen":"b","group":"g","url":"u"}`,
			want: map[string]string{"KUSAW_LOG_FINGERPRINT": "ext:abc"}},
		{name: "env.KUSAW_TRIAGE_ID", ctx: `"triage":{"batch_id":"tb-1","items":[],"repos":[]}`, want: map[string]string{"KUSAW_TRIAGE_ID": "tb-1"}},
		{name: "env.KUSAW_ATLAS_SOCKET and env.KUSAW_ATLAS_OVERVIEW", ctx: `"atlas":{"tools":{"socket":"/out/atlas.sock"},"repos":[{"label":"r","commit":"c","overview_path":"/out/overview.md"}]}`,
			want: map[string]string{"KUSAW_ATLAS_SOCKET": "/out/atlas.sock", "KUSAW_ATLAS_OVERVIEW": "/out/overview.md"}},
		{name: "env.KUSAW_CONNECTOR_SOCKET", top: `"connectors":{"socket":"/out/conn.sock"}`, want: map[string]string{"KUSAW_CONNECTOR_SOCKET": "/out/conn.sock"}},
		{name: "env.KUSAW_PROMPT_FILE: the request's prompt.file", top: `"prompt":{"file":"/out/prompt.md","args_used":[],"warnings":[]}`,
			want: map[string]string{"KUSAW_PROMPT_FILE": "/out/prompt.md"}},
		{name: "env.KUSAW_PROMPT_FILE: the runner's copy wins", top: `"prompt":{"file":"/src/prompt.md","args_used":[],"warnings":[]}`,
			eo: request.EnvOptions{PromptFile: "/out/prompt.md"}, want: map[string]string{"KUSAW_PROMPT_FILE": "/out/prompt.md"}},
		{name: "env: none of the optional data", unset: []string{"KUSAW_ORDER_ID", "KUSAW_ORDER_NOTES", "KUSAW_TRACKER_ITEM", "KUSAW_LOG_FINGERPRINT",
			"KUSAW_PROMPT_FILE", "KUSAW_CONNECTOR_SOCKET", "KUSAW_ATLAS_SOCKET", "KUSAW_ATLAS_OVERVIEW", "KUSAW_REPO_CAPABILITIES"},
			want: map[string]string{"KUSAW_WORKFLOW": "", "KUSAW_SUBTASK": "", "KUSAW_CANDIDATE": "", "KUSAW_TRIAGE_ID": ""}},
		{name: "env: the factory's variables are never set", unset: request.FactoryOnly},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			req := envRequest(t, tt.ctx, tt.top, tt.repo, tt.twoRepo)
			base := []string{"KUSAW_BIN=/stale/kusaw", "KUSAW_CANDIDATE=c9", "KUSAW_ATLAS_TOKEN=stale"}
			got := envMap(t, request.Env(base, req, tt.eo))
			for name, value := range tt.want {
				if v, ok := got[name]; !ok || v != value {
					t.Errorf("%s = %q (set %v); want %q", name, v, ok, value)
				}
			}
			for _, name := range tt.unset {
				if v, ok := got[name]; ok {
					t.Errorf("%s = %q; want it unset", name, v)
				}
			}
		})
	}
}

// envRequest is a valid request whose context, top level and one repo
// have the given extra members.
func envRequest(t *testing.T, ctx, top, repo string, twoRepos bool) *protocol.Request {
	t.Helper()
	repoJSON := func(label, extra string) string {
		r := `{"label":"` + label + `","branch":"b","base_ref":"c","worktree":"/w/` + label + `","standards":"","status":"running"`
		if extra != "" {
			r += "," + extra
		}
		return r + "}"
	}
	repos := repoJSON("app", repo)
	if twoRepos {
		repos += "," + repoJSON("lib", "")
	}
	doc := `{"protocol_version":2,"mode":"pipeline","run_id":"r","task_id":"t","worktree":"/w","artifacts_dir":"/out/artifacts","config":{},` +
		`"context":{"task":{"id":"t"},"steps":{}` + prefixed(ctx) + `},"limits":{"budget_left_usd":null,"time_left_ms":1000},"loop":null,` +
		`"repos":[` + repos + `],"step":{"id":"s","name":"s","attempt":1}` + prefixed(top) + `}`
	req, err := request.Decode([]byte(doc))
	if err != nil {
		t.Fatalf("Decode(%s) = %v", doc, err)
	}
	return req
}

func prefixed(members string) string {
	if members == "" {
		return ""
	}
	return "," + members
}

// TestRepoCapabilities checks the file's content: the one repo's
// capabilities, {} when it has none, nothing with two repos.
func TestRepoCapabilities(t *testing.T) {
	t.Parallel()
	caps := `{"instructions":[{"file":"/out/AGENTS.md","path":"AGENTS.md","sha256":"ab"}]}`
	req := envRequest(t, "", "", `"capabilities":`+caps, false)
	if got, ok := request.RepoCapabilities(req); !ok || string(got) != caps {
		t.Errorf("RepoCapabilities = %s, %v; want %s", got, ok, caps)
	}
	if got, ok := request.RepoCapabilities(envRequest(t, "", "", "", false)); !ok || string(got) != "{}" {
		t.Errorf("RepoCapabilities(no capabilities) = %s, %v; want {}", got, ok)
	}
	if _, ok := request.RepoCapabilities(envRequest(t, "", "", "", true)); ok {
		t.Error("RepoCapabilities(two repos) ok; want none")
	}
}

// TestFactoryOnlyInTable keeps FactoryOnly honest: each is a row of the
// spec's table.
func TestFactoryOnlyInTable(t *testing.T) {
	t.Parallel()
	var names []string
	for _, v := range schemas.EnvVars() {
		names = append(names, v.Name)
	}
	for _, name := range request.FactoryOnly {
		if !strings.Contains(" "+strings.Join(names, " ")+" ", " "+name+" ") {
			t.Errorf("FactoryOnly lists %s, not a row of the table", name)
		}
	}
}
