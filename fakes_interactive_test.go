package step_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/creack/pty"
	"github.com/go-json-experiment/json"

	"kusaw.dev/step/protocol"
)

// The interactive fakes answer the handshake as interactive steps; the
// one whose name ends in "-notes" also takes live notes.
func init() {
	for name, fake := range map[string]func(){
		"tty-greet":       ttyGreet,
		"tty-size":        ttySize,
		"tty-notes":       ttyNotes,
		"tty-no-result":   func() { appendEvents(`{"type":"progress","message":"half way"}` + "\n"); fmt.Println("bye") },
		"tty-hang":        func() { fmt.Println("hanging"); time.Sleep(time.Hour) },
		"tty-misplaced":   func() { appendEvents(resultLine("ok", "in the wrong file") + "\n") },
		"tty-bad-result":  func() { os.WriteFile(os.Getenv("KUSAW_RESULT"), []byte(`{"type":"result","status":`), 0o644) },
		"tty-daemon":      ttyDaemon,
		"tty-partial-end": func() { appendEvents(`{"type":"progress","message":"no end"}`); writeResult("ok", "done", "") },
	} {
		fakes[name] = fake
		handshakes[name] = func() { say(interactiveHandshake(strings.HasSuffix(name, "-notes"))) }
	}
	fakes["pipe-notes"] = pipeNotes
	handshakes["pipe-notes"] = func() {
		say(strings.Replace(handshakeLine, `"protocol_versions"`, `"notes":"live","protocol_versions"`, 1))
	}
}

// interactiveHandshake is handshakeLine for an interactive step.
func interactiveHandshake(liveNotes bool) string {
	h := strings.Replace(handshakeLine, `"interactive":false`, `"interactive":true,"continue_hint":"type your name, then Enter"`, 1)
	if liveNotes {
		h = strings.Replace(h, `"protocol_versions"`, `"notes":"live","protocol_versions"`, 1)
	}
	return h
}

// ttyGreet asks for a name on its terminal, checks its request file, and
// greets: events in several partial writes, the greeting on the terminal
// and in its result's outputs.
func ttyGreet() {
	fmt.Print("name? ")
	name, err := bufio.NewReader(os.Stdin).ReadString('\n')
	if err != nil {
		writeResult("fail", "read the terminal: "+err.Error(), "")
		return
	}
	name = strings.TrimSpace(name)
	if msg := checkRequestFile(); msg != "" {
		writeResult("fail", msg, "")
		return
	}
	appendEvents(`{"type":"progress",`, `"message":"greeting `+name+`"}`+"\n"+`{"type":"usa`,
		`ge","tokens_input":3}`, "\n")
	fmt.Printf("hello %s\n", name)
	writeResult("ok", "greeted", `"outputs":{"greeting":"hello `+name+`"}`)
}

// checkRequestFile checks that KUSAW_REQUEST is a private file holding a
// request; it returns what is wrong, or "".
func checkRequestFile() string {
	path := os.Getenv("KUSAW_REQUEST")
	fi, err := os.Stat(path)
	if err != nil {
		return err.Error()
	}
	if fi.Mode().Perm() != 0o600 {
		return fmt.Sprintf("KUSAW_REQUEST has mode %v; want 0600", fi.Mode().Perm())
	}
	data, _ := os.ReadFile(path)
	var req protocol.Request
	if err := json.Unmarshal(data, &req); err != nil || req.ProtocolVersion != 2 {
		return fmt.Sprintf("KUSAW_REQUEST: %v (version %d)", err, req.ProtocolVersion)
	}
	return ""
}

// ttySize reports the size of its terminal at the start, and again after
// the first SIGWINCH, in its result.
func ttySize() {
	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	rows, cols, _ := pty.Getsize(os.Stdin)
	fmt.Printf("size %dx%d, ready\n", rows, cols)
	select {
	case <-winch:
	case <-time.After(2 * time.Minute):
	}
	rows2, cols2, _ := pty.Getsize(os.Stdin)
	writeResult("ok", "measured", fmt.Sprintf(`"outputs":{"greeting":"%dx%d then %dx%d"}`, rows, cols, rows2, cols2))
}

// ttyNotes waits for a live note, acknowledges it and repeats it.
func ttyNotes() {
	fmt.Println("waiting for a note")
	n, ok := firstNote()
	if !ok {
		writeResult("fail", "no note came", "")
		return
	}
	appendEvents(fmt.Sprintf(`{"type":"note_ack","id":%q}`+"\n", n.ID))
	writeResult("ok", "noted", fmt.Sprintf(`"outputs":{"greeting":%q}`, n.Text))
}

// pipeNotes is ttyNotes for a step that is not interactive.
func pipeNotes() {
	n, ok := firstNote()
	if !ok {
		result("fail", "no note came")
		return
	}
	say(fmt.Sprintf(`{"type":"note_ack","id":%q}`, n.ID))
	withResult(fmt.Sprintf(`"outputs":{"greeting":%q}`, n.Text))
}

// firstNote waits for the first note in KUSAW_NOTES_FILE.
func firstNote() (protocol.Note, bool) {
	var n protocol.Note
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		data, _ := os.ReadFile(os.Getenv("KUSAW_NOTES_FILE"))
		if line, _, ok := strings.Cut(string(data), "\n"); ok {
			return n, json.Unmarshal([]byte(line), &n) == nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return n, false
}

// appendEvents appends each part to KUSAW_EVENTS with its own write, with
// a pause between them so the runner reads partial lines.
func appendEvents(parts ...string) {
	f, err := os.OpenFile(os.Getenv("KUSAW_EVENTS"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		panic(err)
	}
	defer f.Close()
	for _, p := range parts {
		f.WriteString(p)
		time.Sleep(30 * time.Millisecond)
	}
}

// writeResult writes a result, with extra members, to KUSAW_RESULT.
func writeResult(status, msg, extra string) {
	line := resultLine(status, msg)
	if extra != "" {
		line = line[:len(line)-1] + "," + extra + "}"
	}
	if err := os.WriteFile(os.Getenv("KUSAW_RESULT"), []byte(line+"\n"), 0o644); err != nil {
		panic(err)
	}
}

// ttyDaemon leaves a process outside its group that holds its terminal,
// and gives its result.
func ttyDaemon() {
	cmd := exec.Command("sleep", "1000")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		panic(err)
	}
	os.WriteFile(os.Getenv("KUSAW_ARTIFACTS_DIR")+"/daemon.pid", []byte(fmt.Sprint(cmd.Process.Pid)), 0o644)
	writeResult("ok", "left a daemon", "")
}
