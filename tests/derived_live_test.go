package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDerivedRelationRowsShowAtOnce: a job that reads a derived relation (a
// subquery, view, WITH name or UNION ALL, SPEC 2.6) over an unbounded
// input shows each row it outputs while the input waits for more, as a job
// over the stream does (SPEC 4: a live source's rows show at once; on a
// terminal the live table redraws). The relation's source hands the
// reading job ErrWaiting when its parts have no row ready, and the job
// flushes its sinks then (executor/derived.go, derivedSource.waits); it
// once waited for the parts' next rows without flushing, so nothing showed
// until the job ended (a Top-N over a GROUP BY subquery printed no live
// table). Each case follows a file and appends lines to it, expecting the
// output lines each append makes before the next one; every relation shape
// that reads the file through a derived relation: filter, view, WITH,
// UNION ALL by turns and in event-time order, an updating Top-N over a
// GROUP BY, a window over a view, and a lookup join whose probe side is a
// subquery.
func TestDerivedRelationRowsShowAtOnce(t *testing.T) {
	const ddl = `CREATE STREAM kv (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='log.csv', 'follow'='true');
CREATE STREAM raw (k VARCHAR, ts BIGINT) WITH ('connector'='file', 'path'='log.csv', 'follow'='true');
CREATE STREAM raw2 (k VARCHAR, ts BIGINT) WITH ('connector'='file', 'path'='log2.csv', 'follow'='true');
CREATE STREAM dim (k VARCHAR, name VARCHAR) WITH ('connector'='file', 'path'='dim.csv');
`
	type step struct {
		add  string   // lines appended to log.csv (to log2.csv after a "2:")
		want []string // the output lines they make
	}
	cases := []struct {
		name, sql string
		steps     []step
	}{
		{"subquery", `SELECT k, ts FROM (SELECT * FROM raw WHERE ts > 0);`, []step{
			{"a,1\n", []string{"k,ts", "a,1"}}, {"b,0\nc,3\n", []string{"c,3"}}}},
		{"view", `CREATE VIEW v AS SELECT k, ts * 10 AS t10 FROM raw; SELECT * FROM v;`, []step{
			{"a,1\n", []string{"k,t10", "a,10"}}, {"b,2\n", []string{"b,20"}}}},
		{"with", `WITH w AS (SELECT UPPER(k) AS u FROM raw) SELECT u FROM w;`, []step{
			{"a,1\n", []string{"u", "A"}}, {"b,2\n", []string{"B"}}}},
		{"union all by turns", `SELECT 'x' AS p, k FROM raw UNION ALL SELECT 'y' AS p, k FROM raw WHERE k = 'z';`, []step{
			{"a,1\n", []string{"p,k", "x,a"}}, {"b,2\n", []string{"x,b"}}}},
		// the parts' rows merge in event-time order: a part's row waits
		// for the other part's next row (the first part's on a tie)
		{"union all in event-time order", `SELECT 'x' AS p, k, ts FROM kv UNION ALL SELECT 'y' AS p, k, ts FROM kv;`, []step{
			{"a,1\n", []string{"p,k,ts", "x,a,1"}}, {"b,2\n", []string{"y,a,1", "x,b,2"}}}},
		{"top-n over a group by", `SELECT k, c FROM (SELECT k, c, ROW_NUMBER() OVER (ORDER BY c DESC) AS rn FROM (SELECT k, COUNT(*) AS c FROM raw GROUP BY k)) WHERE rn <= 1;`, []step{
			{"a,1\n", []string{"op,k,c", "+I,a,1"}}, {"b,2\nb,3\n", []string{"-D,a,1", "+I,b,2"}}}},
		{"window over a view", `CREATE VIEW v AS SELECT k, ts FROM kv WHERE k <> 'z';
SELECT window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE v, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY window_start, window_end;`, []step{
			{"a,100\nb,900\nc,1000\n", []string{"window_start,n", "0,2"}}, {"d,2500\n", []string{"1000,1"}}}},
		{"lookup join of a subquery", `SELECT s.k, d.name FROM (SELECT k FROM raw WHERE ts > 0) s JOIN dim d ON s.k = d.k;`, []step{
			{"a,1\n", []string{"k,name", "a,Anna"}}, {"c,2\nb,3\n", []string{"b,Bob"}}}},
		// a join of two unbounded relations read by turns: the quiet one
		// holds back neither the other's rows nor the pairs (a relation's
		// source that waits returns ErrWaiting, as a live source ticks)
		{"join of two subqueries", `SELECT a.k, a.ts, b.ts AS t2 FROM (SELECT * FROM raw WHERE ts > 0) a JOIN (SELECT * FROM raw2 WHERE ts > 0) b ON a.k = b.k;`, []step{
			{"a,1\n", nil}, {"2:a,2\n", []string{"k,ts,t2", "a,1,2"}}, {"a,3\n", []string{"a,3,2"}}, {"2:a,4\n", []string{"a,1,4", "a,3,4"}}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, text := range map[string]string{"log.csv": "", "log2.csv": "", "dim.csv": "a,Anna\nb,Bob\n"} {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			l := startLive(t, dir, ddl+c.sql, "--format", "csv")
			for _, s := range c.steps {
				name, add := "log.csv", s.add
				if rest, ok := strings.CutPrefix(add, "2:"); ok {
					name, add = "log2.csv", rest
				}
				f, err := os.OpenFile(filepath.Join(dir, name), os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				_, err = f.WriteString(add)
				f.Close()
				if err != nil {
					t.Fatal(err)
				}
				l.expect(s.want...)
			}
			l.cancel()
			if code := l.exit(); code != 130 {
				t.Fatalf("exit %d, want 130: %s", code, l.stderr.String())
			}
		})
	}
}
