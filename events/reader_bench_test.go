package events_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"kusaw.dev/step/events"
	"kusaw.dev/step/protocol"
	"kusaw.dev/step/schemas"
)

// progressStream returns n progress events of about 70 bytes, one a line.
func progressStream(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, `{"type":"progress","message":"step %d of %d","percent":%.1f}`+"\n", i, n, float64(i%1000)/10)
	}
	return b.Bytes()
}

// eventSchema compiles the oneOf event schema from schemas.FS, the way a
// runner without a fast path would.
func eventSchema(tb testing.TB) *jsonschema.Schema {
	tb.Helper()
	c := jsonschema.NewCompiler()
	names, _ := fs.Glob(schemas.FS, "events/*.schema.json")
	for _, name := range append(names, "event.schema.json") {
		data, err := schemas.FS.ReadFile(name)
		if err != nil {
			tb.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			tb.Fatal(err)
		}
		if err := c.AddResource(schemas.BaseURL+name, doc); err != nil {
			tb.Fatal(err)
		}
	}
	s, err := c.Compile(schemas.BaseURL + "event.schema.json")
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// readNaive is the naive reader: bufio.Scanner, encoding/json into a map
// and the oneOf event schema. It returns the number of valid events.
func readNaive(r io.Reader, schema *jsonschema.Schema) (int, error) {
	sc := bufio.NewScanner(r)
	n := 0
	for sc.Scan() {
		var doc map[string]any
		if err := json.Unmarshal(sc.Bytes(), &doc); err != nil {
			return n, err
		}
		if err := schema.Validate(doc); err != nil {
			return n, err
		}
		n++
	}
	return n, sc.Err()
}

// BenchmarkReader reads a stream of small progress events, with the fast
// path (Read) and with the naive reader. Run it with -cpu=1 for one core.
func BenchmarkReader(b *testing.B) {
	const lines = 10000
	stream := progressStream(lines)
	b.Run("fast", func(b *testing.B) {
		b.SetBytes(int64(len(stream)))
		b.ReportAllocs()
		seen := 0
		opts := events.Options{OnEvent: func(int, []byte, protocol.Event) { seen++ }}
		for b.Loop() {
			if _, err := events.Read(bytes.NewReader(stream), opts); err != nil {
				b.Fatal(err)
			}
		}
		if seen != lines*b.N {
			b.Fatalf("saw %d events; want %d", seen, lines*b.N)
		}
		b.ReportMetric(float64(seen)/b.Elapsed().Seconds(), "events/s")
	})
	b.Run("check", func(b *testing.B) { // no OnEvent: events are checked and counted only
		b.SetBytes(int64(len(stream)))
		b.ReportAllocs()
		seen := 0
		for b.Loop() {
			sum, err := events.Read(bytes.NewReader(stream), events.Options{})
			if err != nil {
				b.Fatal(err)
			}
			seen += sum.Events["progress"]
		}
		if seen != lines*b.N {
			b.Fatalf("saw %d events; want %d", seen, lines*b.N)
		}
		b.ReportMetric(float64(seen)/b.Elapsed().Seconds(), "events/s")
	})
	b.Run("naive", func(b *testing.B) {
		schema := eventSchema(b)
		b.SetBytes(int64(len(stream)))
		b.ReportAllocs()
		seen := 0
		for b.Loop() {
			n, err := readNaive(bytes.NewReader(stream), schema)
			if err != nil {
				b.Fatal(err)
			}
			seen += n
		}
		b.ReportMetric(float64(seen)/b.Elapsed().Seconds(), "events/s")
	})
}
