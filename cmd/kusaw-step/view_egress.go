package main

import (
	"fmt"
	"io"
	"path/filepath"

	step "kusaw.dev/step"
)

// egressLine prints, for a step that ran behind the egress proxy, how
// many of its requests were allowed and refused, and where each is logged.
func egressLine(w io.Writer, rec *step.Record, dir string) {
	e := rec.Egress
	if e == nil {
		return
	}
	fmt.Fprintf(w, "%-9s%d allowed, %d refused (each in %s)\n", "egress", e.Allowed, e.Refused, filepath.Join(dir, e.Log))
}
