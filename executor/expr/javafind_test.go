package expr_test

import (
	"math/rand"
	"strings"
	"testing"

	"streamql/executor/expr"
)

// TestJavaFindProperty: the functions that walk every match of a pattern
// (REGEXP_REPLACE, REGEXP_COUNT, REGEXP_EXTRACT_ALL, STR_TO_MAP's split) find
// the matches Java's Matcher.find loop finds, as Flink's do, for random
// patterns that can match empty text (where RE2's FindAll differs: it drops
// an empty match right after a non-empty one) over random texts, against the
// reference's naive scan (refJavaFind), with constant and per-row patterns.
func TestJavaFindProperty(t *testing.T) {
	atoms := []string{"a", "b", "a*", "b*", "a?", "(a|)", "(|b)", "[ab]*", "x*", `\b`, `\B`, ".?", "(?:ab)*", "a+", `\s*`, " ", "é*", "(a*)", "(b|a*)", "^", "$", ","}
	rng := rand.New(rand.NewSource(1))
	for n := 0; n < 400; n++ {
		var p strings.Builder
		for k := rng.Intn(3); k >= 0; k-- {
			p.WriteString(atoms[rng.Intn(len(atoms))])
		}
		var s strings.Builder
		for k := rng.Intn(8); k > 0; k-- {
			s.WriteString([]string{"a", "b", " ", "c", "é", ",", "="}[rng.Intn(7)])
		}
		lit := "'" + strings.ReplaceAll(p.String(), "'", "''") + "'"
		for _, text := range []string{"REGEXP_REPLACE(s, " + lit + ", '<>')", "REGEXP_COUNT(s, " + lit + ")",
			"REGEXP_EXTRACT_ALL(s, " + lit + ", 0)", "STR_TO_MAP(s, " + lit + ", '=')",
			"REGEXP_REPLACE(s, CONCAT(" + lit + ", ''), '<>')"} {
			e, ok := planRef(text)
			if !ok {
				t.Fatalf("%s does not plan", text)
			}
			b := fuzzBatch(2, 0, s.String(), false, 0)
			got := expr.Compile(e).Eval(b, []int32{0, 4})
			for _, r := range []int{0, 4} {
				want := refEval(e, b, r, val{})
				if !sameVal(e.Type, got, r, want) {
					t.Fatalf("%s on %q: kernel %s, reference %s", text, s.String(), show(e.Type, fromVec(got, r)), show(e.Type, want))
				}
			}
		}
	}
}
