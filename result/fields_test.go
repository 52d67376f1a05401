package result_test

import (
	"fmt"
	"strings"
	"testing"

	"kusaw.dev/step/result"
)

func fieldCases() []checkCase {
	five := []string{item("a", "x"), item("b", "x"), item("c", "x"), item("d", "x"), item("e", "x")}
	rd, pi, ri := []string{result.WarnRecoveryDropped}, []string{result.WarnPhaseIgnored}, []string{result.WarnRetryAfterIgnored}
	return []checkCase{
		{name: "recovery/5", line: line(recoveryOf(five...)), check: recovery(5)},
		{name: "recovery/6", line: line(recoveryOf(append(five, item("f", "x"))...)), warns: rd, check: warned("recovery[5] dropped", 5)},
		{name: "recovery/an invalid item does not count", line: line(recoveryOf(append([]string{item("", "x")}, append(five, item("f", "x"))...)...)),
			warns: []string{"recovery_dropped", "recovery_dropped"}, check: warned("recovery[0] dropped: its title is empty", 5)},
		{name: "recovery/title of 80 characters", line: line(recoveryOf(item(strings.Repeat("é", 80), "x"))), check: recovery(1)},
		{name: "recovery/title of 81 characters", line: line(recoveryOf(item(strings.Repeat("é", 81), "x"))), warns: rd, check: warned("title is 81 characters", 0)},
		{name: "recovery/command of 500 characters", line: line(recoveryOf(item("t", strings.Repeat("c", 500)))), check: recovery(1)},
		{name: "recovery/command of 501 characters", line: line(recoveryOf(item("t", strings.Repeat("c", 501)))), warns: rd, check: warned("command is 501 characters", 0)},
		{name: "recovery/no command", line: line(recoveryOf(`{"title":"t"}`)), warns: rd, check: warned("command is empty", 0)},
		// Issue 13 item 10: leniency as written, for values of the wrong JSON type too.
		{name: "phase: a number is ignored with a warning", line: line(`"phase":5`), warns: pi, check: phase("")},
		{name: "phase: null is ignored with a warning", line: line(`"phase":null`), warns: pi, check: phase("")},
		{name: "recovery[].title: a number drops the item with a warning", line: line(recoveryOf(`{"title":7,"command":"x"}`, item("b", "y"))),
			warns: rd, check: warned("recovery[0] dropped: its title is a number, not a string", 1)},
		{name: "recovery[].command: an array drops the item", line: line(recoveryOf(`{"title":"t","command":["x"]}`)), warns: rd, check: warned("its command is an array", 0)},
		{name: "recovery[]: a string item is dropped", line: line(recoveryOf(`"make fix"`)), warns: rd, check: warned("recovery[0] dropped: it is a string", 0)},
		{name: "recovery: not an array is ignored", line: line(`"recovery":{"title":"t"}`), warns: rd, check: warned("recovery is an object", 0)},
		{name: "phase/ok", line: line(`"phase":"build_2"`), check: phase("build_2")},
		{name: "phase/40 characters", line: line(`"phase":"` + strings.Repeat("p", 40) + `"`), check: phase(strings.Repeat("p", 40))},
		{name: "phase/41 characters", line: line(`"phase":"` + strings.Repeat("p", 41) + `"`), warns: pi, check: phase("")},
		{name: "phase/capital", line: line(`"phase":"Build"`), warns: pi, check: phase("")},
		{name: "phase/leading digit", line: line(`"phase":"2nd"`), warns: pi, check: phase("")},
		{name: "phase/hyphen", line: line(`"phase":"a-b"`), warns: pi, check: phase("")},
		{name: "phase/empty", line: line(`"phase":""`), warns: pi, check: phase("")},
		{name: "retry_after_ms/999", line: line(`"retry_after_ms":999`), warns: ri, check: retryAfter(0)},
		{name: "retry_after_ms/1000", line: line(`"retry_after_ms":1000`), check: retryAfter(1000)},
		{name: "retry_after_ms/900000", line: line(`"retry_after_ms":900000`), check: retryAfter(900000)},
		{name: "retry_after_ms/900001", line: line(`"retry_after_ms":900001`), warns: ri, check: retryAfter(0)},
		{name: "retry_after_ms/1e3", line: line(`"retry_after_ms":1e3`), check: retryAfter(1000)},
		{name: "retry_after_ms/past int64", line: line(`"retry_after_ms":99999999999999999999`), warns: ri, check: retryAfter(0)},
		{name: "retry_after_ms/negative", line: line(`"retry_after_ms":-5000`), warns: ri, check: retryAfter(0)},
		{name: "resets_at/ok", line: line(`"resets_at":"2026-01-02T15:04:05.5+02:00"`), check: resetsAt("2026-01-02T15:04:05.5+02:00")},
		{name: "resets_at/bad", line: line(`"resets_at":"tomorrow"`), warns: []string{result.WarnResetsAtIgnored}, check: resetsAt("")},
		{name: "resets_at/date only", line: line(`"resets_at":"2026-01-02"`), warns: []string{result.WarnResetsAtIgnored}, check: resetsAt("")},
		{name: "provenance/ok", line: line(`"provenance":{"model":"m","provider":"p","prompt_sha256":"abc","tools":{"go":"1.26"}}`),
			check: provenance(&result.Provenance{Model: "m", Provider: "p", PromptSHA256: "abc", Tools: map[string]string{"go": "1.26"}})},
		{name: "provenance/wrong types", line: line(`"provenance":{"model":3,"provider":"p","prompt_sha256":["x"],"tools":{"go":1,"rg":"14"}}`),
			warns: []string{"provenance_ignored", "provenance_ignored", "provenance_ignored"},
			check: provenance(&result.Provenance{Provider: "p", Tools: map[string]string{"rg": "14"}})},
		{name: "provenance/tools not an object", line: line(`"provenance":{"model":"m","tools":"go"}`), warns: []string{"provenance_ignored"},
			check: provenance(&result.Provenance{Model: "m"})},
		{name: "provenance/32 tools", line: line(`"provenance":{"tools":` + tools(32) + `}`), check: toolCount(32)},
		{name: "provenance/33 tools", line: line(`"provenance":{"model":"m","tools":` + tools(33) + `}`), warns: []string{"provenance_ignored"},
			check: provenance(&result.Provenance{Model: "m"})},
		{name: "provenance/not an object", line: line(`"provenance":"m"`), warns: []string{"provenance_ignored"}, check: provenance(nil)},
		{name: "provenance/null", line: line(`"provenance":null`), check: provenance(nil)},
	}
}

func tools(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf(`"t%d":"1"`, i)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func recovery(n int) func(*testing.T, *result.Verdict) {
	return func(t *testing.T, v *result.Verdict) {
		if len(v.Recovery) != n || len(v.Result.Recovery) != n {
			t.Errorf("Recovery = %d items, Result.Recovery %d; want %d", len(v.Recovery), len(v.Result.Recovery), n)
		}
	}
}

// warned checks the first warning's message and how many items were kept.
func warned(text string, kept int) func(*testing.T, *result.Verdict) {
	return func(t *testing.T, v *result.Verdict) {
		if len(v.Warnings) == 0 || !strings.Contains(v.Warnings[0].Message, text) {
			t.Errorf("Warnings = %v; want the first to say %q", v.Warnings, text)
		}
		recovery(kept)(t, v)
	}
}

func phase(want string) func(*testing.T, *result.Verdict) {
	return func(t *testing.T, v *result.Verdict) {
		if v.Phase != want || v.Result.Phase != want {
			t.Errorf("Phase = %q, Result.Phase %q; want %q", v.Phase, v.Result.Phase, want)
		}
	}
}

func retryAfter(want int64) func(*testing.T, *result.Verdict) {
	return func(t *testing.T, v *result.Verdict) {
		got, res := v.RetryAfterMS, v.Result.RetryAfterMS
		if want == 0 && (got != nil || res != nil) || want != 0 && (got == nil || *got != want || res == nil || *res != want) {
			t.Errorf("RetryAfterMS = %v, Result.RetryAfterMS = %v; want %d (0: none)", got, res, want)
		}
	}
}

func resetsAt(want string) func(*testing.T, *result.Verdict) {
	return func(t *testing.T, v *result.Verdict) {
		if v.ResetsAt != want || v.Result.ResetsAt != want {
			t.Errorf("ResetsAt = %q, Result.ResetsAt %q; want %q", v.ResetsAt, v.Result.ResetsAt, want)
		}
	}
}

func provenance(want *result.Provenance) func(*testing.T, *result.Verdict) {
	return func(t *testing.T, v *result.Verdict) {
		if fmt.Sprintf("%+v", v.Provenance) != fmt.Sprintf("%+v", want) {
			t.Errorf("Provenance = %+v; want %+v", v.Provenance, want)
		}
		if (want == nil) != (v.Result.Provenance == nil) {
			t.Errorf("Result.Provenance = %s; want it set only when something was kept", v.Result.Provenance)
		}
	}
}

func toolCount(n int) func(*testing.T, *result.Verdict) {
	return func(t *testing.T, v *result.Verdict) {
		if v.Provenance == nil || len(v.Provenance.Tools) != n {
			t.Errorf("Provenance = %+v; want %d tools", v.Provenance, n)
		}
	}
}
