package request_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"kusaw.dev/step/protocol"
	"kusaw.dev/step/request"
	"kusaw.dev/step/schemas"
)

// options returns valid options for a run in a fresh folder that is not a
// git checkout.
func options(t *testing.T) request.Options {
	t.Helper()
	return request.Options{
		Worktree:     t.TempDir(),
		ArtifactsDir: filepath.Join(t.TempDir(), "artifacts"),
		Timeout:      time.Minute,
	}
}

// mustSynthesize synthesizes a request and checks its encoding against
// the schema independently of the package.
func mustSynthesize(t *testing.T, o request.Options) (*protocol.Request, []byte) {
	t.Helper()
	req, err := request.Synthesize(o)
	if err != nil {
		t.Fatalf("Synthesize(%+v) = %v", o, err)
	}
	data, err := request.Encode(req)
	if err != nil {
		t.Fatalf("Encode(synthesized) = %v", err)
	}
	doc, err := protocol.Parse(data)
	if err != nil {
		t.Fatalf("Parse(%s) = %v", data, err)
	}
	if err := schemas.Validate("request", doc); err != nil {
		t.Fatalf("synthesized request is invalid: %v\n%s", err, data)
	}
	return req, data
}

func TestSynthesizeEveryMode(t *testing.T) {
	t.Parallel()
	for _, mode := range protocol.Modes {
		o := options(t)
		o.Mode = mode
		req, _ := mustSynthesize(t, o)
		if req.Mode != mode {
			t.Errorf("Synthesize(mode %q).Mode = %q", mode, req.Mode)
		}
	}
}

func TestSynthesizeDefaults(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	now := time.Date(2026, 11, 30, 1, 2, 3, 0, time.FixedZone("CET", 3600))
	req, data := mustSynthesize(t, request.Options{
		ArtifactsDir: "out/artifacts",
		Timeout:      90 * time.Second,
		Now:          func() time.Time { return now },
	})
	checks := []struct {
		name      string
		got, want any
	}{
		{"protocol_version", req.ProtocolVersion, 2},
		{"mode", req.Mode, "pipeline"},
		{"config", string(req.Config), "{}"},
		{"worktree", *req.Worktree, dir},
		{"artifacts_dir", req.ArtifactsDir, filepath.Join(dir, "out", "artifacts")},
		{"task.id", req.Context.Task.ID, *req.TaskID},
		{"task.title", req.Context.Task.Title, "local run"},
		{"task.spec", req.Context.Task.Spec, ""},
		{"steps", len(req.Context.Steps), 0},
		{"budget_left_usd", req.Limits.BudgetLeftUSD == nil, true},
		{"time_left_ms", req.Limits.TimeLeftMS, int64(90000)},
		{"max_line_bytes", *req.Limits.MaxLineBytes, int64(1 << 20)},
		{"log_cap_bytes", *req.Limits.LogCapBytes, int64(50 << 20)},
		{"outputs_max_bytes", *req.Limits.OutputsMaxBytes, int64(64 << 10)},
		{"final_text_bytes", *req.Limits.FinalTextBytes, int64(1 << 20)},
		{"loop", req.Loop == nil, true},
		{"step", req.Step, protocol.StepInfo{ID: "step", Name: "step", Attempt: 1}},
		{"completion_grace_seconds", *req.CompletionGraceSeconds, 5},
		{"run_id prefix", strings.HasPrefix(*req.RunID, "local-20261130T000203Z-"), true},
		{"task_id prefix", strings.HasPrefix(*req.TaskID, "local-20261130T000203Z-"), true},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v; want %v", c.name, c.got, c.want)
		}
	}
	for _, frag := range []string{`"loop":null`, `"budget_left_usd":null`, `"steps":{}`, `"config":{}`} {
		if !strings.Contains(string(data), frag) {
			t.Errorf("encoded request lacks %s:\n%s", frag, data)
		}
	}
}

func TestSynthesizeDurations(t *testing.T) {
	t.Parallel()
	tests := []struct {
		timeout, grace time.Duration
		wantMS         int64
		wantGrace      int
	}{
		{time.Millisecond, 0, 1, 5},
		{1500 * time.Millisecond, time.Second, 1500, 1},
		{10 * time.Minute, 1500 * time.Millisecond, 600000, 2},
		{time.Hour + 999*time.Microsecond, time.Nanosecond, 3600000, 1},
	}
	for _, tt := range tests {
		o := options(t)
		o.Timeout, o.CompletionGrace = tt.timeout, tt.grace
		req, _ := mustSynthesize(t, o)
		if req.Limits.TimeLeftMS != tt.wantMS || *req.CompletionGraceSeconds != tt.wantGrace {
			t.Errorf("Synthesize(timeout %v, grace %v): time_left_ms %d, grace %d; want %d, %d",
				tt.timeout, tt.grace, req.Limits.TimeLeftMS, *req.CompletionGraceSeconds, tt.wantMS, tt.wantGrace)
		}
	}
}

func TestSynthesizeOptions(t *testing.T) {
	t.Parallel()
	o := options(t)
	o.Mode, o.StepName, o.Config = "check", "lint", []byte(" {\n \"level\": [1, 2],\n \"fix\": true }\n")
	req, _ := mustSynthesize(t, o)
	if got, want := string(req.Config), `{"level":[1,2],"fix":true}`; got != want {
		t.Errorf("config = %s; want %s", got, want)
	}
	if req.Step.ID != "lint" || req.Step.Name != "lint" {
		t.Errorf("step = %+v; want id and name lint", req.Step)
	}
}

func TestSynthesizeUniqueIDs(t *testing.T) {
	t.Parallel()
	now := func() time.Time { return time.Unix(0, 0) }
	o := options(t)
	o.Now = now
	a, _ := mustSynthesize(t, o)
	b, _ := mustSynthesize(t, o)
	ids := map[string]bool{*a.RunID: true, *a.TaskID: true, *b.RunID: true, *b.TaskID: true}
	if len(ids) != 4 {
		t.Errorf("ids of two requests at the same time are not unique: run %s, %s; task %s, %s", *a.RunID, *b.RunID, *a.TaskID, *b.TaskID)
	}
}

func TestSynthesizeErrors(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		edit    func(*request.Options)
		wantMsg string
	}{
		{"unknown mode", func(o *request.Options) { o.Mode = "deploy" }, `mode "deploy"; want one of pipeline, intake,`},
		{"config array", func(o *request.Options) { o.Config = []byte(`[1]`) }, "config is an array; want a JSON object"},
		{"config null", func(o *request.Options) { o.Config = []byte(`null`) }, "config is null; want a JSON object"},
		{"config string", func(o *request.Options) { o.Config = []byte(`"{}"`) }, "config is a string; want a JSON object"},
		{"config number", func(o *request.Options) { o.Config = []byte(`1`) }, "config is a number; want a JSON object"},
		{"config boolean", func(o *request.Options) { o.Config = []byte(`true`) }, "config is a boolean; want a JSON object"},
		{"config duplicate key", func(o *request.Options) { o.Config = []byte(`{"a":1,"a":2}`) }, `config: byte offset 7 (at /a): duplicate object key "a"`},
		{"config trailing data", func(o *request.Options) { o.Config = []byte(`{} {}`) }, "config: byte offset 3: trailing data"},
		{"config not JSON", func(o *request.Options) { o.Config = []byte(`{a:1}`) }, "config: byte offset 1"},
		{"no artifacts folder", func(o *request.Options) { o.ArtifactsDir = "" }, "no artifacts folder"},
		{"no timeout", func(o *request.Options) { o.Timeout = 0 }, "timeout 0s; want at least 1ms"},
		{"negative timeout", func(o *request.Options) { o.Timeout = -time.Second }, "timeout -1s; want at least 1ms"},
		{"sub-millisecond timeout", func(o *request.Options) { o.Timeout = time.Microsecond }, "want at least 1ms"},
		{"negative grace", func(o *request.Options) { o.CompletionGrace = -time.Second }, "completion grace -1s is negative"},
		{"missing worktree", func(o *request.Options) { o.Worktree = filepath.Join(file, "nope") }, "worktree: stat "},
		{"worktree is a file", func(o *request.Options) { o.Worktree = file }, "is not a folder"},
	}
	for _, tt := range tests {
		o := options(t)
		tt.edit(&o)
		req, err := request.Synthesize(o)
		if !errors.Is(err, request.ErrOptions) || !strings.Contains(err.Error(), tt.wantMsg) {
			t.Errorf("%s: Synthesize = %v, %v; want ErrOptions containing %q", tt.name, req, err, tt.wantMsg)
		}
	}
}

// needGit skips the test when git is not installed.
func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: the git checkout tests need it")
	}
}

// gitRun runs git in dir with a fixed identity and no inherited GIT_*
// variables, and returns its trimmed output.
func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// newCheckout makes a git checkout named "my-repo" whose branch "feature"
// has one commit, and returns its top level (symbolic links resolved, as
// git reports it) and the commit.
func newCheckout(t *testing.T) (top, commit string) {
	t.Helper()
	needGit(t)
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	top = filepath.Join(root, "my-repo")
	if err := os.MkdirAll(filepath.Join(top, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	gitRun(t, top, "init", "-q")
	gitRun(t, top, "checkout", "-q", "-b", "feature")
	if err := os.WriteFile(filepath.Join(top, "sub", "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitRun(t, top, "add", ".")
	gitRun(t, top, "commit", "-q", "-m", "first")
	return top, gitRun(t, top, "rev-parse", "HEAD")
}

func TestSynthesizeGitCheckout(t *testing.T) {
	t.Parallel()
	top, commit := newCheckout(t)
	for _, worktree := range []string{top, filepath.Join(top, "sub")} {
		o := options(t)
		o.Worktree = worktree
		req, _ := mustSynthesize(t, o)
		want := protocol.Repo{Label: "my-repo", Branch: "feature", BaseRef: commit, Worktree: top, Standards: "", Status: "running"}
		if len(req.Repos) != 1 || !equalRepo(req.Repos[0], want) {
			t.Errorf("Synthesize(worktree %s).Repos = %+v; want [%+v]", worktree, req.Repos, want)
		}
		if *req.Worktree != worktree {
			t.Errorf("worktree = %s; want %s", *req.Worktree, worktree)
		}
	}
}

func equalRepo(a, b protocol.Repo) bool {
	a.Unknown, b.Unknown = nil, nil
	return a.Label == b.Label && a.Branch == b.Branch && a.BaseRef == b.BaseRef &&
		a.Worktree == b.Worktree && a.Standards == b.Standards && a.Status == b.Status
}

// A branch cut from the remote's default branch starts where it leaves it.
func TestSynthesizeGitBaseRef(t *testing.T) {
	t.Parallel()
	top, first := newCheckout(t)
	gitRun(t, top, "update-ref", "refs/remotes/origin/main", first)
	gitRun(t, top, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")
	gitRun(t, top, "commit", "-q", "--allow-empty", "-m", "second")
	o := options(t)
	o.Worktree = top
	req, _ := mustSynthesize(t, o)
	if len(req.Repos) != 1 || req.Repos[0].BaseRef != first {
		t.Errorf("Repos = %+v; want base_ref %s, where feature left origin/HEAD", req.Repos, first)
	}
}

// GIT_DIR and friends set around the runner (as inside a git hook) must
// not point the probe at another repository.
func TestSynthesizeIgnoresGitEnv(t *testing.T) {
	top, _ := newCheckout(t)
	t.Setenv("GIT_DIR", filepath.Join(top, ".git"))
	t.Setenv("GIT_WORK_TREE", top)
	req, data := mustSynthesize(t, options(t))
	if len(req.Repos) != 0 {
		t.Errorf("with GIT_DIR set, a folder outside any checkout got repos %+v", req.Repos)
	}
	if !strings.Contains(string(data), `"repos":[]`) {
		t.Errorf("encoded request lacks \"repos\":[]:\n%s", data)
	}
}

func TestSynthesizeNotACheckout(t *testing.T) {
	t.Parallel()
	unborn := t.TempDir()
	if _, err := exec.LookPath("git"); err == nil {
		gitRun(t, unborn, "init", "-q")
	}
	for name, dir := range map[string]string{"plain folder": t.TempDir(), "checkout without a commit": unborn} {
		o := options(t)
		o.Worktree = dir
		req, data := mustSynthesize(t, o)
		if req.Repos == nil || len(req.Repos) != 0 {
			t.Errorf("%s: Repos = %#v; want an empty list", name, req.Repos)
		}
		if !strings.Contains(string(data), `"repos":[]`) {
			t.Errorf("%s: encoded request lacks \"repos\":[]:\n%s", name, data)
		}
	}
}

// The synthesized config is the caller's object, member order kept.
func TestSynthesizeConfigOrder(t *testing.T) {
	t.Parallel()
	o := options(t)
	o.Config = []byte(`{"z":1,"a":{"y":2,"b":3}}`)
	req, data := mustSynthesize(t, o)
	if !jsontext.Value(req.Config).IsValid() || string(req.Config) != string(o.Config) {
		t.Errorf("config = %s; want %s", req.Config, o.Config)
	}
	if !strings.Contains(string(data), `"config":`+string(o.Config)) {
		t.Errorf("encoded config is not %s:\n%s", o.Config, data)
	}
}
