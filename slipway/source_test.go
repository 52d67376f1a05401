package slipway_test

import (
	"os"
	"testing"
)

// sourceEnvelope returns a valid issue-backed source with five sections,
// one file for the simulator's tests and the step's.
func sourceEnvelope(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../internal/slipsim/testdata/source-envelope.json")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
