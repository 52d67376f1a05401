package result_test

import (
	"fmt"
	"strings"
	"testing"

	"kusaw.dev/step/protocol"
	"kusaw.dev/step/result"
)

const note = `{"kind":"run.note","args":{"text":"hi"}}`

func effectsCases() []checkCase {
	ei := protocol.ReasonEffectsInvalid
	allowed := result.Options{Request: withEffects("pipeline")}
	return []checkCase{
		{name: "effects/none allowed", line: line(effectsOf(2, note)), status: "retry", reason: ei,
			check: feedback([]result.EffectProblem{{0, "run.note", "no effects block"}, {1, "run.note", "no effects block"}})},
		{name: "effects/100", line: line(effectsOf(100, note)), opts: allowed, check: func(t *testing.T, v *result.Verdict) {
			if v.Effects == nil || len(v.Effects.Effects) != 100 || v.EffectsFeedback != nil {
				t.Errorf("Effects = %+v, feedback %v; want a plan of 100", v.Effects, v.EffectsFeedback)
			}
		}},
		{name: "effects/101", line: line(effectsOf(101, note)), opts: allowed, status: "retry", reason: ei, msg: []string{"101 effects", "at most 100"},
			check: feedback([]result.EffectProblem{{100, "run.note", "at most 100"}})},
		{name: "effects/101 when none allowed", line: line(effectsOf(101, note)), status: "retry", reason: ei,
			check: feedback([]result.EffectProblem{{100, "run.note", "at most 100"}})},
		{name: "effects/kind not allowed", line: line(`"effects":[` + note + `,{"kind":"repo.push"}]`), opts: allowed, status: "retry", reason: ei,
			msg: []string{"1 of 2 effects"}, check: feedback([]result.EffectProblem{{1, "repo.push", `kind "repo.push" is not allowed`}})},
		{name: "effects/args violate the kind's schema", line: line(`"effects":[{"kind":"run.note","args":{"text":7}}]`), opts: allowed,
			status: "retry", reason: ei, check: feedback([]result.EffectProblem{{0, "run.note", "/effects/0/args/text"}})},
		{name: "effects/absent args are {}", line: line(`"effects":[{"kind":"run.note"}]`), opts: allowed,
			status: "retry", reason: ei, check: feedback([]result.EffectProblem{{0, "run.note", "text"}})},
		{name: "effects/draft-07 kind schema", line: line(`"effects":[{"kind":"gate.ask","args":{"q":"too long"}}]`), opts: allowed,
			status: "retry", reason: ei, check: feedback([]result.EffectProblem{{0, "gate.ask", "/effects/0/args/q"}})},
		{name: "effects/kind schema does not compile", line: line(`"effects":[{"kind":"broken.kind","args":{}}]`), opts: allowed,
			status: "retry", reason: ei, check: feedback([]result.EffectProblem{{0, "broken.kind", "does not compile"}})},
		{name: "effects/valid plan", line: line(`"effects":[` + note + `,{"kind":"gate.ask","args":{"q":"ok?"}},{"kind":"free"}]`), opts: allowed,
			check: func(t *testing.T, v *result.Verdict) {
				want := &result.Plan{Mode: "dry_run", Effects: []result.PlannedEffect{
					{Kind: "run.note", Args: []byte(`{"text":"hi"}`), Scope: "local"},
					{Kind: "gate.ask", Args: []byte(`{"q":"ok?"}`), Scope: "outside"},
					{Kind: "free", Scope: "local"},
				}}
				if got := fmt.Sprintf("%+v", v.Effects); got != fmt.Sprintf("%+v", want) {
					t.Errorf("Effects = %s; want %+v", got, want)
				}
			}},
		{name: "effects/empty plan", line: line(`"effects":[]`), check: func(t *testing.T, v *result.Verdict) {
			if v.Effects != nil {
				t.Errorf("Effects = %+v; want nil", v.Effects)
			}
		}},
	}
}

// feedback checks EffectsFeedback: index and kind equal, message contains.
func feedback(want []result.EffectProblem) func(*testing.T, *result.Verdict) {
	return func(t *testing.T, v *result.Verdict) {
		got := v.EffectsFeedback
		ok := len(got) == len(want) && v.Effects == nil
		for i := 0; ok && i < len(got); i++ {
			ok = got[i].Index == want[i].Index && got[i].Kind == want[i].Kind && strings.Contains(got[i].Message, want[i].Message)
		}
		if !ok {
			t.Errorf("EffectsFeedback = %+v (plan %+v); want %+v and no plan", got, v.Effects, want)
		}
	}
}
