package events

import (
	"math"
	"strconv"
)

// number is a JSON number literal taken apart, without copying, so that it
// can be compared exactly, as the schema validator compares numbers (as
// big.Rat values), but without allocating.
//
// The value is (-1)^neg × digits × 10^(exp - len(frac)), where digits is the
// concatenation int+frac.
type number struct {
	neg    bool
	int    []byte // digits before the '.'
	frac   []byte // digits after the '.', possibly none
	exp    int64  // the exponent as written; valid when expOK
	expOK  bool   // the exponent fits an int64 (no exponent counts as 0)
	first  int    // index in int+frac of the first non-zero digit; -1 for zero
	last   int    // index in int+frac of the last non-zero digit
	digits int    // len(int) + len(frac)
}

// maxRatExp is the largest decimal exponent big.Rat.SetString accepts,
// which is what the schema validator parses numbers with.
const maxRatExp = 1e6

// parseNumber takes apart lit, which must be a valid JSON number.
func parseNumber(lit []byte) number {
	var n number
	if lit[0] == '-' {
		n.neg, lit = true, lit[1:]
	}
	i := 0
	for i < len(lit) && isDigit(lit[i]) {
		i++
	}
	n.int = lit[:i]
	if i < len(lit) && lit[i] == '.' {
		j := i + 1
		for j < len(lit) && isDigit(lit[j]) {
			j++
		}
		n.frac, i = lit[i+1:j], j
	}
	n.expOK = true
	if i < len(lit) { // 'e' or 'E'
		n.exp, n.expOK = parseExp(lit[i+1:])
	}
	n.digits = len(n.int) + len(n.frac)
	n.first, n.last = -1, -1
	for k := range n.digits {
		if n.digit(k) != '0' {
			if n.first < 0 {
				n.first = k
			}
			n.last = k
		}
	}
	return n
}

// smallInt returns the value of lit, a valid JSON number, when it is an
// integer of at most 18 digits written without a fraction or an exponent:
// one an int64 holds. ok is false for any other number.
func smallInt(lit []byte) (x int64, ok bool) {
	neg := lit[0] == '-'
	if neg {
		lit = lit[1:]
	}
	if len(lit) > 18 {
		return 0, false
	}
	for _, c := range lit {
		if !isDigit(c) {
			return 0, false
		}
		x = x*10 + int64(c-'0')
	}
	if neg {
		x = -x
	}
	return x, true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// parseExp parses an exponent ("+5", "-12", "007") as strconv.ParseInt
// would, reporting false when it overflows an int64.
func parseExp(b []byte) (int64, bool) {
	s := string(b) // short-lived; the compiler keeps it off the heap
	if s != "" && s[0] == '+' {
		s = s[1:]
	}
	e, err := strconv.ParseInt(s, 10, 64)
	return e, err == nil
}

// digit returns the k-th digit of int+frac.
func (n *number) digit(k int) byte {
	if k < len(n.int) {
		return n.int[k]
	}
	return n.frac[k-len(n.int)]
}

func (n *number) zero() bool { return n.first < 0 }

// ratOK reports whether big.Rat.SetString accepts the literal, that is
// whether the schema validator can handle it: the exponent fits an int64
// and, unless the value is zero, the scale exp-len(frac) is at most 10^6
// in size (the same int64 arithmetic as math/big, wrap-around included).
func (n *number) ratOK() bool {
	if !n.expOK {
		return false
	}
	if n.zero() {
		return true
	}
	scale := n.exp - int64(len(n.frac))
	if scale < 0 {
		scale = -scale
		if scale < 0 {
			return false
		}
	}
	return scale <= maxRatExp
}

// msd is the power of ten of the most significant digit of a non-zero
// value.
func (n *number) msd() int64 {
	return n.exp - int64(len(n.frac)) + int64(n.digits-1-n.first)
}

// isInt reports whether the value is an integer (1.0 and 1e2 are); the
// literal must be ratOK.
func (n *number) isInt() bool {
	return n.zero() || n.exp-int64(len(n.frac))+int64(n.digits-1-n.last) >= 0
}

// cmpNumbers compares a and b exactly, both ratOK; it returns -1, 0 or +1.
func cmpNumbers(a, b *number) int {
	sa, sb := a.sign(), b.sign()
	if sa != sb {
		return cmpInt(sa, sb)
	}
	c := cmpMagnitude(a, b)
	if sa < 0 {
		return -c
	}
	return c
}

// sign returns -1, 0 or +1 (-0 is 0).
func (n *number) sign() int {
	switch {
	case n.zero():
		return 0
	case n.neg:
		return -1
	}
	return 1
}

// cmpMagnitude compares |a| and |b|, both non-zero or both zero.
func cmpMagnitude(a, b *number) int {
	if a.zero() {
		return 0
	}
	if c := cmpInt(a.msd(), b.msd()); c != 0 {
		return c
	}
	i, j := a.first, b.first
	for ; i <= a.last && j <= b.last; i, j = i+1, j+1 {
		if c := cmpInt(a.digit(i), b.digit(j)); c != 0 {
			return c
		}
	}
	// The one with significant digits left is larger.
	return cmpInt(a.last-i, b.last-j)
}

func cmpInt[T int | int64 | byte](x, y T) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// int64Value returns an integer value (isInt), saturated to the int64
// range: a schema-valid integer may be far larger than any Go integer.
func (n *number) int64Value() int64 {
	if n.zero() {
		return 0
	}
	if n.msd() >= 19 {
		return saturate(n.neg)
	}
	var acc uint64 // < 10^19, so it cannot overflow
	for k := n.first; k <= n.first+int(n.msd()); k++ {
		d := uint64(0)
		if k < n.digits {
			d = uint64(n.digit(k) - '0')
		}
		acc = acc*10 + d
	}
	switch {
	case n.neg && acc > 1<<63:
		return math.MinInt64
	case n.neg:
		return -int64(acc-1) - 1 // -(1<<63) without overflow
	case acc > math.MaxInt64:
		return math.MaxInt64
	}
	return int64(acc)
}

func saturate(neg bool) int64 {
	if neg {
		return math.MinInt64
	}
	return math.MaxInt64
}

// float64Value returns the nearest float64 to lit, a JSON number, saturated
// to ±math.MaxFloat64: a schema-valid number may be too large for a
// float64, and an infinity could not be written back as JSON.
func float64Value(lit []byte) float64 {
	if f, ok := exactFloat(lit); ok {
		return f
	}
	f, _ := strconv.ParseFloat(string(lit), 64) // errors only on range
	switch {
	case math.IsInf(f, 1):
		return math.MaxFloat64
	case math.IsInf(f, -1):
		return -math.MaxFloat64
	}
	return f
}

// exactPow10 are the powers of ten a float64 holds exactly.
var exactPow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// exactFloat converts the commonest numbers, such as 33 or -12.5, without
// strconv (whose string conversion allocates): when lit has no exponent
// and at most 15 digits, its digits m and its 10^k after the point are
// both exact float64s, and m / 10^k is rounded once, correctly, as
// ParseFloat would. ok is false for any other number.
func exactFloat(lit []byte) (f float64, ok bool) {
	neg := len(lit) > 0 && lit[0] == '-'
	if neg {
		lit = lit[1:]
	}
	var m uint64
	digits, frac, point := 0, 0, false
	for _, c := range lit {
		switch {
		case isDigit(c):
			m = m*10 + uint64(c-'0')
			digits++
			if point {
				frac++
			}
		case c == '.' && !point:
			point = true
		default:
			return 0, false // an exponent
		}
	}
	if digits == 0 || digits > 15 {
		return 0, false
	}
	f = float64(m) / exactPow10[frac]
	if neg {
		f = -f
	}
	return f, true
}
