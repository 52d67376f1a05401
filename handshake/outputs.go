package handshake

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"kusaw.dev/step/protocol"
	"kusaw.dev/step/schemas"
)

// maxSchemaFile bounds the size of an outputs_schema file.
const maxSchemaFile = 4 << 20

// outputsSchema compiles the outputs_schema of a handshake document, if it
// has one: an inline object, or a string naming a file relative to the
// folder the step at stepPath really lives in. It returns nil, nil when
// there is none, and an error that says why when it cannot be compiled.
func outputsSchema(doc map[string]any, stepPath string) (*schemas.Schema, error) {
	v, ok := doc["outputs_schema"]
	if !ok {
		return nil, nil
	}
	switch v := v.(type) {
	case map[string]any:
		return schemas.Compile("outputs_schema", v)
	case string:
		return loadSchema(v, stepPath)
	}
	return nil, fmt.Errorf("outputs_schema is %s; want an object (the schema itself) or a string (a path relative to the step's folder)", jsonKind(v))
}

// loadSchema reads, strictly decodes and compiles the schema file rel.
func loadSchema(rel, stepPath string) (*schemas.Schema, error) {
	file, err := schemaPath(rel, stepPath)
	if err != nil {
		return nil, err
	}
	data, err := readSchemaFile(file)
	if err != nil {
		return nil, fmt.Errorf("outputs_schema %q: %w", rel, err)
	}
	doc, err := protocol.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("outputs_schema %q: %s is not strict JSON: %w", rel, file, err)
	}
	if _, ok := doc.(map[string]any); !ok {
		return nil, fmt.Errorf("outputs_schema %q: %s holds %s; want a JSON Schema object", rel, file, jsonKind(doc))
	}
	s, err := schemas.Compile("outputs_schema", doc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return s, nil
}

// schemaPath joins rel to the folder of the file stepPath really is, after
// following symbolic links: a step and its schema file stay together when
// the step is linked from elsewhere (a bin folder, a package manager's
// links).
func schemaPath(rel, stepPath string) (string, error) {
	if rel == "" || filepath.IsAbs(rel) {
		return "", fmt.Errorf("outputs_schema %q is not a relative path; name a file relative to the step's folder", rel)
	}
	real, err := filepath.EvalSymlinks(stepPath)
	if err != nil {
		return "", fmt.Errorf("outputs_schema %q: find the step's folder: %w", rel, err)
	}
	return filepath.Join(filepath.Dir(real), rel), nil
}

// readSchemaFile reads a regular file of at most maxSchemaFile bytes.
func readSchemaFile(name string) ([]byte, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", name)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSchemaFile+1))
	if err == nil && len(data) > maxSchemaFile {
		err = fmt.Errorf("%s is larger than 4 MiB", name)
	}
	return data, err
}

// jsonKind names the JSON type of a value from protocol.Parse.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "a number"
}
