package result

import (
	"fmt"
	"slices"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"kusaw.dev/step/protocol"
	"kusaw.dev/step/schemas"
)

// EffectProblem is one problem of an effects plan, in the shape of the
// request's loop.previous_feedback.effects: the step gets it back on its
// retry.
type EffectProblem struct {
	Index   int    `json:"index"` // 0-based index in the plan
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

// Plan is an accepted effects plan.
type Plan struct {
	// Mode is the request's effects.mode: apply, dry_run or off, how the
	// factory treats the plan.
	Mode    string          `json:"mode"`
	Effects []PlannedEffect `json:"effects"`
}

// PlannedEffect is one effect of an accepted plan.
type PlannedEffect struct {
	Kind string         `json:"kind"`
	Args jsontext.Value `json:"args,omitzero"`
	// Scope is the kind's scope: outside waits for a human gate; local
	// applies after the step.
	Scope string `json:"scope"`
}

// checkEffects checks the effects plan: the cap of protocol.MaxEffects,
// each kind against effects.allowed, each args against its kind's schema.
// An invalid plan gives retry/effects_invalid and the step the problems.
func (c *checker) checkEffects() {
	effects := c.res.Effects
	if len(effects) == 0 {
		return
	}
	var problems []EffectProblem
	if n := len(effects); n > protocol.MaxEffects {
		msg := fmt.Sprintf("the plan has %d effects; at most %d are allowed, so none was checked", n, protocol.MaxEffects)
		problems = []EffectProblem{{Index: protocol.MaxEffects, Kind: effects[protocol.MaxEffects].Kind, Message: msg}}
	} else {
		problems = c.effectProblems()
	}
	if len(problems) > 0 {
		c.v.EffectsFeedback = problems
		c.res.Effects = nil
		c.fail(protocol.ReasonEffectsInvalid, effectsText(problems, len(effects)))
		return
	}
	c.v.Effects = c.plan()
}

// effectProblems checks each effect against the request's effects block.
func (c *checker) effectProblems() []EffectProblem {
	block := allowedEffects(c.opts.Request)
	kinds := newKinds(block)
	var out []EffectProblem
	for i, e := range c.res.Effects {
		var msg string
		if block == nil {
			msg = "this step may return no effects: its request has no effects block"
		} else {
			msg = kinds.check(i, e.Kind, c.effectArgs(i))
		}
		if msg != "" {
			out = append(out, EffectProblem{Index: i, Kind: e.Kind, Message: msg})
		}
	}
	return out
}

// effectArgs is effects[i].args as parsed, or {} when absent: a kind's
// schema judges absent args as an empty object.
func (c *checker) effectArgs(i int) any {
	list, _ := c.doc["effects"].([]any)
	item, _ := list[i].(map[string]any)
	if args, ok := item["args"]; ok {
		return args
	}
	return map[string]any{}
}

// plan is the accepted plan: every effect with its kind's scope.
func (c *checker) plan() *Plan {
	block := allowedEffects(c.opts.Request)
	p := &Plan{Mode: block.Mode}
	for _, e := range c.res.Effects {
		i := slices.IndexFunc(block.Allowed, func(k protocol.EffectKind) bool { return k.Kind == e.Kind })
		p.Effects = append(p.Effects, PlannedEffect{Kind: e.Kind, Args: e.Args, Scope: block.Allowed[i].Scope})
	}
	return p
}

func allowedEffects(req *protocol.Request) *protocol.Effects {
	if req == nil {
		return nil
	}
	return req.Effects
}

func effectsText(problems []EffectProblem, n int) string {
	p := problems[0]
	if len(problems) == 1 && n > protocol.MaxEffects {
		return "the effects plan is invalid: " + p.Message
	}
	return fmt.Sprintf("%d of %d effects are invalid (see effects_feedback); effects[%d] (%s): %s", len(problems), n, p.Index, p.Kind, p.Message)
}

// kinds are the allowed effect kinds of one check. Each kind's schema is
// compiled at most once, when an effect first needs it.
type kinds struct {
	all    []protocol.EffectKind
	byName map[string]*kind
}

type kind struct {
	index    int // in effects.allowed; the first of a repeated kind wins
	spec     protocol.EffectKind
	compiled bool
	schema   *schemas.Schema // nil when the kind has no schema
	err      error
}

func newKinds(block *protocol.Effects) *kinds {
	k := &kinds{byName: make(map[string]*kind)}
	if block == nil {
		return k
	}
	k.all = block.Allowed
	for i, spec := range block.Allowed {
		if _, dup := k.byName[spec.Kind]; !dup {
			k.byName[spec.Kind] = &kind{index: i, spec: spec}
		}
	}
	return k
}

// check returns why effects[i] of kind name with args is invalid, or "".
func (k *kinds) check(i int, name string, args any) string {
	kd, ok := k.byName[name]
	if !ok {
		return fmt.Sprintf("kind %q is not allowed; this step may return %s", name, k.names())
	}
	s, err := kd.compile()
	if err != nil {
		return fmt.Sprintf("the args schema of kind %q is unusable: %v", name, err)
	}
	if s == nil {
		return ""
	}
	problems := problemsAt(fmt.Sprintf("/effects/%d/args", i), s.Validate(args))
	if len(problems) == 0 {
		return ""
	}
	texts := make([]string, len(problems))
	for j, p := range problems {
		texts[j] = p.String()
	}
	return fmt.Sprintf("args break the schema of kind %q: %s", name, strings.Join(texts, "; "))
}

func (k *kinds) names() string {
	if len(k.all) == 0 {
		return "no kind (effects.allowed is empty)"
	}
	names := make([]string, len(k.all))
	for i, spec := range k.all {
		names[i] = fmt.Sprintf("%q", spec.Kind)
	}
	return strings.Join(names, ", ")
}

func (kd *kind) compile() (*schemas.Schema, error) {
	if kd.compiled {
		return kd.schema, kd.err
	}
	kd.compiled = true
	if len(kd.spec.Schema) == 0 {
		return nil, nil
	}
	doc, err := protocol.Parse(kd.spec.Schema)
	if err != nil {
		kd.err = err
		return nil, err
	}
	kd.schema, kd.err = schemas.Compile(fmt.Sprintf("effects.allowed.%d.schema", kd.index), doc)
	return kd.schema, kd.err
}
