package slipway_test

import (
	"errors"
	"os/exec"

	"kusaw.dev/step/internal/slipsim/schemacheck"
)

// validateRun checks the Run's status, which holds every Action and every
// Outcome the host submitted, against the schemas Slipway publishes; it
// skips with a message when they are not present.
func (h *harness) validateRun(id string) {
	h.t.Helper()
	c, err := schemacheck.Open(schemacheck.DefaultDir())
	if errors.Is(err, schemacheck.ErrNoSchemas) {
		h.t.Logf("not validating against the published schemas: %v", err)
		return
	}
	if err != nil {
		h.t.Fatal(err)
	}
	out, err := exec.Command(h.bin, "status", id, "--root", h.root, "--json").Output()
	if err != nil {
		h.t.Fatalf("status %s: %v", id, err)
	}
	if err := c.Validate("runStatus", out); err != nil {
		h.t.Errorf("the Run's status (with the submitted outcomes) does not validate: %v", err)
	}
}
