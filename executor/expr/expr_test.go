package expr

import (
	"math"
	"testing"
)

func TestRoundHalfUp(t *testing.T) {
	for _, c := range []struct {
		x    float64
		d    int
		want float64
	}{{2.675, 2, 2.68}, {2.5, 0, 3}, {-2.5, 0, -3}, {1.005, 2, 1.01}, {0.5, 0, 1}, {9.99, 1, 10}, {123.456, -1, 120}, {math.Inf(1), 2, math.Inf(1)},
		// a decimal has no negative zero (Flink's BigDecimal.setScale)
		{-0.4, 0, 0}, {-0.04, 1, 0}, {math.Copysign(0, -1), 0, 0}, {-4, -1, 0}, {-0.0001, 2, 0}} {
		if got := roundHalfUp(c.x, c.d); got != c.want || math.Signbit(got) != math.Signbit(c.want) {
			t.Errorf("roundHalfUp(%v, %d) = %v, want %v", c.x, c.d, got, c.want)
		}
	}
}

func TestLikeMatch(t *testing.T) {
	for _, c := range []struct {
		s, p string
		esc  rune
		want bool
	}{
		{"abc", "abc", -1, true}, {"abc", "a%", -1, true}, {"abc", "%c", -1, true},
		{"abc", "a_c", -1, true}, {"ac", "a_c", -1, false}, {"a\nc", "a_c", -1, true},
		{"苹果", "_果", -1, true}, {"苹果", "__", -1, true}, {"苹果", "_", -1, false},
		{"a%c", "a!%c", '!', true}, {"abc", "a!%c", '!', false}, {"", "%", -1, true},
		{"aaa", "%a%a%a%", -1, true}, {"aa", "%a%a%a%", -1, false}, {`a\c`, `a\c`, -1, true},
		// an escaped wildcard matches itself whatever the escape character is
		{"a_c", "a__c", '_', true}, {"abc", "a__c", '_', false}, {"a_", "a__", '_', true},
		{"a%c", "a%%c", '%', true}, {"abc", "a%%c", '%', false}, {"a%", "a%%", '%', true},
		{"a", "a%%", '%', false}, {"a%x", "a%%%", '%', false}, {"a_bc", "a__%", '_', true},
		{"ab", "a__%", '_', false}, {"a", "a!", '!', false}, {"a!", "a!", '!', true},
	} {
		if got := likeMatch([]byte(c.s), []byte(c.p), c.esc, false); got != c.want {
			t.Errorf("%q LIKE %q (esc %q) = %v, want %v", c.s, c.p, c.esc, got, c.want)
		}
	}
}

// TestILikeMatch: ILIKE is LIKE after Unicode simple case folding of both sides
// (SPEC preamble).
func TestILikeMatch(t *testing.T) {
	for _, c := range []struct {
		s, p string
		esc  rune
		want bool
	}{
		{"Hello", "hELLO", -1, true}, {"Hello", "h%O", -1, true}, {"Hello", "h_llo", -1, true},
		{"ÄBC", "äbc", -1, true}, {"ΣΑΣ", "σας", -1, true}, {"ΣΑΣ", "σαΣ", -1, true},
		{"K", "k", -1, true}, {"K", "K", -1, true}, {"ſ", "S", -1, true},
		{"ß", "ss", -1, false}, {"abc", "abd", -1, false}, {"设备", "设_", -1, true},
		{"A_C", "a!_c", '!', true}, {"ABC", "a!_c", '!', false}, {"A%", "a%%", '%', true},
	} {
		if got := likeMatch([]byte(c.s), []byte(c.p), c.esc, true); got != c.want {
			t.Errorf("%q ILIKE %q (esc %q) = %v, want %v", c.s, c.p, c.esc, got, c.want)
		}
	}
}
