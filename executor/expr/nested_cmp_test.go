package expr_test

import (
	"testing"

	"streamql/executor/expr"
)

// nestedCompareExamples are = and <> of ARRAY, MAP and ROW values (SPEC
// 2.10): Flink's ScalarOperatorGens compares them element by element (an
// ARRAY's binary forms byte for byte, so NULL elements match), NULL when a
// whole operand is NULL.
var nestedCompareExamples = []flinkCase{
	{"ARRAY[1, 2] = ARRAY[1, 2]", "true"}, {"ARRAY[1, 2] = ARRAY[2, 1]", "false"}, {"ARRAY[1, 2] <> ARRAY[1]", "true"},
	{"ARRAY[1, NULL] = ARRAY[1, NULL]", "true"}, // Flink compares the binary forms: a NULL element equals a NULL element
	{"ARRAY[1] = CAST(NULL AS ARRAY<BIGINT>)", "NULL"}, {"MAP['a', 1, 'b', 2] = MAP['b', 2, 'a', 1]", "true"}, {"MAP['a', 1] = MAP['a', 2]", "false"},
	{"ROW(1, 'x') = ROW(1, 'x')", "true"}, {"ROW(1, 'x') <> ROW(1, 'y')", "true"}, {"CAST(ROW(1) AS ROW<a BIGINT>) = ROW(1)", "true"},
	{"ARRAY[CAST('NaN' AS DOUBLE)] = ARRAY[CAST('NaN' AS DOUBLE)]", "false"}, {"ARRAY[0.0] = ARRAY[-0.0]", "true"}, // SPEC 2's = on elements: NaN equals nothing, 0.0 equals -0.0
}

// TestNestedCompareExamples plans and evaluates nestedCompareExamples.
func TestNestedCompareExamples(t *testing.T) {
	for _, c := range nestedCompareExamples {
		e, ok := planExpr(c.sql)
		if !ok {
			t.Errorf("%s does not plan", c.sql)
			continue
		}
		v := expr.Compile(e).Eval(fuzzBatch(0, 0, "", false, 0), []int32{0})
		if got := show(e.Type, fromVec(v, 0)); got != c.want {
			t.Errorf("%s = %q, want %q (tree %s)", c.sql, got, c.want, e.Tree())
		}
	}
}
