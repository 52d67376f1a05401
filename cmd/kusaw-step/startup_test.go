package main

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
)

// initLine is a line of GODEBUG=inittrace=1: "init PKG @T ms, C ms clock,
// B bytes, A allocs".
var initLine = regexp.MustCompile(`(?m)^init (\S+) @.* (\d+) allocs$`)

// maxInitAllocs bounds the allocations of any one package's init: heavy
// work belongs in the first call that needs it, not in every process.
const maxInitAllocs = 1000

// Issue 15, item 1: no package init does heavy work in every process. The
// JSON Schema package compiled every draft's metaschema in its init (21,000
// allocations, ~40 ms), for every command. Allocations, not time, are
// counted: the count does not depend on how loaded the machine is.
func TestStartupInitsAreCheap(t *testing.T) {
	cmd := exec.Command(os.Args[0], "schema", "result")
	cmd.Env = append(os.Environ(), "STEP_TEST_MAIN=1", "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("kusaw-step schema result: %v\n%s", err, out)
	}
	lines := initLine.FindAllStringSubmatch(string(out), -1)
	if len(lines) < 10 {
		t.Fatalf("found %d init lines in the inittrace; want many:\n%.2000s", len(lines), out)
	}
	for _, m := range lines {
		if n, _ := strconv.Atoi(m[2]); n > maxInitAllocs {
			t.Errorf("package %s allocates %d times in its init; want at most %d", m[1], n, maxInitAllocs)
		}
	}
}
