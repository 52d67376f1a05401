package sandbox

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"io"
	"slices"
	"unicode/utf16"
	"unicode/utf8"
)

// Mask is what a secret becomes in logs, records and on screen.
const Mask = "***"

// MinSecretLen is the shortest secret worth masking: a shorter one would
// hide ordinary text all over the logs. [Prepare] warns about shorter
// secrets and does not mask them.
const MinSecretLen = 6

// minCore is the shortest base64 core (see cores) worth masking: shorter
// ones would hide innocent text.
const minCore = 8

// Masker is an io.Writer that replaces by [Mask] every form of each
// secret that a JSON reader, a URL decoder, or a hex or base64 decoder
// turns back into the secret:
//
//   - the value itself;
//   - any of its bytes written as a JSON string escape (\u0041, \u00e9,
//     a surrogate pair, \n, \/, ...), in any mix with plain bytes;
//   - any of its bytes percent-encoded (%41, %2f or %2F, "+" for a
//     space), in any mix;
//   - its hex, lower or upper case;
//   - its base64, standard or URL, padded or raw, and inside a longer
//     base64 text such as "Basic dXNlcjpzZWNyZXQ=" (the characters that
//     depend on the secret alone);
//
// and the escapes apply to the hex and base64 forms too. It works across
// write boundaries: it holds back a tail that could still become a secret
// until more bytes or Flush decide. A secret split across two separate
// texts (two events, two log lines written apart) cannot be recognised.
//
// Without secrets it is a plain pass-through. With them it scans in
// chunks: bytes.IndexAny finds the next byte that can start a form, and
// only there are forms compared. It is not safe for concurrent use. Put
// it before any truncation, so a cut never leaves half a secret.
type Masker struct {
	w       io.Writer
	forms   [][]byte        // byte patterns, each matched with escapes
	byFirst [256][]int      // the forms (indices) that start with a byte
	isStart [256]bool       // the bytes a form can start with, and '\\', '%', '+'
	pair    *[256][256]bool // [c][d]: c may start a form that d continues
	held    []byte          // bytes not yet decided
	out     []byte          // the output buffer, reused
	budget  int             // backtracking steps left for one match attempt
	scratch [utf8.UTFMax]byte
}

// NewMasker returns a Masker writing to w. Secrets shorter than
// [MinSecretLen] bytes are not masked (see [ShortSecrets]).
func NewMasker(w io.Writer, secrets []string) *Masker {
	m := &Masker{w: w, forms: forms(secrets)}
	if len(m.forms) == 0 {
		return m
	}
	m.pair = new([256][256]bool)
	for i, f := range m.forms {
		m.byFirst[f[0]] = append(m.byFirst[f[0]], i)
		m.start(f[0], f[1])
		if f[0] == ' ' { // a URL decoder turns '+' into a space
			m.start('+', f[1])
		}
	}
	// An escape may stand for any byte, the first of a form included: a
	// JSON escape starts \" \\ \/ \b \f \n \r \t or \u; a percent escape two
	// hex digits, either possibly \u-escaped.
	for _, c := range []byte("\"\\/bfnrtu") {
		m.isStart['\\'], m.pair['\\'][c] = true, true
	}
	for _, c := range []byte("0123456789abcdefABCDEF\\") {
		m.isStart['%'], m.pair['%'][c] = true, true
	}
	return m
}

// start marks c as a byte that may start a form whose second byte is d:
// d itself, or an escape of it, may follow.
func (m *Masker) start(c, d byte) {
	m.isStart[c] = true
	m.pair[c][d] = true
	m.pair[c]['\\'] = true
	m.pair[c]['%'] = true
	if d == ' ' {
		m.pair[c]['+'] = true
	}
}

// ShortSecrets returns the secrets shorter than [MinSecretLen], which a
// Masker leaves alone.
func ShortSecrets(secrets []string) []string {
	var out []string
	for _, s := range secrets {
		if s != "" && len(s) < MinSecretLen {
			out = append(out, s)
		}
	}
	return out
}

// forms returns the byte patterns of every secret long enough to mask:
// the value, its hex and its base64 forms, without duplicates.
func forms(secrets []string) [][]byte {
	var out []string
	for _, s := range secrets {
		if len(s) < MinSecretLen {
			continue
		}
		out = append(out, s)
		h := hex.EncodeToString([]byte(s))
		out = append(out, h, string(bytes.ToUpper([]byte(h))))
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
	if len(m.forms) == 0 || m.discarding() {
		return m.w.Write(p)
	}
	in := p
	if len(m.held) > 0 {
		m.held = append(m.held, p...)
		in = m.held
	}
	out, rest := m.mask(in, false)
	var err error
	if len(out) > 0 {
		_, err = m.w.Write(out)
	}
	// rest is a tail of in, which may be m.held itself: copy it down.
	m.held = append(m.held[:0], rest...)
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

// discarding reports whether the underlying writer is a capped log that
// reached its cap (the events package's CappedWriter: Truncated() true), and so keeps
// nothing more: what it is sent from then on is counted, never written,
// and needs no masking. What the masker held back goes with it.
func (m *Masker) discarding() bool {
	c, ok := m.w.(interface{ Truncated() bool })
	if !ok || !c.Truncated() {
		return false
	}
	if len(m.held) > 0 {
		m.w.Write(m.held)
		m.held = m.held[:0]
	}
	return true
}

// Flush masks and writes what is held back.
func (m *Masker) Flush() error {
	if len(m.held) == 0 {
		return nil
	}
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

// Masks reports whether the Masker has anything to mask.
func (m *Masker) Masks() bool { return len(m.forms) > 0 }

// MaskString returns s with every form of every secret replaced by Mask,
// for the record and the screen.
func (m *Masker) MaskString(s string) string {
	if len(m.forms) == 0 {
		return s
	}
	out, _ := m.mask([]byte(s), true)
	return string(out)
}

// Finds reports whether b holds a form of a secret: whether masking would
// change it.
func (m *Masker) Finds(b []byte) bool {
	if len(m.forms) == 0 {
		return false
	}
	m.mask(b, true)
	return len(m.out) > 0 // mask appends to m.out only when it masks
}

// maskBytes returns b, whole, with every form masked.
func (m *Masker) maskBytes(b []byte) []byte {
	if len(m.forms) == 0 {
		return b
	}
	out, _ := m.mask(b, true)
	return out
}

// mask replaces the forms in b. Unless final, it stops at the first byte
// that could start a form b does not yet hold in full, and returns the
// rest to hold. out is b itself when nothing was masked, else m.out.
func (m *Masker) mask(b []byte, final bool) (out, rest []byte) {
	m.out = m.out[:0]
	done, i := 0, 0 // b[:done] is in m.out; b[done:i] is plain
	for {
		i = m.next(b, i)
		if i == len(b) {
			break
		}
		n, more := m.longestAt(b[i:], final)
		switch {
		case more:
			return m.emit(b, done, i), b[i:]
		case n > 0:
			m.out = append(append(m.out, b[done:i]...), Mask...)
			i += n
			done = i
		default:
			i++
		}
	}
	return m.emit(b, done, len(b)), nil
}

// next returns the index, from i, of the next byte of b that may start a
// form, judging by it and the byte after it; len(b) when none does. It
// skips eight bytes at a time where none can start one.
func (m *Masker) next(b []byte, i int) int {
	pair := m.pair
	for ; i+1 < len(b); i++ {
		if pair[b[i]][b[i+1]] {
			return i
		}
	}
	if i < len(b) && !m.isStart[b[i]] {
		i++
	}
	return i
}

// emit returns the output of mask up to b[:end]: b itself when nothing
// was masked, else m.out with the plain bytes b[done:end] appended.
func (m *Masker) emit(b []byte, done, end int) []byte {
	if done == 0 && len(m.out) == 0 {
		return b[:end]
	}
	m.out = append(m.out, b[done:end]...)
	return m.out
}

// longestAt returns how many bytes of b the longest form at its start
// takes; more when, not final, b ends before some form is decided.
func (m *Masker) longestAt(b []byte, final bool) (n int, more bool) {
	var buf [3]byte
	firsts := append(buf[:0], b[0]) // the bytes b can stand for first
	if b[0] == '\\' || b[0] == '%' {
		d, _, st := m.unit(b, 0, final)
		switch {
		case st == unitMore:
			return 0, true
		case st == unitOK && d[0] != b[0]:
			firsts = append(firsts, d[0])
		}
	}
	if firsts[len(firsts)-1] == '+' { // a space, to a URL decoder
		firsts = append(firsts, ' ')
	}
	for _, c := range firsts {
		for _, idx := range m.byFirst[c] {
			m.budget = 64 * len(m.forms[idx])
			end, wait := m.match(m.forms[idx], b, 0, final)
			if wait {
				return 0, true
			}
			n = max(n, end)
		}
	}
	return n, false
}

// match returns where in b the spelling of form f that starts at b[i]
// ends, each byte of f plain or escaped; 0 when b does not spell f there,
// and wait when, not final, b ends before that is decided.
func (m *Masker) match(f, b []byte, i int, final bool) (end int, wait bool) {
	for j := 0; j < len(f); {
		if i >= len(b) {
			return 0, !final
		}
		if m.budget--; m.budget < 0 {
			return 0, false // a pathological secret: give up here
		}
		d, k, st := m.unit(b, i, final)
		if st == unitMore {
			return 0, true
		}
		plain := b[i] == f[j] || b[i] == '+' && f[j] == ' '
		escaped := st == unitOK && (bytes.HasPrefix(f[j:], d) || len(d) == 1 && d[0] == '+' && f[j] == ' ')
		switch {
		case plain && escaped:
			// A backslash or percent sign of the secret itself, or the
			// start of an escape: try the escape first, then the byte.
			e, w := m.match(f[j+len(d):], b, i+k, final)
			if w || e > 0 {
				return e, w
			}
			i, j = i+1, j+1
		case escaped:
			i, j = i+k, j+len(d)
		case plain:
			i, j = i+1, j+1
		default:
			return 0, false
		}
	}
	return i, false
}

// Results of unit.
const (
	unitNone = iota // b[i] starts no escape
	unitOK          // an escape, decoded
	unitMore        // b ends inside what may be an escape, not final
)

// unit decodes the escape at b[i], if any: a JSON string escape (\n,
// \u00e9, a surrogate pair), a percent-encoded byte, or both layered (a
// URL in a JSON string: %41 with any of its three characters \u-escaped).
// It returns the bytes the escape stands for and its length in b (more
// than 1). The returned slice is valid until the next call.
func (m *Masker) unit(b []byte, i int, final bool) (dec []byte, n int, st int) {
	c, k, st := m.jsonUnit(b, i, final)
	if st == unitMore {
		return nil, 0, unitMore
	}
	c0 := c[0] // c may be m.scratch, which the hex digits reuse
	if len(c) == 1 && c0 == '%' {
		v, hk, hst := m.hexByte(b, i+k, final)
		switch hst {
		case unitMore:
			return nil, 0, unitMore
		case unitOK:
			m.scratch[0] = v
			return m.scratch[:1], k + hk, unitOK
		}
	}
	if k == 1 {
		return nil, 0, unitNone
	}
	if len(c) == 1 {
		m.scratch[0] = c0
		c = m.scratch[:1]
	}
	return c, k, unitOK
}

// hexByte decodes the two hex digits of a percent escape at b[at], each
// plain or JSON-escaped, and returns their length in b.
func (m *Masker) hexByte(b []byte, at int, final bool) (v byte, n int, st int) {
	start := at
	for range 2 {
		if at >= len(b) {
			if final {
				return 0, 0, unitNone
			}
			return 0, 0, unitMore
		}
		h, hk, hst := m.jsonUnit(b, at, final)
		if hst == unitMore {
			return 0, 0, unitMore
		}
		d, ok := unhex(h[0])
		if len(h) != 1 || !ok {
			return 0, 0, unitNone
		}
		v, at = v<<4|d, at+hk
	}
	return v, at - start, unitOK
}

// jsonUnit returns the byte or bytes b[i] stands for in a JSON string:
// itself, or what the escape it starts decodes to, and its length in b.
func (m *Masker) jsonUnit(b []byte, i int, final bool) (dec []byte, n int, st int) {
	if b[i] != '\\' {
		return b[i : i+1], 1, unitOK
	}
	plain := func() ([]byte, int, int) { return b[i : i+1], 1, unitOK }
	if len(b) < i+2 {
		if final {
			return plain()
		}
		return nil, 0, unitMore
	}
	if c := shortEscapes[b[i+1]]; c != 0 {
		m.scratch[0] = c
		return m.scratch[:1], 2, unitOK
	}
	if b[i+1] != 'u' {
		return plain()
	}
	r, n, st := jsonRune(b[i:], final)
	switch st {
	case unitMore:
		return nil, 0, unitMore
	case unitNone:
		return plain()
	}
	k := utf8.EncodeRune(m.scratch[:], r)
	return m.scratch[:k], n, unitOK
}

// shortEscapes are JSON's two-character escapes and the bytes they stand
// for.
var shortEscapes = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// jsonRune decodes \uXXXX at the start of b, or a surrogate pair of two.
// A lone surrogate decodes (as a JSON reader does) to U+FFFD.
func jsonRune(b []byte, final bool) (r rune, n int, st int) {
	u, st := hex4(b, final)
	if st != unitOK {
		return 0, 0, st
	}
	if !utf16.IsSurrogate(rune(u)) {
		return rune(u), 6, unitOK
	}
	if len(b) < 8 && !final {
		return 0, 0, unitMore
	}
	if len(b) >= 8 && b[6] == '\\' && b[7] == 'u' {
		lo, st := hex4(b[6:], final)
		if st == unitMore {
			return 0, 0, unitMore
		}
		if st == unitOK {
			if r := utf16.DecodeRune(rune(u), rune(lo)); r != utf8.RuneError {
				return r, 12, unitOK
			}
		}
	}
	return utf8.RuneError, 6, unitOK
}

// hex4 decodes the four hex digits of \uXXXX at the start of b.
func hex4(b []byte, final bool) (uint16, int) {
	if len(b) < 6 {
		for _, c := range b[2:] {
			if _, ok := unhex(c); !ok {
				return 0, unitNone
			}
		}
		if final {
			return 0, unitNone
		}
		return 0, unitMore
	}
	var u uint16
	for _, c := range b[2:6] {
		v, ok := unhex(c)
		if !ok {
			return 0, unitNone
		}
		u = u<<4 | uint16(v)
	}
	return u, unitOK
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
