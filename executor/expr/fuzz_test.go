package expr_test

import (
	"math"
	"testing"

	"streamql/catalog"
	"streamql/executor/expr"
	"streamql/executor/vector"
	"streamql/parser"
	"streamql/planner"
	"streamql/planner/plan"
)

// fuzzStream is the stream the fuzzed expressions read: one column of each type.
func fuzzStream() *catalog.Stream {
	return &catalog.Stream{Name: "t", EventTime: -1, Columns: []catalog.Column{
		{Name: "i", Type: catalog.BigInt}, {Name: "d", Type: catalog.Double},
		{Name: "s", Type: catalog.Varchar}, {Name: "b", Type: catalog.Boolean},
		{Name: "ts", Type: catalog.Timestamp}, {Name: "j", Type: catalog.BigInt},
	}, Connector: &catalog.ConnectorSpec{Name: "values", Bounded: func(map[string]string) bool { return true }}, Options: map[string]string{}}
}

// planExpr plans "SELECT text FROM t"; ok is false for a planning error.
func planExpr(text string) (*plan.Expr, bool) {
	cat := catalog.New()
	cat.Add(fuzzStream())
	src := "SELECT " + text + " FROM t"
	sc, err := parser.Parse("fuzz", src)
	if err != nil || len(sc.Stmts) != 1 {
		return nil, false
	}
	sel, ok := sc.Stmts[0].(*parser.Select)
	if !ok {
		return nil, false
	}
	br, err := (&planner.Planner{Cat: cat, Source: src}).PlanSelect(sel)
	if err != nil || len(br.Project) == 0 || br.Join != nil {
		return nil, false
	}
	return br.Project[0], true
}

// FuzzKernels compares the compiled kernel of a planned expression with the
// reference interpreter (refeval_test.go), row by row, on a batch holding the
// fuzzed values, a row of NULLs and rows of edge values. Its seeds run in every
// go test: go test -run XXX -fuzz FuzzKernels -fuzztime 60s ./executor/expr.
func FuzzKernels(f *testing.F) {
	for _, s := range []string{
		"i + j", "i - j", "i * j", "i / j", "i DIV j", "i % j", "d % 2.5", "d DIV 0.5", "-i", "-d", "ABS(i)", "ABS(d)",
		"i = j", "i <> j", "d < 1.5", "d >= i", "s <= 'b'", "b = TRUE", "ts > '2021-01-01 00:00:00'", "i <=> NULL", "d <=> d",
		"i > 0 AND b", "i > 0 OR b", "i > 0 XOR b", "NOT b", "b IS NULL", "s IS NOT NULL", "b IS TRUE", "b IS NOT FALSE",
		"i BETWEEN j AND 10", "i IN (1, 2.5, j, NULL)", "i + 1 NOT IN (3, 4)", "s IN ('a', s)",
		"CASE WHEN i > j THEN s WHEN b THEN 'x' ELSE NULL END", "CASE i WHEN 1 THEN d WHEN j THEN 2 END", "IF(b, i, d)",
		"COALESCE(s, 'none')", "COALESCE(NULL, i, j)", "IFNULL(d, 0)",
		"CONCAT(s, i, d, b, ts)", "s || 'x'", "UPPER(s)", "LOWER(s)", "TRIM(s)", "LTRIM(s)", "RTRIM(s)", "CHAR_LENGTH(s)",
		"SUBSTRING(s, i)", "SUBSTRING(s, i, j)", "SUBSTR(s, -2, 1)",
		"s LIKE 'a%'", "s LIKE concat('%', s)", "s NOT LIKE '_b%'", "s LIKE 'a!%' ESCAPE '!'", "s ILIKE 'A_%'",
		"CAST(i AS DOUBLE)", "CAST(d AS BIGINT)", "CAST(s AS BIGINT)", "CAST(s AS DOUBLE)", "CAST(s AS BOOLEAN)",
		"CAST(s AS TIMESTAMP)", "CAST(ts AS VARCHAR)", "CAST(d AS VARCHAR)", "CAST(b AS DOUBLE)", "CAST(d AS TIMESTAMP)",
		"CAST(i AS BOOLEAN)", "CAST(ts AS BIGINT)", "CAST(b AS BIGINT)",
		"FLOOR(d)", "CEIL(d)", "ROUND(d)", "ROUND(d, 2)", "ROUND(i, -2)", "ROUND(d, -1)",
		"ts + INTERVAL '1' SECOND", "i - INTERVAL '2' MINUTE",
		// IN lists of constants: a sorted set (constIn), NULL, -0 and NaN included
		"i IN (7, 3, -5, 7)", "i NOT IN (1, NULL, 2)", "i IN (NULL)", "d IN (2.5, -0.0, 1e308, 0.0)", "d NOT IN (2.5, -2.5)",
		"d IN (i, 2.5, NULL)", "s IN ('abc', 'a', '', 'abcabc', s)", "s NOT IN ('x', 'abc')", "ts IN (1610975309123, 0, -86400000)",
		"i IN (1, 2.5, 7, j)", "b IN (TRUE, NULL)",
	} {
		f.Add(s, int64(7), 2.5, "abc", true, int64(1610975309123))
	}
	f.Add("i * j", int64(math.MaxInt64), math.NaN(), "a%b", false, int64(-1))
	f.Add("SUBSTRING(s, i, j)", int64(-3), math.Inf(-1), "héllo 设备\xff", true, int64(0))
	f.Add("CAST(d AS BIGINT)", int64(math.MinInt64), 9.3e18, " 42 ", false, int64(math.MaxInt64))
	f.Add("ROUND(d, 2)", int64(2), 2.675, "TRUE", true, int64(5))
	// ROUND of a BIGINT to tens, exact past 2^53 and NULL past int64
	for _, c := range []struct {
		text string
		i    int64
	}{{"ROUND(i, -2)", 123456789012345678}, {"ROUND(i, -2)", math.MaxInt64}, {"ROUND(i, -1)", math.MinInt64},
		{"ROUND(i, -2)", -9223372036854775807}, {"ROUND(i, -19)", 4999999999999999999}, {"ROUND(i, -19)", -5000000000000000000},
		{"ROUND(i, -1)", -15}, {"ROUND(i, -25)", math.MaxInt64}, {"ROUND(i, -18)", math.MinInt64}} {
		f.Add(c.text, c.i, 0.0, "", false, int64(0))
	}
	f.Fuzz(func(t *testing.T, text string, i int64, d float64, s string, bv bool, ts int64) {
		e, ok := planExpr(text)
		if !ok {
			return
		}
		b := fuzzBatch(i, d, s, bv, ts)
		sel := make([]int32, b.N)
		for k := range sel {
			sel[k] = int32(k)
		}
		k := expr.Compile(e)
		got := k.Eval(b, sel)
		for r := 0; r < b.N; r++ {
			want := refEval(e, b, r, val{})
			if !sameVal(e.Type, got, r, want) {
				t.Fatalf("%s (tree %s), row %d: kernel %s, reference %s", text, e.Tree(), r,
					show(e.Type, fromVec(got, r)), show(e.Type, want))
			}
		}
	})
}

// fuzzBatch holds the fuzzed values (row 0), NULLs (row 1), edge values (rows
// 2, 3) and the fuzzed values mixed with those (row 4).
func fuzzBatch(i int64, d float64, s string, bv bool, ts int64) *vector.Batch {
	b := vector.NewBatch(fuzzStream().Types())
	rows := []struct {
		i, j, ts int64
		d        float64
		s        string
		b        bool
	}{
		{i, 3, ts, d, s, bv},
		{},
		{math.MinInt64, -1, 0, math.Copysign(0, -1), "", false},
		{-5, 0, -86400000, math.NaN(), "  aB_%ü  ", true},
		{i, i, -ts, -d, s + s, !bv},
	}
	for r, x := range rows {
		b.Cols[0].I[r], b.Cols[1].F[r], b.Cols[3].B[r], b.Cols[4].I[r], b.Cols[5].I[r] = x.i, x.d, x.b, x.ts, x.j
		b.Cols[2].SetString(r, []byte(x.s))
		for _, c := range b.Cols {
			c.Null[r] = r == 1
		}
	}
	b.N = len(rows)
	return b
}

func sameVal(t catalog.Type, v *vector.Vec, r int, w val) bool {
	if v.Null[r] || w.null {
		return v.Null[r] == w.null
	}
	switch t {
	case catalog.BigInt, catalog.Timestamp:
		return v.I[r] == w.i
	case catalog.Double:
		return math.Float64bits(v.F[r]) == math.Float64bits(w.f) || (math.IsNaN(v.F[r]) && math.IsNaN(w.f))
	case catalog.Boolean:
		return v.B[r] == w.b
	case catalog.Varchar:
		return string(v.S[r]) == string(w.s)
	}
	return true
}

func show(t catalog.Type, v val) string {
	if v.null {
		return "NULL"
	}
	return string(printed(t, v))
}
