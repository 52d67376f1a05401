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
