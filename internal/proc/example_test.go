//go:build unix

package proc_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"time"

	"kusaw.dev/step/internal/proc"
)

// A runner starts a step, reads its stdout, stops it when the context ends,
// and reaps its group, so that a grandchild holding stdout open cannot keep
// the read from ending.
func ExampleStart() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, w, err := os.Pipe()
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command("./my-step")
	cmd.Stdout = w
	p, err := proc.Start(cmd)
	w.Close() // the step has its own copy
	if err != nil {
		log.Fatal(err)
	}
	out := make(chan []byte)
	go func() { b, _ := io.ReadAll(r); out <- b }()

	select {
	case <-p.Exited():
	case <-ctx.Done():
		if p.Stop(5 * time.Second) {
			log.Print("the step had to be killed")
		}
	}
	if err := p.Reap(5 * time.Second); err != nil {
		log.Print(err)
	}
	fmt.Printf("%s: %s", p.State(), <-out)
}
