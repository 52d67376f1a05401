package schemas

import (
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// checkCycles finds a reference cycle that applies to the same value again
// and again ({"$ref": "#"}, or allOf back to itself): the validator would
// only find it while validating some document. A cycle through a keyword
// that descends into the value (properties, items, …) is fine: it is how
// recursive data is described.
func checkCycles(root *jsonschema.Schema) error {
	state := make(map[*jsonschema.Schema]int) // 0 unseen, 1 on the in-place path, 2 done
	var visit func(s *jsonschema.Schema) error
	visit = func(s *jsonschema.Schema) error {
		switch state[s] {
		case 1:
			return fmt.Errorf("reference cycle at %s: the schema refers back to itself without descending into the value", s.Location)
		case 2:
			return nil
		}
		state[s] = 1
		for _, next := range inPlace(s) {
			if err := visit(next); err != nil {
				return err
			}
		}
		state[s] = 2
		for _, child := range descending(s) {
			if err := visit(child); err != nil {
				return err
			}
		}
		return nil
	}
	return visit(root)
}

// inPlace lists the subschemas applied to the same value as s.
func inPlace(s *jsonschema.Schema) []*jsonschema.Schema {
	out := append([]*jsonschema.Schema{s.Ref, s.RecursiveRef, s.Not, s.If, s.Then, s.Else}, s.AllOf...)
	out = append(out, s.AnyOf...)
	out = append(out, s.OneOf...)
	if s.DynamicRef != nil {
		out = append(out, s.DynamicRef.Ref)
	}
	for _, d := range s.DependentSchemas {
		out = append(out, d)
	}
	for _, d := range s.Dependencies {
		out = append(out, asSchema(d))
	}
	return compact(out)
}

// descending lists the subschemas applied to values inside the value.
func descending(s *jsonschema.Schema) []*jsonschema.Schema {
	out := []*jsonschema.Schema{s.PropertyNames, s.UnevaluatedProperties, s.Contains, s.Items2020, s.UnevaluatedItems, s.ContentSchema,
		asSchema(s.AdditionalProperties), asSchema(s.AdditionalItems), asSchema(s.Items)}
	for _, p := range s.Properties {
		out = append(out, p)
	}
	for _, p := range s.PatternProperties {
		out = append(out, p)
	}
	out = append(out, s.PrefixItems...)
	if items, ok := s.Items.([]*jsonschema.Schema); ok {
		out = append(out, items...)
	}
	return compact(out)
}

func asSchema(v any) *jsonschema.Schema {
	s, _ := v.(*jsonschema.Schema)
	return s
}

func compact(list []*jsonschema.Schema) []*jsonschema.Schema {
	out := list[:0]
	for _, s := range list {
		if s != nil {
			out = append(out, s)
		}
	}
	return out
}
