package slipway

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// maxBriefBytes is the longest suggested brief the CLI accepts.
const maxBriefBytes = 8 << 10

// textRule is one text field of an Outcome and how the CLI checks it.
type textRule struct {
	field    string
	value    string
	required bool // must not be blank
	plain    bool // no control character at all (ids, paths, locations)
}

// checkTexts holds every text of an Outcome to the CLI's rules: required
// texts are not blank (whitespace only is blank), and no text has a
// control character, except tab and line breaks in prose.
func checkTexts(o *Outcome) error {
	for _, r := range outcomeTexts(o) {
		if r.required && strings.TrimSpace(r.value) == "" {
			return broke("text", "%s is blank", r.field)
		}
		for _, c := range r.value {
			if unicode.IsControl(c) && (r.plain || (c != '\t' && c != '\n' && c != '\r')) {
				return broke("text", "%s contains the control character U+%04X", r.field, c)
			}
		}
	}
	for i, s := range o.SuggestedActions {
		if len(s.Brief) > maxBriefBytes {
			return broke("text", "suggested_actions[%d].brief is %d bytes, over %d", i, len(s.Brief), maxBriefBytes)
		}
	}
	return checkArrays(o)
}

// outcomeTexts lists the Outcome's texts with their rules.
func outcomeTexts(o *Outcome) []textRule {
	rules := []textRule{{field: "summary", value: o.Summary, required: true}}
	rules = appendList(rules, "observations", o.Observations, false)
	rules = appendList(rules, "known_issues", o.KnownIssues, false)
	for i, s := range o.SuggestedActions {
		rules = append(rules, textRule{field: fmt.Sprintf("suggested_actions[%d].brief", i), value: s.Brief, required: true})
	}
	if p := o.Pause; p != nil {
		rules = append(rules, textRule{field: "pause.question", value: p.Question, required: true})
		if p.SupersedesAnswerActionID != "" {
			rules = append(rules, textRule{field: "pause.supersedes_answer_action_id", value: p.SupersedesAnswerActionID, required: true, plain: true})
		}
	}
	if im := o.Implementation; im != nil {
		rules = appendList(rules, "implementation.files_changed", im.FilesChanged, true)
		rules = appendList(rules, "implementation.uncertainties", im.Uncertainties, false)
		for i, a := range im.Activities {
			f := fmt.Sprintf("implementation.activities[%d].", i)
			rules = append(rules, textRule{field: f + "command", value: a.Command, required: true},
				textRule{field: f + "summary", value: a.Summary, required: true})
		}
	}
	if rv := o.Review; rv != nil {
		rules = appendList(rules, "review.uncertainties", rv.Uncertainties, false)
		for i, f := range rv.Findings {
			p := fmt.Sprintf("review.findings[%d].", i)
			rules = append(rules, textRule{field: p + "location", value: f.Location, required: true, plain: true},
				textRule{field: p + "summary", value: f.Summary, required: true},
				textRule{field: p + "detail", value: f.Detail, required: true})
		}
	}
	return rules
}

func appendList(rules []textRule, name string, list []string, plain bool) []textRule {
	for i, s := range list {
		rules = append(rules, textRule{field: fmt.Sprintf("%s[%d]", name, i), value: s, plain: plain})
	}
	return rules
}

// activityKinds are the kinds of technical activity an Implement reports.
var activityKinds = []string{"test", "typecheck", "build", "lint"}

// checkArrays holds the branches' arrays: present (not null) and, for
// activities, of a known kind.
func checkArrays(o *Outcome) error {
	if im := o.Implementation; im != nil {
		if im.FilesChanged == nil || im.Activities == nil || im.Uncertainties == nil {
			return broke("arrays", "implementation.files_changed, activities and uncertainties must be arrays")
		}
		for i, a := range im.Activities {
			if !slices.Contains(activityKinds, a.Kind) {
				return broke("implementation", "activities[%d].kind %q: want one of %v", i, a.Kind, activityKinds)
			}
		}
	}
	if rv := o.Review; rv != nil && (rv.Findings == nil || rv.Uncertainties == nil) {
		return broke("arrays", "review.findings and uncertainties must be arrays")
	}
	return nil
}

var canonicalUUID = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// targetKinds are the kinds a destructive target may have.
var targetKinds = []string{"path", "git_ref", "external_resource", "data_domain"}

// checkScope holds a destructive request to the CLI's rules: a canonical
// lowercase UUID, a non-blank impact, targets of known kinds sorted by
// kind then value without duplicates, and the digest [ScopeSHA256]
// computes from them.
func checkScope(d *DestructiveRequest) error {
	switch {
	case !canonicalUUID.MatchString(d.RequestID):
		return broke("destructive_request", "request_id %q is not a canonical lowercase UUID", d.RequestID)
	case strings.TrimSpace(d.Impact) == "":
		return broke("destructive_request", "impact is blank")
	case len(d.Targets) == 0:
		return broke("destructive_request", "targets is empty")
	}
	for i, t := range d.Targets {
		if !slices.Contains(targetKinds, t.Kind) {
			return broke("destructive_request", "targets[%d].kind %q: want one of %v", i, t.Kind, targetKinds)
		}
		if strings.TrimSpace(t.Value) == "" || strings.IndexFunc(t.Value, unicode.IsControl) >= 0 {
			return broke("destructive_request", "targets[%d].value is blank or has a control character", i)
		}
		if i > 0 {
			p := d.Targets[i-1]
			if p.Kind > t.Kind || (p.Kind == t.Kind && p.Value >= t.Value) {
				return broke("destructive_request", "targets must be sorted by kind, then value, without duplicates (targets[%d])", i)
			}
		}
	}
	if want := ScopeSHA256(d); d.ScopeSHA256 != want {
		return broke("destructive_request", "scope_sha256 %q is not the digest of its scope (%s); see ScopeSHA256", d.ScopeSHA256, want)
	}
	return nil
}
