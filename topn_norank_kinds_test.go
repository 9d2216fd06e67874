package streamql_test

import (
	"cmp"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"streamql"
)

// TestTopNWithoutRankEmitsDeleteInsertProperty: a Top-N whose rank column
// no reader selects emits -D for the row that leaves the top and +I for the
// row that enters, never -U/+U (Flink's AppendOnlyTopNFunction and
// RetractableTopNFunction with outputRankNumber=false; SPEC 2.8, 2.9: the
// output has no rank column), whatever reads it: the query itself, an
// expression over its columns (a Calc over the Rank), a query over a
// subquery or WITH name that computes over it, a WHERE over it; over an
// append-only stream and over an unbounded GROUP BY. Selecting the rank
// keeps the per-rank -U/+U. Each changelog, applied in order, must equal a
// separately written batch computation of the top rows over the whole
// input (ties in arrival order, a group's in the order of its last change).
// (An expression over the Top-N emitted -U/+U per rank: the Top-N the
// planner wrote under the expression kept its rank for a reader that reads
// none.)
func TestTopNWithoutRankEmitsDeleteInsertProperty(t *testing.T) {
	rng := rand.New(rand.NewSource(23))
	const setup = `CREATE STREAM ev (k VARCHAR, v BIGINT) WITH ('connector' = 'go');`
	for round := 0; round < 12; round++ {
		n, keys, top := 1+rng.Intn(600), 1+rng.Intn(6), 1+rng.Intn(4)
		in := make([][]any, n)
		for i := range in {
			in[i] = []any{fmt.Sprintf("k%d", rng.Intn(keys)), int64(rng.Intn(50))}
		}
		// the reference over the append-only stream: per k, the rows by v
		// descending, ties in arrival order
		byKey := map[string][]int{}
		for i, r := range in {
			byKey[r[0].(string)] = append(byKey[r[0].(string)], i)
		}
		topRows := func(f func(k string, v int64) string) []string {
			var out []string
			for _, idx := range byKey {
				slices.SortStableFunc(idx, func(a, b int) int { return -cmp.Compare(in[a][1].(int64), in[b][1].(int64)) })
				for _, i := range idx[:min(top, len(idx))] {
					out = append(out, f(in[i][0].(string), in[i][1].(int64)))
				}
			}
			slices.Sort(out)
			return out
		}
		// the reference over the GROUP BY: the groups by count descending,
		// ties in the order of each group's last change
		cnt, last := map[string]int64{}, map[string]int{}
		for i, r := range in {
			cnt[r[0].(string)]++
			last[r[0].(string)] = i
		}
		var groups []string
		for k := range cnt {
			groups = append(groups, k)
		}
		slices.SortFunc(groups, func(a, b string) int {
			if c := -cmp.Compare(cnt[a], cnt[b]); c != 0 {
				return c
			}
			return cmp.Compare(last[a], last[b])
		})
		var topGroups []string
		for _, k := range groups[:min(top, len(groups))] {
			topGroups = append(topGroups, fmt.Sprintf("%s|%d", k, cnt[k]*2))
		}
		slices.Sort(topGroups)

		const topN = "SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM ev"
		bound := fmt.Sprintf("rn <= %d", top)
		plain := topRows(func(k string, v int64) string { return fmt.Sprintf("%s|%d", k, v) })
		times10 := topRows(func(k string, v int64) string { return fmt.Sprintf("%s|%d", k, v*10) })
		for _, tc := range []struct {
			what, query string
			want        []string
		}{
			{"the Top-N's columns", "SELECT k, v FROM (" + topN + ") WHERE " + bound, plain},
			{"an expression over the Top-N", "SELECT k, v * 10 AS w FROM (" + topN + ") WHERE " + bound, times10},
			{"a query over a subquery computing over the Top-N", "SELECT k, w FROM (SELECT k, v * 10 AS w FROM (" + topN + ") WHERE " + bound + ")", times10},
			{"a WITH name over the Top-N, computed over", "WITH t AS (SELECT k, v FROM (" + topN + ") WHERE " + bound + ") SELECT k, v * 10 AS w FROM t", times10},
			{"a WHERE over the Top-N's rows", "SELECT k, v * 10 AS w FROM (SELECT k, v FROM (" + topN + ") WHERE " + bound + ") WHERE v >= 0", times10},
			{"an expression over a Top-N of a GROUP BY", fmt.Sprintf("SELECT k, c * 2 AS d FROM (SELECT k, c, ROW_NUMBER() OVER (ORDER BY c DESC) AS rn FROM (SELECT k, COUNT(*) AS c FROM ev GROUP BY k)) WHERE rn <= %d", top), topGroups},
		} {
			kinds := map[string]int{}
			c := &changelog{t: t, rows: map[string]int{}, out: "main"}
			on := func(out streamql.Output, r *streamql.Rows) error {
				if out.Name == "main" {
					for i := 0; i < r.Len(); i++ {
						kinds[r.Kind(i)]++
					}
				}
				return c.on(out, r)
			}
			runPushed(t, on, setup, "ev", tc.query+";", in)
			if got := c.final(); !slices.Equal(got, tc.want) {
				t.Errorf("round %d, %s: %s\nthe changelog applied gives\n%v\nthe batch reference\n%v", round, tc.what, tc.query, got, tc.want)
			}
			if kinds["-U"]+kinds["+U"] > 0 {
				t.Errorf("round %d, %s: %s\nemits %v: a Top-N without its rank emits -D and +I (Flink's outputRankNumber=false)", round, tc.what, tc.query, kinds)
			}
		}
		// the rank selected: -U/+U per rank, and the same rows with their rank
		rq := "SELECT k, v * 10 AS w, rn FROM (" + topN + ") WHERE " + bound
		kinds := map[string]int{}
		c := &changelog{t: t, rows: map[string]int{}, out: "main"}
		runPushed(t, func(out streamql.Output, r *streamql.Rows) error {
			if out.Name == "main" {
				for i := 0; i < r.Len(); i++ {
					kinds[r.Kind(i)]++
				}
			}
			return c.on(out, r)
		}, setup, "ev", rq+";", in)
		var got []string
		for _, row := range c.final() {
			got = append(got, row[:strings.LastIndexByte(row, '|')])
		}
		slices.Sort(got)
		if !slices.Equal(got, times10) {
			t.Errorf("round %d: %s\nthe changelog applied gives\n%v\nthe batch reference\n%v", round, rq, got, times10)
		}
		if kinds["-D"] > 0 {
			t.Errorf("round %d: %s emits %v: with its rank a Top-N updates each rank (-U/+U)", round, rq, kinds)
		}
	}
}
