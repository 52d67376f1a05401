package main

// The side-by-side benchmarks of issue 15: each runs the runner and a
// baseline (the bare step, cat, a Go program that does nothing) in turns,
// in the same benchmark, and reports their ratio, so that a noisy machine
// slows both alike. `make bench` runs them; TestMain prints their figures
// as the table of the README's Performance section.

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// benchSecret is the secret the masking benchmarks hand the step.
const benchSecret = "s3cr3t-bench-value-0123456789"

// benchStep is the fake step of the stream benchmarks, run as
// STEP_TEST_FAKE=bench-KIND-N: it prints N units of KIND as fast as it
// can, then a result. Without KUSAW_HANDSHAKE it is also the producer that
// cat reads in the baselines.
func benchStep(fake string) {
	if os.Getenv("KUSAW_HANDSHAKE") == "1" {
		fmt.Println(`{"type":"handshake","name":"bench","version":"1","interactive":false,"protocol_versions":[2],` +
			`"needs_env":[{"name":"STEP_TEST_FAKE","secret":false},{"name":"BENCH_SECRET","secret":true}]}`)
		os.Exit(0)
	}
	parts := strings.Split(fake, "-") // bench, kind, count
	n, _ := strconv.Atoi(parts[2])
	line, w := benchLines[parts[1]], os.Stdout
	switch parts[1] {
	case "stderr":
		w = os.Stderr
	case "artifacts":
		if dir := os.Getenv("KUSAW_ARTIFACTS_DIR"); dir != "" {
			os.MkdirAll(dir, 0o755)
			os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)
		}
	}
	writeRepeated(w, line, n)
	fmt.Println(`{"type":"result","protocol_version":2,"status":"ok","reason_code":"done","message":"flooded"}`)
	os.Exit(0)
}

// benchLines are the units the bench step repeats, by kind.
var benchLines = map[string]string{
	// 60 bytes with its newline: the progress flood.
	"progress": `{"type":"progress","message":"flooding the runner","percent":5}` + "\n",
	// One 64 KiB event.
	"big": `{"type":"progress","message":"` + strings.Repeat("m", 64<<10-33) + `"}` + "\n",
	// Five progress events and an artifact, all naming one file.
	"artifacts": strings.Repeat(`{"type":"progress","message":"flooding the runner","percent":5}`+"\n", 5) +
		`{"type":"artifact","path":"a.txt","kind":"log"}` + "\n",
	// 100 bytes of log on stderr.
	"stderr": strings.Repeat("e", 99) + "\n",
}

// writeRepeated writes unit n times to w in chunks of about 64 KiB.
func writeRepeated(w io.Writer, unit string, n int) {
	per := max(1, (64<<10)/len(unit))
	chunk := []byte(strings.Repeat(unit, per))
	for n > 0 {
		k := min(n, per)
		if _, err := w.Write(chunk[:k*len(unit)]); err != nil {
			os.Exit(1)
		}
		n -= k
	}
}

// buildOnce builds the real kusaw-step (not this test binary, whose
// start-up differs) and a Go program that does nothing, once per process.
var buildOnce = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "kusaw-bench-")
	if err != nil {
		return "", err
	}
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "kusaw-step"), ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0") // static, as make build makes it
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	hello := filepath.Join(dir, "hello")
	if err := os.MkdirAll(hello, 0o755); err != nil {
		return "", err
	}
	os.WriteFile(filepath.Join(hello, "go.mod"), []byte("module hello\n"), 0o644)
	os.WriteFile(filepath.Join(hello, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644)
	cmd := exec.Command("go", "build", "-o", filepath.Join(dir, "hello-go"), ".")
	cmd.Dir = hello
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build hello: %v\n%s", err, out)
	}
	return dir, nil
})

// binaries returns the paths of kusaw-step and of the Go program that
// does nothing.
func binaries(b *testing.B) (runner, hello string) {
	b.Helper()
	dir, err := buildOnce()
	if err != nil {
		b.Fatal(err)
	}
	return filepath.Join(dir, "kusaw-step"), filepath.Join(dir, "hello-go")
}

// measure is one process run: wall time, CPU time and peak RSS.
type measure struct {
	wall, cpu time.Duration
	rssKiB    int64
}

// runMeasured runs cmd, which must succeed, and measures it.
func runMeasured(b *testing.B, cmd *exec.Cmd) measure {
	b.Helper()
	var stderr bytes.Buffer
	if cmd.Stderr == nil {
		cmd.Stderr = &stderr
	}
	start := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, stderr.Bytes())
	}
	wall := time.Since(start)
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	rss := int64(ru.Maxrss) // KiB on Linux, bytes on macOS
	if runtime.GOOS == "darwin" {
		rss /= 1024
	}
	return measure{wall: wall, cpu: cpu, rssKiB: rss}
}

// runStep is a kusaw-step run of step with the attempt folder in dir.
func runStep(b *testing.B, runner, dir, step string, env []string, flags ...string) *exec.Cmd {
	b.Helper()
	out, err := os.MkdirTemp(dir, "attempt-")
	if err != nil {
		b.Fatal(err)
	}
	os.Remove(out)
	args := append([]string{"run", "--sandbox", "off", "--out", out}, flags...)
	cmd := exec.Command(runner, append(args, stepArgv(step, env)...)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Dir = dir
	return cmd
}

// stepArgv is the step's argv: the test binary as a fake is named in its
// arguments too (fakeArg), since its handshake sees no STEP_TEST_FAKE.
func stepArgv(step string, env []string) []string {
	for _, kv := range env {
		if name, ok := strings.CutPrefix(kv, "STEP_TEST_FAKE="); ok && step == os.Args[0] {
			return []string{step, fakeArg, name}
		}
	}
	return []string{step}
}

// median returns the median of xs, which it sorts.
func median(xs []time.Duration) time.Duration {
	slices.Sort(xs)
	return xs[len(xs)/2]
}

// BenchmarkStartup compares `kusaw-step run --sandbox off` on a trivial
// shell step with one bare exec of the step (target: at most 3×), and the
// CPU of handshake (--sandbox off, as the target was set; sandboxed too),
// validate and schema with a Go program that does nothing (target: at
// most 20 ms more).
func BenchmarkStartup(b *testing.B) {
	runner, hello := binaries(b)
	dir := b.TempDir()
	step := filepath.Join(dir, "trivial.sh")
	script := `#!/bin/sh
if [ "${KUSAW_HANDSHAKE:-}" = 1 ]; then
	echo '{"type":"handshake","name":"trivial","version":"1","interactive":false,"protocol_versions":[2]}'
	exit 0
fi
echo '{"type":"result","protocol_version":2,"status":"ok","reason_code":"done","message":"ok"}'
`
	result := filepath.Join(dir, "result.json")
	os.WriteFile(step, []byte(script), 0o755)
	os.WriteFile(result, []byte(`{"type":"result","protocol_version":2,"status":"ok","reason_code":"done","message":"ok"}`), 0o644)
	cmds := map[string]func() *exec.Cmd{
		"bare":      func() *exec.Cmd { return exec.Command(step) },
		"run":       func() *exec.Cmd { return runStep(b, runner, dir, step, nil) },
		"hello":     func() *exec.Cmd { return exec.Command(hello) },
		"handshake": func() *exec.Cmd { return exec.Command(runner, "handshake", "--sandbox", "off", step) },
		"sandboxed": func() *exec.Cmd { return exec.Command(runner, "handshake", step) },
		"version":   func() *exec.Cmd { return exec.Command(runner, "version") },
		"validate":  func() *exec.Cmd { return exec.Command(runner, "validate", "result", result) },
		"schema":    func() *exec.Cmd { return exec.Command(runner, "schema", "request") },
	}
	order := []string{"bare", "run", "hello", "version", "handshake", "sandboxed", "validate", "schema"}
	wall, cpu := map[string][]time.Duration{}, map[string][]time.Duration{}
	for b.Loop() {
		for range 5 {
			for _, name := range order {
				m := runMeasured(b, cmds[name]())
				wall[name] = append(wall[name], m.wall)
				cpu[name] = append(cpu[name], m.cpu)
			}
		}
	}
	bare, run := median(wall["bare"]), median(wall["run"])
	b.ReportMetric(ms(run), "run-ms")
	b.ReportMetric(ms(bare), "bare-ms")
	b.ReportMetric(float64(run)/float64(bare), "x-bare")
	table.add("trivial step, wall: run --sandbox off vs bare exec", msText(run), msText(bare), ratioText(float64(run)/float64(bare)), "≤ 3×")
	goStart := median(cpu["hello"])
	// What the runner's binary costs before any command does anything:
	// its packages' start-up, on top of Go's own (no target).
	version := median(cpu["version"])
	b.ReportMetric(ms(version-goStart), "version-extra-cpu-ms")
	table.add("version (the binary's own start), CPU: kusaw-step vs a Go program that does nothing", msText(version), msText(goStart), "+"+msText(version-goStart), "")
	for _, name := range []string{"handshake", "validate", "schema"} {
		c := median(cpu[name])
		b.ReportMetric(ms(c-goStart), name+"-extra-cpu-ms")
		table.add(name+", CPU: kusaw-step vs a Go program that does nothing", msText(c), msText(goStart), "+"+msText(c-goStart), "≤ +20 ms")
		if name == "handshake" {
			// The handshake's CPU counts the step's, which the bare
			// run measures: what is left is the runner's own.
			own := c - median(cpu["bare"])
			b.ReportMetric(ms(own-goStart), "handshake-own-extra-cpu-ms")
			table.add("  the same, the step's own CPU (its bare run's) aside", msText(own), msText(goStart), "+"+msText(own-goStart), "")
		}
	}
	// The handshake as run gives it: inside the sandbox, which costs a
	// supervisor, bwrap and the namespaces on top (no target).
	c := median(cpu["sandboxed"])
	b.ReportMetric(ms(c-goStart), "sandboxed-handshake-extra-cpu-ms")
	table.add("handshake in the sandbox, CPU: kusaw-step vs a Go program that does nothing", msText(c), msText(goStart), "+"+msText(c-goStart), "")
}

// streamCase is one stream benchmark: what the step prints, how the runner
// runs, and what the figure is.
type streamCase struct {
	slug   string // the sub-benchmark's name
	name   string
	fake   string   // STEP_TEST_FAKE
	units  int      // units the fake prints
	per    string   // "lines" or "MB": the figure's unit
	flags  []string // extra runner flags
	target string
	// alone adds the rate of the stream alone, start-up aside: for the
	// floods long enough that it is not lost in the noise of two starts.
	alone bool
}

var streamCases = []streamCase{
	{"progress", "60-byte progress flood, lines/s", "bench-progress-1000000", 1000000, "lines", nil, "≥ 0.35× cat", true},
	{"progress-json", "60-byte progress flood, --json (no view), lines/s", "bench-progress-1000000", 1000000, "lines", []string{"--json"}, "", true},
	{"progress-secret", "60-byte progress flood, 1 secret, lines/s", "bench-progress-1000000", 1000000, "lines", []string{"--secret", "BENCH_SECRET"}, "", true},
	{"64KiB", "64 KiB events, MB/s", "bench-big-1000", 1000, "MB", nil, "≥ 100 MB/s", true},
	{"stderr", "stderr log, MB/s", "bench-stderr-1000000", 1000000, "MB", nil, "", false},
	{"stderr-secret", "stderr log, 1 secret, MB/s", "bench-stderr-1000000", 1000000, "MB", []string{"--secret", "BENCH_SECRET"}, "≥ 0.67× no secret", false},
	{"artifacts", "1 in 6 an artifact event, lines/s", "bench-artifacts-100000", 600000, "lines", nil, "", true},
}

// BenchmarkStream compares the runner reading a step's output with cat
// copying the same output from the same step into a file.
func BenchmarkStream(b *testing.B) {
	for _, sc := range streamCases {
		b.Run(sc.slug, func(b *testing.B) {
			runner, _ := binaries(b)
			dir := b.TempDir()
			env := []string{"STEP_TEST_FAKE=" + sc.fake, "BENCH_SECRET=" + benchSecret}
			// The same step printing nothing, run alike: its time is the
			// start-up, which the stream alone does not pay.
			kind := strings.Split(sc.fake, "-")[1]
			idle := []string{"STEP_TEST_FAKE=bench-" + kind + "-0", "BENCH_SECRET=" + benchSecret}
			var runs, cats, idleRuns, idleCats []time.Duration
			var rss int64
			for b.Loop() {
				m := runMeasured(b, runStep(b, runner, dir, os.Args[0], env, sc.flags...))
				runs, rss = append(runs, m.wall), max(rss, m.rssKiB)
				cats = append(cats, catWall(b, dir, env))
				if sc.alone {
					idleRuns = append(idleRuns, runMeasured(b, runStep(b, runner, dir, os.Args[0], idle, sc.flags...)).wall)
					idleCats = append(idleCats, catWall(b, dir, idle))
				}
			}
			size := float64(sc.units)
			if sc.per == "MB" {
				size = float64(sc.units*len(benchLines[kind])) / 1e6
			}
			run, cat := size/median(runs).Seconds(), size/median(cats).Seconds()
			b.ReportMetric(run, sc.per+"/s")
			b.ReportMetric(cat, "cat-"+sc.per+"/s")
			b.ReportMetric(run/cat, "x-cat")
			b.ReportMetric(float64(rss)/1024, "peak-RSS-MiB")
			table.add(sc.name, rateText(run, sc.per), rateText(cat, sc.per)+" (cat)", ratioText(run/cat), sc.target)
			if sc.alone {
				streamAlone(b, sc, size, median(runs)-median(idleRuns), median(cats)-median(idleCats))
			}
			table.add("  peak RSS ("+sc.name+")", fmt.Sprintf("%.0f MiB", float64(rss)/1024), "", "", "< 32 MiB")
		})
	}
}

// streamAlone reports the rate of the stream alone, start-up aside: size
// in runFor for the runner, in catFor for cat. A time that is not positive
// is noise, and makes no figure.
func streamAlone(b *testing.B, sc streamCase, size float64, runFor, catFor time.Duration) {
	if runFor <= 0 || catFor <= 0 {
		return
	}
	run, cat := size/runFor.Seconds(), size/catFor.Seconds()
	b.ReportMetric(run/cat, "x-cat-stream-only")
	table.add("  the stream alone, start-up aside ("+sc.name+")", rateText(run, sc.per), rateText(cat, sc.per)+" (cat)", ratioText(run/cat), "")
}

// catWall runs the bench step alone, its stdout piped through cat into a
// file (and its stderr into another), and returns the wall time.
func catWall(b *testing.B, dir string, env []string) time.Duration {
	b.Helper()
	out, err := os.Create(filepath.Join(dir, "cat.out"))
	if err != nil {
		b.Fatal(err)
	}
	defer out.Close()
	errLog, err := os.Create(filepath.Join(dir, "cat.err"))
	if err != nil {
		b.Fatal(err)
	}
	defer errLog.Close()
	step := exec.Command(os.Args[0])
	step.Env = append(os.Environ(), append(env, "KUSAW_PROTOCOL=2")...)
	step.Stderr = errLog
	cat := exec.Command("cat")
	cat.Stdout = out
	pipe, err := step.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cat.Stdin = pipe
	start := time.Now()
	if err := step.Start(); err != nil {
		b.Fatal(err)
	}
	if err := cat.Run(); err != nil {
		b.Fatal(err)
	}
	if err := step.Wait(); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}

// benchTable is the figures of the side-by-side benchmarks, printed after
// they ran; a figure benchmarked again replaces the earlier one.
type benchTable struct {
	mu   sync.Mutex
	rows [][5]string
}

var table benchTable

func (t *benchTable) add(figure, runner, baseline, ratio, target string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	row := [5]string{figure, runner, baseline, ratio, target}
	if i := slices.IndexFunc(t.rows, func(r [5]string) bool { return r[0] == figure }); i >= 0 {
		t.rows[i] = row
		return
	}
	t.rows = append(t.rows, row)
}

// print writes the table in Markdown, with the machine it ran on.
func (t *benchTable) print(w io.Writer) {
	if len(t.rows) == 0 {
		return
	}
	fmt.Fprintf(w, "\nSide by side, medians (%s):\n\n", machine())
	fmt.Fprintln(w, "| figure | kusaw-step | baseline | ratio | target |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, r := range t.rows {
		fmt.Fprintf(w, "| %s |\n", strings.Join(r[:], " | "))
	}
}

// machine describes the machine: CPU model, cores, load, Go version.
func machine() string {
	model := "unknown CPU"
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	load := ""
	if data, err := os.ReadFile("/proc/loadavg"); err == nil {
		load = ", load " + strings.Join(strings.Fields(string(data))[:3], " ")
	}
	return fmt.Sprintf("%s, %d cores%s, %s %s/%s", model, runtime.NumCPU(), load, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

func msText(d time.Duration) string { return fmt.Sprintf("%.1f ms", ms(d)) }

func ratioText(r float64) string { return fmt.Sprintf("%.2f×", r) }

func rateText(r float64, per string) string {
	if per == "lines" {
		return fmt.Sprintf("%.2f M lines/s", r/1e6)
	}
	return fmt.Sprintf("%.0f MB/s", r)
}
