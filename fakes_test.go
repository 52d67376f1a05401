package step_test

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// fakeArg is the first argument of the test binary run as a fake step:
// TEST-BINARY __fake NAME [ARG...]. A sandboxed handshake gets none of
// the runner's variables, so the name cannot travel in STEP_TEST_FAKE.
const fakeArg = "__fake"

// A fake step is the test binary itself, run with the arguments __fake
// NAME (see fakeArg) or with STEP_TEST_FAKE=name.
// Each fake answers the handshake like a good step unless its name says
// otherwise, then misbehaves in its own way.
var fakes = map[string]func(){
	"ok":       func() { events(3); result("ok", "done") },
	"polluted": func() { events(1); say("hello world"); result("ok", "done") },
	"huge-line": func() {
		say(`{"type":"progress","message":"` + strings.Repeat("x", 5<<20) + `"}`)
		result("ok", "done")
	},
	"no-result":           func() { events(2) },
	"exit-3":              func() { events(1); os.Stderr.WriteString("boom: the disk is full\n"); os.Exit(3) },
	"result-then-hang":    func() { result("ok", "done"); time.Sleep(time.Hour) },
	"grandchild":          grandchild(false),
	"daemon":              grandchild(true),
	"ignore-sigterm":      ignoreTerm,
	"polite-sigterm":      func() { events(1); waitTerm(); os.Exit(0) },
	"no-newline":          func() { events(1); fmt.Print(resultLine("ok", "done")) },
	"crlf":                func() { fmt.Print(`{"type":"progress","message":"a"}` + "\r\n" + resultLine("ok", "done") + "\r\n") },
	"invalid-utf8":        func() { say("{\"type\":\"progress\",\"message\":\"\xff\"}"); result("ok", "done") },
	"duplicate-key":       func() { say(`{"type":"progress","message":"a","message":"b"}`); result("ok", "done") },
	"bom":                 func() { say("\xef\xbb\xbf" + `{"type":"progress","message":"a"}`); result("ok", "done") },
	"two-results":         func() { result("ok", "done"); result("ok", "again") },
	"after-result":        func() { result("ok", "done"); events(1) },
	"unknown-event":       func() { say(`{"type":"thinking","message":"hmm"}`); result("ok", "done") },
	"missing-field":       func() { say(`{"type":"tool_call","tool":"bash"}`); result("ok", "done") },
	"bad-result":          func() { say(`{"type":"result","protocol_version":2,"status":"great","reason_code":"x","message":"m"}`) },
	"misspelt-result":     func() { say(`{"type":"result","protocol_version":2,"Status":"ok","reason_code":"x","message":"m"}`) },
	"never-reads":         func() { result("ok", "did not read") },
	"stderr-first":        func() { os.Stderr.Write(make([]byte, 1<<20)); io.Copy(io.Discard, os.Stdin); result("ok", "read") },
	"stdout-flood":        flood(os.Stdout, `{"type":"progress","message":"flooding the runner with events","percent":50}`+"\n"),
	"stderr-flood":        flood(os.Stderr, strings.Repeat("e", 99)+"\n"),
	"checks-request":      checkRequest,
	"hs-two-lines":        func() {},
	"hs-not-json":         func() {},
	"hs-hang":             func() {},
	"hs-v1":               func() {},
	"hs-bad-schema":       func() {},
	"outputs-invalid":     func() { say(resultLine("ok", "done")[:len(resultLine("ok", "done"))-1] + `,"outputs":{"greeting":5}}`) },
	"usage-and-outputs":   usageAndOutputs,
	"outputs-too-large":   func() { withResult(`"outputs":{"blob":"` + strings.Repeat("b", 64<<10) + `"}`) },
	"effects-not-allowed": func() { withResult(`"effects":[{"kind":"run.note","args":{"text":"hi"}}]`) },
	"artifact-missing":    func() { withResult(`"artifacts":[{"path":"nope.txt","kind":"log"}]`) },
	"artifact-escape":     artifactEscape,
	"artifact-evidence":   artifactEvidence,
	"sandboxed":           sandboxedFake,
	"prints-secret":       printsSecret,
	"needs-path":          func() { result("ok", "unreachable") },
	"mode-step":           modeStep,
	"step-files":          stepFilesFake,
	"reports-sandbox":     reportsSandbox,
	"resets-at":           func() { withResult(`"resets_at":"2026-01-02T15:04:05Z"`) },
	"scan-findings": func() {
		withResult(`"outputs":{"scanner":{"name":"s"},"findings":[{"rule_id":"aws-key","path":"a.go","start_line":1,"snippet":"AKIAFAKE"}]}`)
	},
	"egress":                egressFake,
	"leaks-encoded":         leaksEncoded,
	"secret-no-result":      secretNoResult,
	"artifacts-dir-to-root": artifactsDirToRoot,
	"many-artifacts":        manyArtifacts,
	"hs-hostile":            func() { result("ok", "done") },
	"list-fds":              listFds,
	"fork-many":             forkMany,
	"eat-memory":            eatMemory,
}

// handshakes are the fakes' answers when KUSAW_HANDSHAKE=1.
var handshakes = map[string]func(){
	"hs-two-lines": func() { say(handshakeLine); say(handshakeLine) },
	"hs-not-json":  func() { say("hello, I am a step") },
	"hs-hang":      func() { time.Sleep(time.Hour) },
	"hs-v1":        func() { say(strings.Replace(handshakeLine, `[2]`, `[1]`, 1)) },
	"hs-bad-schema": func() {
		say(strings.Replace(handshakeLine, `"outputs_schema":{"type":"object"`, `"outputs_schema":{"type":"objekt"`, 1))
	},
	"sandboxed":             func() { say(sandboxedHandshake) },
	"prints-secret":         func() { say(sandboxedHandshake) },
	"needs-path":            needsPathHandshake,
	"step-files":            func() { say(sandboxedHandshake) },
	"reports-sandbox":       func() { say(sandboxedHandshake) },
	"egress":                func() { say(sandboxedHandshake) },
	"leaks-encoded":         func() { say(sandboxedHandshake) },
	"secret-no-result":      func() { say(sandboxedHandshake) },
	"artifacts-dir-to-root": func() { say(sandboxedHandshake) },
	"hs-hostile":            hostileHandshake,
	"list-fds":              func() { say(sandboxedHandshake) },
}

const handshakeLine = `{"type":"handshake","name":"fake","version":"0.1.0","interactive":false,"protocol_versions":[2],` +
	`"outputs_schema":{"type":"object","properties":{"greeting":{"type":"string"}}}}`

// runFake runs the fake step name and exits.
func runFake(name string) {
	fake, ok := fakes[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "no fake step %q\n", name)
		os.Exit(2)
	}
	if os.Getenv("KUSAW_HANDSHAKE") == "1" {
		if hs, ok := handshakes[name]; ok {
			hs()
		} else {
			say(handshakeLine)
		}
		os.Exit(0)
	}
	fake()
	os.Exit(0)
}

func say(line string) { os.Stdout.WriteString(line + "\n") }

func events(n int) {
	for i := range n {
		say(fmt.Sprintf(`{"type":"progress","message":"step %d","percent":%d}`, i+1, (i+1)*100/n))
	}
}

func resultLine(status, msg string) string {
	return fmt.Sprintf(`{"type":"result","protocol_version":2,"status":%q,"reason_code":"fake","message":%q}`, status, msg)
}

func result(status, msg string) { say(resultLine(status, msg)) }

// grandchild starts a process that keeps the fake's stdout open long after
// the fake has given its result and exited; as a daemon it also leaves the
// step's process group.
func grandchild(daemon bool) func() {
	return func() {
		cmd := exec.Command("sleep", "1000")
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if daemon {
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		}
		if err := cmd.Start(); err != nil {
			panic(err)
		}
		os.WriteFile(os.Getenv("KUSAW_ARTIFACTS_DIR")+"/grandchild.pid", []byte(fmt.Sprint(cmd.Process.Pid)), 0o644)
		result("ok", "left a grandchild")
	}
}

func ignoreTerm() {
	signalIgnore(syscall.SIGTERM)
	events(1)
	time.Sleep(time.Hour)
}

func waitTerm() {
	c := make(chan os.Signal, 1)
	signalNotify(c, syscall.SIGTERM)
	<-c
}

// flood writes line to w until size bytes are out, then a result.
func flood(w *os.File, line string) func() {
	return func() {
		size := envInt("FAKE_FLOOD_BYTES", 300<<20)
		bw := bufio.NewWriterSize(w, 64<<10)
		for n := 0; n < size; n += len(line) {
			bw.WriteString(line)
		}
		bw.Flush()
		result("ok", "flooded")
	}
}

func usageAndOutputs() {
	say(`{"type":"usage","tokens_input":100,"tokens_output":20,"cost_usd":0.5}`)
	say(`{"type":"usage","tokens_input":200,"tokens_output":40,"cost_usd":1.25}`)
	say(`{"type":"agent_action","summary":"wrote a greeting"}`)
	line := resultLine("ok", "greeted")
	say(line[:len(line)-1] + `,"outputs":{"greeting":"hi"},"session":{"id":"s1","provider":"fake","dir":"/tmp"}}`)
}

// withResult prints a result line with extra members.
func withResult(extra string) {
	line := resultLine("ok", "done")
	say(line[:len(line)-1] + "," + extra + "}")
}

// artifactEscape publishes, with an event, a symlink that leads out of the
// artifacts folder.
func artifactEscape() {
	dir := os.Getenv("KUSAW_ARTIFACTS_DIR")
	os.Symlink("/etc/hostname", dir+"/escape.txt")
	say(`{"type":"artifact","path":"escape.txt","kind":"log"}`)
	result("ok", "done")
}

// artifactEvidence publishes a PNG as evidence, with no media type.
func artifactEvidence() {
	dir := os.Getenv("KUSAW_ARTIFACTS_DIR")
	os.WriteFile(dir+"/shot.png", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), 0o644)
	say(`{"type":"artifact","path":"shot.png","kind":"evidence","caption":"the page after login"}`)
	result("ok", "done")
}

// forkMany starts sleeps until a fork fails, then exits 1 without a
// result; it reports nothing if none fails.
func forkMany() {
	for range 2000 {
		if err := exec.Command("sleep", "60").Start(); err != nil {
			os.Stderr.WriteString("fork failed: " + err.Error() + "\n")
			os.Exit(1)
		}
	}
	result("ok", "no fork failed")
}

// eatMemory touches 512 MiB, then gives a result it should never reach.
func eatMemory() {
	var keep [][]byte
	for range 512 {
		b := make([]byte, 1<<20)
		for i := range b {
			b[i] = 1
		}
		keep = append(keep, b)
	}
	result("ok", "ate 512 MiB")
	_ = keep
}
