package explore

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"kusaw.dev/step/protocol"
	"kusaw.dev/step/request"
	"kusaw.dev/step/schemas"
)

// tree decodes JSON into the tree the package works on.
func tree(t testing.TB, data []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func requestSchema(t testing.TB) map[string]any {
	src, err := schemas.Source("request")
	if err != nil {
		t.Fatal(err)
	}
	return tree(t, src)
}

func baseRequest(t testing.TB, mode string) map[string]any {
	req, err := request.Synthesize(request.Options{
		Mode: mode, Worktree: t.TempDir(), ArtifactsDir: t.TempDir(), Timeout: time.Minute, StepName: "explore",
		Config: []byte(`{"name":"x"}`),
	})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := request.Encode(req)
	if err != nil {
		t.Fatal(err)
	}
	return tree(t, raw)
}

// valid reports whether doc passes the runner's own request checks.
func valid(t testing.TB, doc map[string]any) error {
	raw, err := json.Marshal(doc, json.Deterministic(true))
	if err != nil {
		t.Fatal(err)
	}
	_, err = request.Decode(raw)
	return err
}

// TestGenerate: the requests of every mode are valid (nearly all: the
// caller skips the rest), keep their pinned fields, repeat for a seed, and
// reach the edges the explorer is for.
func TestGenerate(t *testing.T) {
	schema := requestSchema(t)
	for _, mode := range protocol.Modes {
		t.Run(mode, func(t *testing.T) {
			base := baseRequest(t, mode)
			g := NewGenerator(schema, base)
			const n = 300
			invalid := 0
			seen := map[string]bool{}
			for i := range n {
				doc := g.Request(1, i)
				if err := valid(t, doc); err != nil {
					invalid++
					if invalid == 1 {
						t.Logf("request %d refused: %v", i, err)
					}
					continue
				}
				for _, p := range []string{"/protocol_version", "/mode", "/worktree", "/artifacts_dir", "/config"} {
					want, _ := lookup(base, pointer(p))
					if got, _ := lookup(doc, pointer(p)); !equal(got, want) {
						t.Fatalf("request %d: %s = %v, want the base's %v", i, p, got, want)
					}
				}
				for edge, hit := range edges(doc) {
					seen[edge] = seen[edge] || hit
				}
			}
			if invalid > n/10 {
				t.Errorf("%d of %d generated requests are invalid; want at most a tenth", invalid, n)
			}
			for edge, hit := range seen {
				if !hit {
					t.Errorf("no request of %d reached the edge %q", n, edge)
				}
			}
			a, b := g.Request(7, 3), g.Request(7, 3)
			if !equal(a, b) {
				t.Error("the same seed and number gave two different requests")
			}
		})
	}
}

// edges names the classes of request the explorer must reach and whether
// doc is one.
func edges(doc map[string]any) map[string]bool {
	repos, _ := doc["repos"].([]any)
	ctx, _ := doc["context"].(map[string]any)
	task, hasTask := ctx["task"]
	limits, _ := doc["limits"].(map[string]any)
	text, _ := json.Marshal(doc)
	unknownIn := func(m map[string]any) bool {
		for k := range m {
			if strings.HasPrefix(k, "x_explore_") {
				return true
			}
		}
		return false
	}
	return map[string]bool{
		"empty repos":              repos != nil && len(repos) == 0,
		"null task":                hasTask && task == nil,
		"U+2028 in a string":       strings.Contains(string(text), "\u2028"),
		"astral character":         strings.Contains(string(text), "𝄞"),
		"outputs_max_bytes 100":    limits["outputs_max_bytes"] == 100.0,
		"unknown top-level field":  unknownIn(doc),
		"unknown field in context": unknownIn(ctx),
	}
}

// TestShrink: a request failing for one reason shrinks to the base plus
// that reason, whatever else the generator put in it.
func TestShrink(t *testing.T) {
	schema := requestSchema(t)
	base := baseRequest(t, "pipeline")
	g := NewGenerator(schema, base)
	tests := []struct {
		name  string
		fails func(map[string]any) bool
		want  func(map[string]any) // the minimal request, from the base
	}{
		{"null task", func(d map[string]any) bool {
			task, has := d["context"].(map[string]any)["task"]
			return has && task == nil
		}, func(m map[string]any) { m["context"].(map[string]any)["task"] = nil }},
		{"empty repos", func(d map[string]any) bool {
			r, ok := d["repos"].([]any)
			return ok && len(r) == 0
		}, func(m map[string]any) { m["repos"] = []any{} }},
		{"tiny outputs_max_bytes", func(d map[string]any) bool {
			n, ok := d["limits"].(map[string]any)["outputs_max_bytes"].(float64)
			return ok && n < 1000
		}, func(m map[string]any) { m["limits"].(map[string]any)["outputs_max_bytes"] = 100.0 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var doc map[string]any
			for i := 0; doc == nil; i++ {
				if d := g.Request(1, i); valid(t, d) == nil && tt.fails(d) && !equal(d, base) {
					doc = d
				}
			}
			ok := func(d map[string]any) bool { return valid(t, d) == nil }
			got, runs := g.Shrink(doc, 500, ok, tt.fails)
			want := clone(base).(map[string]any)
			tt.want(want)
			if !equal(got, want) {
				a, _ := json.Marshal(got, json.Deterministic(true))
				t.Errorf("shrunk in %d runs to\n%s\nwant the base with only the failing field changed", runs, a)
			}
		})
	}
}

// BenchmarkGenerate measures requests generated and validated per second
// (the target: at least 1,000).
func BenchmarkGenerate(b *testing.B) {
	g := NewGenerator(requestSchema(b), baseRequest(b, "pipeline"))
	valid := 0
	for i := 0; b.Loop(); i++ {
		raw, err := json.Marshal(g.Request(1, i), json.Deterministic(true))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := request.Decode(raw); err == nil {
			valid++
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "requests/s")
	_ = fmt.Sprint(valid)
}
