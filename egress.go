package step

import (
	"fmt"
	"path/filepath"
)

// EgressRecord counts the requests of an attempt's egress proxy, in the
// record's "egress": how many the policy allowed (some may then have
// failed: the name did not resolve, the host did not answer) and how many
// it refused, and the log that has each one, relative to the attempt
// folder. Present only when the step ran behind the proxy (a network
// allowlist).
type EgressRecord struct {
	Allowed int64  `json:"allowed"`
	Refused int64  `json:"refused"`
	Log     string `json:"log"`
}

// recordEgress records what the egress proxy saw, once it is closed, and
// warns when its log reached the cap.
func (at *attempt) recordEgress() {
	e, ok := at.sb.Egress()
	if !ok {
		return
	}
	rec := &EgressRecord{Allowed: e.Allowed, Refused: e.Refused, Log: "egress.jsonl"}
	if e.Log != "" {
		if rel, err := filepath.Rel(at.a.OutDir, e.Log); err == nil {
			rec.Log = rel
		}
	}
	if at.rec.Egress != nil { // an earlier sandbox of the attempt (the handshake's)
		rec.Allowed += at.rec.Egress.Allowed
		rec.Refused += at.rec.Egress.Refused
	}
	at.rec.Egress = rec
	if e.Truncated {
		at.warn("log_truncated", fmt.Sprintf("egress.jsonl went past log_cap_bytes (%d bytes of %d kept); later requests were counted in egress, not logged", e.Bytes, e.Total))
	}
}
