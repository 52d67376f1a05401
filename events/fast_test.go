package events

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"kusaw.dev/step/protocol"
	"kusaw.dev/step/schemas"
)

// fastSeeds are lines that probe the places where a fast checker could
// disagree with the schema validator.
var fastSeeds = []string{
	// The flat path (flat.go): plain lines and their near misses.
	` { "type" : "progress" , "message" : "m" , "percent" : 5 } `,
	"\t{\"type\":\"progress\",\"message\":\"m\"}\r\n",
	`{"type":"progress","message":"m",}`,
	`{"type":"progress","message":"m"}}`,
	`{"type":"progress","message":"m"} x`,
	`{"type":"progress" "message":"m"}`,
	`{"type":"progress","message":"m","percent":01}`,
	`{"type":"progress","message":"m","percent":1.}`,
	`{"type":"progress","message":"m","percent":-}`,
	`{"type":"progress","message":"m","percent":1e}`,
	`{"type":"progress","message":"m","percent":1e+}`,
	`{"type":"progress","message":"m","percent":.5}`,
	`{"type":"progress","message":"m","percent":+5}`,
	`{"type":"progress","message":"m","percent":5x}`,
	`{"type":"progress","message":"m","turn":tru}`,
	`{"type":"progress","message":"m","turn":truex}`,
	`{"type":"progress","message":"m","turn":nul}`,
	`{"type":"progress","message":"m","type":"progress"}`,
	`{"type":"progress","message":"m","message":"n"}`,
	`{"message":"m","type":"progress"}`,
	`{"type":"progress"}`,
	`{"type":"result"}`,
	`{"type":"nope","message":"m"}`,
	`{"type":5,"message":"m"}`,
	`{}`,
	`{"type":"progress","message":"del \u007f and \u2028"}`,
	"{\"type\":\"progress\",\"message\":\"del \x7f and \xe2\x80\xa8\"}",
	"{\"type\":\"progress\",\"message\":\"utf-8 surrogate \xed\xa0\x80\"}",
	"{\"type\":\"progress\",\"message\":\"overlong \xc0\xaf\"}",
	`{"type":"progress","message":"m","percent":5`,
	`{"type":"progress","message":"m`,
	`{"type":"progress","message"`,
	// Valid events of every type.
	`{"type":"progress","message":"step 123 of 1000","percent":12.3}`,
	`{"type":"progress","message":"m","percent":0,"turn":true}`,
	`{"type":"usage","provider":"p","model":"m","tokens_input":1,"tokens_output":2,"tokens_cached":3,"context_tokens":4,"context_limit":5,"cost_usd":0.5,"cost_source":"reported"}`,
	`{"type":"agent_action","summary":"edited a.go"}`,
	`{"type":"tool_call","tool":"bash","allowed":false,"args_summary":"ls"}`,
	`{"type":"note_ack","id":"n1"}`,
	`{"type":"artifact","path":"a.txt","kind":"log","title":"t","caption":"c","media":"text/plain","page":"p","repo":"r"}`,
	`{"type":"result","protocol_version":2,"status":"ok","message":"done"}`,
	// Numbers.
	`{"type":"progress","message":"m","percent":1e2}`,
	`{"type":"progress","message":"m","percent":1E2}`,
	`{"type":"progress","message":"m","percent":100.0000001}`,
	`{"type":"progress","message":"m","percent":100.0}`,
	`{"type":"progress","message":"m","percent":1000e-1}`,
	`{"type":"progress","message":"m","percent":-0}`,
	`{"type":"progress","message":"m","percent":0}`,
	`{"type":"progress","message":"m","percent":100}`,
	`{"type":"progress","message":"m","percent":101}`,
	`{"type":"progress","message":"m","percent":-1}`,
	`{"type":"progress","message":"m","percent":999999999999999999}`,
	`{"type":"progress","message":"m","percent":-999999999999999999}`,
	`{"type":"progress","message":"m","percent":9999999999999999999}`,
	`{"type":"usage","tokens_input":0,"tokens_output":-0,"context_limit":999999999999999999}`,
	`{"type":"usage","tokens_input":-1}`,
	`{"type":"progress","message":"m","percent":-0.0e5}`,
	`{"type":"progress","message":"m","percent":-0.0000001}`,
	`{"type":"progress","message":"m","percent":1E400}`,
	`{"type":"progress","message":"m","percent":1e-400}`,
	`{"type":"progress","message":"m","percent":1e9999999}`,
	`{"type":"progress","message":"m","percent":1e-9999999}`,
	`{"type":"progress","message":"m","percent":0e99999999999999999999}`,
	`{"type":"progress","message":"m","percent":5e-1000000}`,
	`{"type":"progress","message":"m","percent":5e-1000001}`,
	`{"type":"progress","message":"m","percent":"50"}`,
	`{"type":"usage","tokens_input":1.0}`,
	`{"type":"usage","tokens_input":1.5}`,
	`{"type":"usage","tokens_input":1e2}`,
	`{"type":"usage","tokens_input":12.5e1}`,
	`{"type":"usage","tokens_input":1E400}`,
	`{"type":"usage","tokens_input":-1E400}`,
	`{"type":"usage","tokens_input":1E4000000}`,
	`{"type":"usage","tokens_input":9223372036854775807}`,
	`{"type":"usage","tokens_input":9223372036854775808}`,
	`{"type":"usage","tokens_input":-9223372036854775808}`,
	`{"type":"usage","tokens_input":-9223372036854775809}`,
	`{"type":"usage","tokens_input":-0}`,
	`{"type":"usage","cost_usd":1E400}`,
	`{"type":"usage","cost_usd":-1E4000000}`,
	`{"type":"usage","cost_usd":"1"}`,
	// Null, enums, consts.
	`{"type":"usage","model":null,"provider":null,"tokens_input":null,"cost_usd":null,"cost_source":null}`,
	`{"type":"usage","cost_source":"computed"}`,
	`{"type":"usage","cost_source":"estimated"}`,
	`{"type":"usage","cost_source":"c\u006fmputed"}`,
	`{"type":"progress","message":null}`,
	`{"type":"progress","message":"m","turn":null}`,
	`{"type":"tool_call","tool":"t","allowed":"yes"}`,
	// Strings and escapes.
	`{"type":"progress","message":"tab\there \"quoted\" \\ \/ \b\f\n\r"}`,
	`{"type":"progress","message":"\ud83d\ude00 and é"}`,
	`{"type":"progress","message":"lone \ud83d surrogate"}`,
	`{"type":"progress","message":"lone \ude00 low"}`,
	`{"type":"progress","message":"bad \x escape"}`,
	"{\"type\":\"progress\",\"message\":\"bad utf8 \xff\"}",
	"{\"type\":\"progress\",\"message\":\"raw\ttab\"}",
	`{"type":"pro\u0067ress","message":"m"}`,
	`{"\u0074ype":"progress","message":"m"}`,
	// Duplicates.
	`{"type":"progress","message":"m","type":"progress"}`,
	`{"type":"progress","\u0074ype":"progress","message":"m"}`,
	`{"type":"progress","message":"a","message":"b"}`,
	`{"type":"progress","message":"m","x":{"a":1,"a":2}}`,
	`{"type":"progress","message":"m","x":[{"a":1,"\u0061":2}]}`,
	// Type elsewhere, missing, wrong.
	`{"message":"m","percent":50,"type":"progress"}`,
	`{"message":5,"type":"progress"}`,
	`{"x":[1,2,{"y":null}],"type":"result"}`,
	`{"message":"m"}`,
	`{"type":5,"message":"m"}`,
	`{"type":null}`,
	`{"type":"hello"}`,
	`{"type":"Progress","message":"m"}`,
	`{"type":"progress"}`,
	`{"type":"progress","Message":"m"}`,
	`{"type":"tool_call","tool":"t"}`,
	`{"type":"artifact","path":"p"}`,
	`{}`,
	// Unknown members.
	`{"type":"progress","message":"m","extra":{"deep":[1,{"x":[true,null,"s"]}]},"n":-1.5e-3}`,
	`{"type":"progress","message":"m","extra":[}`,
	`{"type":"progress","message":"m","Percent":500}`,
	// Not objects, syntax.
	"\xef\xbb\xbf{\"type\":\"progress\",\"message\":\"m\"}",
	`  {"type":"progress","message":"m"}	 `,
	"{\"type\":\"progress\",\"message\":\"m\"}\r",
	`{"type":"progress","message":"m"} {"type":"progress","message":"m"}`,
	`{"type":"progress","message":"m"}x`,
	`{"type":"progress","message":"m",}`,
	`{"type":"progress" "message":"m"}`,
	`{"type":"progress","message":"m"`,
	`[{"type":"progress","message":"m"}]`,
	`"progress"`,
	`42`,
	`null`,
	`hello world`,
	``,
	`   `,
	`{"type":"result"`,
	`{"type":"result"}}`,
	`{"type":"result","type":"result"}`,
}

// verdictOf is the verdict of the schema path: protocol.Parse, then the
// event schemas, the way a runner without a fast path would decide. A
// validator panic counts as a rejection.
func verdictOf(line []byte) (kind lineKind, typ string) {
	doc, err := protocol.Parse(line)
	if err != nil {
		return lineInvalid, ""
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return lineInvalid, ""
	}
	if t, _ := obj["type"].(string); t == "result" {
		return lineResult, ""
	}
	if validates(doc) {
		return lineEvent, obj["type"].(string)
	}
	return lineInvalid, ""
}

// validates runs schemas.Validate("event", doc), turning a panic of the
// validator into false.
func validates(doc any) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return schemas.Validate("event", doc) == nil
}

func FuzzFastPath(f *testing.F) {
	for _, s := range fastSeeds {
		f.Add([]byte(s))
	}
	deep := strings.Repeat("[", 10001) + strings.Repeat("]", 10001)
	f.Add([]byte(`{"type":"progress","message":"m","x":` + deep + `}`))
	f.Add([]byte(`{"type":"progress","message":"m","x":` + deep[1:len(deep)-1] + `}`))
	c := newChecker()
	f.Fuzz(func(t *testing.T, line []byte) {
		kind, ev := c.check(line)
		wantKind, wantType := verdictOf(line)
		if kind != wantKind || kind == lineEvent && ev.EventType() != wantType {
			t.Fatalf("check(%q) = %v %T; the schema path says %v %q", line, kind, ev, wantKind, wantType)
		}
		switch kind {
		case lineEvent:
			checkTyped(t, line, ev)
		case lineInvalid:
			if _, _, err := explain(line, c.rules); errors.Is(err, errMismatch) || err == nil {
				t.Fatalf("explain(%q) = %v; want the reason the line is invalid", line, err)
			}
		}
	})
}

// checkTyped checks the event the fast path built from a valid line
// against one built from protocol.Parse's document, and against
// protocol.DecodeEvent's when it can decode the line.
func checkTyped(t *testing.T, line []byte, ev protocol.Event) {
	t.Helper()
	doc, _ := protocol.Parse(line)
	want := refEvent(t, doc.(map[string]any))
	if !reflect.DeepEqual(ev, want) {
		t.Fatalf("check(%q) built %s; want %s", line, dump(ev), dump(want))
	}
	if dec, err := protocol.DecodeEvent(line); err == nil && !reflect.DeepEqual(ev, dec) {
		t.Fatalf("check(%q) built %s; protocol.DecodeEvent gives %s", line, dump(ev), dump(dec))
	}
}

// refEvent builds the typed event of a valid event document through
// reflection on the JSON names, the slow way.
func refEvent(t *testing.T, obj map[string]any) protocol.Event {
	t.Helper()
	spec := eventRules().lookup([]byte(obj["type"].(string)))
	ev := reflect.New(spec.goType)
	for _, p := range spec.props {
		v, ok := obj[p.name]
		if !ok || p.field == nil || v == nil {
			continue
		}
		f := ev.Elem().FieldByIndex(p.field)
		if f.Kind() == reflect.Pointer {
			f.Set(reflect.New(f.Type().Elem()))
			f = f.Elem()
		}
		setRef(t, f, v)
	}
	return ev.Interface().(protocol.Event)
}

// setRef stores a document value in a field, with big.Rat for integers.
func setRef(t *testing.T, f reflect.Value, v any) {
	t.Helper()
	switch f.Kind() {
	case reflect.String:
		f.SetString(v.(string))
	case reflect.Bool:
		f.SetBool(v.(bool))
	case reflect.Float64:
		x, err := strconv.ParseFloat(string(v.(json.Number)), 64)
		if math.IsInf(x, 0) {
			x, err = math.Copysign(math.MaxFloat64, x), nil
		}
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			t.Fatalf("ParseFloat(%s): %v", v, err)
		}
		f.SetFloat(x)
	case reflect.Int64:
		r, _ := new(big.Rat).SetString(string(v.(json.Number)))
		n := r.Num()
		switch {
		case n.IsInt64():
			f.SetInt(n.Int64())
		case n.Sign() > 0:
			f.SetInt(math.MaxInt64)
		default:
			f.SetInt(math.MinInt64)
		}
	default:
		t.Fatalf("field kind %s", f.Kind())
	}
}

// dump shows an event with its pointers followed.
func dump(ev protocol.Event) string {
	b, _ := json.Marshal(ev)
	return fmt.Sprintf("%T%s", ev, b)
}

func TestFastPathSeeds(t *testing.T) {
	t.Parallel()
	c := newChecker()
	for _, s := range fastSeeds {
		kind, ev := c.check([]byte(s))
		wantKind, wantType := verdictOf([]byte(s))
		if kind != wantKind || kind == lineEvent && ev.EventType() != wantType {
			t.Errorf("check(%q) = %v %T; the schema path says %v %q", s, kind, ev, wantKind, wantType)
		}
		if kind == lineEvent {
			checkTyped(t, []byte(s), ev)
		}
	}
}

func TestFastPathValues(t *testing.T) {
	t.Parallel()
	pct := func(x float64) *float64 { return &x }
	i64 := func(n int64) *int64 { return &n }
	str := func(s string) *string { return &s }
	tests := []struct {
		line string
		want protocol.Event
	}{
		{`{"type":"progress","message":"a\u00e9\ud83d\ude00","percent":1e2}`, &protocol.Progress{Message: "aé😀", Percent: pct(100)}},
		{`{"message":"x","turn":true,"type":"progress"}`, &protocol.Progress{Message: "x", Turn: true}},
		{`{"type":"usage","tokens_input":1.0,"tokens_output":12.5e1,"tokens_cached":-0,"context_limit":null}`, &protocol.Usage{TokensInput: i64(1), TokensOutput: i64(125), TokensCached: i64(0)}},
		{`{"type":"usage","tokens_input":1E400,"tokens_output":-1e19,"context_tokens":-9223372036854775808}`, &protocol.Usage{TokensInput: i64(math.MaxInt64), TokensOutput: i64(math.MinInt64), ContextTokens: i64(math.MinInt64)}},
		{`{"type":"usage","cost_usd":1E400,"cost_source":"reported","model":"m"}`, &protocol.Usage{CostUSD: pct(math.MaxFloat64), CostSource: str("reported"), Model: str("m")}},
		{`{"type":"artifact","kind":"log","path":"a\/b"}`, &protocol.ArtifactEvent{Artifact: protocol.Artifact{Kind: "log", Path: "a/b"}}},
	}
	c := newChecker()
	for _, tt := range tests {
		kind, ev := c.check([]byte(tt.line))
		if kind != lineEvent || !reflect.DeepEqual(ev, tt.want) {
			t.Errorf("check(%s) = %v %s; want event %s", tt.line, kind, dump(ev), dump(tt.want))
		}
	}
}

func TestCompileRules(t *testing.T) {
	t.Parallel()
	rs, err := compileRules()
	if err != nil {
		t.Fatal(err)
	}
	p := rs.lookup([]byte("progress"))
	if p == nil || len(p.props) != 4 || p.required != p.typeBit|1<<p.index([]byte("message")) {
		t.Errorf("progress spec = %+v; want 4 properties, message and type required", p)
	}
	pct := &p.props[p.index([]byte("percent"))].rule
	if pct.types != tNumber || pct.min == nil || pct.max == nil {
		t.Errorf("percent rule = %+v; want a number with bounds", pct)
	}
}

func TestCompileRuleRejects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		schema string
		want   string
	}{
		{`{"type":"string","maxLength":3}`, `keyword "maxLength" not supported`},
		{`{"type":"number","exclusiveMinimum":0}`, `keyword "exclusiveMinimum" not supported`},
		{`{"type":"complex"}`, `type complex not supported`},
		{`{"enum":[1,2]}`, `enum or const value 1 not supported`},
		{`{"enum":["a"],"const":"a"}`, `both enum and const`},
		{`{"type":"number","minimum":"0"}`, `minimum: 0 is not a number`},
		{`{"type":"number","maximum":1e9999999}`, `maximum: 1e9999999 is out of range`},
	}
	for _, tt := range tests {
		doc, err := protocol.Parse([]byte(tt.schema))
		if err != nil {
			t.Fatal(err)
		}
		_, err = compileRule(doc.(map[string]any))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("compileRule(%s) = %v; want an error containing %q", tt.schema, err, tt.want)
		}
	}
}

func TestFitsRejects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		typ  reflect.Type
		r    rule
	}{
		{"nullable needs a pointer", reflect.TypeFor[string](), rule{types: tString | tNull}},
		{"integer is not float64", reflect.TypeFor[float64](), rule{types: tInteger}},
		{"number is not int64", reflect.TypeFor[*int64](), rule{types: tNumber}},
		{"enum of strings", reflect.TypeFor[bool](), rule{enum: []literal{{kind: '"', str: "a"}}}},
		{"any value", reflect.TypeFor[string](), rule{}},
	}
	for _, tt := range tests {
		if err := fits(tt.typ, &tt.r); err == nil {
			t.Errorf("%s: fits(%s, %+v) = nil; want an error", tt.name, tt.typ, tt.r)
		}
	}
}

// TestExplainMismatch covers the fail-closed path: a line the fast checker
// would wrongly reject still gets a protocol error, one asking for a bug
// report.
func TestExplainMismatch(t *testing.T) {
	t.Parallel()
	for _, line := range []string{`{"type":"progress","message":"valid"}`, `{"type":"result"}`} {
		cause, hint, err := explain([]byte(line), eventRules())
		if !errors.Is(err, errMismatch) || hint != hintMismatch || cause == "" {
			t.Errorf("explain(%s) = %q, %q, %v; want errMismatch", line, cause, hint, err)
		}
	}
}

func TestVisible(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"plain {\"a\":\"é😀\"}", "plain {\"a\":\"é😀\"}"},
		{"tab\tkept", "tab\tkept"},
		{"nul\x00 esc\x1b del\x7f", `nul\x00 esc\x1b del\x7f`},
		{"bad \xff\xfe utf8", `bad \xff\xfe utf8`},
		{"\ufeffbom, zero\u200bwidth, nbsp\u00a0", `\ufeffbom, zero\u200bwidth, nbsp\u00a0`},
	}
	for _, tt := range tests {
		if got := Visible([]byte(tt.in)); got != tt.want {
			t.Errorf("Visible(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

func TestCut(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want int
	}{
		{"short", "abc", 3},
		{"exactly the limit", strings.Repeat("a", 1024), 1024},
		{"ascii", strings.Repeat("a", 2000), 1024},
		{"rune across the limit", strings.Repeat("a", 1022) + "😀", 1022},
		{"rune ends at the limit", strings.Repeat("a", 1020) + "😀" + "b", 1024},
		{"invalid bytes at the limit", strings.Repeat("a", 1023) + "\xf0\x9f\xff", 1024},
	}
	for _, tt := range tests {
		if got := cut([]byte(tt.in)); len(got) != tt.want || string(got) != tt.in[:tt.want] {
			t.Errorf("%s: len(cut) = %d; want %d", tt.name, len(got), tt.want)
		}
	}
}

// withExtra is a note_ack with a field its schema does not describe.
type withExtra struct {
	protocol.NoteAck
	Extra string `json:"extra"`
}

func TestCompileEventRejects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		newEvent func() protocol.Event
		want     string
	}{
		{"field without property", func() protocol.Event { return new(withExtra) }, `fields [extra] of events.withExtra: no property in the schema`},
		{"property without field", func() protocol.Event { return new(protocol.AgentAction) }, `property "id": no field in protocol.AgentAction`},
		{"no Go type", nil, `no Go type for event type "note_ack"`},
	}
	for _, tt := range tests {
		_, err := compileEvent("events/note_ack.schema.json", "note_ack", tt.newEvent)
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s: compileEvent = %v; want %q", tt.name, err, tt.want)
		}
	}
}

// BenchmarkScan checks one flat progress event, the flood's unit, and
// builds it as the view's observer would have it.
func BenchmarkScan(b *testing.B) {
	c := newChecker()
	line := []byte(`{"type":"progress","message":"flooding the runner","percent":5}`)
	for _, bc := range []struct {
		name  string
		build []bool
	}{{"check", nil}, {"build", c.buildAll}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if k, _, _ := c.scan(line, bc.build); k != lineEvent {
					b.Fatalf("kind %d; want an event", k)
				}
			}
		})
	}
}
