package slipway

import (
	"fmt"
	"strings"
)

// Variant returns the variant of n with the given id.
func (n *Next) Variant(id string) (*Variant, bool) {
	for i := range n.Variants {
		if n.Variants[i].ID == id {
			return &n.Variants[i], true
		}
	}
	return nil, false
}

// Resolve returns the variant's argv: BaseArgv, then for each input in
// schema order that has a value, its flag and the value as two separate
// elements. A required input without a value is an error, and so is a
// value for an input the variant does not take. Nothing is ever parsed
// out of, or concatenated into, a display string.
func (v *Variant) Resolve(values map[string]string) ([]string, error) {
	argv := append([]string(nil), v.BaseArgv...)
	used := 0
	for _, in := range v.Inputs {
		val, ok := values[in.Name]
		if !ok {
			if in.Required {
				return nil, fmt.Errorf("variant %s: required input %s has no value", v.ID, in.Name)
			}
			continue
		}
		if in.Type == "enum" && !contains(in.Choices, val) {
			return nil, fmt.Errorf("variant %s: %s=%q is not one of %v", v.ID, in.Name, val, in.Choices)
		}
		used++
		argv = append(argv, in.Flag, val)
	}
	if used != len(values) {
		return nil, fmt.Errorf("variant %s: a value was given for an input it does not take", v.ID)
	}
	return argv, nil
}

// Inputless reports whether the variant can run with no value supplied:
// none of its inputs is required.
func (v *Variant) Inputless() bool {
	for _, in := range v.Inputs {
		if in.Required {
			return false
		}
	}
	return true
}

// ShellText renders a fully resolved argv for a person's POSIX shell, with
// argv[0] replaced by bin. It is presentation only: the host never runs
// it, and never parses it back.
func ShellText(bin string, argv []string) string {
	words := make([]string, len(argv))
	for i, a := range argv {
		if i == 0 {
			a = bin
		}
		words[i] = shellQuote(a)
	}
	return strings.Join(words, " ")
}

// shellQuote quotes s for a POSIX shell when it needs quoting.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:@%+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
