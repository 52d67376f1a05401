package events_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"kusaw.dev/step/events"
	"kusaw.dev/step/protocol"
	"kusaw.dev/step/schemas"
)

// errSchema stands for any *schemas.Error in a test row.
var errSchema = errors.New("a *schemas.Error")

// wantProblem is a protocol error a row expects.
type wantProblem struct {
	line  int
	cause string
	err   error // matched with errors.Is; errSchema matches a *schemas.Error
}

const (
	progress = `{"type":"progress","message":"working"}`
	result   = `{"type":"result","protocol_version":2,"status":"ok","message":"done"}`
)

func TestRead(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		in         string
		maxLine    int
		lines      int
		events     map[string]int
		result     string
		resultLine int
		problems   []wantProblem
	}{
		{
			name:  "polluted stdout",
			in:    progress + "\nhello world\n" + progress + "\n" + result + "\n",
			lines: 4, events: map[string]int{"progress": 2}, result: result, resultLine: 4,
			problems: []wantProblem{{2, "not JSON: byte 0: invalid character 'h' at start of value", protocol.ErrSyntax}},
		},
		{
			name:  "crlf lines",
			in:    progress + "\r\n" + progress + "\r\n" + result + "\r\n",
			lines: 3, events: map[string]int{"progress": 2}, result: result, resultLine: 3,
		},
		{
			name:  "last line without newline",
			in:    progress + "\n\n" + result,
			lines: 3, events: map[string]int{"progress": 1}, result: result, resultLine: 3,
		},
		{
			name:  "unterminated bad last line counted",
			in:    progress + "\noops",
			lines: 2, events: map[string]int{"progress": 1},
			problems: []wantProblem{{2, "not JSON: byte 0: invalid character 'o' at start of value", protocol.ErrSyntax}},
		},
		{
			name:    "5 MiB line over 1 MiB",
			in:      progress + "\n" + strings.Repeat("x", 5<<20) + "\n" + result + "\n",
			maxLine: 1 << 20, lines: 3, events: map[string]int{"progress": 1}, result: result, resultLine: 3,
			problems: []wantProblem{{2, "line over max_line_bytes (5242880 > 1048576 bytes)", events.ErrLineTooLong}},
		},
		{
			name:  "default max line",
			in:    strings.Repeat(" ", protocol.DefaultMaxLineBytes) + "{}\n",
			lines: 1, events: map[string]int{},
			problems: []wantProblem{{1, "line over max_line_bytes (1048578 > 1048576 bytes)", events.ErrLineTooLong}},
		},
		{
			name:  "invalid utf-8",
			in:    "{\"type\":\"progress\",\"message\":\"caf\xe9\"}\n",
			lines: 1, events: map[string]int{},
			problems: []wantProblem{{1, "invalid UTF-8 at byte 33", protocol.ErrSyntax}},
		},
		{
			name:  "duplicate keys",
			in:    progress + "\n" + `{"type":"progress","message":"a","message":"b"}` + "\n",
			lines: 2, events: map[string]int{"progress": 1},
			problems: []wantProblem{{2, `duplicate object key "message" at byte 33`, protocol.ErrSyntax}},
		},
		{
			name:  "escaped duplicate type",
			in:    `{"type":"progress","\u0074ype":"usage","message":"m"}`,
			lines: 1, events: map[string]int{},
			problems: []wantProblem{{1, `duplicate object key "type" at byte 19`, protocol.ErrSyntax}},
		},
		{
			name:  "bom on the first line",
			in:    "\xef\xbb\xbf" + progress + "\n" + progress + "\n",
			lines: 2, events: map[string]int{"progress": 1},
			problems: []wantProblem{{1, "a UTF-8 byte order mark (BOM) before the JSON value", protocol.ErrSyntax}},
		},
		{
			name:  "trailing data",
			in:    progress + " " + progress,
			lines: 1, events: map[string]int{},
			problems: []wantProblem{{1, `trailing data after the JSON value ("{\"type\":\"progress\",\""…) at byte 40`, protocol.ErrSyntax}},
		},
		{
			name:  "two results",
			in:    result + "\n" + `{"type":"result","status":"fail"}` + "\n",
			lines: 2, events: map[string]int{}, result: result, resultLine: 1,
			problems: []wantProblem{{2, "a second result (the first is line 1)", events.ErrSecondResult}},
		},
		{
			name:  "lines after the result",
			in:    progress + "\n" + result + "\n\n" + progress + "\nnot json\n",
			lines: 5, events: map[string]int{"progress": 1}, result: result, resultLine: 2,
			problems: []wantProblem{
				{4, "a line after the result (line 2)", events.ErrAfterResult},
				{5, "a line after the result (line 2)", events.ErrAfterResult},
			},
		},
		{
			name:  "unknown event type",
			in:    `{"type":"hello","message":"hi"}`,
			lines: 1, events: map[string]int{},
			problems: []wantProblem{{1, `unknown event type "hello"`, protocol.ErrUnknownEvent}},
		},
		{
			name:  "no type",
			in:    `{"message":"hi"}`,
			lines: 1, events: map[string]int{},
			problems: []wantProblem{{1, `no "type"`, protocol.ErrUnknownEvent}},
		},
		{
			name:  "type not a string",
			in:    `{"type":["progress"]}`,
			lines: 1, events: map[string]int{},
			problems: []wantProblem{{1, `"type" is an array, want a string`, protocol.ErrUnknownEvent}},
		},
		{
			name:  "not an object",
			in:    `"progress"`,
			lines: 1, events: map[string]int{},
			problems: []wantProblem{{1, "not a JSON object: got a string", events.ErrNotObject}},
		},
		{
			name:  "progress without message",
			in:    `{"type":"progress","percent":50}`,
			lines: 1, events: map[string]int{},
			problems: []wantProblem{{1, "progress event: (root): missing property 'message'", errSchema}},
		},
		{
			name:  "wrong types",
			in:    `{"type":"tool_call","tool":7,"allowed":"yes"}`,
			lines: 1, events: map[string]int{},
			problems: []wantProblem{{1, "tool_call event: /allowed: got string, want boolean; /tool: got number, want string", errSchema}},
		},
		{
			name:  "percent over 100",
			in:    `{"type":"progress","message":"m","percent":100.0000001}`,
			lines: 1, events: map[string]int{},
			problems: []wantProblem{{1, "progress event: /percent: maximum: got 100.0000001, want 100", errSchema}},
		},
		{
			name:  "percent the validator cannot parse",
			in:    `{"type":"progress","message":"m","percent":1e9999999}`,
			lines: 1, events: map[string]int{},
			problems: []wantProblem{{1, "progress event: /percent: number 1e9999999 is beyond what the schema checker handles (decimal exponent over 1000000)", errSchema}},
		},
		{
			name:  "integer written as 1.0 is valid",
			in:    `{"type":"usage","tokens_input":1.0,"tokens_output":2e3,"cost_source":null}`,
			lines: 1, events: map[string]int{"usage": 1},
		},
		{
			name:  "a result alone",
			in:    result + "\n",
			lines: 1, events: map[string]int{}, result: result, resultLine: 1,
		},
		{
			name:  "a result that is only well-formed",
			in:    `{"status":"whatever","type":"result"}`,
			lines: 1, events: map[string]int{}, result: `{"status":"whatever","type":"result"}`, resultLine: 1,
		},
		{name: "blank lines only", in: "\n\r\n\n", lines: 3, events: map[string]int{}},
		// Issue 13 item 11: a line of only spaces and tabs is blank, as
		// DESIGN.md says, not a protocol error.
		{name: "stream.blank-line: spaces and tabs", in: " \t\n\t \r\n" + result + "\n  ", lines: 4,
			events: map[string]int{}, result: result, resultLine: 3},
		{name: "stream.blank-line: a form feed is not blank", in: "\f\n", lines: 1, events: map[string]int{},
			problems: []wantProblem{{1, `not JSON: byte 0: invalid character '\f' at start of value`, protocol.ErrSyntax}}},
		{name: "empty", in: "", lines: 0, events: map[string]int{}},
		{
			name: "events counted by type",
			in: strings.Join([]string{
				progress, progress, `{"type":"usage","tokens_input":5}`, `{"type":"agent_action","summary":"s"}`,
				`{"type":"tool_call","tool":"bash","allowed":true}`, `{"type":"note_ack","id":"n"}`,
				`{"kind":"log","path":"a.log","type":"artifact"}`, `{"type":"usage"}`, result,
			}, "\n"),
			lines: 9, result: result, resultLine: 9,
			events: map[string]int{"progress": 2, "usage": 2, "agent_action": 1, "tool_call": 1, "note_ack": 1, "artifact": 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rs := []namedReader{{"plain", strings.NewReader(tt.in)}}
			if len(tt.in) < 64<<10 { // byte by byte only where it is quick
				rs = readers(tt.in)
			}
			for _, r := range rs {
				sum, err := events.Read(r.r, events.Options{MaxLine: tt.maxLine})
				if err != nil {
					t.Fatalf("%s: Read() error = %v", r.name, err)
				}
				checkSummary(t, sum, tt.lines, tt.events, tt.result, tt.resultLine)
				checkProblems(t, sum.Problems, tt.problems)
			}
		})
	}
}

// checkSummary checks a Summary's counts and result.
func checkSummary(t *testing.T, sum *events.Summary, lines int, evs map[string]int, result string, resultLine int) {
	t.Helper()
	if sum.Lines != lines || !reflect.DeepEqual(sum.Events, evs) {
		t.Errorf("Lines, Events = %d, %v; want %d, %v", sum.Lines, sum.Events, lines, evs)
	}
	if string(sum.Result) != result || sum.ResultLine != resultLine || (result == "") != (sum.Result == nil) {
		t.Errorf("Result, ResultLine = %q, %d; want %q, %d", sum.Result, sum.ResultLine, result, resultLine)
	}
}

// checkProblems checks the protocol errors against a row's.
func checkProblems(t *testing.T, got []*events.ProtocolError, want []wantProblem) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("got %d problems %v; want %d", len(got), got, len(want))
		return
	}
	for i, p := range got {
		w := want[i]
		if p.Line != w.line || p.Cause != w.cause {
			t.Errorf("problem %d = line %d %q; want line %d %q", i, p.Line, p.Cause, w.line, w.cause)
		}
		var se *schemas.Error
		if w.err == errSchema && !errors.As(p.Err, &se) || w.err != errSchema && !errors.Is(p, w.err) {
			t.Errorf("problem %d: Err = %#v; want %v", i, p.Err, w.err)
		}
		if p.Hint == "" || len(p.Bytes) == 0 || len(p.Bytes) > 1024 {
			t.Errorf("problem %d: Hint %q, %d Bytes; want a hint and 1 to 1024 bytes", i, p.Hint, len(p.Bytes))
		}
	}
}

func TestReadProblemFields(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 1000) // 2000 bytes
	sum, err := events.Read(strings.NewReader("\n"+long+"\n"+strings.Repeat("y", 300)), events.Options{MaxLine: 2100 - 1})
	if err != nil || len(sum.Problems) != 2 {
		t.Fatalf("Read() = %v, %v; want 2 problems", sum.Problems, err)
	}
	sum2, _ := events.Read(strings.NewReader(strings.Repeat("y", 300)+"\n"+long), events.Options{MaxLine: 200})
	tests := []struct {
		p         *events.ProtocolError
		line      int
		size      int64
		bytesHead string
		bytesLen  int
	}{
		{sum.Problems[0], 2, 2000, "éé", 1024}, // cut at 1 KiB, on a rune boundary
		{sum2.Problems[0], 1, 300, "yy", 256},  // a too-long line keeps its head
		{sum2.Problems[1], 2, 2000, "éé", 256}, // the splitter cuts its head at 256 bytes
	}
	for i, tt := range tests {
		p := tt.p
		if p.Line != tt.line || p.Size != tt.size || !strings.HasPrefix(string(p.Bytes), tt.bytesHead) || len(p.Bytes) != tt.bytesLen {
			t.Errorf("%d: Line, Size, len(Bytes) = %d, %d, %d; want %d, %d, %d", i, p.Line, p.Size, len(p.Bytes), tt.line, tt.size, tt.bytesLen)
		}
	}
	if got, want := sum.Problems[0].Error(), "stdout line 2: not JSON: byte 0: invalid character 'é' at start of value"; got != want {
		t.Errorf("Error() = %q; want %q", got, want)
	}
}

func TestReadCallbacks(t *testing.T) {
	t.Parallel()
	in := strings.Join([]string{
		`{"type":"progress","message":"one","percent":50}`,
		"garbage",
		`{"type":"usage","model":"m","tokens_input":10}`,
		result,
		`{"type":"note_ack","id":"late"}`,
	}, "\n")
	var calls []string
	opts := events.Options{
		OnEvent: func(line int, _ []byte, ev protocol.Event) {
			b, _ := protocol.EncodeEvent(ev)
			calls = append(calls, fmt.Sprintf("event %d %s", line, b))
		},
		OnResult:  func(line int, raw []byte) { calls = append(calls, fmt.Sprintf("result %d %s", line, raw)) },
		OnProblem: func(p *events.ProtocolError) { calls = append(calls, fmt.Sprintf("problem %d", p.Line)) },
	}
	if _, err := events.Read(strings.NewReader(in), opts); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`event 1 {"type":"progress","message":"one","percent":50}`,
		"problem 2",
		`event 3 {"type":"usage","model":"m","tokens_input":10}`,
		"result 4 " + result,
		"problem 5",
	}
	if !reflect.DeepEqual(calls, want) {
		t.Errorf("callbacks:\n%s\nwant\n%s", strings.Join(calls, "\n"), strings.Join(want, "\n"))
	}
}

func TestReadKeepsEvents(t *testing.T) {
	t.Parallel()
	var kept []protocol.Event
	in := `{"type":"progress","message":"a","percent":1}` + "\n" + `{"type":"progress","message":"b","percent":2}`
	if _, err := events.Read(strings.NewReader(in), events.Options{OnEvent: func(_ int, _ []byte, ev protocol.Event) { kept = append(kept, ev) }}); err != nil {
		t.Fatal(err)
	}
	one, two := 1.0, 2.0
	want := []protocol.Event{&protocol.Progress{Message: "a", Percent: &one}, &protocol.Progress{Message: "b", Percent: &two}}
	if !reflect.DeepEqual(kept, want) {
		t.Errorf("kept events = %v; want %v (each event its own)", kept, want)
	}
}

func TestReadDropsProblemsOver100(t *testing.T) {
	t.Parallel()
	called := 0
	in := strings.Repeat("bad\n", 150)
	sum, err := events.Read(strings.NewReader(in), events.Options{OnProblem: func(*events.ProtocolError) { called++ }})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Problems) != 100 || sum.Dropped != 50 || called != 150 || sum.Problems[99].Line != 100 {
		t.Errorf("Problems, Dropped, OnProblem calls = %d, %d, %d; want 100, 50, 150", len(sum.Problems), sum.Dropped, called)
	}
}

func TestReadError(t *testing.T) {
	t.Parallel()
	errBoom := errors.New("boom")
	r := io.MultiReader(strings.NewReader(progress+"\n"+progress), iotest.ErrReader(errBoom))
	sum, err := events.Read(r, events.Options{})
	if !errors.Is(err, errBoom) {
		t.Fatalf("Read() error = %v; want errBoom wrapped", err)
	}
	if sum == nil || sum.Events["progress"] != 1 || sum.Lines != 1 {
		t.Errorf("Summary = %+v; want the one full line read before the error", sum)
	}
}

// TestReadMemory checks that Read keeps the splitter's bound: three 5 MiB
// lines cost the buffer plus the assembly slice, not their size. Not
// parallel: it measures the allocations of the whole process.
func TestReadMemory(t *testing.T) {
	line := []byte(strings.Repeat("0123456789abcdef", 5<<20/16) + "\n")
	r := &patternReader{line: line, n: 3 * int64(len(line))}
	before := totalAlloc()
	sum, err := events.Read(r, events.Options{MaxLine: 1 << 20})
	got := totalAlloc() - before
	if err != nil || len(sum.Problems) != 3 || sum.Problems[2].Size != 5<<20 {
		t.Fatalf("Read() = %+v, %v; want 3 too-long lines of 5 MiB", sum, err)
	}
	const limit = 64<<10 + 2*(1<<20+1) + 64<<10
	if got > limit {
		t.Errorf("reading three 5 MiB lines allocated %d bytes; want <= %d", got, limit)
	}
}

// totalAlloc returns the bytes allocated by the process so far.
func totalAlloc() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.TotalAlloc
}

// Issue 15, item 2: without OnEvent, reading allocates nothing per event,
// whatever its type: twice the events cost no more allocations. (With
// OnEvent, each event is a new value the callee may keep.)
func TestReadAllocatesNothingPerEvent(t *testing.T) {
	lines := []string{
		`{"type":"progress","message":"step 1 of 9","percent":12.5,"turn":false}`,
		`{"percent":50,"type":"progress","message":"type not first"}`,
		`{"type":"usage","provider":"p","model":"m","tokens_input":1,"tokens_output":2,"cost_usd":0.5,"cost_source":"reported"}`,
		`{"type":"agent_action","summary":"edited a.go \u00e9"}`,
		`{"type":"tool_call","tool":"bash","allowed":false,"args_summary":"ls"}`,
		`{"type":"note_ack","id":"n1"}`,
		`{"type":"artifact","path":"a.txt","kind":"log","title":"t"}`,
		`{"type":"progress","message":"an unknown member","x":{"y":[1,2,3]}}`,
	}
	stream := func(n int) []byte {
		var b bytes.Buffer
		for i := range n {
			b.WriteString(lines[i%len(lines)] + "\n")
		}
		return b.Bytes()
	}
	// OnEvent wanting none of the types is as good as no OnEvent.
	wantNone := events.Options{
		OnEvent: func(int, []byte, protocol.Event) { t.Error("OnEvent called for a type it does not want") },
		Want:    func(string) bool { return false },
	}
	for name, opts := range map[string]events.Options{"no OnEvent": {}, "Want none": wantNone} {
		allocs := func(data []byte) float64 {
			return testing.AllocsPerRun(20, func() {
				sum, err := events.Read(bytes.NewReader(data), opts)
				if err != nil || len(sum.Problems) > 0 {
					t.Fatalf("Read: %v %v", err, sum.Problems)
				}
			})
		}
		small, large := allocs(stream(800)), allocs(stream(8000))
		if perEvent := (large - small) / 7200; perEvent > 0.001 {
			t.Errorf("%s: Read allocates %.0f times for 800 events and %.0f for 8000: %.3f per event; want none", name, small, large, perEvent)
		}
	}
}

// OnEvent gets the types Want names, in order, and the Summary counts
// every type.
func TestReadWant(t *testing.T) {
	in := `{"type":"progress","message":"a"}
{"type":"artifact","path":"a.txt","kind":"log"}
{"type":"progress","message":"b","percent":5}
{"type":"artifact","path":"b.txt","kind":"log"}
{"type":"result","protocol_version":2,"status":"ok","reason_code":"done","message":"m"}
`
	var got []string
	sum, err := events.Read(strings.NewReader(in), events.Options{
		OnEvent: func(line int, raw []byte, ev protocol.Event) {
			got = append(got, fmt.Sprintf("%d %s %s", line, ev.EventType(), raw))
		},
		Want: func(t string) bool { return t == "artifact" },
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`2 artifact {"type":"artifact","path":"a.txt","kind":"log"}`,
		`4 artifact {"type":"artifact","path":"b.txt","kind":"log"}`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("OnEvent got %q; want %q", got, want)
	}
	if sum.Events["progress"] != 2 || sum.Events["artifact"] != 2 {
		t.Errorf("Events %v; want 2 of each", sum.Events)
	}
}
