package tests

import (
	"math/rand"
	"regexp"
	"strings"
	"testing"
)

// TestJoinLateSinksShown: EXPLAIN shows a Sink for a join's late output
// exactly when a row of that input can be late (SPEC 2.7, plan.BothJoin.
// NoLateRows; SPEC 4 "Finding out why"): not for a lookup join's table, an
// input without event time, the rows of another join, nor a window
// aggregate's rows, which come in the order of their watermark. Each query
// runs over its inputs in many arrival orders (rows out of order, so the
// streams and the windows over them have late rows); every output a row
// reaches must be one EXPLAIN shows a Sink for, and each input EXPLAIN
// says has no late rows is one none of whose rows a run sent to a late
// output. It failed when EXPLAIN showed late-<alias> Sinks for window
// aggregates' rows, which no row can reach.
func TestJoinLateSinksShown(t *testing.T) {
	oRows := []string{"1,a,1000", "2,b,2000", "3,a,9000", "4,a,1500", "7,b,20000", "8,a,12000", "9,b,3000"}
	pRows := []string{"1,a,1100,x", "2,b,2100,y", "3,a,9100,z", "5,a,1200,w", "6,b,800,v", "7,a,15000,u"}
	cRows := []string{"a,alpha", "b,beta"}
	ddl := `CREATE STREAM o (id BIGINT, k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='o.csv', 'format'='csv');
CREATE STREAM p (id BIGINT, k VARCHAR, ts BIGINT, note VARCHAR, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='p.csv', 'format'='csv');
CREATE STREAM c (k VARCHAR, name VARCHAR) WITH ('connector'='file', 'path'='c.csv', 'format'='csv');
CREATE STREAM u (id BIGINT, k VARCHAR, ts BIGINT) WITH ('connector'='file', 'path'='o.csv', 'format'='csv');
`
	const (
		wo = `(SELECT window_start, window_end, k, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE o, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY window_start, window_end, k)`
		wp = `(SELECT window_start, window_end, window_time, k, COUNT(*) AS m FROM TABLE(TUMBLE(TABLE p, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY window_start, window_end, window_time, k)`
	)
	cases := []struct {
		what, query string
		none        []string // the inputs EXPLAIN must say have no late rows
		late        []string // the inputs whose late output EXPLAIN must show
	}{
		{"interval join of a stream and a window aggregate", `SELECT o.id, r.m FROM o JOIN ` + wp + ` r ON o.k = r.k AND o.ts BETWEEN r.window_start AND r.window_end`, []string{"r"}, []string{"o"}},
		{"window join of two window aggregates", `SELECT l.k, l.n, r.m FROM ` + wo + ` l JOIN ` + wp + ` r ON l.k = r.k AND l.window_start = r.window_start AND l.window_end = r.window_end`, []string{"l", "r"}, nil},
		{"outer window join of two window aggregates", `SELECT l.k, r.m FROM ` + wo + ` l FULL JOIN ` + wp + ` r ON l.k = r.k AND l.window_start = r.window_start AND l.window_end = r.window_end`, []string{"l", "r"}, nil},
		{"a window aggregate joined by window_time", `SELECT r.k, r.m, o.id FROM ` + wp + ` r JOIN o ON r.k = o.k AND o.ts BETWEEN r.window_time - INTERVAL '10' SECOND AND r.window_time`, []string{"r"}, []string{"o"}},
		{"lookup join", `SELECT o.id, c.name FROM o JOIN c ON o.k = c.k`, []string{"c"}, []string{"o"}},
		{"regular join of inputs without event time", `SELECT u.id, c.name FROM u LEFT JOIN c ON u.k = c.k`, []string{"u", "c"}, nil},
		{"three relations", `SELECT u.id, c.name, v.id AS vid FROM u JOIN c ON u.k = c.k JOIN u v ON v.k = c.k`, []string{"c"}, nil},
	}
	sinkRe := regexp.MustCompile(`(?m)^([A-Za-z0-9_-]+)> `)
	for _, tc := range cases {
		plan, errs, code := runSQL(t, map[string]string{"o.csv": "", "p.csv": "", "c.csv": ""}, ddl+"EXPLAIN "+tc.query+";\n", "--format", "plain")
		if code != 0 {
			t.Errorf("%s: EXPLAIN exit %d: %s", tc.what, code, errs)
			continue
		}
		for _, in := range tc.none {
			if !strings.Contains(plan, "late rows of "+in+": none (") || strings.Contains(plan, "[late "+in+"] Sink") {
				t.Errorf("%s: EXPLAIN should say no row of %s is late and show no Sink for it:\n%s", tc.what, in, plan)
			}
		}
		for _, in := range tc.late {
			if !strings.Contains(plan, "[late "+in+"] Sink") {
				t.Errorf("%s: EXPLAIN should show the Sink of %s's late rows:\n%s", tc.what, in, plan)
			}
		}
		rng := rand.New(rand.NewSource(int64(len(tc.what))))
		reached := map[string]bool{}
		for run := 0; run < 12; run++ {
			files := map[string]string{"o.csv": shuffled(rng, oRows), "p.csv": shuffled(rng, pRows), "c.csv": shuffled(rng, cRows)}
			_, errs, code := runSQL(t, files, ddl+tc.query+";\n", "--format", "csv")
			if code != 0 {
				t.Errorf("%s (run %d): exit %d: %s", tc.what, run, code, errs)
				break
			}
			for _, m := range sinkRe.FindAllStringSubmatch(errs, -1) {
				reached[m[1]] = true
				if !strings.Contains(plan, "Sink "+m[1]+" (") {
					t.Errorf("%s (run %d, inputs %v): rows reached output %s, which EXPLAIN shows no Sink for:\n%s\nstderr:\n%s", tc.what, run, files, m[1], plan, errs)
				}
			}
		}
		for _, in := range tc.late { // (the inputs had late rows: the test can see one)
			if !reached["late-"+in] {
				t.Errorf("%s: no run sent a row to late-%s; the inputs' orders should make some late", tc.what, in)
			}
		}
	}
}

// shuffled returns rows in a random order as a file's text, a line each.
func shuffled(rng *rand.Rand, rows []string) string {
	cp := append([]string(nil), rows...)
	rng.Shuffle(len(cp), func(i, j int) { cp[i], cp[j] = cp[j], cp[i] })
	return strings.Join(cp, "\n") + "\n"
}
