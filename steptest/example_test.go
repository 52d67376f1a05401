package steptest_test

import (
	"testing"

	"kusaw.dev/step/conform"
	"kusaw.dev/step/steptest"
)

// A step author's test: build the step, run it once, and run the battery.
func Example() {
	var t *testing.T // the test's own
	bin := steptest.Build(t, "kusaw.dev/step/examples/steps/hello")
	a := steptest.Run(t, []string{bin}, steptest.Options{Config: `{"name":"Ada"}`})
	a.Want(t, "ok", "greeted")
	steptest.Conform(t, []string{bin}, conform.Options{})
}
