package tests

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"streamql/cmd/streamql/cli"
)

// TestFileLiteralInRelations: a quoted file name in FROM (SPEC 1: its
// columns inferred from the file) reads the same wherever a query may read
// a relation (SPEC 2.6): the query's own FROM, a subquery, a WITH
// definition, each part of a UNION ALL, an IN subquery, and a view, also
// after a SET plans the view again and from another working directory
// (the path is relative to the script's folder). Each must give the rows
// of the same query over a stream declared on the file. Found: CREATE VIEW
// v AS SELECT * FROM 'x.csv' said "unknown stream 'x.csv'", and so did a
// subquery, a WITH definition and a UNION ALL.
func TestFileLiteralInRelations(t *testing.T) {
	files := map[string]string{"x.csv": "k,n\na,1\nb,2\na,3\n", "y.csv": "k\na\nc\n"}
	decl := "CREATE STREAM xs (k VARCHAR, n BIGINT) WITH ('connector'='file', 'path'='x.csv', 'format'='csv', 'csv.header'='true');\n" +
		"CREATE STREAM ys (k VARCHAR) WITH ('connector'='file', 'path'='y.csv', 'format'='csv', 'csv.header'='true');\n"
	for _, tc := range []struct{ what, sql string }{
		{"FROM", "SELECT k, n FROM 'x.csv';"},
		{"a subquery", "SELECT k, n * 2 AS d FROM (SELECT k, n FROM 'x.csv' WHERE n > 1) AS q;"},
		{"a subquery without an alias", "SELECT k FROM (SELECT k FROM 'x.csv');"},
		{"a WITH definition", "WITH w AS (SELECT k, n FROM 'x.csv') SELECT k, SUM(n) AS s FROM w GROUP BY k;"},
		{"UNION ALL", "SELECT k FROM 'x.csv' UNION ALL SELECT k FROM 'y.csv';"},
		{"UNION ALL in a subquery", "SELECT k, COUNT(*) AS c FROM (SELECT k FROM 'x.csv' UNION ALL SELECT k FROM 'y.csv') AS u GROUP BY k;"},
		{"IN", "SELECT n FROM 'x.csv' WHERE k IN (SELECT k FROM 'y.csv');"},
		{"a join of a subquery", "SELECT a.k, a.n FROM 'x.csv' AS a JOIN (SELECT k FROM 'y.csv') AS b ON a.k = b.k;"},
		{"a view", "CREATE VIEW v AS SELECT k, n FROM 'x.csv' WHERE n > 1;\nSELECT * FROM v;"},
		{"a view of a subquery", "CREATE VIEW v AS SELECT k, COUNT(*) AS c FROM (SELECT k FROM 'x.csv' UNION ALL SELECT k FROM 'y.csv') AS u GROUP BY k;\nSELECT * FROM v;"},
		{"a view planned again after a SET", "CREATE VIEW v AS SELECT k, n FROM 'x.csv';\nSET 'table.exec.state.ttl' = '1 h';\nSELECT * FROM v;"},
		{"a view read twice", "CREATE VIEW v AS SELECT k, n FROM 'x.csv';\nSELECT a.k, b.n FROM v AS a JOIN v AS b ON a.k = b.k;"},
	} {
		out, errs, code := runSQL(t, files, tc.sql, "--format", "csv")
		want, werrs, wcode := runSQL(t, files, decl+strings.NewReplacer("'x.csv'", "xs", "'y.csv'", "ys").Replace(tc.sql), "--format", "csv")
		if wcode != 0 {
			t.Fatalf("%s: the reference over declared streams: exit %d: %s", tc.what, wcode, werrs)
		}
		if code != 0 || out != want {
			t.Errorf("%s: exit %d, stderr %s\ngot:\n%s\nwant (over declared streams):\n%s", tc.what, code, errs, out, want)
		}
	}
	// the path is relative to the script's folder, not the working directory
	dir := t.TempDir()
	for name, text := range map[string]string{"x.csv": files["x.csv"], "q.sql": "CREATE VIEW v AS SELECT k FROM 'x.csv' WHERE n = 3;\nSET 'table.exec.state.ttl' = '1 h';\nSELECT * FROM v;\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out, errb bytes.Buffer
	if code := cli.Run(context.Background(), []string{"--format", "csv", "-f", filepath.Join(dir, "q.sql")}, strings.NewReader(""), &out, &errb); code != 0 || out.String() != "k\na\n" {
		t.Errorf("a view of a file beside its script, run from elsewhere: exit %d, stdout %q, stderr %s", code, out.String(), errb.String())
	}
}
