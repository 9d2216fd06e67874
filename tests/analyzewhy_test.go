package tests

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestAnalyzeWhereRowsWent: EXPLAIN ANALYZE says where rows went (SPEC 4
// "Finding out why"): the late output's largest and median lateness and the
// stream whose watermark made the rows late, the rows each filter dropped or
// passed on, and the probe rows a join found no partner for.
func TestAnalyzeWhereRowsWent(t *testing.T) {
	files := map[string]string{
		// 70000 fires [0, 60000); then 5000, 20000, 59000 are 65 s, 50 s, 11 s late
		"ev.csv":   "a,0\nb,10000\nx,30000\nc,70000\na,5000\nb,20000\nc,59000\nz,80000\n",
		"keep.csv": "a\nb\nc\nx\n",
	}
	sql := `CREATE STREAM ev (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '0' SECOND) WITH ('connector'='file', 'path'='ev.csv');
CREATE STREAM keep (k VARCHAR) WITH ('connector'='file', 'path'='keep.csv');
EXPLAIN ANALYZE SELECT window_start, COUNT(*) AS n
  FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
  WHERE k <> 'x' AND k IN (SELECT k FROM keep)
  GROUP BY window_start, window_end;
`
	out, errs, code := runSQLIn(t, t.TempDir(), files, sql, "--format", "tsv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"probe 8 rows, 1 row without a partner", // z
		"7 rows in, dropped 1 row",              // x
		"3 rows late; lateness largest 1.1 min, median 50 s, by the watermark of stream ev",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}

// TestAnalyzeJoinWhereRowsWent: EXPLAIN ANALYZE of a join of two streams
// (SPEC 2.7) says where each input's rows went: read, refused by
// 'watermark.max-future', joined with a partner, without one, and late, with
// the late outputs' largest and median lateness by the watermark of the
// input that made them late, and each input's final watermark; the WHERE
// on the left (preserved) side is tested before the join
// (planner/rule_pushdown.go), and the Join line counts the row it took out.
// The Join line names each input as the query reads it (its alias), as
// EXPLAIN's other lines do.
func TestAnalyzeJoinWhereRowsWent(t *testing.T) {
	files := map[string]string{
		// l: a5 is 7.5 s below the watermark 8000 that q9000 set; f is a year ahead
		"l.csv": "a,1000\nb,2000\nf,31536000000\nc,3000\nq,9000\na,500\nd,12000\n",
		// r: c3100 is 0.9 s below 4000 (b5000's), b1000 7.5 s below 8500 (z9500's)
		"r.csv": "a,1100\nb,5000\nc,3100\nz,9500\nb,1000\ne,14000\n",
	}
	sql := `CREATE STREAM l (id VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector'='file', 'path'='l.csv', 'watermark.max-future'='1 h');
CREATE STREAM r (id VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector'='file', 'path'='r.csv');
EXPLAIN ANALYZE SELECT a.id, b.ts FROM l a LEFT JOIN r b ON a.id = b.id AND b.ts BETWEEN a.ts AND a.ts + INTERVAL '1' SECOND WHERE a.id <> 'q';
`
	out, errs, code := runSQLIn(t, t.TempDir(), files, sql, "--format", "tsv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(out, "\n")
	for _, want := range [][2]string{
		{"Scan l ", "read 7 rows; job "},
		{"Scan r ", "read 6 rows"},
		{"AssignWatermark", "final watermark 11000; 1 row refused as too far ahead"},
		{"AssignWatermark", "final watermark 13000"},
		{"Join LEFT interval join", "a: 5 rows in, 1 row with a partner, 3 rows without a partner, 1 row late (1 row filtered out before the join); b: 6 rows in, 1 row with a partner, 3 rows without a partner, 2 rows late"},
		{"Sink late-a", "1 row; lateness largest 7.5 s, median 7.5 s, by the watermark of stream l"},
		{"Sink late-b", "2 rows; lateness largest 7.5 s, median 900 ms, by the watermark of stream r"},
		{"rows of a filtered before the join: a.id != 'q'", ""},
		{"Sink main", "4 rows"},
	} {
		found := false
		for _, l := range lines {
			if strings.Contains(l, want[0]) && strings.Contains(l, want[1]) {
				found = true
			}
		}
		if !found {
			t.Errorf("no line with %q and %q in\n%s", want[0], want[1], out)
		}
	}
}

// TestAnalyzeSelfJoinInputsApart: EXPLAIN ANALYZE of a self-join, and of
// any join whose inputs read one stream, names each input's counts by the
// name the query reads it by, so the two are told apart (they were both
// the stream's name), for every kind of join of two streams; and each
// read of the stream counts its own rows and malformed rows on its Scan and
// Decode lines (they counted both reads' malformed rows, each line twice).
func TestAnalyzeSelfJoinInputsApart(t *testing.T) {
	files := map[string]string{"ev.csv": "a,1\nb,2\nx,oops\nc,3\n"}
	for _, c := range []struct{ join, kind string }{
		{"s1 JOIN ev s2 ON s1.k = s2.k", "Join INNER"},
		{"s1 LEFT JOIN ev s2 ON s1.k = s2.k AND s2.v > 1", "Join LEFT lookup join"},
		{"s1 FULL JOIN ev s2 ON s1.k = s2.k AND s2.v > 1", "Join FULL regular join"},
		{"s1 LEFT JOIN ev s2 ON s1.k = s2.k AND s2.v BETWEEN s1.v AND s1.v + 1", "Join LEFT interval join"},
	} {
		sql := "CREATE STREAM ev (k VARCHAR, v BIGINT, WATERMARK FOR v AS v) WITH ('connector'='file', 'path'='ev.csv');\nEXPLAIN ANALYZE SELECT s1.k, s2.v FROM ev " + c.join + ";\n"
		out, errs, code := runSQLIn(t, t.TempDir(), files, sql, "--format", "tsv")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.join, code, errs)
		}
		found := false
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, c.kind) && strings.Contains(l, "\ts1: 3 rows in, ") && strings.Contains(l, "; s2: ") {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no %q line naming s1 and s2 in\n%s", c.join, c.kind, out)
		}
		var scans, decodes int
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "Scan ev ") {
				scans++
				if !strings.Contains(l, "\tread 4 rows") {
					t.Errorf("%s: a read of ev.csv (3 rows and 1 malformed) says otherwise: %s", c.join, l)
				}
			}
			if strings.Contains(l, "Decode csv") {
				decodes++
				if !strings.HasSuffix(l, "\t1 malformed row(s)") {
					t.Errorf("%s: a read of ev.csv (1 malformed row) says otherwise: %s", c.join, l)
				}
			}
		}
		if scans != 2 || decodes != 2 {
			t.Errorf("%s: %d Scan and %d Decode lines of ev, want 2 each (a read per input, SPEC 2.6):\n%s", c.join, scans, decodes, out)
		}
	}
}

// TestAnalyzeTopNCounts: EXPLAIN ANALYZE gives the main query's Top-N,
// deduplication and OVER aggregation (SPEC 2.9) the rows it took in and
// gave out, as any operator's line (SPEC 4 "Finding out why").
func TestAnalyzeTopNCounts(t *testing.T) {
	files := map[string]string{"ev.csv": "a,1\nb,5\na,7\nb,2\na,3\nc,4\n"}
	for _, c := range []struct{ query, line, want string }{
		{"SELECT k, v FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM ev) WHERE rn <= 1", "Rank ROW_NUMBER() <= 1", "in 6, out 3 rows"},
		{"SELECT k, v FROM (SELECT k, v, ROW_NUMBER() OVER (ORDER BY v) AS rn FROM ev) WHERE rn <= 2", "Rank ROW_NUMBER() <= 2", "in 6, out 2 rows"},
	} {
		sql := "CREATE STREAM ev (k VARCHAR, v BIGINT) WITH ('connector'='file', 'path'='ev.csv');\nEXPLAIN ANALYZE " + c.query + ";\n"
		out, errs, code := runSQLIn(t, t.TempDir(), files, sql, "--format", "tsv")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		found := false
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, c.line) && strings.Contains(l, c.want) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no line with %q and %q in\n%s", c.query, c.line, c.want, out)
		}
	}
}

// TestAnalyzeRelationsCount: EXPLAIN ANALYZE counts what the operators of
// the relations a query reads did (SPEC 3: "what happened in each
// operator"; SPEC 2.6: a subquery, a WITH name, a view, each part of a
// UNION ALL, and a view of a join read by another view, two levels down),
// each from its own run: its Scan's rows, its Decode's malformed rows, its
// watermark's final value, its filter's and join's rows, its late rows.
// Their lines were left blank, so a malformed row or a join's late row in a
// relation showed nowhere.
func TestAnalyzeRelationsCount(t *testing.T) {
	files := map[string]string{
		"o.csv": "1,a,1000\n2,b,oops\n3,a,3000\n4,b,4000\n9,a,9000\n5,a,2000\n",
		"p.csv": "a,100,1500\nb,200,3900\na,300,9000\n",
	}
	ddl := `CREATE STREAM o (id BIGINT, k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector'='file', 'path'='o.csv');
CREATE STREAM p (k VARCHAR, v BIGINT, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='p.csv');
CREATE VIEW j AS SELECT o.k, p.v, o.ts FROM o JOIN p ON o.k = p.k AND p.ts BETWEEN o.ts - 1000 AND o.ts + 1000;
CREATE VIEW j2 AS SELECT k, v, ts FROM j WHERE v > 100;
`
	// o: 6 lines, 1 malformed, 5 rows; 5@2000 is late (the watermark is 8000)
	oCounts := [][2]string{
		{"Scan o ", "read 6 rows"},
		{"Decode csv (id BIGINT", "1 malformed row(s)"},
		{"AssignWatermark ts AS ts - INTERVAL '1' SECOND  (", "final watermark 8000"},
	}
	for _, tc := range []struct {
		name, query string
		want        [][2]string
	}{
		{"subquery", "SELECT * FROM (SELECT k, ts FROM o WHERE id > 1) q", append(oCounts,
			[2]string{"Filter id > 1", "5 rows in, dropped 1 row"})},
		{"WITH name", "WITH w AS (SELECT k, ts FROM o WHERE id > 1) SELECT k FROM w", append(oCounts,
			[2]string{"Filter id > 1", "5 rows in, dropped 1 row"})},
		{"UNION ALL parts", "SELECT k, ts FROM o UNION ALL SELECT k, ts FROM p", append(oCounts,
			[2]string{"Scan p ", "read 3 rows"}, [2]string{"AssignWatermark ts AS ts  (", "final watermark 9000"})},
		{"view of a join read by a view", "SELECT k, COUNT(*) AS n FROM j2 GROUP BY k", append(oCounts,
			[2]string{"Join INNER interval join", "o: 5 rows in, 3 rows with a partner, 1 row without a partner, 1 row late"},
			[2]string{"Sink late-o", "1 row"},
			[2]string{"Filter v > 100", "3 rows in, dropped 1 row"},
			[2]string{"Scan j2 ", "read 2 rows"})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := runSQLIn(t, t.TempDir(), files, ddl+"EXPLAIN ANALYZE "+tc.query+";\n", "--format", "tsv")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			for _, want := range tc.want {
				found := false
				for _, l := range strings.Split(out, "\n") {
					if strings.Contains(l, want[0]) && strings.Contains(l, want[1]) {
						found = true
					}
				}
				if !found {
					t.Errorf("no line with %q and %q in\n%s", want[0], want[1], out)
				}
			}
		})
	}
}

// TestAnalyzeJoinCountsHeldRowsUnderLimit: a job that a LIMIT ends (SPEC 2:
// the rest of the input is not read) leaves rows the join still held, whose
// time the other input's watermark had not passed: EXPLAIN ANALYZE counts them
// as held, never joined, not as rows without a partner, so that each input's
// rows in are its rows with a partner, without one, late and held. o's rows
// 1, 2 and 3 are released together once row 9 moves the watermark to 8000;
// the LIMIT's row is among them and row 9 stays held; only row 3 has no
// partner (d holds no 3).
func TestAnalyzeJoinCountsHeldRowsUnderLimit(t *testing.T) {
	files := map[string]string{
		"o.csv": "1,1000\n2,2000\n3,3000\n9,9000\n",
		"d.csv": "1,x\n2,y\n2,z\n",
	}
	ddl := `CREATE STREAM o (id BIGINT, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector'='file', 'path'='o.csv');
CREATE STREAM d (id BIGINT, name VARCHAR) WITH ('connector'='file', 'path'='d.csv');
`
	count := regexp.MustCompile(`o: (\d+) rows? in, (\d+) rows? with a partner, (\d+) rows? without a partner, (\d+) rows? late(?:, (\d+) rows? still held when the job ended)?`)
	for _, tc := range []struct {
		query         string
		without, held int
	}{
		{"SELECT o.id, d.name FROM o JOIN d ON o.id = d.id LIMIT 1", 1, 1},
		{"SELECT o.id, d.name FROM o LEFT JOIN d ON o.id = d.id LIMIT 2", 1, 1},
		{"SELECT o.id, d.name FROM o JOIN d ON o.id = d.id", 2, 0}, // (no LIMIT: the end releases row 9, which has no partner)
	} {
		out, errs, code := runSQLIn(t, t.TempDir(), files, ddl+"EXPLAIN ANALYZE "+tc.query+";\n", "--format", "tsv")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.query, code, errs)
		}
		m := count.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("%s: no join counts of o in\n%s", tc.query, out)
		}
		n := make([]int, 5)
		for i := range n {
			n[i], _ = strconv.Atoi(m[i+1])
		}
		if n[0] != 4 || n[1]+n[2]+n[3]+n[4] != n[0] || n[2] != tc.without || n[4] != tc.held {
			t.Errorf("%s: %q: want 4 rows in = with + without + late + held, %d without a partner, %d held", tc.query, m[0], tc.without, tc.held)
		}
	}
}
