package schemas

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// The runner trusts the embedded schemas (issue 15, item 1): this test is
// where they are checked against their metaschema instead, every kind.
func TestEmbeddedSchemasAreValid(t *testing.T) {
	c := newCompiler(false)
	for _, kind := range Kinds() {
		name, _ := file(kind)
		if _, err := c.Compile(BaseURL + name); err != nil {
			t.Errorf("%s: %v", kind, err)
		}
	}
}

// A trusting compiler skips the metaschema; a checking one does not. The
// schema breaks the metaschema harmlessly: a title must be a string.
func TestTrustSkipsTheMetaschema(t *testing.T) {
	for _, trust := range []bool{true, false} {
		c := newCompiler(trust)
		url := BaseURL + "test/bad-title.json"
		if err := c.AddResource(url, map[string]any{"title": 5.0}); err != nil {
			t.Fatal(err)
		}
		_, err := c.Compile(url)
		if trust && err != nil || !trust && (err == nil || !strings.Contains(err.Error(), "title")) {
			t.Errorf("trust %v: Compile = %v; want %s", trust, err, map[bool]string{true: "no error", false: "an error about the title"}[trust])
		}
	}
}

// Each kind is compiled on first use, alone: validating a handshake does
// not compile the request's schema.
func TestCompileOnlyWhatIsUsed(t *testing.T) {
	forgetCompiled()
	if err := Validate("handshake", map[string]any{}); err == nil {
		t.Fatal("Validate(handshake, {}) = nil; want problems")
	}
	if kinds := compiledKinds(); !slices.Equal(kinds, []string{"handshake"}) {
		t.Errorf("compiled kinds after one handshake: %v; want only handshake", kinds)
	}
}

// Precompile compiles what it is asked for, and nothing else, and names
// an unknown kind.
func TestPrecompile(t *testing.T) {
	forgetCompiled()
	if err := Precompile("handshake", "result"); err != nil {
		t.Fatal(err)
	}
	if kinds := compiledKinds(); !slices.Equal(kinds, []string{"handshake", "result"}) {
		t.Errorf("compiled kinds: %v; want handshake and result", kinds)
	}
	if err := Precompile("nope"); !errors.Is(err, ErrUnknownKind) {
		t.Errorf("Precompile(nope) = %v; want ErrUnknownKind", err)
	}
}

// forgetCompiled starts the package's compiled schemas afresh.
func forgetCompiled() {
	compiled.Lock()
	defer compiled.Unlock()
	compiled.c = nil
	compiled.kinds.Clear()
}

// compiledKinds lists the kinds compiled so far, sorted.
func compiledKinds() []string {
	var kinds []string
	compiled.kinds.Range(func(k, _ any) bool {
		kinds = append(kinds, k.(string))
		return true
	})
	slices.Sort(kinds)
	return kinds
}
