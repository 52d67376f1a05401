package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// flood writes size bytes of small progress events to w.
func flood(w io.Writer, size int) {
	bw := bufio.NewWriterSize(w, 64<<10)
	line := `{"type":"progress","message":"flooding the runner with events","percent":50}` + "\n"
	for n := 0; n < size; n += len(line) {
		bw.WriteString(line)
	}
	bw.Flush()
}

// BenchmarkRunFlood runs kusaw-step as its own process over a step that
// prints 300 MB of events, and reports the runner's peak RSS: it must stay
// under 64 MiB whatever the step prints.
func BenchmarkRunFlood(b *testing.B) {
	for range b.N {
		out := filepath.Join(b.TempDir(), "attempt")
		cmd := exec.Command(os.Args[0], "run", "--json", "--out", out, os.Args[0])
		cmd.Env = append(os.Environ(), "STEP_TEST_MAIN=1", "STEP_TEST_FAKE=flood")
		if err := cmd.Run(); err != nil {
			b.Fatalf("kusaw-step run: %v", err)
		}
		rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss // KiB on Linux
		b.ReportMetric(float64(rss)/1024, "peak-RSS-MiB")
		b.SetBytes(300 << 20)
		if rss > 64<<10 {
			b.Errorf("peak RSS %d MiB over a 300 MB flood; want under 64 MiB", rss>>10)
		}
	}
}
