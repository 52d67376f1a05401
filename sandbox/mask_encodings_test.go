package sandbox

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonMix spells s inside a JSON string, each rune plain (when JSON
// allows it) or escaped in one of the ways a JSON writer may choose.
func jsonMix(r *rand.Rand, s string) string {
	var b strings.Builder
	for _, c := range s {
		plainOK := c >= 0x20 && c != '"' && c != '\\'
		switch k := r.IntN(4); {
		case k == 0 && plainOK:
			b.WriteRune(c)
		case k == 1 && strings.ContainsRune("\"\\/\b\f\n\r\t", c):
			b.WriteString(strings.TrimSuffix(strings.TrimPrefix(mustJSON(string(c)), `"`), `"`))
			if c == '/' {
				b.Reset()
				b.WriteString(`\/`)
			}
		case c > 0xffff:
			hi, lo := utf16.EncodeRune(c)
			fmt.Fprintf(&b, hexCase(r, `\u%04x\u%04x`), hi, lo)
		default:
			fmt.Fprintf(&b, hexCase(r, `\u%04x`), c)
		}
	}
	return b.String()
}

// percentMix spells s for a URL decoder, each byte plain or %XX.
func percentMix(r *rand.Rand, s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' && r.IntN(2) == 0:
			b.WriteByte('+')
		case c < 0x80 && c != '%' && c != '+' && c != ' ' && r.IntN(2) == 0:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, hexCase(r, "%%%02x"), c)
		}
	}
	return b.String()
}

func hexCase(r *rand.Rand, format string) string {
	if r.IntN(2) == 0 {
		return strings.ReplaceAll(format, "x", "X")
	}
	return format
}

func mustJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Issue 11 item 4: whatever JSON string escaping or URL encoding a step
// uses, in any mix, and the hex and base64 forms, a JSON reader or URL
// decoder never gets the secret back from the masked text.
func TestMaskEveryEncoding(t *testing.T) {
	secrets := []string{secret, `C:\keys\%PATH%-abc`, "pässwörd-€-😀-long", "two words-and+plus"}
	m := NewMasker(nil, secrets)
	r := rand.New(rand.NewPCG(11, 4))
	for _, s := range secrets {
		b64 := base64.StdEncoding.EncodeToString([]byte(s))
		for i := range 200 {
			cases := []struct {
				name, text string
				decode     func(string) (string, error)
			}{
				{"item 4: JSON escapes in any mix", `{"k":"x ` + jsonMix(r, s) + ` y"}`, decodeJSON},
				{"item 4: percent-encoding in any mix", "https://h/?q=" + percentMix(r, s) + "&z=1", url.QueryUnescape},
				{"item 4: percent-encoded in a JSON string", `{"u":"/?t=` + jsonMix(r, percentMix(r, s)) + `"}`, func(x string) (string, error) {
					d, err := decodeJSON(x)
					if err != nil {
						return "", err
					}
					return url.QueryUnescape(d)
				}},
				{"item 4: hex", "id " + hex.EncodeToString([]byte(s)) + " / " + strings.ToUpper(hex.EncodeToString([]byte(s))), hexDecodeWords},
				{"item 4: base64 in a JSON string, escaped", `{"b":"` + jsonMix(r, b64) + `"}`, func(x string) (string, error) {
					d, err := decodeJSON(x)
					if err != nil {
						return "", err
					}
					out, err := base64.StdEncoding.DecodeString(d)
					return string(out), err
				}},
			}
			for _, tc := range cases {
				got := m.MaskString(tc.text)
				if !strings.Contains(got, Mask) {
					t.Fatalf("%s (secret %q, try %d): %q masked to %q; want %s", tc.name, s, i, tc.text, got, Mask)
				}
				if dec, err := tc.decode(got); err == nil && strings.Contains(dec, s) {
					t.Fatalf("%s (secret %q, try %d): %q masked to %q decodes back to the secret", tc.name, s, i, tc.text, got)
				}
			}
		}
	}
}

func decodeJSON(x string) (string, error) {
	var v map[string]string
	if err := json.Unmarshal([]byte(x), &v); err != nil {
		return "", err
	}
	var all []string
	for _, s := range v {
		all = append(all, s)
	}
	return strings.Join(all, "\n"), nil
}

func hexDecodeWords(x string) (string, error) {
	var out []string
	for _, w := range strings.Fields(x) {
		if b, err := hex.DecodeString(w); err == nil {
			out = append(out, string(b))
		}
	}
	return strings.Join(out, "\n"), nil
}

// Item 4 and the streaming masker: escaped forms are masked whatever the
// write boundaries, and innocent backslashes and percent signs pass.
func TestMaskerEscapedAcrossWrites(t *testing.T) {
	esc := jsonMix(rand.New(rand.NewPCG(1, 2)), secret)
	text := `{"a":"` + esc + `"} 100% \n done \u0041 ` + percentMix(rand.New(rand.NewPCG(3, 4)), secret) + " %zz \\"
	want := `{"a":"***"} 100% \n done \u0041 *** %zz \`
	for size := 1; size <= len(text); size++ {
		var out bytes.Buffer
		m := NewMasker(&out, []string{secret})
		for i := 0; i < len(text); i += size {
			m.Write([]byte(text[i:min(i+size, len(text))]))
		}
		m.Close()
		if out.String() != want {
			t.Fatalf("writes of %d bytes: %q; want %q", size, out.String(), want)
		}
	}
}

// Item 4: a secret under MinSecretLen bytes is not masked (it would hide
// ordinary text everywhere); Prepare warns about it instead.
func TestShortSecretNotMasked(t *testing.T) {
	m := NewMasker(nil, []string{"abc12", "long-enough"})
	if got := m.MaskString("abc12 and long-enough"); got != "abc12 and ***" {
		t.Errorf("MaskString = %q; want the short secret left alone", got)
	}
	if got := ShortSecrets([]string{"abc12", "long-enough", ""}); len(got) != 1 || got[0] != "abc12" {
		t.Errorf("ShortSecrets = %q; want [abc12]", got)
	}
}

// Issue 15: without secrets the masker is a pass-through: no copy, no
// hold-back.
func TestMaskerWithoutSecretsPassesThrough(t *testing.T) {
	var out bytes.Buffer
	m := NewMasker(&out, nil)
	in := []byte("plain \\u0041 %41 text")
	if m.Masks() {
		t.Error("Masks() = true without secrets")
	}
	m.Write(in)
	if out.String() != string(in) || m.MaskString("x") != "x" {
		t.Errorf("output %q; want the input unchanged", out.String())
	}
	if !utf8.ValidString(out.String()) {
		t.Error("invalid output")
	}
}
