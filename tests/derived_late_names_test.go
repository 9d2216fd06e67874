package tests

import (
	"strings"
	"testing"
)

// lateNamesDDL declares o and p, files with event time, and view pv, p's
// counts per 5 s window; lateWinO and lateWinP are subqueries counting o's
// and p's rows per window (TestDerivedLateNames,
// TestDerivedLateRowsCountedAsPrinted).
const (
	lateNamesDDL = `CREATE STREAM o (id BIGINT, k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='o.csv', 'format'='csv');
CREATE STREAM p (id BIGINT, k VARCHAR, ts BIGINT, note VARCHAR, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='p.csv', 'format'='csv');
CREATE VIEW pv AS SELECT window_start, window_end, k, COUNT(*) AS m FROM TABLE(TUMBLE(TABLE p, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY window_start, window_end, k;
`
	lateWinO = `(SELECT window_start, window_end, k, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE o, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY window_start, window_end, k)`
	lateWinP = `(SELECT window_start, window_end, k, COUNT(*) AS m FROM TABLE(TUMBLE(TABLE p, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY window_start, window_end, k)`
)

// TestDerivedLateNames: the late rows of a window inside a relation (a
// subquery, a WITH name, a view, a UNION ALL: SPEC 2.6) go to the reading
// job's late outputs; a name the job already has with other columns gets
// the name the query reads the relation by as a suffix, late-<alias>, or
// late-<name> for a view or WITH name read without an alias (SPEC 2.7's
// late-<alias or stream name>), then a number only when that is really
// taken too (a join's own late-<alias> output that rows can reach:
// TestDerivedLateNameTakenByJoin; one for an input whose rows are never
// late, a window aggregate's, takes no name). Each way of reading a relation is run:
// an input of a window join, of an interval join (whose job has no 'late'
// yet: the window's late rows take it), the FROM of a query, the
// build side of IN, and a relation inside a relation; for each, the late
// row of each stream reaches the output named, and EXPLAIN shows that
// output's Sink, with the stream's columns, under that name (it showed the
// part's own 'late', and the run wrote late-subquery). A part of a
// subquery or UNION ALL read without an alias gives the suffix instead:
// the name it reads its own input by (late-p for a part over p, late-pv
// over view pv, late-q over a subquery q), as a join input's late-<alias>.

func TestDerivedLateNames(t *testing.T) {
	files := map[string]string{
		"o.csv": "1,a,1000\n2,b,2000\n3,a,9000\n4,a,1500\n",         // 4 is late for its window
		"p.csv": "1,a,1100,x\n2,b,2100,y\n3,a,9100,z\n5,a,1200,w\n", // so is 5
	}
	ddl := lateNamesDDL
	const (
		wo     = lateWinO
		wp     = lateWinP
		union  = `(SELECT window_start, window_end, k FROM TABLE(TUMBLE(TABLE o, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY window_start, window_end, k UNION ALL SELECT window_start, window_end, k FROM TABLE(TUMBLE(TABLE p, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY window_start, window_end, k)`
		on     = ` ON l.k = %[1]s.k AND l.window_start = %[1]s.window_start AND l.window_end = %[1]s.window_end`
		oCols  = "(id BIGINT, k VARCHAR, ts BIGINT)"
		pCols  = "(id BIGINT, k VARCHAR, ts BIGINT, note VARCHAR)"
		oLate  = "4,a,1500"
		pLate  = "5,a,1200,w"
		winJob = `SELECT l.k, l.n FROM ` + wo + ` l JOIN `
	)
	onR := func(alias string) string { return strings.ReplaceAll(on, "%[1]s", alias) }
	for _, tc := range []struct {
		what, query  string
		oName, pName string // the late outputs of o's and p's rows
	}{
		// 'late' is the first window's, with o's columns; the join's own
		// late-r gets no row (a window aggregate's rows are never late), so
		// it does not take the name: p's window's late rows go to late-r
		// (they went to late-r1, beside an unused late-r)
		{"window join of subqueries", winJob + wp + " r" + onR("r"), "late", "late-r"},
		{"window join of a subquery and a view with an alias", winJob + "pv x" + onR("x"), "late", "late-x"},
		{"window join of a subquery and a view", winJob + "pv" + onR("pv"), "late", "late-pv"},
		{"window join of a subquery and a WITH name with an alias", "WITH w AS " + wp + " " + winJob + "w AS y" + onR("y"), "late", "late-y"},
		{"window join of a subquery and a WITH name", "WITH w AS " + wp + " " + winJob + "w" + onR("w"), "late", "late-w"},
		{"interval join with a subquery", `SELECT o.id, r.m FROM o JOIN ` + wp + ` r ON o.k = r.k AND o.ts BETWEEN r.window_start AND r.window_end`, "late-o", "late"},
		{"a UNION ALL in FROM", `SELECT k, COUNT(*) AS c FROM ` + union + ` u GROUP BY k`, "late", "late-u"},
		{"a UNION ALL in FROM without an alias", `SELECT k, COUNT(*) AS c FROM ` + union + ` GROUP BY k`, "late", "late-p"},
		{"a UNION ALL in FROM without an alias, over a view", `SELECT k, COUNT(*) AS c FROM (SELECT window_start, window_end, k FROM TABLE(TUMBLE(TABLE o, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY window_start, window_end, k UNION ALL SELECT window_start, window_end, k FROM pv) GROUP BY k`, "late", "late-pv"},
		{"a UNION ALL in FROM without an alias, over an aliased subquery", `SELECT k, COUNT(*) AS c FROM (SELECT window_start, window_end, k FROM TABLE(TUMBLE(TABLE o, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY window_start, window_end, k UNION ALL SELECT window_start, window_end, k FROM ` + wp + ` q) GROUP BY k`, "late", "late-q"},
		{"a subquery in IN", `SELECT window_start, COUNT(*) AS c FROM TABLE(TUMBLE(TABLE o, DESCRIPTOR(ts), INTERVAL '5' SECOND)) WHERE k IN (SELECT k FROM ` + wp + ` b) GROUP BY window_start, window_end`, "late", "late-b"},
		{"a relation in a relation", `SELECT * FROM (SELECT k, COUNT(*) AS c FROM ` + union + ` u GROUP BY k) z`, "late", "late-u"},
	} {
		_, errs, code := runSQL(t, files, ddl+tc.query+";\n", "--format", "csv")
		if code != 0 || !strings.Contains(errs, tc.oName+"> "+oLate+"\n") || !strings.Contains(errs, tc.pName+"> "+pLate+"\n") {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant o's late row %s in %s and p's %s in %s", tc.what, code, errs, oLate, tc.oName, pLate, tc.pName)
			continue
		}
		plan, errs, code := runSQL(t, files, ddl+"EXPLAIN "+tc.query+";\n", "--format", "plain")
		for _, want := range []string{"Sink " + tc.oName + " " + oCols, "Sink " + tc.pName + " " + pCols} {
			if code != 0 || !strings.Contains(plan, want) {
				t.Errorf("%s: EXPLAIN exit %d, stderr %s; want %q in:\n%s", tc.what, code, errs, want, plan)
			}
		}
		if strings.Contains(plan, "Sink late "+pCols) && tc.pName != "late" {
			t.Errorf("%s: EXPLAIN shows p's late rows going to 'late', the run to %s:\n%s", tc.what, tc.pName, plan)
		}
	}
}

// TestDerivedLateNameTakenByJoin: a relation's late output takes a number
// only when late-<alias> is really taken: here the join's own late-r gets
// r's late rows (a regular join of two unbounded inputs with event time,
// whose right input is an OVER aggregation's rows: SPEC 2.7), 'late' is l's
// window's, so r's OVER's late rows (p's columns) go to late-r1; EXPLAIN
// shows each Sink with its columns. In TestDerivedLateNames the join's
// late-r of a window aggregate's rows, which none reaches, leaves the name
// to the relation.
func TestDerivedLateNameTakenByJoin(t *testing.T) {
	const q = `CREATE STREAM o (id BIGINT, k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='kafka', 'topic'='o', 'properties.bootstrap.servers'='localhost:1', 'format'='csv');
CREATE STREAM p (id BIGINT, k VARCHAR, ts BIGINT, note VARCHAR, WATERMARK FOR ts AS ts) WITH ('connector'='kafka', 'topic'='p', 'properties.bootstrap.servers'='localhost:1', 'format'='csv');
EXPLAIN SELECT l.k, r.c FROM (SELECT window_start, window_end, k, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE o, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY window_start, window_end, k) l JOIN (SELECT id, k, ts, COUNT(*) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS c FROM p) r ON l.k = r.k AND r.ts BETWEEN l.window_start AND l.window_end;
`
	plan, errs, code := runSQL(t, nil, q, "--format", "plain")
	for _, want := range []string{
		"Sink late (id BIGINT, k VARCHAR, ts BIGINT)",
		"late rows of r -> 'late-r'",
		"Sink late-r (id BIGINT, k VARCHAR, ts BIGINT, c BIGINT)",
		"Sink late-r1 (id BIGINT, k VARCHAR, ts BIGINT, note VARCHAR)",
	} {
		if code != 0 || !strings.Contains(plan, want) {
			t.Errorf("EXPLAIN exit %d, stderr %s; want %q in:\n%s", code, errs, want, plan)
		}
	}
}
