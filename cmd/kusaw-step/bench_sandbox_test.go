package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// benchFakes are the fake steps of the masker and artifact benchmarks:
// each answers its own handshake.
var benchFakes = map[string]func(){
	"artifacts-one":      func() { artifactFlood(false) },
	"artifacts-distinct": func() { artifactFlood(true) },
	"stderr-flood":       stderrFlood,
}

// benchHandshake declares what the bench fakes need, the secret included.
const benchHandshake = `{"type":"handshake","name":"bench","version":"0.1.0","interactive":false,"protocol_versions":[2],` +
	`"needs_env":[{"name":"STEP_TEST_FAKE","secret":false},{"name":"GORACE","secret":false},{"name":"BENCH_FLOOD_MIB","secret":false},{"name":"BENCH_SECRET","secret":true}]}`

func benchHandshakeOr() bool {
	if os.Getenv("KUSAW_HANDSHAKE") == "1" {
		fmt.Println(benchHandshake)
		return true
	}
	return false
}

// artifactFlood prints 1M artifact events, naming one file or (distinct)
// a new name each time (1 in 1,000 of them exists, so the verdict is
// artifact_invalid), then a result.
func artifactFlood(distinct bool) {
	if benchHandshakeOr() {
		return
	}
	dir := os.Getenv("KUSAW_ARTIFACTS_DIR")
	os.WriteFile(filepath.Join(dir, "one.txt"), []byte("x"), 0o644)
	w := bufio.NewWriterSize(os.Stdout, 64<<10)
	for i := range 1_000_000 {
		name := "one.txt"
		if distinct {
			name = "f" + strconv.Itoa(i) + ".txt"
			if i%1000 == 0 {
				os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644)
			}
		}
		w.WriteString(`{"type":"artifact","path":"` + name + `","kind":"log"}` + "\n")
	}
	w.WriteString(`{"type":"result","protocol_version":2,"status":"ok","reason_code":"done","message":"published"}` + "\n")
	w.Flush()
}

// stderrFlood writes BENCH_FLOOD_MIB MiB of log lines to stderr, then a
// result.
func stderrFlood() {
	if benchHandshakeOr() {
		return
	}
	mib, _ := strconv.Atoi(os.Getenv("BENCH_FLOOD_MIB"))
	line := "2026-12-01T19:42:59Z INFO compiling pkg/foo/bar.go: 42 files, 97% done (C:\\tmp\\x) retrying in 3s\n"
	w := bufio.NewWriterSize(os.Stderr, 64<<10)
	for n := 0; n < mib<<20; n += len(line) {
		w.WriteString(line)
	}
	w.Flush()
	fmt.Println(`{"type":"result","protocol_version":2,"status":"ok","reason_code":"done","message":"flooded"}`)
}

// runBench runs kusaw-step as its own process on a bench fake and returns
// its wall time, CPU time (the runner's and its reaped children's) and
// peak RSS in KiB.
func runBench(b *testing.B, fake string, env []string, args ...string) (wall, cpu time.Duration, rssKiB int64) {
	b.Helper()
	out := filepath.Join(b.TempDir(), "attempt")
	argv := append(append([]string{"run", "--json", "--sandbox", "off", "--out", out}, args...), os.Args[0], fakeArg, fake)
	cmd := exec.Command(os.Args[0], argv...)
	cmd.Env = append(append(os.Environ(), "STEP_TEST_MAIN=1", "STEP_TEST_FAKE="+fake), env...)
	start := time.Now()
	outb, err := cmd.Output()
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() > exitFailed {
		b.Fatalf("kusaw-step run: %v\n%s", err, outb) // a verdict other than ok is fine
	}
	if bytes.Contains(outb, []byte(`"handshake_failed"`)) {
		b.Fatalf("kusaw-step run: the bench fake failed its handshake, so nothing was measured:\n%s", outb)
	}
	wall = time.Since(start)
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return wall, cpu, ru.Maxrss
}

// BenchmarkRunArtifactEvents runs kusaw-step over a step that prints 1M
// artifact events (one file, or a new name each) and reports the
// runner's peak RSS: issue 15 wants it under 32 MiB.
func BenchmarkRunArtifactEvents(b *testing.B) {
	for _, fake := range []string{"artifacts-one", "artifacts-distinct"} {
		b.Run(fake, func(b *testing.B) {
			for range b.N {
				wall, _, rss := runBench(b, fake, nil)
				b.ReportMetric(float64(rss)/1024, "peak-RSS-MiB")
				b.ReportMetric(1e6/wall.Seconds(), "events/s")
				if rss >= 32<<10 {
					b.Errorf("peak RSS %.1f MiB over 1M artifact events; want under 32 MiB", float64(rss)/1024)
				}
			}
		})
	}
}

// BenchmarkRunStderrMasking runs kusaw-step over a step that floods
// stderr (BENCH_FLOOD_MIB, default 256 MiB), without and with a secret to
// mask, and reports the cost of masking as the ratio of the two runs'
// CPU and wall times: issue 15 wants at most 1.5.
func BenchmarkRunStderrMasking(b *testing.B) {
	mib := os.Getenv("BENCH_FLOOD_MIB")
	if mib == "" {
		mib = "256"
	}
	env := []string{"BENCH_FLOOD_MIB=" + mib, "BENCH_SECRET=hunter2-very-secret"}
	var walls0, walls1, cpus0, cpus1 []time.Duration
	for range b.N {
		wall0, cpu0, _ := runBench(b, "stderr-flood", env)
		wall1, cpu1, _ := runBench(b, "stderr-flood", env, "--secret", "BENCH_SECRET")
		walls0, walls1 = append(walls0, wall0), append(walls1, wall1)
		cpus0, cpus1 = append(cpus0, cpu0), append(cpus1, cpu1)
	}
	// Medians of each: one slow run on a noisy machine does not make the
	// figure.
	cpu0, cpu1 := median(cpus0), median(cpus1)
	b.ReportMetric(cpu1.Seconds()/cpu0.Seconds(), "cpu-ratio")
	b.ReportMetric(median(walls1).Seconds()/median(walls0).Seconds(), "wall-ratio")
	b.ReportMetric(cpu0.Seconds(), "cpu-s-plain")
	b.ReportMetric(cpu1.Seconds(), "cpu-s-masked")
}
