package conform_test

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"kusaw.dev/step/conform"
)

var update = flag.Bool("update", false, "rewrite the golden report files in testdata")

// sample is a fixed report with every kind of outcome: pass, skip, a
// failed MUST check, a failed SHOULD check, characters each format must
// escape.
func sample() *conform.Report {
	check := func(id string) conform.Check {
		for _, c := range conform.Checks {
			if c.ID == id {
				return c
			}
		}
		panic(id)
	}
	return &conform.Report{
		Command: []string{"bin/hello", "--loud"},
		Step:    "hello 1.0.0",
		Outcomes: []conform.Outcome{
			{Check: check("HS-001"), Status: conform.Pass, Message: "exited 0 in 12ms"},
			{Check: check("HS-005"), Status: conform.Skip, Message: "the step declares no outputs_schema"},
			{Check: check("AT-007"), Mode: "pipeline", Status: conform.Fail, Message: `stdout line 1: "<starting> & #1" is not JSON; print only protocol lines on stdout and log to stderr`},
			{Check: check("AT-012"), Mode: "pipeline", Status: conform.Fail, Message: "all 3 events arrived in the last 4ms of a 1.2s attempt; flush stdout after each line"},
		},
	}
}

// TestReportGolden compares each report format with its golden file in
// testdata; go test -update rewrites them.
func TestReportGolden(t *testing.T) {
	for _, format := range conform.Formats {
		t.Run(format, func(t *testing.T) {
			var b bytes.Buffer
			if err := sample().Write(&b, format); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "report."+format)
			if *update {
				if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(b.Bytes(), want) {
				t.Errorf("Write(%q) =\n%s\nwant (%s)\n%s", format, b.Bytes(), golden, want)
			}
		})
	}
}

func TestReportUnknownFormat(t *testing.T) {
	err := sample().Write(new(bytes.Buffer), "xml")
	if !errors.Is(err, conform.ErrFormat) {
		t.Errorf("Write(xml) = %v; want ErrFormat", err)
	}
}

func TestReportVerdict(t *testing.T) {
	rep := sample()
	if rep.Passed() {
		t.Errorf("Passed() = true with a failed MUST check")
	}
	rep.Outcomes = rep.Outcomes[3:] // only the failed SHOULD check
	if !rep.Passed() {
		t.Errorf("Passed() = false with only a failed SHOULD check")
	}
	if got := rep.Summary(); got != "0 passed, 1 failed (0 MUST), 0 skipped: PASS" {
		t.Errorf("Summary() = %q", got)
	}
}
