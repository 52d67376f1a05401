package schemas

import (
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Schema is a schema a step supplied, compiled: its outputs_schema or an
// effect kind's args schema.
type Schema struct {
	name string
	s    *jsonschema.Schema
}

// Compile compiles doc, a parsed schema a step supplied. Its $schema picks
// the draft (draft-07 and 2020-12 both work; 2020-12 when it names none).
// Nothing is ever fetched: a $ref outside the document fails to compile, as
// does a reference cycle that could never end. name says in messages which
// schema this is, e.g. "outputs_schema".
func Compile(name string, doc any) (*Schema, error) {
	c := jsonschema.NewCompiler()
	c.UseLoader(refuseLoader{})
	url := "https://step.invalid/" + name + ".json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("%s does not compile: %w", name, err)
	}
	if err := checkCycles(s); err != nil {
		return nil, fmt.Errorf("%s does not compile: %w", name, err)
	}
	return &Schema{name: name, s: s}, nil
}

// Validate checks doc against the schema and returns nil or an [*Error]
// whose Kind is the schema's name.
func (s *Schema) Validate(doc any) error {
	return validate(s.name, s.s, doc)
}
