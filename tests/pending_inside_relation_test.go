package tests

import (
	"strings"
	"testing"
)

// TestPendingBranchesReadInsideRelation: side branches pending on a stream
// run with the next query whose FROM names the stream (SPEC 2.1, 2.6); a
// query that reads the stream only inside a relation (a join in a
// subquery, view or WITH name, a plain subquery, a UNION ALL part) or as
// an IN subquery's build side leaves them pending, and says so in a
// warning at the statement, naming the stream and the branches (they
// stayed pending to the script's end without a word). What the warning
// says is checked against the run: every row of the stream reaches the
// query (none taken by the branch), and the branch runs at the script's
// end, after the next statement, with its rows. A query whose FROM reads
// the stream, alone or joined, runs them with it and gives no warning.
func TestPendingBranchesReadInsideRelation(t *testing.T) {
	files := map[string]string{
		"o.csv": "1,a,1000\n2,b,2000\n3,a,3000\n4,b,4000\n",
		"p.csv": "1,a,1100,x\n2,b,2100,y\n3,a,3100,z\n4,b,4100,w\n",
	}
	const ddl = `CREATE STREAM o (id BIGINT, k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='o.csv', 'format'='csv');
CREATE STREAM p (id BIGINT, k VARCHAR, ts BIGINT, note VARCHAR, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='p.csv', 'format'='csv');
CREATE VIEW jv AS SELECT o.id AS id, p.note AS note FROM o JOIN p ON o.k = p.k AND o.ts BETWEEN p.ts - INTERVAL '1' SECOND AND p.ts + INTERVAL '1' SECOND;
SELECT id AS big INTO SIDE 'big' FROM o WHERE id >= 3;
`
	const join = `SELECT o.id AS id, p.note AS note FROM o JOIN p ON o.k = p.k AND o.ts BETWEEN p.ts - INTERVAL '1' SECOND AND p.ts + INTERVAL '1' SECOND`
	for _, tc := range []struct {
		what, query string
		inside      bool // o is read only inside a relation: the branch stays pending
	}{
		{"a join in a subquery", `SELECT id FROM (` + join + `) q`, true},
		{"a join in a view", `SELECT id FROM jv`, true},
		{"a join in a WITH name", `WITH w AS (` + join + `) SELECT id FROM w`, true},
		{"a plain subquery", `SELECT id FROM (SELECT id FROM o) q`, true},
		{"a UNION ALL part", `SELECT id FROM (SELECT id FROM o UNION ALL SELECT id FROM p) u`, true},
		{"an IN subquery's build side", `SELECT id FROM p WHERE id IN (SELECT id FROM o)`, true},
		{"the stream in FROM", `SELECT id FROM o`, false},
		{"the stream joined in FROM", `SELECT o.id AS id FROM o JOIN p ON o.k = p.k AND o.ts BETWEEN p.ts - INTERVAL '1' SECOND AND p.ts + INTERVAL '1' SECOND`, false},
	} {
		out, errs, code := runSQL(t, files, ddl+tc.query+";\nSELECT 'after' AS next;\n", "--format", "csv")
		if code != 0 {
			t.Errorf("%s: exit %d, stderr:\n%s", tc.what, code, errs)
			continue
		}
		warned := strings.Contains(errs, "warning: the side branches pending on o ('big') do not run with this query")
		after := strings.Index(out, "next\nafter\n")
		big := strings.Index(out, "big,3\n")
		main := out
		if after >= 0 {
			main = out[:after]
		}
		if tc.inside {
			if !warned || strings.Count(errs, "warning:") != 1 {
				t.Errorf("%s: want one warning that o's branch 'big' does not run with it; stderr:\n%s", tc.what, errs)
			}
			// every row of o reaches the query, and the branch runs at the
			// script's end with its rows
			if !strings.Contains(main, "\n3\n") || !strings.Contains(main, "\n4\n") || big < after || !strings.Contains(out[big:], "big,4\n") {
				t.Errorf("%s: want o's rows 3 and 4 in the query's output and 'big' run after the next statement; stdout:\n%s", tc.what, out)
			}
			continue
		}
		if warned || strings.Contains(errs, "warning:") {
			t.Errorf("%s: o's branch runs with the query, yet it warns:\n%s", tc.what, errs)
		}
		if big < 0 || big > after {
			t.Errorf("%s: want 'big' run with the query, before the next statement; stdout:\n%s", tc.what, out)
		}
	}
}
