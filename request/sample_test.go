package request_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"kusaw.dev/step/request"
)

// TestSynthesizeNulls is issue 13 item 2: the ids the spec says are null
// during intake and triage are null, and their variables set and empty.
func TestSynthesizeNulls(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, mode              string
		runID, taskID, worktree bool // want non-null
		task                    bool // want context.task non-null
	}{
		{name: "run_id, task_id, worktree, context.task: null during intake", mode: "intake"},
		{name: "run_id: null during triage", mode: "triage", taskID: true, worktree: true, task: true},
		{name: "run_id: set in a pipeline", mode: "pipeline", runID: true, taskID: true, worktree: true, task: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := options(t)
			o.Mode = tt.mode
			req, data := mustSynthesize(t, o)
			if (req.RunID != nil) != tt.runID || (req.TaskID != nil) != tt.taskID || (req.Worktree != nil) != tt.worktree || (req.Context.Task != nil) != tt.task {
				t.Errorf("mode %s: run_id %v task_id %v worktree %v context.task %v; want non-null %v %v %v %v\n%s",
					tt.mode, req.RunID, req.TaskID, req.Worktree, req.Context.Task, tt.runID, tt.taskID, tt.worktree, tt.task, data)
			}
			env := envMap(t, request.Env([]string{}, req, request.EnvOptions{}))
			for name, nonNull := range map[string]bool{"KUSAW_RUN_ID": tt.runID, "KUSAW_TASK_ID": tt.taskID, "KUSAW_WORKTREE": tt.worktree} {
				v, ok := env[name]
				if !ok || (v != "") != nonNull {
					t.Errorf("mode %s: %s=%q (set %v); want it set, empty %v", tt.mode, name, v, ok, !nonNull)
				}
			}
		})
	}
}

// TestSampleContext is issue 13 item 3: each mode's sample context has
// what a step of the mode needs (the rows of the spec that say "Omitted
// outside mode M" are present in mode M).
func TestSampleContext(t *testing.T) {
	t.Parallel()
	tests := []struct {
		mode string
		want []string // pointers into the context that must hold a value
	}{
		{"classify", []string{"/classify/item/title", "/classify/workflows/1/name"}},
		{"triage", []string{"/triage/batch_id", "/triage/items/1/id", "/triage/repos"}},
		{"select", []string{"/candidates/1/number", "/candidates/0/diff/files"}},
		{"match", []string{"/match/bugs/0/id", "/match/findings/1/message"}},
		{"atlas_scan", []string{"/atlas/root", "/atlas/files"}},
		{"atlas_chunk", []string{"/atlas/root", "/atlas/files"}},
		{"atlas_embed", []string{"/atlas/dims", "/atlas/texts/1/text", "/atlas/model"}},
		{"atlas_map", []string{"/atlas/out_dir", "/atlas/pages_due/0/slug"}},
		{"check", []string{"/order/id", "/order/claims/0/text", "/order/assertions/0/id", "/order/notes_path"}},
		{"finally", []string{"/outcome/status"}},
		{"intake", []string{"/idea"}},
	}
	for _, tt := range tests {
		t.Run("context."+tt.mode, func(t *testing.T) {
			t.Parallel()
			o := options(t)
			o.Mode = tt.mode
			_, data := mustSynthesize(t, o)
			ctx := contextOf(t, data)
			for _, ptr := range tt.want {
				if at(ctx, ptr) == nil {
					t.Errorf("mode %s: context%s is missing in %v", tt.mode, ptr, ctx)
				}
			}
		})
	}
}

// TestContextOption is issue 13 item 3: --context is merged over the
// sample and validated.
func TestContextOption(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, mode, ctx string
		check           func(t *testing.T, ctx map[string]any)
		err             string // a substring of the error; "" for none
	}{
		{name: "merged over the sample, member by member", mode: "classify",
			ctx: `{"classify":{"workflows":[{"name":"docs","description":"d"}]},"workflow":{"name":"docs","routed_by":"user"}}`,
			check: func(t *testing.T, ctx map[string]any) {
				if at(ctx, "/classify/workflows/0/name") != "docs" || at(ctx, "/classify/workflows/1") != nil || at(ctx, "/classify/item/title") == nil || at(ctx, "/workflow/routed_by") != "user" {
					t.Errorf("context = %v; want the workflows replaced, the item kept, workflow added", ctx)
				}
			}},
		{name: "null replaces", mode: "triage", ctx: `{"triage":{"groups":[{"id":"g1","items":["sample-triage-1","sample-triage-2"],"root_cause":"c"}]},"task":null}`,
			check: func(t *testing.T, ctx map[string]any) {
				if at(ctx, "/triage/groups/0/id") != "g1" || ctx["task"] != nil {
					t.Errorf("context = %v; want the groups set and task null", ctx)
				}
			}},
		{name: "validated against the schema", mode: "pipeline", ctx: `{"classify":{"item":{"title":3}}}`, err: "/context/classify/item"},
		{name: "steps must stay an object", mode: "pipeline", ctx: `{"steps":null}`, err: "/context/steps is null; want an object"},
		{name: "not an object", mode: "pipeline", ctx: `[1]`, err: "context is an array; want a JSON object"},
		{name: "not JSON", mode: "pipeline", ctx: `{"a":`, err: "context"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := options(t)
			o.Mode, o.Context = tt.mode, []byte(tt.ctx)
			req, err := request.Synthesize(o)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || !(errors.Is(err, request.ErrOptions) || errors.Is(err, request.ErrInvalid)) {
					t.Fatalf("Synthesize(context %s) = %v; want an error containing %q", tt.ctx, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Synthesize(context %s) = %v", tt.ctx, err)
			}
			data, _ := request.Encode(req)
			tt.check(t, contextOf(t, data))
		})
	}
}

func contextOf(t *testing.T, data []byte) map[string]any {
	t.Helper()
	var doc struct {
		Context map[string]any `json:"context"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Context
}

// at follows a JSON pointer of member names and array indexes.
func at(v any, ptr string) any {
	for _, tok := range strings.Split(ptr, "/")[1:] {
		switch x := v.(type) {
		case map[string]any:
			v = x[tok]
		case []any:
			i := 0
			for _, c := range tok {
				i = i*10 + int(c-'0')
			}
			if i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}
