package expr_test

import (
	"runtime"
	"strconv"
	"strings"
	"testing"

	"streamql/catalog"
	"streamql/executor/expr"
	"streamql/executor/vector"
)

// TestInListCostsItsSize: an IN list of constants costs the constants' size
// when compiled, not a 1024-row vector each (issue 30: 15 KB per literal,
// a 1M-literal script ran out of memory), and gives the reference's answers.
func TestInListCostsItsSize(t *testing.T) {
	const n = 20000
	for _, c := range []struct {
		col  string
		item func(k int) string
	}{
		{"i", func(k int) string { return strconv.Itoa(k * 3) }},
		{"d", func(k int) string { return strconv.Itoa(k*3) + ".5" }},
		{"s", func(k int) string { return "'v" + strconv.Itoa(k*3) + "'" }},
	} {
		items := make([]string, n)
		for k := range items {
			items[k] = c.item(k)
		}
		text := c.col + " IN (" + strings.Join(items, ", ") + ")"
		e, ok := planExpr(text)
		if !ok {
			t.Fatalf("%s IN (...): not planned", c.col)
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		k := expr.Compile(e)
		runtime.ReadMemStats(&after)
		if per := (after.TotalAlloc - before.TotalAlloc) / n; per > 128 {
			t.Errorf("%s IN (%d constants): compiling allocated %d bytes per constant, want at most 128", c.col, n, per)
		}
		b := vector.NewBatch(fuzzStream().Types())
		for r := 0; r < vector.Cap; r++ {
			b.Cols[0].I[r], b.Cols[1].F[r] = int64(r), float64(r)+0.5
			b.Cols[2].SetString(r, []byte("v"+strconv.Itoa(r)))
			for _, col := range b.Cols {
				col.Null[r] = r%97 == 5
			}
		}
		b.N = vector.Cap
		sel := make([]int32, b.N)
		for r := range sel {
			sel[r] = int32(r)
		}
		got := k.Eval(b, sel)
		for r := 0; r < b.N; r++ {
			if want := (val{null: r%97 == 5, b: r%3 == 0}); !sameVal(catalog.Boolean, got, r, want) {
				t.Fatalf("%s IN (...), row %d: %s, want %s", c.col, r, show(catalog.Boolean, fromVec(got, r)), show(catalog.Boolean, want))
			}
		}
	}
}
