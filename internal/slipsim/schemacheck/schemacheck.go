// Package schemacheck validates Slipway machine-protocol documents against
// the JSON Schemas Slipway publishes, read from a folder at test time (the
// schemas are not part of this module). It is test support: it does not
// decide anything about a document beyond what the schemas say.
package schemacheck

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// ErrNoSchemas is returned by [Open] when the schema folder is absent.
var ErrNoSchemas = errors.New("the published slipway schemas are not present")

// Checker validates documents against the machine-protocol schema's
// definitions. It is not safe for concurrent Compile calls.
type Checker struct {
	compiler *jsonschema.Compiler
	base     string
	cache    map[string]*jsonschema.Schema
}

// DefaultDir is ../shared/spec/slipway-schemas beside the module, or the
// folder SLIPWAY_SCHEMAS names.
func DefaultDir() string {
	if dir := os.Getenv("SLIPWAY_SCHEMAS"); dir != "" {
		return dir
	}
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "..", "shared", "spec", "slipway-schemas")
}

// Open loads machine-protocol.schema.json and source-envelope.schema.json
// from dir.
func Open(dir string) (*Checker, error) {
	c := &Checker{compiler: jsonschema.NewCompiler(), cache: map[string]*jsonschema.Schema{}}
	for _, name := range []string{"machine-protocol.schema.json", "source-envelope.schema.json"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w: %v", ErrNoSchemas, err)
		}
		if err != nil {
			return nil, err
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		url := "https://signalridge.github.io/slipway/reference/v2/" + name
		if err := c.compiler.AddResource(url, doc); err != nil {
			return nil, err
		}
	}
	c.base = "https://signalridge.github.io/slipway/reference/v2/"
	return c, nil
}

// Validate checks data against the machine-protocol definition def (for
// example "outcome", "protocolState", "cliError"), or against the source
// envelope schema when def is "source-envelope".
func (c *Checker) Validate(def string, data []byte) error {
	url := c.base + "machine-protocol.schema.json#/$defs/" + def
	if def == "source-envelope" {
		url = c.base + "source-envelope.schema.json"
	}
	sch, ok := c.cache[url]
	if !ok {
		var err error
		if sch, err = c.compiler.Compile(url); err != nil {
			return err
		}
		c.cache[url] = sch
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	return sch.Validate(doc)
}
