package events_test

import (
	"fmt"
	"strings"

	"kusaw.dev/step/events"
	"kusaw.dev/step/protocol"
)

func ExampleRead() {
	stdout := strings.NewReader(`{"type":"progress","message":"cloning","percent":10}
Cloning into 'repo'...
{"type":"usage","model":"m1","tokens_input":1200}
{"type":"result","protocol_version":2,"status":"ok","message":"done"}
`)
	sum, err := events.Read(stdout, events.Options{
		OnEvent: func(line int, _ []byte, ev protocol.Event) {
			if p, ok := ev.(*protocol.Progress); ok {
				fmt.Printf("line %d: %s %.0f%%\n", line, p.Message, *p.Percent)
			}
		},
		OnProblem: func(p *events.ProtocolError) { fmt.Println(p) },
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sum.Events, "result on line", sum.ResultLine)
	// Output:
	// line 1: cloning 10%
	// stdout line 2: not JSON: byte 0: invalid character 'C' at start of value
	// map[progress:1 usage:1] result on line 4
}
