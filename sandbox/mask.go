package sandbox

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"slices"
	"strings"
)

// Mask is what a secret becomes in logs, records and on screen.
const Mask = "***"

// minCore is the shortest base64 core (see forms) worth masking: shorter
// ones would hide innocent text.
const minCore = 8

// Masker is an io.Writer that replaces each secret's value, its
// JSON-escaped forms and its base64 forms (standard, URL, padded or raw,
// and inside a longer base64 text such as "Basic dXNlcjpzZWNyZXQ=") by
// [Mask] in what passes through, even across write boundaries: it holds
// back a tail that could still become a secret until more bytes or Flush
// decide. It is not safe for concurrent use. Put it before any
// truncation, so a cut never leaves half a secret.
type Masker struct {
	w     io.Writer
	forms [][]byte // longest first
	held  []byte   // bytes not yet decided
}

// NewMasker returns a Masker writing to w; empty secrets are ignored.
func NewMasker(w io.Writer, secrets []string) *Masker {
	return &Masker{w: w, forms: forms(secrets)}
}

// forms returns every form of the secrets to mask, longest first.
func forms(secrets []string) [][]byte {
	var out []string
	for _, s := range secrets {
		if s == "" {
			continue
		}
		out = append(out, s)
		out = append(out, jsonForms(s)...)
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
			out = append(out, enc.EncodeToString([]byte(s)))
		}
		out = append(out, cores(s)...)
	}
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) })
	out = slices.Compact(out)
	res := make([][]byte, 0, len(out))
	for _, f := range out {
		if f != "" {
			res = append(res, []byte(f))
		}
	}
	return res
}

// jsonForms returns s as it appears inside a JSON string, with and
// without HTML escaping.
func jsonForms(s string) []string {
	var out []string
	for _, html := range []bool{true, false} {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(html)
		if enc.Encode(s) == nil {
			q := strings.TrimSpace(b.String())
			out = append(out, q[1:len(q)-1])
		}
	}
	return out
}

// cores returns, for each of the three byte alignments s can have inside
// a longer base64 text, the base64 characters that depend on s alone.
func cores(s string) []string {
	var out []string
	for k := range 3 {
		b := append(make([]byte, k), s...)
		for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
			e := enc.EncodeToString(b)
			start, end := (8*k+5)/6, 8*len(b)/6
			if end-start >= minCore {
				out = append(out, e[start:end])
			}
		}
	}
	return out
}

// Write masks p into the underlying writer, holding back a possible
// start of a secret. It reports len(p) unless the writer fails.
func (m *Masker) Write(p []byte) (int, error) {
	m.held = append(m.held, p...)
	out, rest := m.mask(m.held, false)
	m.held = append(m.held[:0], rest...)
	if len(out) > 0 {
		if _, err := m.w.Write(out); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// Flush masks and writes what is held back.
func (m *Masker) Flush() error {
	out, _ := m.mask(m.held, true)
	m.held = m.held[:0]
	if len(out) == 0 {
		return nil
	}
	_, err := m.w.Write(out)
	return err
}

// Close flushes; it does not close the underlying writer.
func (m *Masker) Close() error { return m.Flush() }

// MaskString returns s with every form of every secret replaced by Mask,
// for the record and the screen.
func (m *Masker) MaskString(s string) string {
	out, _ := m.mask([]byte(s), true)
	return string(out)
}

// maskBytes returns b, whole, with every form masked.
func (m *Masker) maskBytes(b []byte) []byte {
	out, _ := m.mask(b, true)
	return out
}

// mask replaces the forms in b. Unless final, it stops at the first byte
// that could start a form b does not yet hold in full, and returns the
// rest to hold.
func (m *Masker) mask(b []byte, final bool) (out, rest []byte) {
	out = make([]byte, 0, len(b))
	for i := 0; i < len(b); {
		n, wait := m.match(b[i:], final)
		switch {
		case wait:
			return out, b[i:]
		case n > 0:
			out = append(out, Mask...)
			i += n
		default:
			out = append(out, b[i])
			i++
		}
	}
	return out, nil
}

// match returns the length of the longest form b starts with; wait when,
// not final, b is a proper prefix of a longer form and so undecided.
func (m *Masker) match(b []byte, final bool) (n int, wait bool) {
	for _, f := range m.forms {
		if len(b) < len(f) {
			if !final && bytes.HasPrefix(f, b) {
				return 0, true
			}
			continue
		}
		if bytes.Equal(b[:len(f)], f) {
			return len(f), false
		}
	}
	return 0, false
}
