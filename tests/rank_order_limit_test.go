package tests

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestOrderLimitOverTopN: ORDER BY and LIMIT at the end of a query over a
// Top-N (SPEC 2.9: "ORDER BY … [LIMIT n] at the end of a query"; 2.1's
// LIMIT) apply to the Top-N's result, as in DuckDB and Flink's batch mode:
// over a bounded input the final table is sorted and cut. Random inputs,
// each ranking function, ORDER BY on columns and on the rank, with and
// without LIMIT, with a WHERE beside the bound and a computed column; the
// reference ranks, sorts and cuts the whole input here (refRank), apart
// from the engine. LIMIT alone gives the first rows of the same query
// without it. Found: "ORDER BY and LIMIT over a Top-N are not supported".
func TestOrderLimitOverTopN(t *testing.T) {
	ddl := "CREATE STREAM r (k VARCHAR, x BIGINT, ts BIGINT, id BIGINT) WITH ('connector'='file', 'path'='r.csv', 'format'='csv');\n"
	for seed := range 10 {
		rng := rand.New(rand.NewPCG(uint64(seed), 77))
		rows := randRRows(rng, 10+rng.IntN(80), 4, 8)
		files := map[string]string{"r.csv": rrowFile(rows)}
		run := func(q string) []string {
			out, errs, code := runSQL(t, files, ddl+q+";\n", "--format", "csv")
			if code != 0 {
				t.Fatalf("seed %d: %s: exit %d: %s", seed, q, code, errs)
			}
			return csvRows(out)
		}
		for _, fn := range []string{"ROW_NUMBER", "RANK", "DENSE_RANK"} {
			n, limit := 1+rng.IntN(3), rng.IntN(8)
			topN := fmt.Sprintf("(SELECT k, x, ts, id, %s() OVER (PARTITION BY k ORDER BY x DESC) AS rn FROM r)", fn)
			ranked := refRank(rows, fn, n, true) // k,x,ts,id,rn
			parse := func(s string) (k string, x, id, rn int64) {
				f := strings.Split(s, ",")
				x, _ = strconv.ParseInt(f[1], 10, 64)
				id, _ = strconv.ParseInt(f[3], 10, 64)
				rn, _ = strconv.ParseInt(f[4], 10, 64)
				return f[0], x, id, rn
			}
			// ORDER BY x DESC, id LIMIT m (id is unique: one order)
			byX := slices.Clone(ranked)
			slices.SortFunc(byX, func(a, b string) int {
				_, xa, ia, _ := parse(a)
				_, xb, ib, _ := parse(b)
				return cmp.Or(cmp.Compare(xb, xa), cmp.Compare(ia, ib))
			})
			want := byX[:min(limit, len(byX))]
			got := run(fmt.Sprintf("SELECT * FROM %s WHERE rn <= %d ORDER BY x DESC, id LIMIT %d", topN, n, limit))
			if !slices.Equal(got, want) {
				t.Fatalf("seed %d: %s Top-%d ORDER BY x DESC, id LIMIT %d:\n got %q\nwant %q", seed, fn, n, limit, got, want)
			}
			// ORDER BY the rank, then k and id, without LIMIT, the rank not selected
			byRank := slices.Clone(ranked)
			slices.SortFunc(byRank, func(a, b string) int {
				ka, _, ia, ra := parse(a)
				kb, _, ib, rb := parse(b)
				return cmp.Or(cmp.Compare(ra, rb), cmp.Compare(ka, kb), cmp.Compare(ia, ib))
			})
			want = nil
			for _, s := range byRank {
				k, x, id, _ := parse(s)
				want = append(want, fmt.Sprintf("%s,%d,%d", k, x, id))
			}
			got = run(fmt.Sprintf("SELECT k, x, id FROM %s WHERE rn <= %d ORDER BY rn, k, id", topN, n))
			if !slices.Equal(got, want) {
				t.Fatalf("seed %d: %s Top-%d ORDER BY rn, k, id:\n got %q\nwant %q", seed, fn, n, got, want)
			}
			// a condition beside the bound, a computed column, ORDER BY its position
			want = nil
			for _, s := range byX {
				if k, x, id, _ := parse(s); x > 2 {
					want = append(want, fmt.Sprintf("%s,%d,%d", k, x*10, id))
				}
			}
			want = want[:min(limit, len(want))]
			got = run(fmt.Sprintf("SELECT k, x * 10 AS x10, id FROM %s WHERE rn <= %d AND x > 2 ORDER BY 2 DESC, id LIMIT %d", topN, n, limit))
			if !slices.Equal(got, want) {
				t.Fatalf("seed %d: %s Top-%d with x > 2, x * 10, ORDER BY 2 DESC, id LIMIT %d:\n got %q\nwant %q", seed, fn, n, limit, got, want)
			}
			// LIMIT alone: the first rows of the result, as without it
			all := run(fmt.Sprintf("SELECT k, x, id FROM %s WHERE rn <= %d", topN, n))
			got = run(fmt.Sprintf("SELECT k, x, id FROM %s WHERE rn <= %d LIMIT %d", topN, n, limit))
			if !slices.Equal(got, all[:min(limit, len(all))]) {
				t.Fatalf("seed %d: %s Top-%d LIMIT %d:\n got %q\nwant the first rows of %q", seed, fn, n, limit, got, all)
			}
		}
	}
}
