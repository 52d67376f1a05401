package handshake_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"kusaw.dev/step/schemas"
)

// The test binary is also every fake step: TestMain runs the fake that
// fakeVar names instead of the tests. The variables are not KUSAW_*,
// which Run removes from the step's environment.
const (
	fakeVar   = "HANDSHAKE_TEST_FAKE"   // which fake to run
	stdoutVar = "HANDSHAKE_TEST_STDOUT" // what "print" prints on stdout
	stderrVar = "HANDSHAKE_TEST_STDERR" // what "print" prints on stderr
	exitVar   = "HANDSHAKE_TEST_EXIT"   // the status "print" exits with
	pidsVar   = "HANDSHAKE_TEST_PIDS"   // file "hang" and "held-open" write their pids to
	sleepVar  = "HANDSHAKE_TEST_SLEEP"  // makes the binary a grandchild that sleeps this long
)

// fakes are the fake steps, by name. Each returns its exit status.
var fakes = map[string]func() int{
	"print":     fakePrint,
	"hang":      fakeHang,
	"held-open": fakeHeldOpen,
}

// usedFakes records the fakes a test started.
var usedFakes sync.Map

func TestMain(m *testing.M) {
	if d := os.Getenv(sleepVar); d != "" {
		sleep(d)
		os.Exit(0)
	}
	if name := os.Getenv(fakeVar); name != "" {
		os.Exit(runFake(name))
	}
	code := m.Run()
	if code == 0 && allTestsRan() {
		for name := range fakes {
			if _, ok := usedFakes.Load(name); !ok {
				fmt.Fprintf(os.Stderr, "fake step %q is registered but no test used it\n", name)
				code = 1
			}
		}
	}
	os.Exit(code)
}

// allTestsRan reports whether no -run or -skip flag narrowed the tests.
func allTestsRan() bool {
	return flag.Lookup("test.run").Value.String() == "" && flag.Lookup("test.skip").Value.String() == ""
}

// runFake checks what every handshake step must see, then runs the fake.
func runFake(name string) int {
	if err := checkHandshakeEnv(); err != nil {
		fmt.Fprintf(os.Stderr, "fake step %s: %v\n", name, err)
		return 97
	}
	fake, ok := fakes[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "no fake step %q\n", name)
		return 98
	}
	return fake()
}

// checkHandshakeEnv checks the step's side of the contract: every
// "handshake and attempt" variable set (KUSAW_PROTOCOL=2, KUSAW_HANDSHAKE=1,
// the others empty), KUSAW_SANDBOX set and empty, and stdin empty.
func checkHandshakeEnv() error {
	want := map[string]string{"KUSAW_PROTOCOL": "2", "KUSAW_HANDSHAKE": "1"}
	for _, v := range schemas.EnvVars() {
		if v.When != "handshake and attempt" {
			continue
		}
		if got, ok := os.LookupEnv(v.Name); !ok || got != want[v.Name] {
			return fmt.Errorf("%s=%q (set: %v); want %q", v.Name, got, ok, want[v.Name])
		}
	}
	if got, ok := os.LookupEnv("KUSAW_SANDBOX"); !ok || got != "" {
		return fmt.Errorf("KUSAW_SANDBOX=%q (set: %v); want it set and empty", got, ok)
	}
	if in, err := io.ReadAll(os.Stdin); err != nil || len(in) > 0 {
		return fmt.Errorf("stdin gave %q, %v; want it empty", in, err)
	}
	return nil
}

// fakePrint prints $HANDSHAKE_TEST_STDOUT and $HANDSHAKE_TEST_STDERR as they
// are and exits with $HANDSHAKE_TEST_EXIT.
func fakePrint() int {
	os.Stderr.WriteString(os.Getenv(stderrVar))
	os.Stdout.WriteString(os.Getenv(stdoutVar))
	code, _ := strconv.Atoi(os.Getenv(exitVar))
	return code
}

// fakeHang starts a grandchild that holds stdout, writes both pids and
// never answers.
func fakeHang() int {
	child, err := startSleeper()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	writePids(os.Getpid(), child)
	time.Sleep(5 * time.Minute)
	return 0
}

// fakeHeldOpen answers, then exits and leaves behind a grandchild that
// holds stdout open.
func fakeHeldOpen() int {
	child, err := startSleeper()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	writePids(os.Getpid(), child)
	os.Stdout.WriteString(okLine + "\n")
	return 0
}

// startSleeper starts the test binary as a sleeping grandchild in the
// fake's process group, with the fake's stdout and stderr.
func startSleeper() (int, error) {
	exe, err := os.Executable()
	if err != nil {
		return 0, err
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), sleepVar+"=5m")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	return cmd.Process.Pid, nil
}

// writePids writes "leader child" to $HANDSHAKE_TEST_PIDS, atomically.
func writePids(leader, child int) {
	name := os.Getenv(pidsVar)
	if name == "" {
		return
	}
	tmp := name + ".tmp"
	if err := os.WriteFile(tmp, fmt.Appendf(nil, "%d %d", leader, child), 0o644); err == nil {
		os.Rename(tmp, name)
	}
}

func sleep(d string) {
	if dur, err := time.ParseDuration(d); err == nil {
		time.Sleep(dur)
	}
}

// okLine is a minimal valid handshake.
const okLine = `{"type":"handshake","name":"fake","version":"1.0.0","interactive":false,"protocol_versions":[2]}`

// fakeStep returns the argv and base environment that make Run start the
// fake step name, with the extra environment env.
func fakeStep(t *testing.T, name string, env ...string) (argv, base []string) {
	t.Helper()
	if _, ok := fakes[name]; !ok {
		t.Fatalf("no fake step %q", name)
	}
	usedFakes.Store(name, true)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return []string{exe}, append(os.Environ(), append([]string{fakeVar + "=" + name, quickExit()}, env...)...)
}

// quickExit returns a GORACE setting that keeps a race-enabled fake from
// sleeping for a second before it exits (atexit_sleep_ms defaults to 1000).
func quickExit() string {
	return "GORACE=" + strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0")
}

// printStep is fakeStep for "print": the step prints stdout and exits 0.
func printStep(t *testing.T, stdout string, env ...string) (argv, base []string) {
	t.Helper()
	return fakeStep(t, "print", append([]string{stdoutVar + "=" + stdout}, env...)...)
}

// readPids reads the pids a fake wrote to file; ok is false when it did
// not get that far.
func readPids(t *testing.T, file string) (pids []int, ok bool) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, false
	}
	for _, f := range strings.Fields(string(data)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("pid file %s holds %q", file, data)
		}
		pids = append(pids, pid)
	}
	return pids, len(pids) == 2
}

// waitGone waits, at most 30 s, until none of pids is a live process.
func waitGone(t *testing.T, pids ...int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for _, pid := range pids {
		for alive(pid) {
			if time.Now().After(deadline) {
				t.Errorf("process %d still runs 30s after Run returned", pid)
				syscall.Kill(pid, syscall.SIGKILL)
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// alive reports whether pid is a process that has not exited. A zombie
// (exited, not yet reaped by whoever inherited it) counts as gone; on
// systems without /proc, kill(pid, 0) alone decides.
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return !os.IsNotExist(err) || !fileExists("/proc/self/stat")
	}
	i := bytes.LastIndexByte(stat, ')') // the state follows "pid (comm) "
	return i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z'
}

func fileExists(name string) bool {
	_, err := os.Stat(name)
	return err == nil
}

// linkTestBinary puts the test binary at dir/name (a hard link, or a copy
// where links do not work) and returns its path. A test that calls it
// must not be parallel: a copy is written, and a fork elsewhere in the
// process while it is open for writing would make exec fail with ETXTBSY.
func linkTestBinary(t *testing.T, dir, name string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if os.Link(exe, path) == nil {
		return path
	}
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}
