package step_test

import (
	"os"
	"testing"

	"kusaw.dev/step/sandbox"
)

// TestLimits is issue 11 item 5: the process and memory bounds stop a
// step that goes over them, with a reason that names them, and the
// record says what the step used and the sandbox it had.
func TestLimits(t *testing.T) {
	needBwrap(t)
	tests := []struct {
		fake   string
		flags  sandbox.Flags
		status string
		reason string
	}{
		{"fork-many", sandbox.Flags{Mode: "bwrap", PidsMax: 40}, "fail", "pids_limit"},
		{"eat-memory", sandbox.Flags{Mode: "bwrap", MemoryMax: 64 << 20}, "killed", "memory_limit"},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			rec, _ := runAttempt(t, tt.fake, setup{sandbox: &sandbox.Options{Flags: tt.flags}})
			if rec.Sandbox == nil || rec.Sandbox.PidsMax == 0 && rec.Sandbox.MemoryMaxBytes == 0 {
				t.Skipf("no bound enforced here (no cgroup, not root): sandbox %+v", rec.Sandbox)
			}
			if rec.Status != tt.status || rec.ReasonCode != tt.reason {
				t.Errorf("verdict %s/%s %q; want %s/%s\n%s", rec.Status, rec.ReasonCode, rec.Message, tt.status, tt.reason, rec.Diagnosis)
			}
			if rec.Resources == nil || rec.Resources.CPUms == 0 && rec.Resources.PeakMemoryBytes == 0 {
				t.Errorf("resources %+v; want what the step used", rec.Resources)
			}
			if s := rec.Sandbox; s.Backend != "bwrap" || s.Network != "open" || os.Getuid() == 0 && s.UID != sandbox.UnprivilegedUID {
				t.Errorf("sandbox %+v; want bwrap, open, and uid 65534 as root", s)
			}
		})
	}
}
