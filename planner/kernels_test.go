package planner

import (
	"testing"

	"github.com/pingcap/tidb/pkg/parser/opcode"

	"streamql/catalog"
	"streamql/executor/vector"
	"streamql/parser"
)

// TestInListEvaluatesXOnce checks that x IN (list) evaluates x once per batch,
// however long the list, and still compares pair by pair (SPEC 2: BIGINT with
// DOUBLE as DOUBLE, BIGINT with BIGINT exactly; NULL x gives NULL).
func TestInListEvaluatesXOnce(t *testing.T) {
	calls := 0
	xs := vector.NewVec(catalog.BigInt)
	vals := []int64{1, 3, 7, 5, 9007199254740993}
	copy(xs.I, vals)
	xs.Null[len(vals)] = true
	x := &Expr{Type: catalog.BigInt, Col: -1, Text: "x", Eval: func(*vector.Batch, []int32) *vector.Vec {
		calls++
		return xs
	}}
	// 1, 3.0, 7, 9007199254740992: the last pair is BIGINT/BIGINT, exact, so
	// 9007199254740993 does not match though both read as the same DOUBLE.
	items := []*Expr{intConst(1, "1"), doubleConst(3, "3.0"), intConst(7, "7"), intConst(9007199254740992, "9007199254740992")}
	sc := &scope{}
	in, err := inKernel(x, len(items), func(x *Expr, k int) (*Expr, error) {
		return sc.compare(nil, opcode.EQ, x, items[k])
	})
	if err != nil {
		t.Fatal(err)
	}
	sel := []int32{0, 1, 2, 3, 4, 5}
	for round := 1; round <= 2; round++ {
		got := in.Eval(nil, sel)
		if calls != round {
			t.Fatalf("x evaluated %d times after %d batches, want once per batch", calls, round)
		}
		want := []string{"true", "true", "true", "false", "false", "NULL"}
		for i, w := range want {
			g := "false"
			if got.Null[i] {
				g = "NULL"
			} else if got.B[i] {
				g = "true"
			}
			if g != w {
				t.Errorf("row %d (x=%d): got %s, want %s", i, xs.I[i], g, w)
			}
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
	for _, expr := range []string{"i + 1 IN (8.0, 9, 10)", "CAST(d AS BIGINT)", "CAST(i AS VARCHAR)", "CAST(s AS DOUBLE)"} {
		cat := catalog.New()
		cat.Add(testStream())
		src := "SELECT " + expr + " FROM t"
		sc, err := parser.Parse("test", src)
		if err != nil {
			t.Fatal(err)
		}
		br, err := (&Planner{Cat: cat, Source: src}).PlanSelect(sc.Stmts[0].(*parser.Select))
		if err != nil {
			t.Fatal(err)
		}
		b, sel := testBatch(), []int32{0, 1}
		e := br.Project[0]
		e.Eval(b, sel)
		if n := testing.AllocsPerRun(100, func() { e.Eval(b, sel) }); n != 0 {
			t.Errorf("%s: %.1f allocations per batch, want 0", expr, n)
		}
	}
}
