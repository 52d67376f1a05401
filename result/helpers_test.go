package result_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"kusaw.dev/step/protocol"
	"kusaw.dev/step/schemas"
)

// line is an ok result line with the extra members fields.
func line(fields ...string) string { return lineStatus("ok", fields...) }

// lineStatus is a result line of status with the extra members fields.
func lineStatus(status string, fields ...string) string {
	head := fmt.Sprintf(`{"type":"result","protocol_version":2,"status":%q,"reason_code":"done","message":"all good"`, status)
	for _, f := range fields {
		head += "," + f
	}
	return head + "}"
}

// outputsOfSize is an outputs member whose value is exactly n bytes.
func outputsOfSize(n int) string {
	const empty = `{"pad":""}`
	return `"outputs":{"pad":"` + strings.Repeat("x", n-len(empty)) + `"}`
}

// effectsOf is an effects member of n copies of effect.
func effectsOf(n int, effect string) string {
	items := make([]string, n)
	for i := range items {
		items[i] = effect
	}
	return `"effects":[` + strings.Join(items, ",") + "]"
}

// recoveryOf is a recovery member of the items.
func recoveryOf(items ...string) string { return `"recovery":[` + strings.Join(items, ",") + "]" }

func item(title, command string) string {
	return fmt.Sprintf(`{"title":%q,"command":%q}`, title, command)
}

// request is a request of mode with no effects allowed.
func request(mode string) *protocol.Request {
	return &protocol.Request{ProtocolVersion: 2, Mode: mode, Limits: protocol.Limits{TimeLeftMS: 60000}}
}

// withEffects is a request that allows run.note (local, text required),
// gate.ask (outside, draft-07, no schema needed) and broken.kind (a schema
// that refers to itself in place).
func withEffects(mode string) *protocol.Request {
	r := request(mode)
	r.Effects = &protocol.Effects{Mode: "dry_run", Allowed: []protocol.EffectKind{
		{Kind: "run.note", Scope: "local", Schema: jsontext.Value(`{"type":"object","required":["text"],"properties":{"text":{"type":"string"}}}`)},
		{Kind: "gate.ask", Scope: "outside", Schema: jsontext.Value(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"q":{"$ref":"#/definitions/q"}},"definitions":{"q":{"type":"string","maxLength":5}}}`)},
		{Kind: "free", Scope: "local"},
		{Kind: "broken.kind", Scope: "local", Schema: jsontext.Value(`{"$ref":"#"}`)},
	}}
	return r
}

// triageRequest is a triage request whose context.triage.groups is groups
// (a JSON value), or absent when groups is "".
func triageRequest(groups string) *protocol.Request {
	r := request("triage")
	triage := `{"batch_id":"b1","items":[{"id":"a","path":"/b1/a.md","title":"A"}],"repos":["main"]`
	if groups != "" {
		triage += `,"groups":` + groups
	}
	r.Context.Unknown = jsontext.Value(`{"triage":` + triage + `}}`)
	return r
}

// withContext is a request of mode whose context carries ctx, the members
// of a JSON object besides task and steps.
func withContext(mode, ctx string) *protocol.Request {
	r := request(mode)
	r.Context.Unknown = jsontext.Value("{" + ctx + "}")
	return r
}

func withOutputsMax(n int64) *protocol.Request {
	r := request("pipeline")
	r.Limits.OutputsMaxBytes = &n
	return r
}

// compile compiles a step-supplied schema or fails the test.
func compile(t testing.TB, src string) *schemas.Schema {
	t.Helper()
	doc, err := protocol.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	s, err := schemas.Compile("outputs_schema", doc)
	if err != nil {
		t.Fatalf("Compile(%s) = %v", src, err)
	}
	return s
}

// pngHeader is the start of every PNG file.
const pngHeader = "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"

// artifactsFixture builds, under a temporary root:
//
//	art/ok.txt, art/shot.png (a PNG header), art/sub/ (a directory),
//	art/inside -> ok.txt, art/escape -> ../secret.txt,
//	art/sibling -> ../art2/secret.txt (a prefix of art, not inside it),
//	art/dangling -> missing.txt, art/..dots (a file whose name starts with ..),
//	secret.txt, art2/secret.txt, link-to-art -> art
//
// and returns root/art and root.
func artifactsFixture(t testing.TB) (dir, root string) {
	t.Helper()
	root = t.TempDir()
	dir = filepath.Join(root, "art")
	for _, d := range []string{dir, filepath.Join(dir, "sub"), filepath.Join(root, "art2")} {
		must(t, os.MkdirAll(d, 0o755))
	}
	files := map[string]string{
		"art/ok.txt": "hello\n", "art/shot.png": pngHeader, "art/..dots": "x",
		"secret.txt": "secret", "art2/secret.txt": "secret",
	}
	for name, body := range files {
		must(t, os.WriteFile(filepath.Join(root, name), []byte(body), 0o644))
	}
	links := map[string]string{
		"art/inside": "ok.txt", "art/escape": "../secret.txt", "art/sibling": "../art2/secret.txt",
		"art/dangling": "missing.txt", "link-to-art": "art",
	}
	for name, target := range links {
		must(t, os.Symlink(target, filepath.Join(root, name)))
	}
	return dir, root
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
