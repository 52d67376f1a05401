package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	step "kusaw.dev/step"
	"kusaw.dev/step/protocol"
)

// TestWriteVerdict holds the verdict block to golden files (issue 16 item
// 7): duration, exit status, tokens and cost when reported, the count of
// warnings, and the logs an interactive step really wrote.
func TestWriteVerdict(t *testing.T) {
	zero, three := 0, 3
	in, out, cached := int64(12000), int64(345), int64(6000)
	usd, resultUSD := 0.0123, 0.5
	many := make([]protocol.Warning, 12)
	for i := range many {
		many[i] = protocol.Warning{Code: "phase_invalid", Message: "phase ignored"}
	}
	logs := step.Logs{Stdout: step.LogFile{Bytes: 606}, Stderr: step.LogFile{Bytes: 2048}}
	tests := []struct {
		name string
		rec  step.Record
	}{
		{"ok-usage", step.Record{
			Status: "ok", ReasonCode: "greeted", Message: "hello", Outputs: []byte(`{"greeting":"hello"}`),
			Artifacts: []protocol.Artifact{{Path: "greeting.txt", Kind: "log"}},
			Warnings:  []protocol.Warning{{Code: "phase_invalid", Message: "phase ignored"}},
			Usage:     &protocol.Usage{TokensInput: &in, TokensOutput: &out, CostUSD: &usd},
			ExitCode:  &zero, DurationMS: 1234, Logs: logs,
		}},
		{"result-cost", step.Record{
			Status: "fail", ReasonCode: "tests_failed", Message: "2 failed",
			Usage: &protocol.Usage{TokensInput: &in, CostUSD: &usd}, Cost: &protocol.Cost{TokensInput: &in, TokensOutput: &out, TokensCached: &cached, USD: &resultUSD},
			ExitCode: &three, DurationMS: 125000, Logs: logs, Warnings: many,
		}},
		{"killed", step.Record{
			Status: "killed", ReasonCode: "cancelled", Message: "the attempt was cancelled",
			Signal: "killed", ExitCode: new(-1), DurationMS: 850, Logs: logs,
		}},
		{"not-started", step.Record{
			Status: "fail", ReasonCode: "start_failed", Message: "the step could not be started", Logs: logs,
		}},
		{"interactive", step.Record{
			Status: "ok", ReasonCode: "done", Message: "greeted Ada", ExitCode: &zero, DurationMS: 61000,
			Logs: step.Logs{Terminal: &step.LogFile{Bytes: 4096}, Events: &step.LogFile{Bytes: 120}},
		}},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		writeVerdict(&b, &tt.rec, "/runs/a")
		golden := filepath.Join("testdata", "verdict", tt.name+".txt")
		if *update {
			os.MkdirAll(filepath.Dir(golden), 0o755)
			if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (go test -run TestWriteVerdict -update)", err)
		}
		if b.String() != string(want) {
			t.Errorf("%s: the verdict block differs from %s:\n%s", tt.name, golden, b.String())
		}
	}
}
