package result_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kusaw.dev/step/protocol"
	"kusaw.dev/step/result"
)

// modeCases are issue 13 items 5 to 8: the rules of the spec's outputs
// descriptions, one row per rule, named after the spec row that states
// it. root is the artifacts fixture's root (see artifactsFixture).
func modeCases(root string) []checkCase {
	inv := protocol.ReasonOutputsInvalid
	embed := withContext("atlas_embed", `"atlas":{"dims":3,"texts":[{"id":"h1","text":"a"},{"id":"h2","text":"b"}]}`)
	outDir := filepath.Join(root, "art")
	atlasMap := withContext("atlas_map", `"atlas":{"out_dir":`+quote(outDir)+`}`)
	classify := withContext("classify", `"classify":{"item":{"title":"t","body":"b","source":"add"},"workflows":[{"name":"bugfix","description":"d"},{"name":"feature","description":"d"}]}`)
	sel := withContext("select", `"candidates":[`+candidate(1)+`,`+candidate(2)+`]`)
	match := withContext("match", `"match":{"bugs":[{"id":"b1"},{"id":"b2"}],"findings":[{"message":"m"},{"message":"n"}]}`)
	groups := withContext("triage", `"triage":{"batch_id":"t1","repos":["r"],"groups":null,"items":[`+triageItem("t1-1")+`,`+triageItem("t1-2")+`]}`)
	assess := withContext("triage", `"triage":{"batch_id":"t1","repos":["r"],"groups":[{"id":"t1-g1","items":["t1-1","t1-2"],"root_cause":"c"}],"items":[`+triageItem("t1-1")+`,`+triageItem("t1-2")+`]}`)
	assess2 := withContext("triage", `"triage":{"batch_id":"t1","repos":["r"],"groups":[{"id":"t1-g1","items":["t1-1","t1-2"],"root_cause":"c"},{"id":"t1-g2","items":["t1-3"],"root_cause":"d"}],"items":[]}`)
	return []checkCase{
		// Item 5: atlas_scan.
		{name: "outputs.scanner: no version is ok with a warning", line: line(`"outputs":{"scanner":{"name":"gitleaks"}}`),
			opts: result.Options{Request: request("atlas_scan")}, warns: []string{result.WarnScannerVersion}},
		{name: "outputs.scanner: a version, no warning", line: line(`"outputs":{"scanner":{"name":"gitleaks","version":"8.1"}}`),
			opts: result.Options{Request: request("atlas_scan")}},
		{name: "outputs.findings: only rule_id and location are kept",
			line: line(`"outputs":{"scanner":{"name":"s","version":"1"},"findings":[{"rule_id":"aws-key","path":"a.go","start_line":3,"start_column":1,"end_line":3,"end_column":20,"message":"found AKIA123","snippet":"key = AKIA123"}]}`),
			opts: result.Options{Request: request("atlas_scan")}, check: findingsKept},
		// Item 6: atlas_embed.
		{name: "outputs.vectors[].vector: length dims is ok", line: line(`"outputs":{"vectors":[{"id":"h1","vector":[0.1,0.2,0.3]}]}`),
			opts: result.Options{Request: embed}},
		{name: "outputs.vectors[].vector: length other than dims", line: line(`"outputs":{"vectors":[{"id":"h1","vector":[0.1,0.2]}]}`),
			opts: result.Options{Request: embed}, status: "fail", reason: inv, msg: []string{"2 numbers", "dims is 3"}, check: problemAt("/outputs/vectors/0/vector")},
		{name: "outputs.vectors[].id: not among the request's texts", line: line(`"outputs":{"vectors":[{"id":"h1","vector":[1,2,3]},{"id":"h9","vector":[1,2,3]}]}`),
			opts: result.Options{Request: embed}, status: "fail", reason: inv, msg: []string{`"h9"`, "context.atlas.texts"}, check: problemAt("/outputs/vectors/1/id")},
		// Item 7: atlas_map.
		{name: "outputs.pages[].file: inside out_dir", line: line(`"outputs":{"pages":[{"slug":"overview","file":"ok.txt"},{"slug":"apis","file":"new/apis.md"}]}`),
			opts: result.Options{Request: atlasMap}},
		{name: "outputs.pages[].file: .. escapes out_dir", line: line(`"outputs":{"pages":[{"slug":"overview","file":"../secret.txt"}]}`),
			opts: result.Options{Request: atlasMap}, status: "fail", reason: inv, msg: []string{"leads out"}, check: problemAt("/outputs/pages/0/file")},
		{name: "outputs.pages[].file: absolute", line: line(`"outputs":{"pages":[{"slug":"overview","file":"/etc/passwd"}]}`),
			opts: result.Options{Request: atlasMap}, status: "fail", reason: inv, msg: []string{"absolute"}, check: problemAt("/outputs/pages/0/file")},
		{name: "outputs.pages[].file: a symlink out of out_dir", line: line(`"outputs":{"pages":[{"slug":"overview","file":"escape"}]}`),
			opts: result.Options{Request: atlasMap}, status: "fail", reason: inv, msg: []string{"resolves outside"}, check: problemAt("/outputs/pages/0/file")},
		// Item 8: the built-in mode outputs.
		{name: "classify.workflow: a configured workflow", line: line(`"outputs":{"workflow":"feature","confidence":0.8,"rationale":"r"}`),
			opts: result.Options{Request: classify}},
		{name: "classify.workflow: not a configured workflow", line: line(`"outputs":{"workflow":"chores","confidence":0.8,"rationale":"r"}`),
			opts: result.Options{Request: classify}, status: "fail", reason: inv, msg: []string{`"chores"`, `"bugfix", "feature"`}, check: problemAt("/outputs/workflow")},
		{name: "selection.choice: a candidate's number", line: line(`"outputs":{"choice":2}`), opts: result.Options{Request: sel}},
		{name: "selection.choice: null", line: line(`"outputs":{"choice":null}`), opts: result.Options{Request: sel}},
		{name: "selection.choice: past the candidates", line: line(`"outputs":{"choice":3}`), opts: result.Options{Request: sel},
			status: "fail", reason: inv, msg: []string{"choice 3", `"1", "2"`}, check: problemAt("/outputs/choice")},
		{name: "selection.choice: 0 is not 1-based (schema)", line: line(`"outputs":{"choice":0}`), opts: result.Options{Request: request("select")},
			status: "fail", reason: inv, msg: []string{"outputs:selection"}, check: problemAt("/outputs/choice")},
		{name: "review-match.pairs: one to one", line: line(`"outputs":{"pairs":[{"bug":"b1","finding":1},{"bug":"b2","finding":0}]}`),
			opts: result.Options{Request: match}},
		{name: "review-match.pairs[].finding: -1 (schema)", line: line(`"outputs":{"pairs":[{"bug":"b1","finding":-1}]}`),
			opts: result.Options{Request: request("match")}, status: "fail", reason: inv, msg: []string{"outputs:review-match"}, check: problemAt("/outputs/pairs/0/finding")},
		{name: "review-match.pairs[].finding: past the request's findings", line: line(`"outputs":{"pairs":[{"bug":"b1","finding":2}]}`),
			opts: result.Options{Request: match}, status: "fail", reason: inv, msg: []string{"2 findings"}, check: problemAt("/outputs/pairs/0/finding")},
		{name: "review-match.pairs[].bug: not a planted bug", line: line(`"outputs":{"pairs":[{"bug":"b7","finding":0}]}`),
			opts: result.Options{Request: match}, status: "fail", reason: inv, msg: []string{`"b7"`}, check: problemAt("/outputs/pairs/0/bug")},
		{name: "review-match.pairs: a finding matched twice", line: line(`"outputs":{"pairs":[{"bug":"b1","finding":0},{"bug":"b2","finding":0}]}`),
			opts: result.Options{Request: match}, status: "fail", reason: inv, msg: []string{"one to one"}, check: problemAt("/outputs/pairs/1/finding")},
		{name: "review-match.pairs: a bug matched twice", line: line(`"outputs":{"pairs":[{"bug":"b1","finding":0},{"bug":"b1","finding":1}]}`),
			opts: result.Options{Request: request("match")}, status: "fail", reason: inv, msg: []string{"one to one"}, check: problemAt("/outputs/pairs/1/bug")},
		{name: "triage-groups.groups: every item once", line: line(`"outputs":{"groups":[{"items":["t1-2"],"root_cause":"a"},{"items":["t1-1"],"root_cause":"b"}]}`),
			opts: result.Options{Request: groups}},
		{name: "triage-groups.groups: an item left out", line: line(`"outputs":{"groups":[{"items":["t1-1"],"root_cause":"a"}]}`),
			opts: result.Options{Request: groups}, status: "fail", reason: inv, msg: []string{`"t1-2"`}, check: problemAt("/outputs/groups")},
		{name: "triage-groups.groups: an item in two groups", line: line(`"outputs":{"groups":[{"items":["t1-1","t1-2"],"root_cause":"a"},{"items":["t1-2"],"root_cause":"b"}]}`),
			opts: result.Options{Request: groups}, status: "fail", reason: inv, msg: []string{"more than one group"}, check: problemAt("/outputs/groups/1/items/0")},
		{name: "triage-groups.groups: an unknown item", line: line(`"outputs":{"groups":[{"items":["t1-1","t1-2","x"],"root_cause":"a"}]}`),
			opts: result.Options{Request: groups}, status: "fail", reason: inv, msg: []string{`"x"`}, check: problemAt("/outputs/groups/0/items/2")},
		{name: "triage-assessments.assessments: one per item", line: line(`"outputs":{"assessments":[` + assessment("t1-1", "wontfix", "v") + `,` + assessment("t1-2", "needs-info", "v") + `]}`),
			opts: result.Options{Request: assess}},
		{name: "triage-assessments.assessments: one whole group of two", line: line(`"outputs":{"assessments":[` + assessment("t1-3", "wontfix", "v") + `]}`),
			opts: result.Options{Request: assess2}},
		{name: "triage-assessments.assessments: an item in no group", line: line(`"outputs":{"assessments":[` + assessment("t1-3", "wontfix", "v") + `,` + assessment("t1-9", "wontfix", "v") + `]}`),
			opts: result.Options{Request: assess2}, status: "fail", reason: inv, msg: []string{`"t1-9" is not an item of context.triage.groups`}, check: problemAt("/outputs/assessments/1/id")},
		{name: "triage-assessments.assessments: none", line: line(`"outputs":{"assessments":[]}`),
			opts: result.Options{Request: assess2}, status: "fail", reason: inv, msg: []string{"no assessment"}, check: problemAt("/outputs/assessments")},
		{name: "triage-assessments.assessments: an item not assessed", line: line(`"outputs":{"assessments":[` + assessment("t1-1", "wontfix", "v") + `]}`),
			opts: result.Options{Request: assess}, status: "fail", reason: inv, msg: []string{`"t1-2"`}, check: problemAt("/outputs/assessments")},
		{name: "triage-assessments.assessments: an item assessed twice", line: line(`"outputs":{"assessments":[` + assessment("t1-1", "wontfix", "v") + `,` + assessment("t1-2", "wontfix", "v") + `,` + assessment("t1-1", "wontfix", "v") + `]}`),
			opts: result.Options{Request: assess}, status: "fail", reason: inv, check: problemAt("/outputs/assessments/2/id")},
		{name: "triage-assessments.assessments[].role: needs-triage (schema)", line: line(`"outputs":{"assessments":[` + assessment("t1-1", "needs-triage", "v") + `,` + assessment("t1-2", "wontfix", "v") + `]}`),
			opts: result.Options{Request: assess}, status: "fail", reason: inv, msg: []string{"outputs:triage-assessments"}, check: problemAt("/outputs/assessments/0/role")},
		{name: "triage-assessments.assessments[].role: not in the list (schema)", line: line(`"outputs":{"assessments":[` + assessment("t1-1", "later", "v") + `,` + assessment("t1-2", "wontfix", "v") + `]}`),
			opts: result.Options{Request: assess}, status: "fail", reason: inv, check: problemAt("/outputs/assessments/0/role")},
		{name: "triage-assessments.assessments[].verdict: 500 characters", line: line(`"outputs":{"assessments":[` + assessment("t1-1", "wontfix", strings.Repeat("é", 500)) + `,` + assessment("t1-2", "wontfix", "v") + `]}`),
			opts: result.Options{Request: assess}},
		{name: "triage-assessments.assessments[].verdict: 501 characters (schema)", line: line(`"outputs":{"assessments":[` + assessment("t1-1", "wontfix", strings.Repeat("é", 501)) + `,` + assessment("t1-2", "wontfix", "v") + `]}`),
			opts: result.Options{Request: assess}, status: "fail", reason: inv, check: problemAt("/outputs/assessments/0/verdict")},
	}
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }

func candidate(n int) string {
	return `{"number":` + string(rune('0'+n)) + `,"branch":"b","diff":{"added":1,"files":1,"removed":0},"elapsed_ms":5,"outcome":"ok","verify":{}}`
}

func triageItem(id string) string { return `{"id":"` + id + `","path":"/t/` + id + `.md","title":"T"}` }

func assessment(id, role, verdict string) string {
	return `{"id":"` + id + `","difficulty":"small","role":"` + role + `","verdict":"` + verdict + `"}`
}

// findingsKept checks that a finding's message and snippet are gone from
// the outputs, the decoded result and the line kept in result.json.
func findingsKept(t *testing.T, v *result.Verdict) {
	for name, b := range map[string][]byte{"Outputs": v.Outputs, "Result.Outputs": v.Result.Outputs, "Line": v.Line} {
		s := string(b)
		if strings.Contains(s, "AKIA123") || !strings.Contains(s, `"rule_id":"aws-key"`) || !strings.Contains(s, `"end_column":20`) {
			t.Errorf("%s = %s; want the finding's rule_id and location only", name, s)
		}
	}
}

// TestLineUnchanged checks that a result no rule changed is kept as the
// step's bytes.
func TestLineUnchanged(t *testing.T) {
	raw := line(`"outputs":{"findings":[{"rule_id":"r","path":"a"}]}`, `"phase":"x"`)
	v := result.Check([]byte(raw), result.Options{Request: request("atlas_scan"), ArtifactsDir: os.TempDir()})
	if string(v.Line) != raw {
		t.Errorf("Line = %s; want the step's bytes %s", v.Line, raw)
	}
}
