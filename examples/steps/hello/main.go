// Hello is a small step of the Kusaw step protocol v2, written in Go: it
// reports progress and usage, publishes an artifact and returns a greeting.
//
// Run it with: kusaw-step run bin/hello --config '{"name":"Ada"}'
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// handshake is this step's answer when KUSAW_HANDSHAKE=1.
const handshake = `{"type":"handshake","name":"hello","version":"1.0.0",` +
	`"description":"Greets someone, with progress, usage and an artifact.",` +
	`"interactive":false,"protocol_versions":[2],` +
	`"outputs_schema":{"type":"object","required":["greeting"],"properties":{"greeting":{"type":"string"}}}}`

func main() {
	if os.Getenv("KUSAW_HANDSHAKE") == "1" {
		fmt.Println(handshake)
		return
	}
	if err := run(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "hello:", err) // logs go to stderr
		os.Exit(1)
	}
}

// request is the part of the request this step reads.
type request struct {
	Config struct {
		Name  string `json:"name"`
		Delay string `json:"delay"` // between progress events, e.g. "200ms"
	} `json:"config"`
	ArtifactsDir string `json:"artifacts_dir"`
}

func run(stdin io.Reader, stdout io.Writer) error {
	var req request
	if err := json.NewDecoder(stdin).Decode(&req); err != nil {
		return fmt.Errorf("read the request: %w", err)
	}
	name := req.Config.Name
	if name == "" {
		name = "world"
	}
	delay, _ := time.ParseDuration(req.Config.Delay)
	w := bufio.NewWriter(stdout)
	emit := func(v any) {
		line, _ := json.Marshal(v)
		w.Write(append(line, '\n'))
		w.Flush() // one flushed line per event, as it happens
	}
	for i, msg := range []string{"reading the request", "choosing words", "writing the greeting"} {
		emit(map[string]any{"type": "progress", "message": msg, "percent": float64(i) * 40})
		time.Sleep(delay)
	}
	greeting := "hello, " + name
	path := filepath.Join(req.ArtifactsDir, "greeting.txt")
	if err := os.WriteFile(path, []byte(greeting+"\n"), 0o644); err != nil {
		return err
	}
	emit(map[string]any{"type": "artifact", "path": "greeting.txt", "kind": "log", "title": "The greeting"})
	emit(map[string]any{"type": "usage", "tokens_input": 12, "tokens_output": 3, "cost_usd": 0.0001, "cost_source": "computed"})
	emit(map[string]any{"type": "progress", "message": "done", "percent": 100})
	emit(map[string]any{
		"type": "result", "protocol_version": 2, "status": "ok", "reason_code": "greeted",
		"message": greeting, "outputs": map[string]any{"greeting": greeting},
		"artifacts": []any{map[string]any{"path": "greeting.txt", "kind": "log"}},
	})
	return nil
}
