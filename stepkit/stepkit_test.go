package stepkit_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kusaw.dev/step/protocol"
	"kusaw.dev/step/stepkit"
	"kusaw.dev/step/steptest"
)

// echo is a step that reports progress, publishes an artifact and returns
// its config's word.
var echo = &stepkit.Program{
	Handshake: protocol.Handshake{Name: "echo", Version: "0.1.0"},
	Run: func(ctx context.Context, s *stepkit.Step) (*protocol.Result, error) {
		var cfg struct{ Word string }
		if err := s.Config(&cfg); err != nil {
			return nil, err
		}
		if err := s.Progress("echoing", 50); err != nil {
			return nil, err
		}
		if err := s.WriteArtifact(protocol.Artifact{Path: "out/word.txt", Kind: "log"}, []byte(cfg.Word)); err != nil {
			return nil, err
		}
		return stepkit.OK("echoed", cfg.Word, map[string]string{"word": cfg.Word})
	},
}

func TestHandshakeFilledIn(t *testing.T) {
	h := steptest.Handshake(t, echo)
	if h.Type != "handshake" || !h.Speaks(protocol.Version) || h.Name != "echo" {
		t.Errorf("handshake %+v; want type handshake, protocol 2, name echo", h)
	}
}

func TestServe(t *testing.T) {
	req, artifacts := steptest.NewRequest(t, steptest.Options{Config: `{"word":"hi"}`})
	rec := steptest.Serve(t, echo, req)
	sum, evs := rec.Read()
	if len(sum.Problems) > 0 {
		t.Fatalf("protocol errors: %v", sum.Problems[0])
	}
	if len(evs) != 2 || evs[0].EventType() != "progress" || evs[1].EventType() != "artifact" {
		t.Errorf("events %v; want progress, artifact", evs)
	}
	res, err := rec.Result()
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != "ok" || string(res.Outputs) != `{"word":"hi"}` || sum.ResultLine != len(rec.Lines()) {
		t.Errorf("result %+v on line %d of %d; want ok, outputs {\"word\":\"hi\"}, last", res, sum.ResultLine, len(rec.Lines()))
	}
	if data, err := os.ReadFile(filepath.Join(artifacts, "out", "word.txt")); err != nil || string(data) != "hi" {
		t.Errorf("artifact: %q, %v; want hi", data, err)
	}
}

func TestRunErrorIsAFailedResult(t *testing.T) {
	p := &stepkit.Program{Run: func(context.Context, *stepkit.Step) (*protocol.Result, error) {
		return nil, errors.New("no network")
	}}
	req, _ := steptest.NewRequest(t, steptest.Options{})
	res, err := steptest.Serve(t, p, req).Result()
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != "fail" || res.ReasonCode != "step_error" || res.Message != "no network" {
		t.Errorf("result %s/%s %q; want fail/step_error \"no network\"", res.Status, res.ReasonCode, res.Message)
	}
}

func TestDecodeRequest(t *testing.T) {
	req, _ := steptest.NewRequest(t, steptest.Options{})
	future := strings.Replace(string(req), `{`, `{"x_future":{"a":[1]},`, 1)
	got, err := stepkit.DecodeRequest(strings.NewReader(future))
	if err != nil || got.Mode != "pipeline" {
		t.Errorf("DecodeRequest(with an unknown field) = %+v, %v; want mode pipeline", got, err)
	}
	old := strings.Replace(string(req), `"protocol_version":2`, `"protocol_version":1`, 1)
	if _, err := stepkit.DecodeRequest(strings.NewReader(old)); err == nil {
		t.Errorf("DecodeRequest(protocol 1) = nil error; want one")
	}
}

func TestWriteArtifactStaysInside(t *testing.T) {
	p := &stepkit.Program{Run: func(_ context.Context, s *stepkit.Step) (*protocol.Result, error) {
		err := s.WriteArtifact(protocol.Artifact{Path: "../escape.txt", Kind: "log"}, nil)
		if err == nil {
			return stepkit.Fail("escaped", "wrote outside"), nil
		}
		return stepkit.OK("refused", err.Error(), nil)
	}}
	req, artifacts := steptest.NewRequest(t, steptest.Options{})
	res, err := steptest.Serve(t, p, req).Result()
	if err != nil || res.ReasonCode != "refused" {
		t.Errorf("result %+v, %v; want refused", res, err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(artifacts), "escape.txt")); err == nil {
		t.Errorf("escape.txt was written outside the artifacts dir")
	}
}

// TestInteractiveFiles runs an attempt through KUSAW_REQUEST, KUSAW_EVENTS
// and KUSAW_RESULT: events go to their file, the result to its own.
func TestInteractiveFiles(t *testing.T) {
	dir := t.TempDir()
	req, _ := steptest.NewRequest(t, steptest.Options{Config: `{"word":"hey"}`})
	files := map[string]string{
		"KUSAW_REQUEST": filepath.Join(dir, "request.json"),
		"KUSAW_EVENTS":  filepath.Join(dir, "events.jsonl"),
		"KUSAW_RESULT":  filepath.Join(dir, "result.json"),
	}
	if err := os.WriteFile(files["KUSAW_REQUEST"], req, 0o600); err != nil {
		t.Fatal(err)
	}
	stdout := steptest.NewRecorder()
	env := func(name string) string { return files[name] }
	if err := echo.Serve(context.Background(), strings.NewReader(""), stdout, env); err != nil {
		t.Fatal(err)
	}
	events, _ := os.ReadFile(files["KUSAW_EVENTS"])
	result, _ := os.ReadFile(files["KUSAW_RESULT"])
	if len(stdout.Bytes()) != 0 || strings.Count(string(events), "\n") != 2 || !strings.Contains(string(result), `"reason_code":"echoed"`) {
		t.Errorf("stdout %q, events %q, result %q; want nothing, 2 lines, the result", stdout.Bytes(), events, result)
	}
}
