package events_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"kusaw.dev/step/events"
)

func ExampleSplitter() {
	stdout := strings.NewReader("{\"type\":\"progress\"}\r\n\n" + strings.Repeat("x", 40) + "\n{\"type\":\"result\"}")
	s := events.NewSplitter(stdout, 32)
	for {
		line, err := s.Next()
		if err == io.EOF {
			break
		}
		var tooLong *events.LineTooLongError
		if errors.As(err, &tooLong) {
			fmt.Printf("line %d: too long (%d bytes)\n", tooLong.Line, tooLong.Size)
			continue
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("line %d: %s (unterminated: %v)\n", line.N, line.Bytes, line.Unterminated)
	}
	// Output:
	// line 1: {"type":"progress"} (unterminated: false)
	// line 3: too long (40 bytes)
	// line 4: {"type":"result"} (unterminated: true)
}

func ExampleCappedWriter() {
	log := events.NewCappedWriter(os.Stdout, 6)
	fmt.Fprint(log, "hello,")
	fmt.Fprint(log, " world")
	fmt.Println(log.Written(), log.Total(), log.Truncated())
	// Output:
	// hello,
	// [kusaw-step: log truncated at 6 bytes; the rest of the stream was drained and discarded]
	// 6 12 true
}

func ExampleTail() {
	stderr := events.NewTail(32) // keeps "ding model\npanic: out of memory\n"
	fmt.Fprint(stderr, "starting\nloading model\npanic: out of memory\n")
	fmt.Println(stderr.Lines(2)) // the cut first line is left out
	// Output:
	// panic: out of memory
}
