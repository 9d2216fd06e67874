package streamql_test

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestCountDistinctFilterUpdatingProperty (SPEC 2.8, 2.9; issue 24 item
// 2): COUNT(DISTINCT x) FILTER (WHERE …), beside COUNT(DISTINCT x), COUNT(*)
// FILTER and SUM FILTER, over an updating input, with and without
// mini-batch: (1) an unbounded GROUP BY subquery whose HAVING takes rows
// back and lets them in again, over rows pushed from Go (batch sizes follow
// the pushes' timing); (2) a Debezium file of random creates, updates
// (which may move a row to another group) and deletes, read in
// 'execution.runtime-mode' = 'streaming'. The changelog applied gives what
// a separately written batch reference gives: the input's final table,
// grouped, each aggregate computed over the rows its condition keeps.
func TestCountDistinctFilterUpdatingProperty(t *testing.T) {
	rng := rand.New(rand.NewSource(15))
	// agg is the reference's aggregates of one group's values: COUNT(DISTINCT
	// x) FILTER (WHERE x > 1), COUNT(DISTINCT x), COUNT(*) FILTER (WHERE x >
	// 1), SUM(x) FILTER (WHERE x <> 2) (NULL when no value passes).
	agg := func(g string, xs []int64) string {
		big, all := map[int64]bool{}, map[int64]bool{}
		n, sum, summed := 0, int64(0), false
		for _, x := range xs {
			all[x] = true
			if x > 1 {
				big[x] = true
				n++
			}
			if x != 2 {
				sum, summed = sum+x, true
			}
		}
		s := "<nil>"
		if summed {
			s = fmt.Sprint(sum)
		}
		return fmt.Sprintf("%s|%d|%d|%d|%s", g, len(big), len(all), n, s)
	}
	const aggs = "COUNT(DISTINCT %[1]s) FILTER (WHERE %[1]s > 1) AS d, COUNT(DISTINCT %[1]s) AS da, COUNT(*) FILTER (WHERE %[1]s > 1) AS n, SUM(%[1]s) FILTER (WHERE %[1]s <> 2) AS s"
	for round := 0; round < 12; round++ {
		// (1) over an unbounded GROUP BY with a HAVING that takes rows back
		n, keys, groups := 1+rng.Intn(1500), 1+rng.Intn(30), 1+rng.Intn(5)
		pushed := make([][]any, n)
		cnt := map[[2]string]int64{}
		for i := range pushed {
			k, g := fmt.Sprintf("k%d", rng.Intn(keys)), fmt.Sprintf("g%d", rng.Intn(groups))
			pushed[i] = []any{k, g}
			cnt[[2]string{k, g}]++
		}
		byGroup := map[string][]int64{}
		for kg, c := range cnt {
			if c%3 != 0 { // the inner HAVING
				byGroup[kg[1]] = append(byGroup[kg[1]], c)
			}
		}
		var want []string
		for g, xs := range byGroup {
			want = append(want, agg(g, xs))
		}
		slices.Sort(want)
		q := "SELECT g, " + fmt.Sprintf(aggs, "c") + " FROM (SELECT k, g, COUNT(*) AS c FROM ev GROUP BY k, g HAVING MOD(COUNT(*), 3) <> 0) GROUP BY g;"
		for _, mini := range []string{"false", "true"} {
			got := pushedChangelog(t, `CREATE STREAM ev (k VARCHAR, g VARCHAR) WITH ('connector' = 'go'); SET 'table.exec.mini-batch.enabled' = '`+mini+`';`, q, pushed)
			if !slices.Equal(got, want) {
				t.Fatalf("round %d (mini-batch %s, %d rows, %d keys, %d groups): %s\nthe changelog applied gives\n%v\nthe batch reference\n%v", round, mini, n, keys, groups, q, got, want)
			}
		}

		// (2) over a Debezium change log
		vals := map[string][]int64{} // the reference: each group's live values
		log := randomCDC(rng, rng.Intn(500),
			func() cdcRow { return cdcRow{fmt.Sprintf("g%d", rng.Intn(groups)), rng.Int63n(6) - 1} },
			func() bool { return rng.Intn(2) == 0 },
			func(before, after *cdcRow) {
				if before != nil {
					l := vals[before.k]
					at := slices.Index(l, before.v)
					vals[before.k] = slices.Delete(l, at, at+1)
				}
				if after != nil {
					vals[after.k] = append(vals[after.k], after.v)
				}
			})
		want = want[:0]
		for g, xs := range vals {
			if len(xs) > 0 {
				want = append(want, agg(g, xs))
			}
		}
		slices.Sort(want)
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "c.json"), []byte(log), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, mini := range []string{"false", "true"} {
			got := dirChangelog(t, dir, `SET 'execution.runtime-mode' = 'streaming'; SET 'table.exec.mini-batch.enabled' = '`+mini+`';
CREATE STREAM c (id BIGINT, k VARCHAR, v BIGINT) WITH ('connector' = 'file', 'path' = 'c.json', 'format' = 'debezium-json');
SELECT k, `+fmt.Sprintf(aggs, "v")+` FROM c GROUP BY k;`)
			if !slices.Equal(got, want) {
				t.Fatalf("round %d, Debezium (mini-batch %s): the changelog applied gives\n%v\nthe batch reference\n%v\ninput:\n%s", round, mini, got, want, log)
			}
		}
	}
}
