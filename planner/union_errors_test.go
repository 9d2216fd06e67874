package planner_test

import (
	"errors"
	"strings"
	"testing"

	"streamql/parser"
)

// TestUnionTailUnknownColumn: a column that the ORDER BY or LIMIT of a
// UNION [ALL] reads (the union's rows, SQL's and Flink's reading of
// clauses after the last query) and that the union does not give is a
// planning error that names the column and lists the union's columns
// (the first query's names), with the caret on the column; it names the
// union as written, never as a subquery (the parser reads the union
// through a placeholder subquery). For every union shape: UNION ALL,
// UNION, the two mixed, over bounded and unbounded streams, a column in
// an expression, one qualified with a stream's name.
func TestUnionTailUnknownColumn(t *testing.T) {
	const f = "CREATE STREAM f (k VARCHAR, p BIGINT) WITH ('connector'='values');\n"
	for _, c := range []struct{ query, want string }{
		{"SELECT k, p FROM f UNION ALL SELECT k, p FROM f ORDER BY ⟦nosuchcol⟧", "unknown column 'nosuchcol'; the UNION ALL has k, p"},
		{"SELECT k, p FROM f UNION SELECT k, p FROM f ORDER BY ⟦zz⟧ LIMIT 3", "unknown column 'zz'; the UNION has k, p"},
		{"SELECT k, p FROM f UNION ALL SELECT k, p FROM f ORDER BY p DESC, ⟦zz⟧ LIMIT 1", "unknown column 'zz'; the UNION ALL has k, p"},
		{"SELECT k, p FROM f UNION ALL SELECT k, p FROM f ORDER BY ⟦zz⟧ + 1", "unknown column 'zz'; the UNION ALL has k, p"},
		{"SELECT k, p FROM f UNION SELECT k, p FROM f UNION ALL SELECT k, p FROM f ORDER BY ⟦zz⟧", "unknown column 'zz'; the UNION ALL has k, p"},
		{"SELECT k, p FROM f UNION ALL SELECT k, p FROM f UNION SELECT k, p FROM f ORDER BY ⟦zz⟧", "unknown column 'zz'; the UNION has k, p"},
		{"SELECT k AS a, p FROM f UNION ALL SELECT k, p FROM f ORDER BY ⟦k⟧", "unknown column 'k'; the UNION ALL has a, p"},
		{"SELECT k, p FROM b UNION ALL SELECT k, p FROM b ORDER BY ⟦zz⟧ LIMIT 2", "unknown column 'zz'; the UNION ALL has k, p"},
		{"SELECT k, p FROM f UNION ALL SELECT k, p FROM f ORDER BY ⟦f.k⟧", "the query reads the UNION ALL; the UNION ALL's columns are read unqualified: write k"},
	} {
		at := len(f) + strings.Index(c.query, "⟦")
		script := f + strings.NewReplacer("⟦", "", "⟧", "").Replace(c.query)
		err := planTopNScript(t, script+";\n")
		var pe *parser.Error
		if !errors.As(err, &pe) || !strings.Contains(pe.Msg, c.want) || strings.Contains(pe.Msg, "subquery") {
			t.Errorf("%s: gave %v, want a planning error saying %q (and no subquery)", c.query, err, c.want)
			continue
		}
		if pe.Offset != at {
			t.Errorf("%s: the caret is at byte %d, want %d:\n%s", c.query, pe.Offset, at, parser.FormatError("q.sql", script, pe))
		}
	}
}
