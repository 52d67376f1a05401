package result

import (
	"errors"
	"fmt"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"kusaw.dev/step/protocol"
	"kusaw.dev/step/schemas"
)

// checkOutputs checks outputs: their size, then outputs_schema and the
// mode's built-in outputs schema, then the mode's rules that need the
// request (see checkModeRules).
//
// The size is len of the outputs value exactly as the step sent it, from
// its '{' to its '}': white space and escapes inside count, white space
// around it does not. Outputs over the cap are not validated further.
//
// Outputs that are absent are not checked against outputs_schema: it
// describes outputs when a step sends them. In a mode with a built-in
// outputs document an ok result must send outputs; a fail, retry or reject
// result may leave them out and keep its own reason.
func (c *checker) checkOutputs() {
	raw := c.res.Outputs
	mode, kind := builtinKind(c.opts.Request)
	if len(raw) == 0 {
		if kind != "" && c.res.Status == protocol.StatusOK {
			msg := fmt.Sprintf("missing property 'outputs'; mode %s must return outputs valid against %s", mode, kind)
			c.outputsInvalid([]schemas.Problem{{Message: msg}})
		}
		return
	}
	if n, limit := int64(len(raw)), outputsMax(c.opts.Request); n > limit {
		c.fail(protocol.ReasonOutputsTooLarge, fmt.Sprintf("outputs are %d bytes, over limits.outputs_max_bytes %d (the bytes of the outputs value as the step sent it)", n, limit))
		c.res.Outputs = nil
		return
	}
	if ptr, text, ok := overflowingNumber(raw); ok {
		c.outputsInvalid([]schemas.Problem{{Pointer: "/outputs" + ptr, Message: text + " does not fit a 64-bit float: no consumer can read it back; send a smaller number, or the digits as a string"}})
		return
	}
	doc := c.doc["outputs"]
	var problems []schemas.Problem
	if s := c.opts.OutputsSchema; s != nil {
		problems = append(problems, problemsOf("outputs_schema", s.Validate(doc))...)
	}
	if kind != "" {
		problems = append(problems, problemsOf(kind, schemas.Validate(kind, doc))...)
	}
	if len(problems) == 0 {
		problems = c.checkModeRules(doc)
		for i := range problems {
			problems[i].Message += " (mode " + mode + ")"
		}
	}
	if len(problems) > 0 {
		c.outputsInvalid(problems)
		return
	}
	c.v.Outputs = c.res.Outputs
}

func (c *checker) outputsInvalid(problems []schemas.Problem) {
	c.v.Problems = problems
	c.res.Outputs = nil
	c.fail(protocol.ReasonOutputsInvalid, "the outputs are invalid: "+problemsText(problems))
}

// problemsOf turns err from validating outputs against the schema called
// name into problems, their pointers from the result's root.
func problemsOf(name string, err error) []schemas.Problem {
	out := problemsAt("/outputs", err)
	for i := range out {
		out[i].Message += " (" + name + ")"
	}
	return out
}

// problemsAt turns a validation error into problems whose pointers start
// at prefix, the pointer of the validated value in the result.
func problemsAt(prefix string, err error) []schemas.Problem {
	if err == nil {
		return nil
	}
	var ve *schemas.Error
	if !errors.As(err, &ve) {
		return []schemas.Problem{{Pointer: prefix, Message: err.Error()}}
	}
	out := make([]schemas.Problem, len(ve.Problems))
	for i, p := range ve.Problems {
		out[i] = schemas.Problem{Pointer: prefix + p.Pointer, Message: p.Message}
	}
	return out
}

// outputsMax is limits.outputs_max_bytes, or the spec's default.
func outputsMax(req *protocol.Request) int64 {
	if req == nil || req.Limits.OutputsMaxBytes == nil {
		return protocol.DefaultOutputsMaxBytes
	}
	return *req.Limits.OutputsMaxBytes
}

// builtinKind returns the request's mode and the schemas kind of the
// outputs document that mode returns, or "" when it has none.
func builtinKind(req *protocol.Request) (mode, kind string) {
	if req == nil {
		return "", ""
	}
	switch req.Mode {
	case "score":
		kind = "outputs:score"
	case "select":
		kind = "outputs:selection"
	case "match":
		kind = "outputs:review-match"
	case "classify":
		kind = "outputs:classify"
	case "triage":
		kind = triageKind(req)
	}
	return req.Mode, kind
}

// triageKind tells the two rounds of a triage batch apart. triage-group
// runs first, before any groups exist (context.triage.groups null or
// absent), and returns the groups; triage-assess then gets those groups in
// its request and returns one assessment per item.
func triageKind(req *protocol.Request) string {
	var ctx struct {
		Triage struct {
			Groups jsontext.Value `json:"groups"`
		} `json:"triage"`
	}
	if len(req.Context.Unknown) > 0 {
		// A context that does not decode has no groups we can see.
		_ = json.Unmarshal(req.Context.Unknown, &ctx)
	}
	if g := ctx.Triage.Groups; len(g) == 0 || g.Kind() == 'n' {
		return "outputs:triage-groups"
	}
	return "outputs:triage-assessments"
}
