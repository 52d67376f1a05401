package slipway_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"kusaw.dev/step/slipway"
)

func TestCheckOutcome(t *testing.T) {
	orient := &slipway.Action{ActionID: "a1", Kind: slipway.KindOrient}
	review := &slipway.Action{ActionID: "a2", Kind: slipway.KindReview}
	implement := &slipway.Action{ActionID: "a3", Kind: slipway.KindImplement}
	legal := func(a *slipway.Action) string {
		data, _ := json.Marshal(plainOutcome(a))
		return string(data)
	}
	tests := []struct {
		name string
		act  *slipway.Action
		raw  string
		rule string // "" means legal
	}{
		{"orient legal", orient, legal(orient), ""},
		{"review legal", review, legal(review), ""},
		{"implement legal", implement, legal(implement), ""},
		{"too large", orient, legal(orient) + strings.Repeat(" ", 1<<20), "size"},
		{"bom", orient, "\xef\xbb\xbf" + legal(orient), "strict_json"},
		{"trailing", orient, legal(orient) + "{}", "strict_json"},
		{"duplicate", orient, strings.Replace(legal(orient), `"status"`, `"status":"error","status"`, 1), "strict_json"},
		{"unknown", orient, strings.Replace(legal(orient), `"status"`, `"mood":1,"status"`, 1), "shape"},
		{"missing", orient, strings.Replace(legal(orient), `,"review":null`, ``, 1), "required_field"},
		{"wrong id", orient, strings.Replace(legal(orient), `"a1"`, `"a9"`, 1), "action_id"},
		{"wrong kind", orient, strings.Replace(legal(orient), `"action_kind":"orient"`, `"action_kind":"clarify"`, 1), "action_kind"},
		{"orient with implementation", orient, strings.Replace(legal(orient), `"implementation":null`, `"implementation":{"result":"applied","files_changed":[],"activities":[],"uncertainties":[],"attempts":1}`, 1), "legal_combination"},
		{"review suggests", review, strings.Replace(legal(review), `"suggested_actions":[]`, `"suggested_actions":[{"kind":"implement","brief":"fix"}]`, 1), "legal_combination"},
		{"review needs input", review, strings.Replace(legal(review), `"completed"`, `"needs_input"`, 1), "legal_combination"},
		{"findings without findings", review, strings.Replace(legal(review), `"findings":[{"location":"greet.go:3","summary":"typo","detail":"helo"}]`, `"findings":[]`, 1), "legal_combination"},
		{"implement no attempts", implement, strings.Replace(legal(implement), `"attempts":1`, `"attempts":0`, 1), "implementation"},
		{"implement partial applied", implement, strings.Replace(legal(implement), `"completed"`, `"partial"`, 1), "legal_combination"},
		{"orient destructive pause", orient, strings.Replace(strings.Replace(legal(orient), `"completed"`, `"needs_input"`, 1),
			`"pause":null`, `"pause":{"reason":"destructive_confirmation_required","question":"q","destructive_request":null}`, 1), "legal_combination"},
	}
	for _, tt := range tests {
		_, err := slipway.CheckOutcome([]byte(tt.raw), tt.act)
		var oe *slipway.OutcomeError
		switch {
		case tt.rule == "" && err != nil:
			t.Errorf("%s: CheckOutcome = %v; want legal", tt.name, err)
		case tt.rule != "" && (!errors.As(err, &oe) || oe.Rule != tt.rule || !errors.Is(err, slipway.ErrOutcomeInvalid)):
			t.Errorf("%s: CheckOutcome = %v; want rule %s", tt.name, err, tt.rule)
		}
	}
}

func TestVariantResolveAndShellText(t *testing.T) {
	v := slipway.Variant{ID: "confirm-destructive",
		BaseArgv: []string{"slipway", "protocol", "answer", "--run", "r 1", "--scope-sha256", "sha256:ab"},
		Inputs:   []slipway.Input{{Name: "text_file", Type: "path", Flag: "--text-file"}}}
	argv, err := v.Resolve(nil)
	if err != nil || len(argv) != len(v.BaseArgv) {
		t.Fatalf("Resolve(nil) = %q, %v; want the base argv", argv, err)
	}
	argv, _ = v.Resolve(map[string]string{"text_file": "/tmp/it's"})
	if got := argv[len(argv)-2:]; got[0] != "--text-file" || got[1] != "/tmp/it's" {
		t.Fatalf("Resolve = %q; want the flag and value as two elements", argv)
	}
	if _, err := v.Resolve(map[string]string{"goal_file": "x"}); err == nil {
		t.Errorf("Resolve with an input the variant does not take: nil error")
	}
	want := `/bin/slipway protocol answer --run 'r 1' --scope-sha256 sha256:ab --text-file '/tmp/it'\''s'`
	if got := slipway.ShellText("/bin/slipway", argv); got != want {
		t.Errorf("ShellText = %s; want %s", got, want)
	}
}

func TestParseConfig(t *testing.T) {
	c, err := slipway.ParseConfig([]byte(`{}`))
	if err != nil || c.Slipway != "slipway" || c.Budget != nil || c.Review != nil {
		t.Fatalf("ParseConfig({}) = %+v, %v; want the defaults", c, err)
	}
	for _, bad := range []string{`{"budjet":3}`, `{"budget":0}`, `{"budget":1001}`, `{"agent":[""]}`} {
		if _, err := slipway.ParseConfig([]byte(bad)); !errors.Is(err, slipway.ErrConfig) {
			t.Errorf("ParseConfig(%s) = %v; want ErrConfig", bad, err)
		}
	}
}
