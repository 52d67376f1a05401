package request

import (
	stdjson "encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/go-json-experiment/json"

	"kusaw.dev/step/protocol"
)

// maxSampleFiles caps the files a sample Atlas context lists.
const maxSampleFiles = 20

// sample is what a mode's sample context is built from.
type sample struct {
	mode, worktree, artifacts, taskID string
	labels                            []string // the request's repo labels
}

// sampleContext returns the context of a synthesized request of mode:
// context.task and context.steps, and SAMPLE DATA a step of that mode
// needs to do its work on a local run, since no factory is there to give
// the real thing (spec rows context.classify, context.triage,
// context.candidates, context.atlas, context.order, context.idea, ...):
//
//   - intake: task null (spec: "Null during early intake"), a sample idea,
//     source_link null;
//   - finally: outcome {status ok, reason sample}, events_path null;
//   - atlas_scan, atlas_chunk: atlas {repo, root (the worktree), files:
//     up to 20 regular files at the worktree's top level};
//   - atlas_embed: atlas {provider, model, dims 8, two sample texts};
//   - atlas_map: atlas {repo, root, out_dir (ARTIFACTS/atlas-pages),
//     overview_cap_tokens, pages_due: the overview over the files};
//   - check: order {a sample id, role check, phase "", one claim and the
//     same assertion, contract_path and notes_path under ARTIFACTS};
//   - match: match {bugs: [{id, description}], findings: review findings}
//     — the spec says a matcher gets "the findings array from the request"
//     but names no field for it; this runner chooses context.match.findings
//     and context.match.bugs[].id, and result/ checks pairs against them;
//   - triage: triage {batch_id, repos, two items, groups null}: the
//     triage-group round (give groups through --context for the
//     triage-assess round);
//   - select: two finished candidates;
//   - classify: classify {an item, two workflows};
//   - pipeline, score: nothing more.
//
// The sample values say they are samples ("sample" in ids and titles).
// The files the sample names (the triage items' copies, the Work order's
// contract and notes) lie in the artifacts folder; [SampleFiles] gives
// their content and the runner writes them before the step starts.
func sampleContext(s sample) map[string]any {
	ctx := map[string]any{
		"task":  map[string]any{"id": s.taskID, "title": "local run"},
		"steps": map[string]any{},
	}
	for k, v := range modeSample(s) {
		ctx[k] = v
	}
	return ctx
}

// modeSample returns the members of the sample context particular to
// s.mode.
func modeSample(s sample) map[string]any {
	switch s.mode {
	case "intake":
		return map[string]any{"task": nil, "idea": "Sample idea: add a --verbose flag that logs each step.", "source_link": nil}
	case "finally":
		return map[string]any{"outcome": map[string]any{"status": "ok", "reason": "sample"}, "events_path": nil}
	case "atlas_scan", "atlas_chunk":
		return map[string]any{"atlas": map[string]any{"repo": s.label(), "root": s.worktree, "files": topFiles(s.worktree)}}
	case "atlas_embed":
		return map[string]any{"atlas": map[string]any{"provider": "sample", "model": "sample-embedding", "dims": 8, "texts": []any{
			map[string]any{"id": "sample-1", "text": "func main() { run() }"},
			map[string]any{"id": "sample-2", "text": "Sample query: where does the program start?"},
		}}}
	case "atlas_map":
		return map[string]any{"atlas": atlasMapSample(s)}
	case "check":
		return map[string]any{"order": orderSample(s)}
	case "match":
		return map[string]any{"match": matchSample()}
	case "triage":
		return map[string]any{"triage": triageSample(s)}
	case "select":
		return map[string]any{"candidates": []any{candidateSample(1), candidateSample(2)}}
	case "classify":
		return map[string]any{"classify": classifySample()}
	}
	return nil
}

// label is the first repo's label, or "sample" when there is none.
func (s sample) label() string {
	if len(s.labels) > 0 {
		return s.labels[0]
	}
	return "sample"
}

// topFiles lists up to maxSampleFiles regular files at the top of dir,
// sorted, hidden ones left out.
func topFiles(dir string) []any {
	entries, _ := os.ReadDir(dir) // a folder that cannot be read has no files to scan
	files := []any{}
	for _, e := range entries {
		if e.Type().IsRegular() && e.Name()[0] != '.' && len(files) < maxSampleFiles {
			files = append(files, e.Name())
		}
	}
	return files
}

func atlasMapSample(s sample) map[string]any {
	files := topFiles(s.worktree)
	return map[string]any{
		"repo": s.label(), "root": s.worktree, "files": files,
		"out_dir":             filepath.Join(s.artifacts, "atlas-pages"),
		"overview_cap_tokens": 2000,
		"pages_due":           []any{map[string]any{"kind": "overview", "slug": "overview", "sources": files}},
	}
}

func orderSample(s sample) map[string]any {
	claim := map[string]any{"id": "sample-a1", "text": "Sample assertion: the program exits 0 on --help."}
	return map[string]any{
		"id": sampleOrderID, "role": "check", "phase": "",
		"claims": []any{claim}, "assertions": []any{claim},
		"contract_path": filepath.Join(s.artifacts, "sample-contract.yaml"),
		"notes_path":    filepath.Join(s.artifacts, "notes.md"),
	}
}

func matchSample() map[string]any {
	return map[string]any{
		"bugs": []any{
			map[string]any{"id": "sample-bug-1", "description": "Sample planted bug: an off-by-one in the loop bound."},
			map[string]any{"id": "sample-bug-2", "description": "Sample planted bug: an error is ignored."},
		},
		"findings": []any{
			map[string]any{"file": "main.go", "line": 12, "rule": "sample", "severity": "major", "message": "The loop runs one time too many."},
			map[string]any{"file": "main.go", "line": 30, "rule": "sample", "severity": "minor", "message": "The error from Close is dropped."},
		},
	}
}

func triageSample(s sample) map[string]any {
	item := func(n int, title string) map[string]any {
		id := fmt.Sprintf("sample-triage-%d", n)
		return map[string]any{"id": id, "title": title, "path": filepath.Join(s.artifacts, "triage", id+".md")}
	}
	return map[string]any{
		"batch_id": sampleTriageID, "repos": labelsOrEmpty(s.labels), "groups": nil,
		"items": []any{item(1, "Sample item: crash on empty input"), item(2, "Sample item: empty input is not handled")},
	}
}

func candidateSample(n int) map[string]any {
	return map[string]any{
		"number": n, "branch": fmt.Sprintf("factory/sample-c%d", n), "outcome": "ok", "elapsed_ms": 1000 * n,
		"diff": map[string]any{"files": n, "added": 10 * n, "removed": n}, "verify": map[string]any{},
	}
}

func classifySample() map[string]any {
	return map[string]any{
		"item": map[string]any{"title": "Sample item: the login page times out", "body": "Sample body: users see a timeout after 30 s.", "source": "add"},
		"workflows": []any{
			map[string]any{"name": "bugfix", "description": "Sample workflow: fix a defect."},
			map[string]any{"name": "feature", "description": "Sample workflow: build something new."},
		},
	}
}

func labelsOrEmpty(labels []string) []any {
	out := []any{}
	for _, l := range labels {
		out = append(out, l)
	}
	return out
}

// mergeContext merges over, a JSON object, over base: an object member
// is merged member by member, recursively; any other value, null and
// arrays included, replaces the member. (This is not RFC 7386: null sets
// a member to null, since the request has members that are null on
// purpose, such as context.task during intake and context.triage.groups
// before grouping.)
func mergeContext(base map[string]any, over []byte) (map[string]any, error) {
	if len(over) == 0 {
		return base, nil
	}
	doc, err := protocol.Parse(over)
	if err != nil {
		return nil, fmt.Errorf("%w: context: %w", ErrOptions, err)
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: context is %s; want a JSON object, merged over the mode's sample context", ErrOptions, protocol.TypeName(doc))
	}
	return merge(base, obj), nil
}

func merge(base, over map[string]any) map[string]any {
	for k, v := range over {
		sub, isObj := v.(map[string]any)
		if old, ok := base[k].(map[string]any); ok && isObj {
			base[k] = merge(old, sub)
			continue
		}
		base[k] = v
	}
	return base
}

// toContext turns a context document into the typed context.
func toContext(doc map[string]any) (protocol.Context, error) {
	if _, ok := doc["steps"].(map[string]any); !ok {
		// The typed context would write a null or missing steps back as {}.
		return protocol.Context{}, fmt.Errorf("%w: /context/steps is %s; want an object of earlier step results keyed by step id", ErrOptions, protocol.TypeName(doc["steps"]))
	}
	data, err := stdjson.Marshal(doc)
	if err != nil {
		return protocol.Context{}, fmt.Errorf("%w: context: %w", ErrOptions, err)
	}
	var ctx protocol.Context
	if err := json.Unmarshal(data, &ctx); err != nil {
		return protocol.Context{}, fmt.Errorf("%w: context: %w", ErrOptions, err)
	}
	return ctx, nil
}

// repoLabelsOf lists the labels of repos.
func repoLabelsOf(repos []protocol.Repo) []string {
	labels := make([]string, len(repos))
	for i, r := range repos {
		labels[i] = r.Label
	}
	return labels
}

// The ids that mark a context as sample data, whose files SampleFiles
// gives.
const (
	sampleTriageID = "sample-triage"
	sampleOrderID  = "sample-order"
)

// SampleFiles returns the files a sample context names by path, by path:
// the triage items' copies and the Work order's contract and notes, so a
// step that reads them finds them. It returns nothing for a context that
// is not a sample (its batch and order ids say so). The runner writes
// those that lie inside the artifacts folder and do not exist yet.
func SampleFiles(req *protocol.Request) map[string][]byte {
	var ctx struct {
		Triage *struct {
			BatchID string `json:"batch_id"`
			Items   []struct {
				Path  string `json:"path"`
				Title string `json:"title"`
			} `json:"items"`
		} `json:"triage"`
		Order *struct {
			ID           string `json:"id"`
			ContractPath string `json:"contract_path"`
			NotesPath    string `json:"notes_path"`
		} `json:"order"`
	}
	if len(req.Context.Unknown) > 0 {
		_ = json.Unmarshal(req.Context.Unknown, &ctx)
	}
	files := map[string][]byte{}
	if t := ctx.Triage; t != nil && t.BatchID == sampleTriageID {
		for _, it := range t.Items {
			files[it.Path] = []byte("# " + it.Title + "\n\nSample triage item: a local run has no tracker, so this text stands in for one.\n")
		}
	}
	if o := ctx.Order; o != nil && o.ID == sampleOrderID {
		files[o.ContractPath] = []byte("# Sample Work order contract\nassertions:\n  - id: sample-a1\n    text: \"Sample assertion: the program exits 0 on --help.\"\n")
		files[o.NotesPath] = []byte("# Notes\n\nSample Work order notes.\n")
	}
	delete(files, "")
	return files
}
