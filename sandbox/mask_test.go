package sandbox

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"
)

const secret = `p@ss"word<&>-0123456789`

func TestMaskString(t *testing.T) {
	m := NewMasker(nil, []string{secret, ""})
	basic := base64.StdEncoding.EncodeToString([]byte("user:" + secret))
	for _, tc := range []struct{ in, want string }{
		{"token=" + secret + ".", "token=***."},
		{`{"token":"p@ss\"word\u003c\u0026\u003e-0123456789"}`, `{"token":"***"}`},
		{`{"token":"p@ss\"word<&>-0123456789"}`, `{"token":"***"}`},
		{"b64 " + base64.StdEncoding.EncodeToString([]byte(secret)), "b64 ***"},
		{"url " + base64.URLEncoding.EncodeToString([]byte(secret)), "url ***"},
		{"raw " + base64.RawURLEncoding.EncodeToString([]byte(secret)) + " end", "raw *** end"},
		{"nothing secret here", "nothing secret here"},
		{"p@ss\"wor", "p@ss\"wor"},
	} {
		if got := m.MaskString(tc.in); got != tc.want {
			t.Errorf("MaskString(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
	if got := m.MaskString("Authorization: Basic " + basic); strings.Contains(got, basic[8:len(basic)-4]) || !strings.Contains(got, Mask) {
		t.Errorf("MaskString(basic auth) = %q; want the secret's part masked", got)
	}
}

func TestMaskerSplitWrites(t *testing.T) {
	text := "a " + secret + " b " + base64.StdEncoding.EncodeToString([]byte(secret)) + " c " + secret
	want := "a *** b *** c ***"
	for size := 1; size <= len(text); size++ {
		var out bytes.Buffer
		m := NewMasker(&out, []string{secret})
		for i := 0; i < len(text); i += size {
			chunk := text[i:min(i+size, len(text))]
			if n, err := m.Write([]byte(chunk)); n != len(chunk) || err != nil {
				t.Fatalf("Write = %d, %v", n, err)
			}
		}
		if err := m.Close(); err != nil {
			t.Fatal(err)
		}
		if out.String() != want {
			t.Fatalf("writes of %d bytes: %q; want %q", size, out.String(), want)
		}
	}
}

func TestMaskerHoldsOnlyAPossibleSecret(t *testing.T) {
	var out bytes.Buffer
	m := NewMasker(&out, []string{"topsecret"})
	m.Write([]byte("line one\ntop"))
	if out.String() != "line one\n" {
		t.Errorf("after a write ending in a secret's start: %q; want the rest passed on", out.String())
	}
	m.Write([]byte("ping\n"))
	if out.String() != "line one\ntopping\n" {
		t.Errorf("after the start turned out innocent: %q", out.String())
	}
}

// Finds agrees with masking: true exactly when masking changes the text.
func TestMaskerFinds(t *testing.T) {
	const secret = "hunter2-secret"
	m := NewMasker(nil, []string{secret})
	found := 0
	for _, text := range []string{
		`{"type":"progress","message":"all clean"}`,
		`{"message":"` + secret + `"}`,
		`{"message":"\u0068unter2-secret"}`,
		`GET /?t=hunter2%2Dsecret`,
		`hex 68756e746572322d736563726574`,
		`hunter2-secre`,
		``,
	} {
		want := m.MaskString(text) != text
		got := m.Finds([]byte(text))
		if got != want {
			t.Errorf("Finds(%q) = %v; masking changes it: %v", text, got, want)
		}
		if got {
			found++
		}
	}
	if found != 4 {
		t.Errorf("Finds found %d of the 4 forms of the secret", found)
	}
	if NewMasker(nil, nil).Finds([]byte(secret)) {
		t.Error("a masker without secrets finds one")
	}
}
