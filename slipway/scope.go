package slipway

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// ScopeSHA256 is the digest the CLI binds a destructive request to, for
// an agent (or its author) to fill destructive_request.scope_sha256:
// "sha256:" and the lowercase hex SHA-256 of the canonical scope
//
//	{"impact":IMPACT,"request_id":REQUEST_ID,"scope_version":1,"targets":[{"kind":KIND,"value":VALUE},…]}
//
// keys in that order, no whitespace, targets as given (they must already
// be sorted by kind, then value), strings escaping only `"` `\` and
// control characters below U+0020 (\b \t \n \f \r by name, others as
// \u00xx, lowercase hex); every other character, non-ASCII included, is
// written as it is.
func ScopeSHA256(d *DestructiveRequest) string {
	var b strings.Builder
	b.WriteString(`{"impact":`)
	writeScopeString(&b, d.Impact)
	b.WriteString(`,"request_id":`)
	writeScopeString(&b, d.RequestID)
	b.WriteString(`,"scope_version":1,"targets":[`)
	for i, t := range d.Targets {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"kind":`)
		writeScopeString(&b, t.Kind)
		b.WriteString(`,"value":`)
		writeScopeString(&b, t.Value)
		b.WriteString("}")
	}
	b.WriteString("]}")
	sum := sha256.Sum256([]byte(b.String()))
	return "sha256:" + hex.EncodeToString(sum[:])
}

var scopeEscapes = map[rune]string{'"': `\"`, '\\': `\\`, '\b': `\b`, '\t': `\t`, '\n': `\n`, '\f': `\f`, '\r': `\r`}

func writeScopeString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		if esc, ok := scopeEscapes[r]; ok {
			b.WriteString(esc)
		} else if r < 0x20 {
			fmt.Fprintf(b, `\u%04x`, r)
		} else {
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}
