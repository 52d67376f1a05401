package sandbox

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzMasker holds the streaming masker to the whole-text one: however
// the text is cut into writes, the output is what MaskString gives, and
// the secret is not in it.
func FuzzMasker(f *testing.F) {
	for _, seed := range []string{
		"token=" + secret + ".",
		`{"k":"p@ss\"word\u003c\u0026\u003e-0123456789"}`,
		"%70%40ss%22word%3C%26%3E-0123456789 \\u0070 %",
		"cEBzcyJ3b3JkPCY+LTAxMjM0NTY3ODk= 70407373",
		"\\", "%", "+", "\\u00", "%4",
	} {
		f.Add(seed, uint8(3))
	}
	m := NewMasker(nil, []string{secret})
	f.Fuzz(func(t *testing.T, text string, cut uint8) {
		whole := m.MaskString(text)
		var out bytes.Buffer
		sm := NewMasker(&out, []string{secret})
		size := int(cut%16) + 1
		for i := 0; i < len(text); i += size {
			sm.Write([]byte(text[i:min(i+size, len(text))]))
		}
		sm.Flush()
		if out.String() != whole {
			t.Fatalf("writes of %d bytes give %q; MaskString gives %q", size, out.String(), whole)
		}
		if strings.Contains(whole, secret) {
			t.Fatalf("MaskString(%q) = %q still holds the secret", text, whole)
		}
	})
}
