package tests

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestTopNOverNestedRelations: the subquery of a Top-N (SPEC 2.9) may itself
// read a relation of SPEC 2.6 in its FROM: a subquery (with or without an
// alias), a UNION ALL, a WITH name, an aggregate. Each query's rows equal the
// top row per key computed here over the whole input. (The inner subquery's
// name leaked: "unknown stream '$5z'".)
func TestTopNOverNestedRelations(t *testing.T) {
	ddl := "CREATE STREAM s (k VARCHAR, x BIGINT) WITH ('connector'='file', 'path'='s.csv', 'format'='csv');\n"
	for seed := range 5 {
		r := rand.New(rand.NewPCG(uint64(seed), 29))
		rows, in := keyedRows(r, 1+r.IntN(40), 5, 50)
		top := map[string]int{}    // the largest x per key among x > 3
		top10 := map[string]int{}  // over s and s with x * 10
		counts := map[string]int{} // rows per key
		for _, x := range rows {
			if x.x > 3 {
				if v, ok := top[x.k]; !ok || x.x > v {
					top[x.k] = x.x
				}
			}
			top10[x.k] = max(top10[x.k], x.x*10)
			counts[x.k]++
		}
		lines := func(m map[string]int) []string {
			var out []string
			for k, v := range m {
				out = append(out, fmt.Sprintf("%s,%d", k, v))
			}
			slices.Sort(out)
			return out
		}
		best, bestN := "", -1 // the key with most rows; ties: the smallest key, ranked by (n DESC, k ASC)
		for k, n := range counts {
			if n > bestN || n == bestN && k < best {
				best, bestN = k, n
			}
		}
		for _, tc := range []struct {
			q    string
			want []string
		}{
			{"SELECT k, x FROM (SELECT k, x, ROW_NUMBER() OVER (PARTITION BY k ORDER BY x DESC) AS rn FROM (SELECT k, x FROM s WHERE x > 3)) WHERE rn = 1", lines(top)},
			{"SELECT k, x FROM (SELECT k, x, ROW_NUMBER() OVER (PARTITION BY k ORDER BY x DESC) AS rn FROM (SELECT k, x FROM s WHERE x > 3) q) WHERE rn = 1", lines(top)},
			{"WITH w AS (SELECT k, x FROM s WHERE x > 3) SELECT k, x FROM (SELECT k, x, ROW_NUMBER() OVER (PARTITION BY k ORDER BY x DESC) AS rn FROM w) WHERE rn = 1", lines(top)},
			{"SELECT k, x FROM (SELECT k, x, ROW_NUMBER() OVER (PARTITION BY k ORDER BY x DESC) AS rn FROM (SELECT k, x FROM s UNION ALL SELECT k, x * 10 FROM s)) WHERE rn = 1", lines(top10)},
			{"SELECT k, n FROM (SELECT k, n, ROW_NUMBER() OVER (ORDER BY n DESC, k ASC) AS rn FROM (SELECT k, COUNT(*) AS n FROM s GROUP BY k)) WHERE rn = 1", []string{fmt.Sprintf("%s,%d", best, bestN)}},
		} {
			out, errs, code := runSQL(t, map[string]string{"s.csv": in}, ddl+tc.q+";\n", "--format", "csv")
			if code != 0 {
				t.Fatalf("seed %d: %s: exit %d: %s", seed, tc.q, code, errs)
			}
			got := strings.Split(strings.TrimSpace(out), "\n")[1:]
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("seed %d: %s:\n got %q\nwant %q", seed, tc.q, got, tc.want)
			}
		}
	}
}
