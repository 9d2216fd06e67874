package tests

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// crow is one row of the composition tests' inputs: a key, an event time in
// ms (strictly increasing within a stream, so no row is late and the
// reference needs no watermark), a BIGINT and a DOUBLE.
type crow struct {
	k  string
	ts int64
	v  int64
	d  float64
}

// crowDDL declares the streams a and b over a.csv and b.csv (crowFile).
const crowDDL = `CREATE STREAM a (k VARCHAR, ts BIGINT, v BIGINT, d DOUBLE, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector'='file', 'path'='a.csv', 'format'='csv');
CREATE STREAM b (k VARCHAR, ts BIGINT, v BIGINT, d DOUBLE, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector'='file', 'path'='b.csv', 'format'='csv');
`

func crowFile(rows []crow) string {
	var sb strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&sb, "%s,%d,%d,%s\n", r.k, r.ts, r.v, strconv.FormatFloat(r.d, 'f', -1, 64))
	}
	return sb.String()
}

func genCrows(r *rand.Rand, n int) []crow {
	rows := make([]crow, n)
	ts := int64(r.IntN(5000))
	for i := range rows {
		ts += 1 + r.Int64N(2500)
		rows[i] = crow{k: fmt.Sprintf("k%d", r.IntN(5)), ts: ts, v: r.Int64N(200) - 50, d: float64(r.IntN(1000)) / 4}
	}
	return rows
}

// num renders a value as the reference's canonical text: integers as
// integers, other numbers by strconv's shortest form, so "2.0" and "2"
// compare equal (the csv format's DOUBLE spelling is not what is tested).
func num(s string) string {
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if f == float64(int64(f)) {
			return strconv.FormatInt(int64(f), 10)
		}
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return s
}

// canonical sorts csv lines after rendering each field with num.
func canonical(lines []string) []string {
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		if l == "" {
			continue
		}
		f := strings.Split(l, ",")
		for i := range f {
			f[i] = num(f[i])
		}
		out = append(out, strings.Join(f, ","))
	}
	slices.Sort(out)
	return out
}

// TestCompositionAgainstReference: subqueries, WITH, views and UNION ALL
// (SPEC 2.6), nested with filters, aggregates, windows and joins, give the
// rows a separately written batch computation over the whole inputs gives
// (filter, group, window by arithmetic, nested-loop join), as multisets, for
// random inputs.
func TestCompositionAgainstReference(t *testing.T) {
	ddl := crowDDL
	const win = 10000
	for seed := range 12 {
		r := rand.New(rand.NewPCG(uint64(seed), 23))
		a, b := genCrows(r, 1+r.IntN(120)), genCrows(r, 1+r.IntN(120))
		lo, hi := r.Int64N(60)-30, 40+r.Int64N(100)
		files := map[string]string{"a.csv": crowFile(a), "b.csv": crowFile(b)}
		var ref [6][]string
		// 0: a filter over a filtering subquery
		for _, x := range a {
			if x.v > lo && x.v < hi {
				ref[0] = append(ref[0], fmt.Sprintf("%s,%d", x.k, x.v))
			}
		}
		// 1: UNION ALL of BIGINT and DOUBLE (widened), each part filtered
		for _, x := range a {
			if x.v > lo {
				ref[1] = append(ref[1], fmt.Sprintf("%s,%d", x.k, x.v))
			}
		}
		for _, x := range b {
			if x.v <= lo {
				ref[1] = append(ref[1], fmt.Sprintf("%s,%s", x.k, strconv.FormatFloat(x.d, 'f', -1, 64)))
			}
		}
		// 2: a view read by a bounded GROUP BY
		type agg struct{ n, s int64 }
		groups := map[string]*agg{}
		for _, x := range a {
			if x.v > lo {
				g := groups[x.k]
				if g == nil {
					g = &agg{}
					groups[x.k] = g
				}
				g.n++
				g.s += x.v
			}
		}
		for k, g := range groups {
			ref[2] = append(ref[2], fmt.Sprintf("%s,%d,%d", k, g.n, g.s))
		}
		// 3: a join of two aggregates (WITH)
		na, sb := map[string]int64{}, map[string]int64{}
		for _, x := range a {
			na[x.k]++
		}
		for _, x := range b {
			sb[x.k] += x.v
		}
		for k, n := range na {
			if s, ok := sb[k]; ok {
				ref[3] = append(ref[3], fmt.Sprintf("%s,%d,%d", k, n, s))
			}
		}
		// 4: a TUMBLE window over a view that keeps the event time; 5: over the
		// UNION ALL of both streams (event time merged)
		w4, w5 := map[string]int64{}, map[string]int64{}
		for _, x := range a {
			ws := x.ts / win * win
			if x.v%2 == 0 {
				w4[fmt.Sprintf("%d,%s", ws, x.k)]++
			}
			w5[fmt.Sprint(ws)]++
		}
		for _, x := range b {
			w5[fmt.Sprint(x.ts/win*win)]++
		}
		for k, n := range w4 {
			ref[4] = append(ref[4], fmt.Sprintf("%s,%d", k, n))
		}
		for k, n := range w5 {
			ref[5] = append(ref[5], fmt.Sprintf("%s,%d", k, n))
		}
		queries := [6]string{
			fmt.Sprintf("SELECT k, v FROM (SELECT k, v, ts FROM a WHERE v > %d) AS q WHERE q.v < %d;", lo, hi),
			fmt.Sprintf("SELECT k, v FROM a WHERE v > %d UNION ALL SELECT k, d FROM b WHERE v <= %d;", lo, lo),
			fmt.Sprintf("CREATE VIEW big AS SELECT k, v FROM a WHERE v > %d;\nSELECT k, COUNT(*) AS n, SUM(v) AS s FROM big GROUP BY k;", lo),
			"WITH ca AS (SELECT k, COUNT(*) AS n FROM a GROUP BY k), cb AS (SELECT k, SUM(v) AS s FROM b GROUP BY k)\nSELECT ca.k, ca.n, cb.s FROM ca JOIN cb ON ca.k = cb.k;",
			"CREATE VIEW even AS SELECT ts, k FROM a WHERE MOD(v, 2) = 0;\nSELECT window_start, k, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE even, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, k;",
			"SELECT window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE u, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end;",
		}
		for i, q := range queries {
			if i == 5 {
				q = "CREATE VIEW u AS SELECT ts, k FROM a UNION ALL SELECT ts, k FROM b;\n" + q
			}
			out, errs, code := runSQL(t, files, ddl+q+"\n", "--format", "csv")
			if code != 0 {
				t.Fatalf("seed %d: %s: exit %d: %s", seed, q, code, errs)
			}
			lines := strings.Split(strings.TrimSpace(out), "\n")
			got, want := canonical(lines[1:]), canonical(ref[i])
			if !slices.Equal(got, want) {
				t.Fatalf("seed %d: %s:\n got %q\nwant %q", seed, q, got, want)
			}
			if strings.Contains(errs, "late") {
				t.Errorf("seed %d: %s: late rows where none is late: %s", seed, q, errs)
			}
		}
	}
}

// TestCompositionDeterministic: a UNION ALL of two streams with event time
// gives its rows in event-time order (SPEC 2.6, as a join's inputs: the
// earlier row first, the first query's on a tie), the same order every run.
func TestCompositionDeterministic(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	a, b := genCrows(r, 300), genCrows(r, 300)
	files := map[string]string{"a.csv": crowFile(a), "b.csv": crowFile(b)}
	q := crowDDL + "SELECT ts, v FROM a UNION ALL SELECT ts, v FROM b;\n"
	first := ""
	for run := range 3 {
		out, errs, code := runSQL(t, files, q, "--format", "csv")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		if run == 0 {
			first = out
			lines := strings.Split(strings.TrimSpace(out), "\n")[1:]
			if len(lines) != len(a)+len(b) {
				t.Fatalf("%d rows, want %d", len(lines), len(a)+len(b))
			}
			prev := int64(-1 << 62)
			for _, l := range lines {
				ts, _ := strconv.ParseInt(strings.Split(l, ",")[0], 10, 64)
				if ts < prev {
					t.Fatalf("rows out of event-time order: %d after %d", ts, prev)
				}
				prev = ts
			}
			continue
		}
		if out != first {
			t.Fatalf("run %d differs from the first", run)
		}
	}
}

// TestCompositionErrors: what composition refuses, each a planning error
// (exit 2) with a caret and the thing named.
func TestCompositionErrors(t *testing.T) {
	files := map[string]string{"a.csv": "k,1,1,1.5\n"}
	ddl := `CREATE STREAM a (k VARCHAR, ts BIGINT, v BIGINT, d DOUBLE) WITH ('connector'='file', 'path'='a.csv', 'format'='csv');
`
	for _, tc := range []struct{ query, want string }{
		{"SELECT k FROM a UNION ALL SELECT k, v FROM a", "UNION ALL of queries with 1 and 2 columns"},
		{"SELECT k FROM a UNION ALL SELECT v FROM a", "CAST one of them"},
		// a UNION (distinct) is named as written, not as the UNION ALL under it
		{"SELECT k FROM a UNION SELECT k, v FROM a", "UNION of queries with 1 and 2 columns"},
		{"SELECT k FROM a UNION SELECT v FROM a", "UNION: column 1 (k) is VARCHAR in the first query but BIGINT in query 2"},
		{"SELECT * FROM (SELECT k FROM a UNION SELECT k, v FROM a) q", "UNION of queries with 1 and 2 columns"},
		{"SELECT k FROM a UNION ALL SELECT v FROM a", "UNION ALL: column 1 (k)"},
		{"SELECT x FROM (SELECT k FROM a) AS q", "unknown column"},
		{"SELECT * FROM (SELECT k FROM nosuch) AS q", "unknown stream 'nosuch'"},
		{"WITH q AS (SELECT k FROM a) SELECT * FROM r", "unknown stream 'r'"},
		{"CREATE VIEW a AS SELECT k FROM a", "a stream named a exists already"},
		{"DROP VIEW nosuch", "unknown view 'nosuch'"},
		{"CREATE VIEW vw AS SELECT k FROM (SELECT k FROM a) AS q;\nDROP STREAM a", "view vw reads stream a: DROP VIEW vw first"},
		// a view read by another, at any depth (a join input, a subquery,
		// an IN build side): DROP VIEW refuses it as DROP STREAM does; the
		// reader went on reading the dropped query, also once a view of
		// that name was created again
		{"CREATE VIEW v AS SELECT k, ts FROM a;\nCREATE VIEW w AS SELECT v.k FROM v JOIN a ON v.k = a.k;\nDROP VIEW v", "view w reads view v: DROP VIEW w first"},
		{"CREATE VIEW v AS SELECT k, ts FROM a;\nCREATE VIEW w AS SELECT k FROM (SELECT k FROM v) AS q;\nDROP VIEW IF EXISTS v", "view w reads view v: DROP VIEW w first"},
		{"CREATE VIEW v AS SELECT k, ts FROM a;\nCREATE VIEW w AS SELECT k FROM a WHERE k IN (SELECT k FROM v);\nDROP VIEW v", "view w reads view v: DROP VIEW w first"},
		{"CREATE VIEW v AS SELECT k, ts FROM a;\nCREATE VIEW w AS SELECT k FROM v;\nCREATE VIEW x AS SELECT k FROM w;\nDROP VIEW v", "view w reads view v: DROP VIEW w first"},
		{"SELECT * FROM (SELECT k FROM a INTO SIDE 'x') AS q", "INTO SIDE and INTO STREAM stand in the outermost query only"},
		// an unbounded relation without event time as a semi join's build
		// side: what to select in it (it said to add a WATERMARK to "CREATE
		// STREAM subquery")
		{"CREATE STREAM g (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='datagen');\nCREATE STREAM h (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='datagen');\nSELECT k FROM g WHERE k IN (SELECT k FROM h GROUP BY k)", "the subquery is unbounded, so the join decides by event time and needs it on both sides, but it has none: select its stream's WATERMARK column"},
		{"CREATE STREAM g (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='datagen');\nCREATE VIEW hv AS SELECT k FROM g;\nSELECT k FROM g WHERE EXISTS (SELECT 1 FROM hv WHERE hv.k = g.k)", "the view hv is unbounded"},
		// a LATERAL subquery: what is supported instead (it said subqueries
		// in FROM are not supported, which they are)
		{"SELECT * FROM a, LATERAL (SELECT v FROM a AS b WHERE b.k = a.k) x", "a LATERAL subquery (correlated with the FROM before it) is not supported"},
	} {
		_, errs, code := runSQL(t, files, ddl+tc.query+";\n", "--format", "csv")
		if code != 2 || !strings.Contains(errs, tc.want) || !strings.Contains(errs, "^") {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant exit 2 and %q with a caret", tc.query, code, errs, tc.want)
		}
	}
}

// TestWindowJoinAgainstReference: a join of two window aggregates on their
// keys and window bounds is a window join (SPEC 2.7), INNER, LEFT and FULL:
// its rows are the pairs of groups of one window and key, and for an outer
// join the groups without a partner padded with NULLs, as a batch
// computation of both aggregates and a nested-loop join gives them.
func TestWindowJoinAgainstReference(t *testing.T) {
	ddl := crowDDL
	const win = 10000
	for seed := range 10 {
		r := rand.New(rand.NewPCG(uint64(seed), 29))
		a, b := genCrows(r, 1+r.IntN(100)), genCrows(r, 1+r.IntN(100))
		files := map[string]string{"a.csv": crowFile(a), "b.csv": crowFile(b)}
		type key struct {
			k  string
			ws int64
		}
		ca, sb := map[key]int64{}, map[key]int64{}
		for _, x := range a {
			ca[key{x.k, x.ts / win * win}]++
		}
		for _, x := range b {
			sb[key{x.k, x.ts / win * win}] += x.v
		}
		for _, kind := range []string{"INNER", "LEFT", "FULL"} {
			var want []string
			for g, c := range ca {
				if s, ok := sb[g]; ok {
					want = append(want, fmt.Sprintf("%s,%d,%d,%d", g.k, g.ws, c, s))
				} else if kind != "INNER" {
					want = append(want, fmt.Sprintf("%s,%d,%d,", g.k, g.ws, c))
				}
			}
			if kind == "FULL" {
				for g, s := range sb {
					if _, ok := ca[g]; !ok {
						want = append(want, fmt.Sprintf(",,,%d", s))
					}
				}
			}
			q := fmt.Sprintf(`SELECT x.k, x.window_start, x.c, y.s FROM
  (SELECT k, COUNT(*) AS c, window_start, window_end FROM TABLE(TUMBLE(TABLE a, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end) x
  %s JOIN
  (SELECT k, SUM(v) AS s, window_start, window_end FROM TABLE(TUMBLE(TABLE b, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end) y
  ON x.k = y.k AND x.window_start = y.window_start AND x.window_end = y.window_end;
`, kind)
			out, errs, code := runSQL(t, files, ddl+q, "--format", "csv")
			if code != 0 {
				t.Fatalf("seed %d: %s: exit %d: %s", seed, kind, code, errs)
			}
			got := canonical(strings.Split(strings.TrimSpace(out), "\n")[1:])
			if w := canonical(want); !slices.Equal(got, w) {
				t.Fatalf("seed %d: %s window join:\n got %q\nwant %q", seed, kind, got, w)
			}
			ex, _, _ := runSQL(t, files, ddl+"EXPLAIN "+q, "--format", "csv")
			if !strings.Contains(ex, kind+" window join") {
				t.Fatalf("seed %d: %s: EXPLAIN does not name a window join:\n%s", seed, kind, ex)
			}
		}
	}
}

// TestSubqueryLateRows: the late rows of a window aggregate in a subquery
// (SPEC 2.4) reach the reading job's late output, as many as the watermark
// makes late, never lost; an aggregate over a join in a subquery gives the
// reference's groups.
func TestSubqueryLateRows(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 5))
	var rows []jrow
	for i := range 400 {
		rows = append(rows, jrow{id: fmt.Sprintf("k%d", r.IntN(4)), ts: int64(i*100) + r.Int64N(3000) - 1500, v: i})
	}
	kept, _ := onTime(rows, 500)
	// a window's late rows (SPEC 2.4): the end of the row's 5 s window is at
	// or below the watermark before it
	wlate, wm, set := 0, int64(0), false
	for _, x := range rows {
		end := x.ts - ((x.ts%5000)+5000)%5000 + 5000 // (floor: times may be negative)
		if set && end <= wm {
			wlate++
			continue
		}
		if !set || x.ts-500 > wm {
			wm, set = x.ts-500, true
		}
	}
	if wlate == 0 {
		t.Fatal("the input has no late row: the test would not test")
	}
	files := map[string]string{"l.csv": jrowFile(rows), "r.csv": "k0,0,10\nk1,0,11\nk2,0,12\n"}
	q := `CREATE STREAM l (id VARCHAR, ts BIGINT, v BIGINT, WATERMARK FOR ts AS ts - INTERVAL '0.5' SECOND) WITH ('connector'='file', 'path'='l.csv', 'format'='csv');
CREATE STREAM r (id VARCHAR, ts BIGINT, v BIGINT) WITH ('connector'='file', 'path'='r.csv', 'format'='csv');
SELECT id, c FROM (SELECT id, COUNT(*) AS c, window_end FROM TABLE(TUMBLE(TABLE l, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY id, window_start, window_end) AS q;
SELECT rid, COUNT(*) AS n FROM (SELECT l.id AS lid, r.v AS rid FROM l JOIN r ON l.id = r.id) AS j GROUP BY rid;
`
	out, errs, code := runSQL(t, files, q, "--format", "csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	n := 0
	for _, l := range strings.Split(errs, "\n") {
		if strings.HasPrefix(l, "late> ") {
			n++
		}
	}
	if n != wlate {
		t.Errorf("%d late rows reached the late output, want %d:\n%s", n, wlate, errs)
	}
	counts := map[string]int{} // (a join's late rows join nothing: SPEC 2.7)
	for _, x := range kept {
		switch x.id {
		case "k0", "k1", "k2":
			counts[map[string]string{"k0": "10", "k1": "11", "k2": "12"}[x.id]]++
		}
	}
	var want []string
	for k, c := range counts {
		want = append(want, fmt.Sprintf("%s,%d", k, c))
	}
	tables := strings.Split(strings.TrimSpace(out), "rid,n\n")
	if len(tables) != 2 {
		t.Fatalf("output:\n%s", out)
	}
	got := canonical(strings.Split(strings.TrimSpace(tables[1]), "\n"))
	if w := canonical(want); !slices.Equal(got, w) {
		t.Fatalf("aggregate over a join: got %q, want %q", got, w)
	}
}

// TestViewsFollowLaterSettings: a view is a named query expanded where it is
// read (SPEC 2.6), so a SET that changes how queries are planned after CREATE
// VIEW ('execution.runtime-mode', 'table.exec.state.ttl',
// 'planner.prune-columns', 'planner.push-filters') applies to a reader of the
// view as it does to the same query written inline, as in Flink. Before, the
// view kept the plan of its CREATE VIEW: a streaming-mode reader of a GROUP BY
// view got the batch result, and a temporal join on a deduplicating view saw
// only its final rows. A view the new setting cannot plan refuses the SET at
// the view's CREATE VIEW, in its own script, and the setting stays.
func TestViewsFollowLaterSettings(t *testing.T) {
	ddl := "CREATE STREAM g (k BIGINT, y VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='values');\n" +
		"INSERT INTO g VALUES (1, 'p', 1), (1, 'q', 2), (2, 'p', 3);\n" +
		"CREATE STREAM h (k BIGINT, x VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='values');\n" +
		"INSERT INTO h VALUES (1, 'a', 1), (2, 'b', 2);\n"
	agg := "SELECT k, COUNT(*) AS n FROM g GROUP BY k"
	full := "SELECT g.k, h.x FROM g FULL JOIN h ON g.k = h.k"
	left := "SELECT g.k, h.x FROM g LEFT JOIN h ON g.k = h.k WHERE g.k > 1"
	views := "CREATE VIEW c AS " + agg + ";\nCREATE VIEW c2 AS SELECT * FROM c WHERE n > 0;\nCREATE VIEW jf AS " + full + ";\nCREATE VIEW jl AS " + left + ";\n"
	for _, tc := range []struct {
		set, view, inline string
	}{
		{"SET 'execution.runtime-mode' = 'streaming';", "SELECT * FROM c;", agg + ";"},
		{"SET 'execution.runtime-mode' = 'streaming';", "SELECT * FROM c2;", "SELECT * FROM (" + agg + ") c WHERE n > 0;"},
		{"SET 'table.exec.state.ttl' = '1 h';", "EXPLAIN SELECT * FROM jf;", "EXPLAIN " + full + ";"},
		{"SET 'planner.prune-columns' = 'false';", "EXPLAIN SELECT * FROM jf;", "EXPLAIN " + full + ";"},
		{"SET 'planner.push-filters' = 'false';", "EXPLAIN SELECT * FROM jl;", "EXPLAIN " + left + ";"},
	} {
		view, _, code := runScripts(t, []string{"d.sql", "v.sql", "q.sql"}, map[string]string{"d.sql": ddl, "v.sql": views, "q.sql": tc.set + "\n" + tc.view + "\n"})
		inline, _, code2 := runScripts(t, []string{"d.sql", "q.sql"}, map[string]string{"d.sql": ddl, "q.sql": tc.set + "\n" + tc.inline + "\n"})
		if tc.view[:7] == "EXPLAIN" { // the operators below the view's Scan are the inline query's
			view, inline = joinLines(view), joinLines(inline)
			if dflt, _, _ := runScripts(t, []string{"d.sql", "q.sql"}, map[string]string{"d.sql": ddl, "q.sql": tc.inline + "\n"}); inline == "" || inline == joinLines(dflt) {
				t.Fatalf("%s: the inline query's join lines\n%s\nshow nothing of the setting", tc.set, inline)
			}
		}
		if code != 0 || code2 != 0 || view != inline {
			t.Errorf("%s %s: exit %d, %d; the view gives\n%s\nthe query inline\n%s", tc.set, tc.view, code, code2, view, inline)
		}
	}
	// a view the new setting cannot plan: the SET is refused there, and not applied
	bad := "\nCREATE VIEW l AS " + agg + " LIMIT 1;\n"
	out, errs, code := runScripts(t, []string{"d.sql", "v.sql", "q.sql"}, map[string]string{"d.sql": ddl, "v.sql": bad,
		"q.sql": "SET 'execution.runtime-mode' = 'streaming';\n"})
	if code != 2 || !strings.Contains(errs, "view l cannot be planned under it") || !strings.Contains(errs, "v.sql, line 2, column ") {
		t.Errorf("exit %d, stdout %q, stderr\n%s\nwant exit 2 and the view's error at v.sql, line 2", code, out, errs)
	}
}

// joinLines returns the lines of an EXPLAIN's csv output that describe a join
// (its node and its detail lines), for comparing a view's plan with its query's.
func joinLines(explain string) string {
	var out []string
	in := false
	for _, l := range strings.Split(explain, "\n") {
		if strings.Contains(l, "Join ") {
			in = true
		} else if in && !strings.Contains(l, "|  ") {
			in = false
		}
		if in {
			out = append(out, strings.TrimLeft(l, " \"+-|:"))
		}
	}
	return strings.Join(out, "\n")
}

// TestRankedViewOverFileLiteral (SPEC 1, 2.6, 2.9; issue 23 item 1): a view
// that ranks the rows of a file read by its quoted name (FROM 'x.csv'),
// without a bound, is planned where a reader bounds it: the view keeps the
// file's stream, declared while it is created. The reader gets each item's
// cheapest offer, as a reference computed here gives it.
func TestRankedViewOverFileLiteral(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 15))
	var sb strings.Builder
	sb.WriteString("item,price\n")
	low := map[string]int{}
	for range 60 {
		item, price := fmt.Sprintf("i%d", r.IntN(6)), 1+r.IntN(1000)
		fmt.Fprintf(&sb, "%s,%d\n", item, price)
		if p, ok := low[item]; !ok || price < p {
			low[item] = price
		}
	}
	var want []string
	for item, p := range low {
		want = append(want, fmt.Sprintf("%s,%d", item, p))
	}
	sql := "CREATE VIEW cheapest AS SELECT *, ROW_NUMBER() OVER (PARTITION BY item ORDER BY price) AS rn FROM 'offers.csv';\n" +
		"SELECT item, price FROM cheapest WHERE rn = 1;\n"
	out, errs, code := runSQL(t, map[string]string{"offers.csv": sb.String()}, sql, "--format", "csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	got := canonical(strings.Split(strings.TrimSpace(out), "\n")[1:])
	if w := canonical(want); !slices.Equal(got, w) {
		t.Fatalf("got %q\nwant %q", got, w)
	}
}

// TestJoinedStreamPendingBranchesRoute: side branches pending on a stream
// that the next main query joins with another relation (SPEC 2.7) run with
// it, at that input (SPEC 2.1's probe side, 2.6: they attach to the
// relation their FROM names): each takes its rows by first match, and only
// the rows no branch took reach the join, on either side of it; a
// self-join routes at its first reader and reads the other whole. Nothing
// runs again at the script's end, and nothing warns, but for a join in a
// subquery, whose statement warns that the branch does not run with it
// (TestPendingBranchesReadInsideRelation). The input's port stage routes a
// batch before the join takes its rest (executor/joinroute.go), so on one
// stdout a batch's side rows come before the joined rows of that batch
// (each output's rows in their order).
func TestJoinedStreamPendingBranchesRoute(t *testing.T) {
	files := map[string]string{"o.csv": "1,a\n2,b\n3,a\n4,c\n", "p.csv": "a,10\nb,20\n"}
	ddl := `CREATE STREAM o (id BIGINT, k VARCHAR) WITH ('connector'='file', 'path'='o.csv', 'format'='csv');
CREATE STREAM p (k VARCHAR, v BIGINT) WITH ('connector'='file', 'path'='p.csv', 'format'='csv');
`
	branch := "SELECT id INTO SIDE 'odd' FROM o WHERE id % 2 = 1;\n"
	for _, tc := range []struct {
		name, sql string
		want      []string
	}{
		{"join of the stream", branch + "SELECT o.id, p.v FROM o JOIN p ON o.k = p.k;\n",
			[]string{"output,id", "odd,1", "odd,3", "output,id,v", "main,2,20"}},
		{"join of the stream as its right input", branch + "SELECT o.id, p.v FROM p LEFT JOIN o ON o.k = p.k;\n",
			[]string{"output,id", "odd,1", "odd,3", "output,id,v", "main,,10", "main,2,20"}},
		{"self-join", branch + "SELECT a.id, b.id FROM o a JOIN o b ON a.k = b.k;\n",
			[]string{"output,id", "odd,1", "odd,3", "output,id,id0", "main,2,2", "main,4,4"}},
		{"join ordered (the statement's own query, planned inside its ORDER BY)", branch + "SELECT o.id, p.v FROM o JOIN p ON o.k = p.k ORDER BY o.id DESC;\n",
			[]string{"output,id", "odd,1", "odd,3", "output,id,v", "main,2,20"}},
		{"join grouped", branch + "SELECT p.k, COUNT(*) AS n FROM o JOIN p ON o.k = p.k GROUP BY p.k;\n",
			[]string{"output,id", "odd,1", "odd,3", "output,k,n", "main,b,1"}},
		{"join in a subquery: the branch attaches to the subquery's relation, and runs at the end", branch + "SELECT s.id FROM (SELECT o.id FROM o JOIN p ON o.k = p.k) AS s;\n",
			[]string{"id", "1", "2", "3", "output,id", "odd,1", "odd,3"}},
		{"semi join of the stream", branch + "SELECT id FROM o WHERE k IN (SELECT k FROM p);\n",
			[]string{"output,id", "odd,1", "output,id", "main,2", "odd,3"}},
		{"join without pending branches", "SELECT o.id, p.v FROM o JOIN p ON o.k = p.k;\n",
			[]string{"id,v", "1,10", "2,20", "3,10"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := runSQL(t, files, ddl+tc.sql, "--format", "csv")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			inside := strings.Contains(tc.name, "in a subquery")
			if strings.Contains(errs, "warning") != inside {
				t.Errorf("a warning (want one: %v):\n%s", inside, errs)
			}
			if got := strings.Split(strings.TrimSpace(out), "\n"); !slices.Equal(got, tc.want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}
