package stepkit_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"kusaw.dev/step/protocol"
	"kusaw.dev/step/stepkit"
)

// A step answers its handshake when KUSAW_HANDSHAKE=1; main passes
// os.Getenv, this example a stand-in.
func ExampleProgram_Serve() {
	p := &stepkit.Program{
		Handshake: protocol.Handshake{Name: "count", Version: "1.0.0"},
		Run: func(ctx context.Context, s *stepkit.Step) (*protocol.Result, error) {
			return stepkit.OK("counted", "3 files", map[string]int{"files": 3})
		},
	}
	handshake := func(name string) string {
		if name == "KUSAW_HANDSHAKE" {
			return "1"
		}
		return ""
	}
	if err := p.Serve(context.Background(), strings.NewReader(""), os.Stdout, handshake); err != nil {
		fmt.Println(err)
	}
	// Output:
	// {"type":"handshake","name":"count","version":"1.0.0","interactive":false,"protocol_versions":[2]}
}

// The main of a step: SIGTERM cancels the context the step watches.
func ExampleProgram_Main() {
	p := &stepkit.Program{
		Handshake: protocol.Handshake{Name: "noop", Version: "1.0.0"},
		Run: func(ctx context.Context, s *stepkit.Step) (*protocol.Result, error) {
			if err := s.Progress("nothing to do", 100); err != nil {
				return nil, err
			}
			return stepkit.OK("done", "did nothing", nil)
		},
	}
	// In func main:
	//	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	//	defer stop()
	//	if err := p.Main(ctx); err != nil { fmt.Fprintln(os.Stderr, "noop:", err); os.Exit(1) }
	_ = p.Main
}
