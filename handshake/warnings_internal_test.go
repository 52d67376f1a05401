package handshake

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"kusaw.dev/step/schemas"
)

// TestKnownFeaturesMatchSchema keeps knownFeatures in step with the
// handshake schema, whose description of features lists the known values.
func TestKnownFeaturesMatchSchema(t *testing.T) {
	t.Parallel()
	src, err := schemas.Source("handshake")
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Properties struct {
			Features struct{ Description string }
		}
	}
	if err := json.Unmarshal(src, &s); err != nil {
		t.Fatal(err)
	}
	desc := s.Properties.Features.Description
	_, list, ok := strings.Cut(desc, "Known values: ")
	if !ok {
		t.Fatalf("features description %q lists no known values", desc)
	}
	want := strings.Split(strings.TrimSuffix(list, "."), ", ")
	if !slices.Equal(knownFeatures, want) {
		t.Errorf("knownFeatures = %q; the schema lists %q", knownFeatures, want)
	}
}

func TestPrintable(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{"plain {\"a\":1}", "plain {\"a\":1}"},
		{"tab\tand\nnewline", "tab\tand\nnewline"},
		{"\ufeff{}", `\ufeff{}`},
		{"bad \xff byte", `bad \xff byte`},
		{"bell\a esc\x1b", `bell\u0007 esc\u001b`},
		{"café", "café"},
	} {
		if got := printable([]byte(tt.in)); got != tt.want {
			t.Errorf("printable(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}
