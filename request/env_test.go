package request_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"kusaw.dev/step/protocol"
	"kusaw.dev/step/request"
	"kusaw.dev/step/schemas"
)

// attemptRequest is a request with a loop and two repos, the first stacked
// on a parent delivery.
func attemptRequest() *protocol.Request {
	return &protocol.Request{
		ProtocolVersion: 2,
		RunID:           new("r-1"),
		TaskID:          nil,
		Worktree:        new("/w"),
		ArtifactsDir:    "/out/artifacts",
		Loop:            &protocol.Loop{Name: "fix", Iteration: 3, MaxIterations: 5},
		Step:            protocol.StepInfo{ID: "review", Name: "review", Attempt: 2},
		Repos: []protocol.Repo{
			{Label: "my-repo", Unknown: jsontext.Value(`{"stacked_on":{"commit":"c0ffee","run_id":"r-0","task_id":"t-0"}}`)},
			{Label: "Other.2", Unknown: jsontext.Value(`{"stacked_on":null}`)},
		},
	}
}

// envMap returns the variables of env by name, and fails on a KUSAW_
// variable set twice.
func envMap(t *testing.T, env []string) map[string]string {
	t.Helper()
	m := make(map[string]string)
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		if _, dup := m[name]; dup && strings.HasPrefix(name, "KUSAW_") {
			t.Errorf("%s is set twice in %q", name, env)
		}
		m[name] = value
	}
	return m
}

func TestEnv(t *testing.T) {
	t.Parallel()
	base := []string{"PATH=/bin", "KUSAW_RUN_ID=evil", "KUSAW_STALE=1", "KUSAW_SANDBOX=bwrap", "HOME=/h"}
	env := request.Env(base, attemptRequest(), request.EnvOptions{ConfigSnapshot: "/out/config.json"})
	if !slices.Equal(env[:2], []string{"PATH=/bin", "HOME=/h"}) {
		t.Errorf("Env starts with %q; want the base without its KUSAW_ variables, in order", env[:2])
	}
	got := envMap(t, env)
	want := map[string]string{
		"KUSAW_PROTOCOL": "2", "KUSAW_HANDSHAKE": "", "KUSAW_RUN_ID": "r-1", "KUSAW_TASK_ID": "",
		"KUSAW_STEP_ID": "review", "KUSAW_WORKTREE": "/w", "KUSAW_ARTIFACTS_DIR": "/out/artifacts",
		"KUSAW_ATTEMPT": "2", "KUSAW_ITERATION": "3", "KUSAW_CONFIG_SNAPSHOT": "/out/config.json",
		"KUSAW_REPOS": "my-repo,Other.2", "KUSAW_BASE_REF_MY_REPO": "c0ffee", "KUSAW_BASE_REF_OTHER_2": "",
		"KUSAW_SANDBOX": "",
		// Empty, not unset, as their rows say "Empty during ...".
		"KUSAW_TRIAGE_ID": "", "KUSAW_SUBTASK": "", "KUSAW_CANDIDATE": "", "KUSAW_ATTEMPT_LABEL": "",
		"KUSAW_ATTEMPT_PROVIDER": "", "KUSAW_ATTEMPT_MODEL": "", "KUSAW_WORKFLOW": "",
	}
	for name, value := range want {
		if v, ok := got[name]; !ok || v != value {
			t.Errorf("Env: %s = %q (set %v); want %q", name, v, ok, value)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok && strings.HasPrefix(name, "KUSAW_") {
			t.Errorf("Env sets %s=%s; want it unset", name, got[name])
		}
	}
}

// Every variable the table gives for every attempt is set, exactly once,
// and the KUSAW_ variables come in the table's order.
func TestEnvTable(t *testing.T) {
	t.Parallel()
	env := request.Env([]string{}, attemptRequest(), request.EnvOptions{RequestFile: "/r", ResultFile: "/s", EventsFile: "/e", NotesFile: "/n"})
	got := envMap(t, env)
	order := make(map[string]int)
	for i, v := range schemas.EnvVars() {
		order[v.Name] = i
		if v.When != "handshake and attempt" && v.When != "every attempt" {
			continue
		}
		if _, ok := got[v.Name]; !ok {
			t.Errorf("Env lacks %s (%s)", v.Name, v.When)
		}
	}
	last := -1
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		i, ok := order[name]
		if strings.HasPrefix(name, "KUSAW_BASE_REF_") {
			i, ok = order["KUSAW_BASE_REF_<LABEL>"]
		}
		if !ok || i < last {
			t.Errorf("Env sets %s out of the table's order: %q", name, env)
		}
		last = i
	}
}

func TestEnvOptional(t *testing.T) {
	t.Parallel()
	oneRepo := attemptRequest()
	oneRepo.Repos = oneRepo.Repos[:1]
	noRepo := attemptRequest()
	noRepo.Repos, noRepo.Loop, noRepo.RunID = []protocol.Repo{}, nil, nil
	interactive := request.EnvOptions{Sandbox: "seatbelt", RequestFile: "/r.json", ResultFile: "/s.json", EventsFile: "/e.jsonl", NotesFile: "/n.jsonl"}
	tests := []struct {
		name  string
		req   *protocol.Request
		eo    request.EnvOptions
		want  map[string]string
		unset []string
	}{
		{"two repos", attemptRequest(), request.EnvOptions{}, map[string]string{"KUSAW_SANDBOX": ""},
			[]string{"KUSAW_REPO", "KUSAW_REQUEST", "KUSAW_RESULT", "KUSAW_EVENTS", "KUSAW_NOTES_FILE"}},
		{"one repo", oneRepo, request.EnvOptions{}, map[string]string{"KUSAW_REPO": "my-repo", "KUSAW_REPOS": "my-repo"},
			[]string{"KUSAW_BASE_REF_OTHER_2"}},
		{"no repo, no loop, null run id", noRepo, request.EnvOptions{}, map[string]string{"KUSAW_REPOS": "", "KUSAW_ITERATION": "", "KUSAW_RUN_ID": ""},
			[]string{"KUSAW_REPO", "KUSAW_BASE_REF_MY_REPO"}},
		{"interactive and sandboxed", attemptRequest(), interactive, map[string]string{
			"KUSAW_SANDBOX": "seatbelt", "KUSAW_REQUEST": "/r.json", "KUSAW_RESULT": "/s.json",
			"KUSAW_EVENTS": "/e.jsonl", "KUSAW_NOTES_FILE": "/n.jsonl", "KUSAW_HANDSHAKE": "",
		}, nil},
	}
	for _, tt := range tests {
		got := envMap(t, request.Env([]string{"KUSAW_REPO=stale", "KUSAW_REQUEST=stale"}, tt.req, tt.eo))
		for name, value := range tt.want {
			if v, ok := got[name]; !ok || v != value {
				t.Errorf("%s: %s = %q (set %v); want %q", tt.name, name, v, ok, value)
			}
		}
		for _, name := range tt.unset {
			if v, ok := got[name]; ok {
				t.Errorf("%s: %s = %q; want it unset", tt.name, name, v)
			}
		}
	}
}

// Labels that give the same variable name: the first repo's wins.
func TestEnvBaseRefCollision(t *testing.T) {
	t.Parallel()
	req := attemptRequest()
	req.Repos[1].Label = "my_repo"
	got := envMap(t, request.Env([]string{}, req, request.EnvOptions{}))
	if got["KUSAW_BASE_REF_MY_REPO"] != "c0ffee" {
		t.Errorf("KUSAW_BASE_REF_MY_REPO = %q; want the first repo's c0ffee", got["KUSAW_BASE_REF_MY_REPO"])
	}
}

// A nil base is the runner's own environment, its KUSAW_ variables replaced.
func TestEnvInherits(t *testing.T) {
	t.Setenv("REQUEST_TEST_MARK", "kept")
	t.Setenv("KUSAW_RUN_ID", "evil")
	got := envMap(t, request.Env(nil, attemptRequest(), request.EnvOptions{}))
	if got["REQUEST_TEST_MARK"] != "kept" || got["KUSAW_RUN_ID"] != "r-1" {
		t.Errorf("Env(nil): REQUEST_TEST_MARK=%q, KUSAW_RUN_ID=%q; want kept, r-1", got["REQUEST_TEST_MARK"], got["KUSAW_RUN_ID"])
	}
}

func TestEnvTools(t *testing.T) {
	req := &protocol.Request{Step: protocol.StepInfo{ID: "s", Attempt: 1}}
	base := []string{"KUSAW_AGENT_PROVIDER=claude-code", "KUSAW_CLAUDE_COMMAND=/opt/claude", "KUSAW_RUN_ID=evil", "KUSAW_BIN=/x"}
	env := request.Env([]string{}, req, request.EnvOptions{Tools: request.OperatorTools(base)})
	got := strings.Join(env, "\n")
	for _, want := range []string{"KUSAW_AGENT_PROVIDER=claude-code", "KUSAW_CLAUDE_COMMAND=/opt/claude", "KUSAW_RUN_ID="} {
		if !strings.Contains(got+"\n", want+"\n") {
			t.Errorf("Env lacks %s:\n%s", want, got)
		}
	}
	if strings.Contains(got, "evil") || strings.Contains(got, "KUSAW_BIN") {
		t.Errorf("Env passed on a reserved or factory-only variable:\n%s", got)
	}
}

// A request string may hold a NUL byte, which no environment variable can:
// the variable leaves it out, so the step still starts (found by conform
// --explore: a task_id of "tab\tnul\x00" made every attempt start_failed).
func TestEnvNUL(t *testing.T) {
	t.Parallel()
	req := attemptRequest()
	req.TaskID = new("a\x00b")
	got := envMap(t, request.Env([]string{}, req, request.EnvOptions{}))
	if v := got["KUSAW_TASK_ID"]; v != "ab" {
		t.Errorf("KUSAW_TASK_ID = %q; want %q, the NUL left out", v, "ab")
	}
}
