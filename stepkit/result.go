package stepkit

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"kusaw.dev/step/protocol"
)

// OK returns a result with status ok and outputs, when not nil, encoded as
// JSON. Its two values fit a [Func]'s return.
func OK(reason, message string, outputs any) (*protocol.Result, error) {
	res := &protocol.Result{Status: protocol.StatusOK, ReasonCode: reason, Message: message}
	if outputs != nil {
		raw, err := json.Marshal(outputs, json.Deterministic(true))
		if err != nil {
			return nil, fmt.Errorf("stepkit: encode the outputs: %w", err)
		}
		res.Outputs = jsontext.Value(raw)
	}
	return res, nil
}

// Fail returns a result with status fail.
func Fail(reason, message string) *protocol.Result {
	return &protocol.Result{Status: protocol.StatusFail, ReasonCode: reason, Message: message}
}

// final fills in the fields every result has.
func final(res *protocol.Result) *protocol.Result {
	res.Type, res.ProtocolVersion = "result", protocol.Version
	return res
}

// Config decodes the request's config into v. Names match as with
// encoding/json: by json tag or field name, case-insensitively.
func (s *Step) Config(v any) error {
	if len(s.Request.Config) == 0 {
		return nil
	}
	if err := json.Unmarshal(s.Request.Config, v, json.MatchCaseInsensitiveNames(true)); err != nil {
		return fmt.Errorf("stepkit: config: %w", err)
	}
	return nil
}

// Progress emits a progress event; percent is from 0 to 100.
func (s *Step) Progress(message string, percent float64) error {
	return s.Emit(&protocol.Progress{Message: message, Percent: &percent})
}

// WriteArtifact writes data to a.Path under the artifacts dir, making its
// folders, then publishes it with an artifact event. a.Path must be
// relative and stay inside the folder.
func (s *Step) WriteArtifact(a protocol.Artifact, data []byte) error {
	dir := s.Request.ArtifactsDir
	if dir == "" {
		return ErrNoArtifactsDir
	}
	if !filepath.IsLocal(a.Path) {
		return fmt.Errorf("stepkit: artifact path %q: want a relative path inside the artifacts dir", a.Path)
	}
	file := filepath.Join(dir, a.Path)
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(file, data, 0o644); err != nil {
		return err
	}
	return s.Emit(&protocol.ArtifactEvent{Artifact: a})
}
