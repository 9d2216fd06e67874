package tests

import (
	"strings"
	"testing"
)

// TestUnionTailClauses: ORDER BY, LIMIT and OFFSET written after the last
// query of a UNION [ALL] order and cut the union's rows, as SQL and Flink
// read them, not the last query's (which took them: `SELECT a FROM s UNION
// ALL SELECT b FROM t LIMIT 2` printed every row of s and two of t, and an
// ORDER BY of the union's column names was an unknown column of t). Each
// form of union is run: UNION ALL, UNION, both mixed, at the top level, in
// a subquery and in a view; a part in parentheses keeps its own LIMIT.
func TestUnionTailClauses(t *testing.T) {
	files := map[string]string{"a.csv": "3\n1\n5\n", "b.csv": "4\n2\n6\n2\n"}
	ddl := `CREATE STREAM a (x BIGINT) WITH ('connector'='file', 'path'='a.csv', 'format'='csv');
CREATE STREAM b (y BIGINT) WITH ('connector'='file', 'path'='b.csv', 'format'='csv');
`
	for _, tc := range []struct{ query, want string }{
		{"SELECT x FROM a UNION ALL SELECT y FROM b LIMIT 2", "3\n1\n"},
		{"SELECT x FROM a UNION ALL SELECT y FROM b ORDER BY x", "1\n2\n2\n3\n4\n5\n6\n"},
		{"SELECT x FROM a UNION ALL SELECT y FROM b ORDER BY x DESC LIMIT 3", "6\n5\n4\n"},
		{"SELECT x FROM a UNION SELECT y FROM b ORDER BY x LIMIT 3", "1\n2\n3\n"},
		{"SELECT x FROM a UNION ALL SELECT y FROM b UNION SELECT 0 ORDER BY x DESC LIMIT 2", "6\n5\n"},
		{"SELECT * FROM (SELECT x FROM a UNION ALL SELECT y FROM b ORDER BY x LIMIT 3) u", "1\n2\n2\n"},
		{"CREATE VIEW v AS SELECT x FROM a UNION ALL SELECT y FROM b ORDER BY x DESC LIMIT 2; SELECT x FROM v", "6\n5\n"},
		{"(SELECT x FROM a LIMIT 1) UNION ALL (SELECT y FROM b ORDER BY y LIMIT 1)", "3\n2\n"},
		{"SELECT x FROM a UNION ALL (SELECT y FROM b ORDER BY y DESC LIMIT 1)", "3\n1\n5\n6\n"},
	} {
		out, errs, code := runSQL(t, files, ddl+tc.query+";\n", "--format", "csv")
		got := strings.Join(strings.SplitN(out, "\n", 2)[1:], "") // (the header)
		if code != 0 || got != tc.want {
			t.Errorf("%s: exit %d, rows\n%s\nwant\n%s\nstderr: %s", tc.query, code, got, tc.want, errs)
		}
	}
}
