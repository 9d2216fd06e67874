package executor

import (
	"context"
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"
)

// TestFusedRankCalcIsTheQueryOverTheTopN (issue 24 item 5.1): a query over a
// Top-N of a subquery's GROUP BY of a Kafka stream in a group, with a
// condition beside the rank's bound or an expression in its select list,
// is one job (the planner's ruleFuseRankCalc: plan.Rank.Where and Calc)
// whose output is, change by change and in order, the Top-N's (the same
// job without the query over it, selecting every column and the rank, or,
// for a query that reads no rank, without it: -D/+I changes, not -U/+U
// per rank, SPEC 2.9) filtered and projected by the query as written here in Go: the
// reference is separate from the engine's expressions. Random rows and
// batch sizes.
func TestFusedRankCalcIsTheQueryOverTheTopN(t *testing.T) {
	topN := "SELECT * FROM (SELECT k, n, ROW_NUMBER() OVER (PARTITION BY SUBSTRING(k, 1, 2) ORDER BY n DESC) AS rn FROM (SELECT k, COUNT(*) AS n FROM s GROUP BY k HAVING COUNT(*) > 1)) WHERE rn <= 2"
	// a query that reads no rank is over the Top-N without it, whose
	// changes are -D for the row leaving the top and +I for the row
	// entering (Flink's outputRankNumber=false, SPEC 2.9), not a -U/+U per
	// rank: its reference is that Top-N's rows, the rank 0
	noRank := "SELECT k, n FROM (SELECT k, n, ROW_NUMBER() OVER (PARTITION BY SUBSTRING(k, 1, 2) ORDER BY n DESC) AS rn FROM (SELECT k, COUNT(*) AS n FROM s GROUP BY k HAVING COUNT(*) > 1)) WHERE rn <= 2"
	for _, c := range []struct {
		query string
		rank  bool // the query reads the rank
		// ref maps a row of topN (k, n, rn) to the query's, ok false when
		// its condition drops it
		ref func(k string, n, rn int64) (string, bool)
	}{
		{"SELECT k, n FROM (SELECT k, n, ROW_NUMBER() OVER (PARTITION BY SUBSTRING(k, 1, 2) ORDER BY n DESC) AS rn FROM (SELECT k, COUNT(*) AS n FROM s GROUP BY k HAVING COUNT(*) > 1)) WHERE rn <= 2 AND n % 3 <> 1",
			false, func(k string, n, rn int64) (string, bool) { return fmt.Sprintf("%s,%d", k, n), n%3 != 1 }},
		{"SELECT UPPER(k) AS u, n * 10 + rn AS m FROM (SELECT k, n, ROW_NUMBER() OVER (PARTITION BY SUBSTRING(k, 1, 2) ORDER BY n DESC) AS rn FROM (SELECT k, COUNT(*) AS n FROM s GROUP BY k HAVING COUNT(*) > 1)) WHERE rn <= 2",
			true, func(k string, n, rn int64) (string, bool) {
				return fmt.Sprintf("%s,%d", strings.ToUpper(k), n*10+rn), true
			}},
		{"SELECT n, k FROM (SELECT k, n, ROW_NUMBER() OVER (PARTITION BY SUBSTRING(k, 1, 2) ORDER BY n DESC) AS rn FROM (SELECT k, COUNT(*) AS n FROM s GROUP BY k HAVING COUNT(*) > 1)) WHERE rn <= 2 AND (k = 'k01' OR n > 5) AND n > 2",
			false, func(k string, n, rn int64) (string, bool) {
				return fmt.Sprintf("%d,%s", n, k), (k == "k01" || n > 5) && n > 2
			}},
	} {
		job := planSidesWith(t, "ts", kafkaGroup, nil, c.query)
		if !job.AggRankReplayed() || !job.Main.Rank.Fused() {
			t.Fatalf("%s: not planned as one job with the query fused over its Top-N", c.query)
		}
		q := topN
		if !c.rank {
			q = noRank
		}
		inner := planSidesWith(t, "ts", kafkaGroup, nil, q)
		for seed := int64(1); seed <= 20; seed++ {
			rng := rand.New(rand.NewSource(seed))
			var rows []replayRow
			for off := range 100 + rng.Intn(200) {
				p := int32(rng.Intn(2))
				rows = append(rows, replayRow{p, int64(off), fmt.Sprintf("k%d%d", p, rng.Intn(5)), int64(off * 100)})
			}
			fused, ref := newReplayRun(t, job), newReplayRun(t, inner)
			for len(rows) > 0 {
				n := min(len(rows), 1+rng.Intn(9))
				fused.push(rows[:n])
				ref.push(rows[:n])
				rows = rows[n:]
			}
			for _, r := range []*replayRun{fused, ref} {
				if err := r.c.head.Finish(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			var want []string
			for _, l := range ref.sink.out {
				f := strings.Split(strings.TrimPrefix(l, "main: "), ",")
				n, _ := strconv.ParseInt(f[1], 10, 64)
				var rn int64
				if len(f) > 2 {
					rn, _ = strconv.ParseInt(f[2], 10, 64)
				}
				if v, ok := c.ref(f[0], n, rn); ok {
					want = append(want, "main: "+v)
				}
			}
			if got := strings.Join(fused.sink.out, "\n"); got != strings.Join(want, "\n") {
				t.Fatalf("%s, seed %d: the fused job wrote\n%s\nthe Top-N filtered and projected is\n%s", c.query, seed, got, strings.Join(want, "\n"))
			}
			if len(want) == 0 {
				t.Fatalf("%s, seed %d: no row", c.query, seed)
			}
		}
	}
}
