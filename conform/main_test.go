package conform_test

import (
	"context"
	"os"
	"testing"

	"kusaw.dev/step/sandbox"
)

// TestMain lets the test binary serve as the runner's own binary inside a
// sandbox (its supervisor and bridge), as kusaw-step does, so that the
// battery can run attempts with Sandbox "auto".
func TestMain(m *testing.M) {
	if code, ok := sandbox.RunHelper(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}
