package sandbox

import (
	"io"
	"strings"
	"syscall"
	"testing"
)

// stderrText is a stderr-like text: log lines with paths, numbers, a few
// backslashes and percent signs, and no secret.
var stderrText = []byte(strings.Repeat("2026-12-01T19:42:59Z INFO compiling pkg/foo/bar.go: 42 files, 97% done (C:\\tmp\\x) retrying in 3s\n", 1<<14))

// BenchmarkMasker measures the masker alone on a stderr flood in 64 KiB
// writes: without secrets (a pass-through), and with one and three.
// Issue 15: the masker is a no-op without secrets, chunked with them.
func BenchmarkMasker(b *testing.B) {
	for _, bc := range []struct {
		name    string
		secrets []string
	}{
		{"none", nil},
		{"one", []string{"hunter2-very-secret"}},
		{"three", []string{"hunter2-very-secret", "ghp_0123456789abcdefABCDEF", `p@ss"word<&>-0123456789`}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			m := NewMasker(io.Discard, bc.secrets)
			b.SetBytes(int64(len(stderrText)))
			defer reportCPU(b, int64(len(stderrText)))()
			for b.Loop() {
				for i := 0; i < len(stderrText); i += 64 << 10 {
					m.Write(stderrText[i:min(i+64<<10, len(stderrText))])
				}
				m.Flush()
			}
		})
	}
}

// reportCPU reports the process's CPU time per byte (cpu-ns/B) from the
// returned function: on a machine shared with other work, wall time per
// byte says more about the neighbours than about the code.
func reportCPU(b *testing.B, bytesPerOp int64) func() {
	start := cpuTime()
	return func() {
		b.ReportMetric(float64(cpuTime()-start)/float64(int64(b.N)*bytesPerOp), "cpu-ns/B")
	}
}

func cpuTime() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}
