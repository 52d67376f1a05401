package result

import (
	"kusaw.dev/step/protocol"
	"kusaw.dev/step/schemas"
)

// WarnUnknownField is the warning code of a result member the protocol
// does not define.
const WarnUnknownField = "unknown_field"

// checkUnknownFields warns of each member of the result the protocol does
// not define. It is accepted, as a field of a later protocol version would
// be, but a misspelt field is otherwise lost without a word: "output" for
// outputs gives verdict ok and no outputs.
func (c *checker) checkUnknownFields() {
	c.v.Warnings = append(c.v.Warnings, UnknownFieldWarnings("result", c.doc)...)
}

// UnknownFieldWarnings returns an unknown_field warning for each member of
// doc (a document of kind as protocol.Parse gives it) that its schema does
// not define, with its JSON pointer and, when a known field is one edit
// away or a known synonym, the field it likely meant.
func UnknownFieldWarnings(kind string, doc any) []protocol.Warning {
	var out []protocol.Warning
	for _, u := range schemas.UnknownFields(kind, doc) {
		msg := u.Pointer + " is not a field of the protocol; it is ignored"
		if u.Suggest != "" {
			msg += "; did you mean " + u.Suggest + "?"
		}
		out = append(out, protocol.Warning{Code: WarnUnknownField, Message: msg})
	}
	return out
}
