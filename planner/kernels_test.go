package planner

import (
	"testing"

	"streamql/catalog"
	"streamql/executor/expr"
	"streamql/parser"
)

// TestInListEvaluatesXOnce checks that x IN (list) reads x once, however
// long the list: the plan holds x once, as the OpIn's first operand, and each
// element's equality reads it through an OpInArg (the kernel evaluates x once
// per batch), still comparing pair by pair (SPEC 2: BIGINT with DOUBLE as
// DOUBLE, BIGINT with BIGINT exactly; NULL x gives NULL).
func TestInListEvaluatesXOnce(t *testing.T) {
	cat := catalog.New()
	cat.Add(testStream())
	src := "SELECT i + 1 IN (1, 3.0, 8, 9007199254740992) FROM t"
	sc, err := parser.Parse("test", src)
	if err != nil {
		t.Fatal(err)
	}
	br, err := (&Planner{Cat: cat, Source: src}).PlanSelect(sc.Stmts[0].(*parser.Select))
	if err != nil {
		t.Fatal(err)
	}
	want := "(in BOOLEAN (add BIGINT (col BIGINT #0) (lit BIGINT 1))" +
		" (cmp BOOLEAN 0 (in_arg BIGINT) (lit BIGINT 1))" +
		" (cmp BOOLEAN 0 (cast DOUBLE (in_arg BIGINT)) (lit DOUBLE 3))" +
		" (cmp BOOLEAN 0 (in_arg BIGINT) (lit BIGINT 8))" +
		" (cmp BOOLEAN 0 (in_arg BIGINT) (lit BIGINT 9007199254740992)))"
	if got := br.Project[0].Tree(); got != want {
		t.Errorf("plan:\n%s\nwant:\n%s", got, want)
	}
	for row, want := range []string{"true", "NULL"} { // i is 7, then NULL
		if got, _, err := evalSQL(t, "i + 1 IN (1, 3.0, 8, 9007199254740992)", row); err != nil || got != want {
			t.Errorf("row %d: %s %v, want %s", row, got, err, want)
		}
	}
}

// TestInListMixedTypes checks IN through SQL on mixed BIGINT/DOUBLE lists
// (SPEC 2: each pair unified on its own).
func TestInListMixedTypes(t *testing.T) {
	cases := []struct {
		expr string
		row  int
		want string
	}{
		{"i IN (2.5, 7)", 0, "true"},
		{"i IN (7.0)", 0, "true"},
		{"i IN (7.5, 8)", 0, "false"},
		{"d IN (2, 2.5)", 0, "true"},
		{"d IN (2, 3)", 0, "false"},
		{"i IN (1, NULL)", 0, "NULL"},
		{"i NOT IN (1, 2.5)", 0, "true"},
		{"i + 1 IN (8.0, 9)", 0, "true"},
		{"i IN (1, 2.5)", 1, "NULL"},
	}
	for _, c := range cases {
		got, typ, err := evalSQL(t, c.expr, c.row)
		if err != nil {
			t.Errorf("%s: %v", c.expr, err)
			continue
		}
		if got != c.want || typ != catalog.Boolean {
			t.Errorf("%s (row %d) = %s %s, want %s BOOLEAN", c.expr, c.row, got, typ, c.want)
		}
	}
}

// TestCastKernels checks CAST between every pair of types against SPEC 2's
// rules (failures give NULL; NULL stays NULL) for the kernel picked at
// planning time.
func TestCastKernels(t *testing.T) {
	cases := []struct{ expr, want string }{
		{"CAST(i AS DOUBLE)", "7.0"},
		{"CAST(i AS VARCHAR)", "7"},
		{"CAST(i AS BOOLEAN)", "true"},
		{"CAST(i AS TIMESTAMP)", "1970-01-01 00:00:00.007"},
		{"CAST(d AS BIGINT)", "2"},
		{"CAST(d AS VARCHAR)", "2.5"},
		{"CAST(d AS BOOLEAN)", "true"},
		{"CAST(d AS TIMESTAMP)", "1970-01-01 00:00:00.002"},
		{"CAST(s AS BIGINT)", "NULL"},
		{"CAST('42' AS BIGINT)", "42"},
		{"CAST('4.5' AS DOUBLE)", "4.5"},
		{"CAST('true' AS BOOLEAN)", "true"},
		{"CAST('2021-01-18 13:08:29.123' AS TIMESTAMP)", "2021-01-18 13:08:29.123"},
		{"CAST(b AS BIGINT)", "1"},
		{"CAST(b AS DOUBLE)", "1.0"},
		{"CAST(b AS VARCHAR)", "true"},
		{"CAST(b AS TIMESTAMP)", "NULL"},
		{"CAST(ts AS BIGINT)", "1610975309123"},
		{"CAST(ts AS DOUBLE)", "1.610975309123E12"},
		{"CAST(ts AS BOOLEAN)", "true"},
		{"CAST(ts AS VARCHAR)", "2021-01-18 13:08:29.123"},
		{"CAST(d * 1e300 * 1e300 AS BIGINT)", "NULL"},
	}
	for _, c := range cases {
		for row, want := range []string{c.want, "NULL"} {
			if row == 1 && c.expr[5] == '\'' {
				continue // a literal has no NULL row
			}
			got, _, err := evalSQL(t, c.expr, row)
			if err != nil {
				t.Errorf("%s: %v", c.expr, err)
				continue
			}
			if got != want {
				t.Errorf("%s (row %d) = %s, want %s", c.expr, row, got, want)
			}
		}
	}
}

// TestInAndCastAllocateNothing checks that x IN (list) and CAST allocate
// nothing per batch once warm (the hot path allocates nothing per row).
func TestInAndCastAllocateNothing(t *testing.T) {
	for _, text := range []string{"i + 1 IN (8.0, 9, 10)", "CAST(d AS BIGINT)", "CAST(i AS VARCHAR)", "CAST(s AS DOUBLE)"} {
		b, sel := testBatch(), []int32{0, 1}
		e := expr.Compile(planOne(t, text))
		e.Eval(b, sel)
		if n := testing.AllocsPerRun(100, func() { e.Eval(b, sel) }); n != 0 {
			t.Errorf("%s: %.1f allocations per batch, want 0", text, n)
		}
	}
}
