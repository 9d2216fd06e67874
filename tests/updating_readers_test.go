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

// TestUpdatingRelationReadersRefused: a reader that would take an updating
// relation's changes as rows is a planning error that names the relation
// (SPEC 2.8), not a silently wrong result: a regular join reading an updating
// view, and a window TVF over one.
func TestUpdatingRelationReadersRefused(t *testing.T) {
	ddl := "CREATE STREAM s (k VARCHAR, x BIGINT) WITH ('connector'='file', 'path'='s.csv', 'format'='csv');\n" +
		"CREATE STREAM t (k VARCHAR, name VARCHAR) WITH ('connector'='file', 'path'='s.csv', 'format'='csv');\n" +
		"SET 'execution.runtime-mode' = 'streaming';\n" +
		"CREATE VIEW c AS SELECT k, COUNT(*) AS n FROM s GROUP BY k;\n"
	for _, tc := range []struct{ query, want string }{
		{"SELECT c.k, c.n, t.name FROM c JOIN t ON c.k = t.k", "the join's input c is updating"},
		{"SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE c, DESCRIPTOR(n), INTERVAL '1' SECOND)) GROUP BY window_start, window_end", "c is updating"},
	} {
		out, errs, code := runSQL(t, map[string]string{"s.csv": "a,1\n"}, ddl+tc.query+";\n", "--format", "csv")
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
