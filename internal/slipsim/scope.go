package slipsim

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
)

// ScopeDigest is the digest Slipway binds a destructive grant to:
// "sha256:" and the hex SHA-256 of the canonical scope, a JSON object
// with its keys in byte order and no spaces,
//
//	{"impact":I,"request_id":R,"scope_version":1,"targets":[{"kind":K,"value":V},…]}
//
// whose strings escape only `"`, `\` and the control characters below
// U+0020 (\b \t \n \f \r by name, the others as \u00XX); everything
// else, non-ASCII included, is written as it is.
func ScopeDigest(requestID string, targets [][2]string, impact string) string {
	var b strings.Builder
	b.WriteString(`{"impact":`)
	canonString(&b, impact)
	b.WriteString(`,"request_id":`)
	canonString(&b, requestID)
	b.WriteString(`,"scope_version":1,"targets":[`)
	for i, t := range targets {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"kind":`)
		canonString(&b, t[0])
		b.WriteString(`,"value":`)
		canonString(&b, t[1])
		b.WriteByte('}')
	}
	b.WriteString(`]}`)
	sum := sha256.Sum256([]byte(b.String()))
	return "sha256:" + hex.EncodeToString(sum[:])
}

func canonString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\f':
			b.WriteString(`\f`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20:
			fmt.Fprintf(b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}

var uuidForm = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

var targetKinds = []string{"data_domain", "external_resource", "git_ref", "path"}

// checkScope applies the CLI's rules to a destructive request: a
// canonical lowercase UUID, a non-blank impact, non-empty targets of the
// four kinds sorted bytewise by kind then value without duplicates, and
// the digest of exactly that scope. It returns why not, or "".
func checkScope(d *destructive) string {
	if !uuidForm.MatchString(d.RequestID) || d.RequestID == "00000000-0000-0000-0000-000000000000" {
		return "request_id must be a canonical lowercase non-nil RFC UUID"
	}
	if why := nonBlank("impact", d.Impact, true); why != "" {
		return why
	}
	if len(d.Targets) == 0 {
		return "targets must contain at least one target"
	}
	pairs := make([][2]string, len(d.Targets))
	for i, t := range d.Targets {
		if !contains(targetKinds, t.Kind) {
			return fmt.Sprintf("targets[%d] has unsupported kind %q", i, t.Kind)
		}
		if why := nonBlank(fmt.Sprintf("targets[%d].value", i), t.Value, false); why != "" {
			return why
		}
		pairs[i] = [2]string{t.Kind, t.Value}
		if i > 0 {
			p := pairs[i-1]
			if p == pairs[i] {
				return fmt.Sprintf("targets[%d] duplicates targets[%d]", i, i-1)
			}
			if p[0] > t.Kind || (p[0] == t.Kind && p[1] > t.Value) {
				return "targets must be bytewise sorted by kind and value"
			}
		}
	}
	if !sha256Form.MatchString(d.ScopeSHA256) {
		return "destructive_request.scope_sha256 must use lowercase sha256:<64 hex> format"
	}
	if d.ScopeSHA256 != ScopeDigest(d.RequestID, pairs, d.Impact) {
		return "destructive_request.scope_sha256 does not match its canonical scope"
	}
	return ""
}

var sha256Form = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
