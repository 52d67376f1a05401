package main

import (
	"bufio"
	"fmt"
	"kusaw.dev/step/sandbox"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/creack/pty"
	"github.com/go-json-experiment/json"

	"kusaw.dev/step/protocol"
)

// The interactive fakes: the test binary, run by the runner with
// STEP_TEST_TTY_FAKE=name (and the KUSAW_PROTOCOL the runner sets), is an
// interactive step. init runs them before TestMain.
func init() {
	name := os.Getenv("STEP_TEST_TTY_FAKE")
	if len(os.Args) > 2 && os.Args[1] == ttyFakeArg {
		name = os.Args[2]
	}
	if name == "" || os.Getenv("KUSAW_PROTOCOL") != "2" || isSandboxHelper() {
		return
	}
	if os.Getenv("KUSAW_HANDSHAKE") == "1" {
		fmt.Println(`{"type":"handshake","name":"tty-` + name + `","version":"0.1.0","interactive":true,` +
			`"continue_hint":"answer the prompt to finish","protocol_versions":[2],` + fakeNeeds + `}`)
		os.Exit(0)
	}
	ttyFakes[name]()
	os.Exit(0)
}

var ttyFakes = map[string]func(){
	"greet":  ttyGreet,
	"prompt": ttyPrompt,
	"notes":  ttyNotes,
}

// ttyGreet asks a name and greets it.
func ttyGreet() {
	fmt.Print("name? ")
	line, _ := bufio.NewReader(os.Stdin).ReadString('\n')
	name := strings.TrimSpace(line)
	fmt.Printf("hello %s\n", name)
	ttyResult("ok", "greeted "+name)
}

// ttyPrompt says its pid and its terminal's size, says the size again at
// each SIGWINCH, and waits for a line.
func ttyPrompt() {
	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	rows, cols, _ := pty.Getsize(os.Stdin)
	fmt.Printf("ready pid=%d size=%dx%d\n", os.Getpid(), rows, cols)
	go func() {
		for range winch {
			rows, cols, _ := pty.Getsize(os.Stdin)
			fmt.Printf("resized to %dx%d\n", rows, cols)
		}
	}()
	bufio.NewReader(os.Stdin).ReadString('\n')
	ttyResult("ok", "answered")
}

// ttyNotes reports the notes its request hands over.
func ttyNotes() {
	data, _ := os.ReadFile(os.Getenv("KUSAW_REQUEST"))
	var req protocol.Request
	json.Unmarshal(data, &req)
	var texts []string
	for _, n := range req.Context.Notes {
		texts = append(texts, n.Text)
		f, _ := os.OpenFile(os.Getenv("KUSAW_EVENTS"), os.O_WRONLY|os.O_APPEND, 0)
		fmt.Fprintf(f, `{"type":"note_ack","id":%q}`+"\n", n.ID)
		f.Close()
	}
	ttyResult("ok", "notes: "+strings.Join(texts, "|"))
}

func ttyResult(status, msg string) {
	line := fmt.Sprintf(`{"type":"result","protocol_version":2,"status":%q,"reason_code":"done","message":%q}`, status, msg)
	os.WriteFile(os.Getenv("KUSAW_RESULT"), []byte(line), 0o644)
}

// isSandboxHelper reports whether this process is the sandbox's supervisor,
// init or bridge, which carry the step's environment but are not the step.
func isSandboxHelper() bool {
	return len(os.Args) > 1 && (os.Args[1] == sandbox.SuperviseCommand || os.Args[1] == sandbox.InitCommand || os.Args[1] == sandbox.BridgeCommand)
}
