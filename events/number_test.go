package events

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// numberSeeds are JSON number literals around the edges of big.Rat and
// int64.
var numberSeeds = []string{
	"0", "-0", "0.0", "-0.000e-5", "1", "-1", "1.0", "1.5", "100", "100.0", "100.0000001", "99.99999999999999999999",
	"1e2", "1E+2", "1e-2", "10e-1", "12.5e1", "0.1e1", "1E400", "-1E400", "1e-400",
	"1e1000000", "1e1000001", "1e-1000000", "1e-1000001", "0.1e-999999", "0.1e-1000000", "10e-1000001",
	"0e99999999999999999999", "1e9223372036854775807", "1e-9223372036854775808", "1e9223372036854775808",
	"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
	"9.223372036854775807e18", "922337203685477580.7e1", "1e18", "1e19", "-1e19", "123456789012345678901234567890",
}

// FuzzNumber checks the exact number helpers against big.Rat, which is how
// the schema validator reads numbers.
func FuzzNumber(f *testing.F) {
	for _, s := range numberSeeds {
		f.Add(s)
	}
	hundred := parseNumber([]byte("100"))
	f.Fuzz(func(t *testing.T, lit string) {
		if v := jsontext.Value(lit); !v.IsValid() || v.Kind() != '0' || strings.TrimSpace(lit) != lit || len(lit) > 64 {
			t.Skip()
		}
		n := parseNumber([]byte(lit))
		r, ok := new(big.Rat).SetString(lit)
		if n.ratOK() != ok {
			t.Fatalf("ratOK(%s) = %v; big.Rat.SetString says %v", lit, n.ratOK(), ok)
		}
		if !ok {
			return
		}
		if n.isInt() != r.IsInt() {
			t.Fatalf("isInt(%s) = %v; want %v", lit, n.isInt(), r.IsInt())
		}
		if got, want := cmpNumbers(&n, &hundred), r.Cmp(big.NewRat(100, 1)); got != want {
			t.Fatalf("cmp(%s, 100) = %d; want %d", lit, got, want)
		}
		if got, want := n.sign(), r.Sign(); got != want {
			t.Fatalf("sign(%s) = %d; want %d", lit, got, want)
		}
		if r.IsInt() {
			if got, want := n.int64Value(), saturated(r.Num()); got != want {
				t.Fatalf("int64Value(%s) = %d; want %d", lit, got, want)
			}
		}
	})
}

// saturated returns x clamped to the int64 range.
func saturated(x *big.Int) int64 {
	switch {
	case x.IsInt64():
		return x.Int64()
	case x.Sign() > 0:
		return math.MaxInt64
	}
	return math.MinInt64
}

func TestCmpNumbers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		want int
	}{
		{"0", "-0", 0}, {"0", "0.0e7", 0}, {"1", "1.000", 0}, {"1e2", "100", 0}, {"100.0000001", "100", 1},
		{"99.999", "100", -1}, {"-5", "0", -1}, {"-5", "-50e-1", 0}, {"-5", "-6", 1}, {"1.25", "1.2", 1},
		{"1.2", "1.25", -1}, {"0.001", "1e-3", 0}, {"12", "1.2e1", 0}, {"123", "1234e-1", -1},
	}
	for _, tt := range tests {
		a, b := parseNumber([]byte(tt.a)), parseNumber([]byte(tt.b))
		if got := cmpNumbers(&a, &b); got != tt.want {
			t.Errorf("cmpNumbers(%s, %s) = %d; want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestNumberValues(t *testing.T) {
	t.Parallel()
	tests := []struct {
		lit   string
		int   int64
		float float64
	}{
		{"1.0", 1, 1}, {"1e2", 100, 100}, {"-0", 0, 0}, {"12.5e1", 125, 125},
		{"1E400", math.MaxInt64, math.MaxFloat64}, {"-1E400", math.MinInt64, -math.MaxFloat64},
		{"-9223372036854775808", math.MinInt64, -9223372036854775808},
		{"9223372036854775808", math.MaxInt64, 9223372036854775808},
	}
	for _, tt := range tests {
		n := parseNumber([]byte(tt.lit))
		if got := n.int64Value(); got != tt.int {
			t.Errorf("int64Value(%s) = %d; want %d", tt.lit, got, tt.int)
		}
		if got := float64Value([]byte(tt.lit)); got != tt.float {
			t.Errorf("float64Value(%s) = %s; want %s", tt.lit, strconv.FormatFloat(got, 'g', -1, 64), strconv.FormatFloat(tt.float, 'g', -1, 64))
		}
	}
}

// exactFloat gives ParseFloat's float64, bit for bit, or declines.
func TestExactFloat(t *testing.T) {
	for _, lit := range []string{"0", "-0", "33", "33.5", "-12.25", "0.1", "0.3", "99.99", "100", "123456789012345",
		"1.23456789012345", "0.000000000000001", "9007199254740993", "1e3", "1234567890123456", "5."} {
		f, ok := exactFloat([]byte(lit))
		want, err := strconv.ParseFloat(lit, 64)
		if ok && (err != nil || math.Float64bits(f) != math.Float64bits(want)) {
			t.Errorf("exactFloat(%s) = %v; ParseFloat gives %v (%v)", lit, f, want, err)
		}
	}
	if _, ok := exactFloat([]byte("33.5")); !ok {
		t.Error("exactFloat declines 33.5")
	}
}

func FuzzExactFloat(f *testing.F) {
	f.Add(uint64(335), uint8(1), false)
	f.Fuzz(func(t *testing.T, m uint64, frac uint8, neg bool) {
		lit := strconv.FormatUint(m%1e15, 10)
		if k := int(frac % 16); k > 0 && k < len(lit) {
			lit = lit[:len(lit)-k] + "." + lit[len(lit)-k:]
		}
		if neg {
			lit = "-" + lit
		}
		got, ok := exactFloat([]byte(lit))
		want, _ := strconv.ParseFloat(lit, 64)
		if !ok || math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("exactFloat(%s) = %v, %v; ParseFloat gives %v", lit, got, ok, want)
		}
	})
}
