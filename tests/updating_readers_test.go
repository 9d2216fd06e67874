package tests

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestAggregatesReadUpdatingRelations: an aggregate over a view, WITH or
// subquery that updates (an unbounded GROUP BY, a Top-1 per key, a regular
// FULL JOIN) retracts what each -U/-D takes back (SPEC
// 2.8: "any operator fed by an updating relation produces updates … aggregates
// retract"), so its final table equals the aggregate of the relation's final
// table, computed here from the whole input. (Before, the reader either took
// the retractions as rows, counting them, or refused to plan.)
func TestAggregatesReadUpdatingRelations(t *testing.T) {
	ddl := "CREATE STREAM s (k VARCHAR, x BIGINT) WITH ('connector'='file', 'path'='s.csv', 'format'='csv');\n" +
		"CREATE STREAM s2 (k VARCHAR, x BIGINT) WITH ('connector'='file', 'path'='s.csv', 'format'='csv');\n" +
		"SET 'execution.runtime-mode' = 'streaming';\n"
	for seed := range 6 {
		r := rand.New(rand.NewPCG(uint64(seed), 77))
		rows, in := keyedRows(r, 1+r.IntN(60), 6, 20)
		counts := map[string]int{}
		top := map[string]int{}
		for _, x := range rows {
			counts[x.k]++
			top[x.k] = max(top[x.k], x.x)
		}
		// the final tables of the relations read
		var ns, tops []int
		for k, n := range counts {
			ns = append(ns, n)
			tops = append(tops, top[k])
		}
		joinN := 0 // s FULL JOIN s2 ON k: every pair of one key
		for _, n := range counts {
			joinN += n * n
		}
		agg := func(v []int) string {
			return fmt.Sprintf("%d,%d,%d,%d", slices.Max(v), slices.Min(v), len(v), sum(v))
		}
		for _, tc := range []struct{ query, want string }{
			{"WITH c AS (SELECT k, COUNT(*) AS n FROM s GROUP BY k) SELECT MAX(n), MIN(n), COUNT(*), SUM(n) FROM c", agg(ns)},
			{"SELECT MAX(x), MIN(x), COUNT(*), SUM(x) FROM (SELECT k, x FROM (SELECT k, x, ROW_NUMBER() OVER (PARTITION BY k ORDER BY x DESC) AS rn FROM s) WHERE rn = 1)", agg(tops)},
			{"SELECT COUNT(*) FROM (SELECT s.k, s2.x FROM s FULL JOIN s2 ON s.k = s2.k) q", fmt.Sprint(joinN)},
		} {
			q := tc.query
			out, errs, code := runSQL(t, map[string]string{"s.csv": in}, ddl+q+";\n", "--format", "csv")
			if code != 0 {
				t.Fatalf("seed %d: %s: exit %d: %s", seed, q, code, errs)
			}
			got := applyChangelog(t, out)
			if len(got) != 1 || got[0] != tc.want {
				t.Fatalf("seed %d: %s:\n got %q\nwant [%q]\n%s", seed, q, got, tc.want, out)
			}
		}
	}
}

// TestJoinsReadUpdatingRelations: a regular join whose inputs update (a
// join of two aggregates, SPEC 2.6; an outer join of an aggregate; a stream
// joined to an aggregate) retracts the rows it joined as its inputs change
// (SPEC 2.8: "joins retract their joined rows"), so the final table of its
// changelog equals the join of its inputs' final tables, computed here from
// the whole input.
func TestJoinsReadUpdatingRelations(t *testing.T) {
	ddl := "CREATE STREAM s (k VARCHAR, x BIGINT) WITH ('connector'='file', 'path'='s.csv', 'format'='csv');\n" +
		"CREATE STREAM s2 (k VARCHAR, x BIGINT) WITH ('connector'='file', 'path'='s.csv', 'format'='csv');\n" +
		"SET 'execution.runtime-mode' = 'streaming';\n"
	for seed := range 6 {
		r := rand.New(rand.NewPCG(uint64(seed), 78))
		rows, in := keyedRows(r, 1+r.IntN(60), 6, 20)
		counts, big := map[string]int{}, map[string]int{} // per key: rows, and the largest x above 10
		for _, x := range rows {
			counts[x.k]++
			if x.x > 10 {
				big[x.k] = max(big[x.k], x.x)
			}
		}
		var inner, left, perRow []string
		for k, n := range counts {
			if m, ok := big[k]; ok {
				inner = append(inner, fmt.Sprintf("%s,%d,%d", k, n, m))
				left = append(left, fmt.Sprintf("%s,%d,%d", k, n, m))
			} else {
				left = append(left, fmt.Sprintf("%s,%d,", k, n))
			}
		}
		for _, x := range rows {
			perRow = append(perRow, fmt.Sprintf("%s,%d,%d", x.k, x.x, counts[x.k]))
		}
		for _, tc := range []struct {
			query string
			want  []string
		}{
			{"SELECT a.k, a.n, b.mx FROM (SELECT k, COUNT(*) AS n FROM s GROUP BY k) a JOIN (SELECT k, MAX(x) AS mx FROM s2 WHERE x > 10 GROUP BY k) b ON a.k = b.k", inner},
			{"SELECT a.k, a.n, b.mx FROM (SELECT k, COUNT(*) AS n FROM s GROUP BY k) a LEFT JOIN (SELECT k, MAX(x) AS mx FROM s2 WHERE x > 10 GROUP BY k) b ON a.k = b.k", left},
			{"WITH c AS (SELECT k, COUNT(*) AS n FROM s GROUP BY k) SELECT s2.k, s2.x, c.n FROM s2 JOIN c ON s2.k = c.k", perRow},
			{"WITH c AS (SELECT k, COUNT(*) AS n FROM s GROUP BY k) SELECT s2.k, s2.x, c.n FROM c RIGHT JOIN s2 ON s2.k = c.k", perRow},
		} {
			out, errs, code := runSQL(t, map[string]string{"s.csv": in}, ddl+tc.query+";\n", "--format", "csv")
			if code != 0 {
				t.Fatalf("seed %d: %s: exit %d: %s", seed, tc.query, code, errs)
			}
			got := applyChangelog(t, out)
			slices.Sort(tc.want)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("seed %d: %s:\n got %q\nwant %q\n%s", seed, tc.query, got, tc.want, out)
			}
		}
	}
}

// TestUpdatingRelationReadersRefused: a reader that would take an updating
// relation's changes as rows is a planning error that names the relation
// (SPEC 2.8), not a silently wrong result: an interval join or a temporal
// join's left side reading an updating view (Flink refuses both too), and a
// window TVF over one.
func TestUpdatingRelationReadersRefused(t *testing.T) {
	ddl := "CREATE STREAM s (k VARCHAR, x BIGINT) WITH ('connector'='file', 'path'='s.csv', 'format'='csv');\n" +
		"CREATE STREAM t (k VARCHAR, name VARCHAR) WITH ('connector'='file', 'path'='s.csv', 'format'='csv');\n" +
		"SET 'execution.runtime-mode' = 'streaming';\n" +
		"CREATE STREAM u (k VARCHAR, ts BIGINT, x BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='s.csv', 'format'='csv');\n" +
		"CREATE STREAM v (k VARCHAR, ts BIGINT, x BIGINT, WATERMARK FOR ts AS ts, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector'='file', 'path'='s.csv', 'format'='csv');\n" +
		"CREATE VIEW c AS SELECT k, COUNT(*) AS n FROM s GROUP BY k;\n" +
		"CREATE STREAM d (k VARCHAR, ts BIGINT, x BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='d.json', 'format'='debezium-json');\n" +
		"CREATE VIEW dv AS SELECT k, ts, x FROM d WHERE x > 0;\n"
	for _, tc := range []struct{ query, want string }{
		{"SELECT d.k, u.x FROM dv d JOIN u ON d.k = u.k AND u.ts BETWEEN d.ts AND d.ts + INTERVAL '5' SECOND", "the join's input dv is updating"},
		{"SELECT d.k, v.x FROM dv d JOIN v FOR SYSTEM_TIME AS OF d.ts ON d.k = v.k", "the temporal join's left input dv is updating"},
		{"SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE c, DESCRIPTOR(n), INTERVAL '1' SECOND)) GROUP BY window_start, window_end", "c is updating"},
	} {
		out, errs, code := runSQL(t, map[string]string{"s.csv": "a,1\n", "d.json": ""}, ddl+tc.query+";\n", "--format", "csv")
		if code != 2 || !strings.Contains(errs, tc.want) || !strings.Contains(errs, "SPEC 2.8") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 with %q", tc.query, code, out, errs, tc.want)
		}
	}
}

func sum(v []int) int {
	n := 0
	for _, x := range v {
		n += x
	}
	return n
}

// TestJoinsReadCDCStreams: a regular join reads a changelog stream
// (debezium-json, SPEC 2.8) on either side and retracts what its -U and -D
// take back, so the final table equals the join of the stream's final table
// with the other input, computed here (INNER, LEFT, RIGHT and FULL).
func TestJoinsReadCDCStreams(t *testing.T) {
	ddl := "CREATE STREAM u (k VARCHAR, x BIGINT) WITH ('connector'='file', 'path'='u.csv', 'format'='csv');\n" +
		"CREATE STREAM d (k VARCHAR, x BIGINT) WITH ('connector'='file', 'path'='d.json', 'format'='debezium-json');\n"
	for seed := range 8 {
		r := rand.New(rand.NewPCG(uint64(seed), 79))
		var cdc strings.Builder
		var table []keyedRow // d's final table
		row := func(x keyedRow) string { return fmt.Sprintf(`{"k":%q,"x":%d}`, x.k, x.x) }
		for range 1 + r.IntN(30) {
			switch op := r.IntN(3); {
			case op == 0 && len(table) > 0:
				i := r.IntN(len(table))
				fmt.Fprintf(&cdc, `{"before":%s,"after":null,"op":"d"}`+"\n", row(table[i]))
				table = slices.Delete(table, i, i+1)
			case op == 1 && len(table) > 0:
				i := r.IntN(len(table))
				nw := keyedRow{fmt.Sprintf("k%d", r.IntN(4)), r.IntN(9)}
				fmt.Fprintf(&cdc, `{"before":%s,"after":%s,"op":"u"}`+"\n", row(table[i]), row(nw))
				table[i] = nw
			default:
				nw := keyedRow{fmt.Sprintf("k%d", r.IntN(4)), r.IntN(9)}
				fmt.Fprintf(&cdc, `{"before":null,"after":%s,"op":"c"}`+"\n", row(nw))
				table = append(table, nw)
			}
		}
		urows, uin := keyedRows(r, 1+r.IntN(8), 5, 9)
		for _, kind := range []string{"JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN"} {
			var want []string
			matched := make([]bool, len(table))
			for _, a := range urows {
				found := false
				for i, b := range table {
					if a.k == b.k {
						want = append(want, fmt.Sprintf("%s,%d,%s,%d", a.k, a.x, b.k, b.x))
						found, matched[i] = true, true
					}
				}
				if !found && (kind == "LEFT JOIN" || kind == "FULL JOIN") {
					want = append(want, fmt.Sprintf("%s,%d,,", a.k, a.x))
				}
			}
			for i, b := range table {
				if !matched[i] && (kind == "RIGHT JOIN" || kind == "FULL JOIN") {
					want = append(want, fmt.Sprintf(",,%s,%d", b.k, b.x))
				}
			}
			slices.Sort(want)
			q := "SELECT u.k, u.x, d.k, d.x FROM u " + kind + " d ON u.k = d.k"
			out, errs, code := runSQL(t, map[string]string{"u.csv": uin, "d.json": cdc.String()}, ddl+q+";\n", "--format", "csv")
			if code != 0 {
				t.Fatalf("seed %d: %s: exit %d: %s", seed, q, code, errs)
			}
			if got := applyChangelog(t, out); !slices.Equal(got, want) {
				t.Fatalf("seed %d: %s:\n got %q\nwant %q\n%s\ncdc:\n%s", seed, q, got, want, out, cdc.String())
			}
		}
	}
}
