package step_test

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"kusaw.dev/step/protocol"
)

// TestEveryModeSample is issue 13's "Done when": the request synthesized
// for every mode (what `kusaw-step request --mode M` prints) is valid and
// usable by a conforming step of that mode. The fake mode-step does what a
// real step of the mode does with its request's context (picks one of the
// workflows, groups the triage items, embeds the texts, writes the due
// pages, ...) and the attempt must end ok: outputs valid against the
// mode's schema and the rules that need the request.
func TestEveryModeSample(t *testing.T) {
	t.Parallel()
	for _, mode := range protocol.Modes {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			rec, _ := runAttempt(t, "mode-step", setup{mode: mode})
			wantVerdict(t, rec, verdict{"ok", "fake", "mode " + mode})
			if mode != "pipeline" && mode != "intake" && mode != "finally" && mode != "atlas_chunk" && len(rec.Outputs) == 0 {
				t.Errorf("mode %s: no outputs kept", mode)
			}
		})
	}
}

// modeStep is a conforming step of every mode: it answers its request
// from the request's own context, as a step of that mode would.
func modeStep() {
	raw, err := io.ReadAll(os.Stdin)
	var req struct {
		Mode    string         `json:"mode"`
		Context map[string]any `json:"context"`
	}
	if err == nil {
		err = json.Unmarshal(raw, &req)
	}
	if err != nil {
		result("fail", "read the request: "+err.Error())
		return
	}
	outputs, err := modeOutputs(req.Mode, req.Context)
	if err != nil {
		result("fail", err.Error())
		return
	}
	line := resultLine("ok", "mode "+req.Mode)
	if outputs != nil {
		data, _ := json.Marshal(outputs)
		line = line[:len(line)-1] + `,"outputs":` + string(data) + "}"
	}
	say(line)
}

// modeOutputs computes a valid answer of mode from the request's context.
func modeOutputs(mode string, ctx map[string]any) (map[string]any, error) {
	atlas, _ := ctx["atlas"].(map[string]any)
	switch mode {
	case "score":
		return map[string]any{"score": 0.5, "rationale": "sample"}, nil
	case "classify":
		wf := field(ctx, "classify", "workflows", 0, "name")
		return map[string]any{"workflow": wf, "confidence": 0.9, "rationale": "the first workflow fits"}, nil
	case "select":
		return map[string]any{"choice": field(ctx, "candidates", 0, "number"), "rationale": "first"}, nil
	case "match":
		return map[string]any{"pairs": []any{map[string]any{"bug": field(ctx, "match", "bugs", 0, "id"), "finding": 0}}}, nil
	case "triage":
		var groups []any
		for _, it := range list(field(ctx, "triage", "items")) {
			if err := readable(field(it, "path")); err != nil {
				return nil, err
			}
			groups = append(groups, map[string]any{"items": []any{field(it, "id")}, "root_cause": "its own"})
		}
		return map[string]any{"groups": groups}, nil
	case "check":
		for _, p := range []any{field(ctx, "order", "contract_path"), field(ctx, "order", "notes_path"), os.Getenv("KUSAW_ORDER_NOTES")} {
			if err := readable(p); err != nil {
				return nil, err
			}
		}
		var answers []any
		for _, a := range list(field(ctx, "order", "assertions")) {
			answers = append(answers, map[string]any{"id": field(a, "id"), "status": "pass"})
		}
		return map[string]any{"assertions": answers}, nil
	case "atlas_scan":
		return map[string]any{"scanner": map[string]any{"name": "fake", "version": "1"}, "findings": []any{}}, nil
	case "atlas_embed":
		dims := int(field(atlas, "dims").(float64))
		var vectors []any
		for _, t := range list(atlas["texts"]) {
			vectors = append(vectors, map[string]any{"id": field(t, "id"), "vector": make([]float64, dims)})
		}
		return map[string]any{"vectors": vectors}, nil
	case "atlas_map":
		return writePages(atlas)
	}
	return nil, nil
}

// readable fails unless path names a file the step can read.
func readable(path any) error {
	p, _ := path.(string)
	_, err := os.ReadFile(p)
	if err != nil {
		return fmt.Errorf("the request names %q: %v", p, err)
	}
	return nil
}

// writePages writes each due page into out_dir, as an atlas_map writer does.
func writePages(atlas map[string]any) (map[string]any, error) {
	out, _ := atlas["out_dir"].(string)
	var pages []any
	for _, p := range list(atlas["pages_due"]) {
		slug, _ := field(p, "slug").(string)
		if err := os.MkdirAll(out, 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(out, slug+".md"), []byte("# "+slug+"\n"), 0o644); err != nil {
			return nil, err
		}
		pages = append(pages, map[string]any{"slug": slug, "file": slug + ".md"})
	}
	if len(pages) == 0 {
		return nil, fmt.Errorf("no pages due in %v", atlas)
	}
	return map[string]any{"pages": pages}, nil
}

// field follows path (member names and array indexes) from v; nil when
// it leads nowhere.
func field(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

func list(v any) []any {
	a, _ := v.([]any)
	return a
}
