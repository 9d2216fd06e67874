package tests

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
)

// TestTopNOuterFilterAgainstReference: a Top-N whose outer WHERE holds a
// condition besides the rank's bound (WHERE rn <= N AND x > c, as Flink
// accepts: the rank rule takes the bound, the rest filters the Rank's
// output) ranks every row and keeps the top rows that pass the condition,
// not the top of the rows that pass it. Over a bounded input (the final
// table) and as a changelog (streaming mode, applied), for random inputs,
// against a batch reference: sort each key's rows by x descending (ties in
// arrival order), take N, then filter.
func TestTopNOuterFilterAgainstReference(t *testing.T) {
	for seed := range 8 {
		r := rand.New(rand.NewPCG(uint64(seed), 29))
		rows, in := keyedRows(r, 1+r.IntN(60), 4, 30)
		n, c := 1+r.IntN(3), r.IntN(30)
		var want []string
		for _, rs := range rankedByKey(rows) {
			for i := 0; i < len(rs) && i < n; i++ {
				if rs[i].x > c && rs[i].k != "k3" {
					want = append(want, fmt.Sprintf("%s,%d,%d", rs[i].k, rs[i].x, i+1))
				}
			}
		}
		slices.Sort(want)
		query := fmt.Sprintf("SELECT k, x, rn FROM (SELECT k, x, ROW_NUMBER() OVER (PARTITION BY k ORDER BY x DESC) AS rn FROM s) WHERE x > %d AND rn <= %d AND k <> 'k3';\n", c, n)
		checkTopNModes(t, seed, in, query, want)
	}
}

// keyedRow is a row k,x of the Top-N and pass-through tests' input.
type keyedRow struct {
	k string
	x int
}

// keyedRows returns n random rows, keys k0 to k<keys-1>, values 0 to
// below maxX, and their csv file.
func keyedRows(r *rand.Rand, n, keys, maxX int) ([]keyedRow, string) {
	var rows []keyedRow
	var in strings.Builder
	for range n {
		x := keyedRow{fmt.Sprintf("k%d", r.IntN(keys)), r.IntN(maxX)}
		rows = append(rows, x)
		fmt.Fprintf(&in, "%s,%d\n", x.k, x.x)
	}
	return rows, in.String()
}

// TestTopNRankRangeAgainstReference: a Top-N's outer WHERE may bound the
// rank on both sides (Flink's rank range: rn > 1 AND rn <= 3, rn BETWEEN 2
// AND 3, rn = 2; and the upper bound alone in its other spellings: BETWEEN 1
// AND N, in parentheses, N >= rn), for ROW_NUMBER, RANK and DENSE_RANK,
// with and without the rank column, over a bounded input (the final table)
// and as a changelog (streaming mode, applied), for random inputs, against
// a batch reference: each key's rows ranked by x descending (ROW_NUMBER's
// ties in arrival order), those whose rank is in [M, N] kept.
func TestTopNRankRangeAgainstReference(t *testing.T) {
	forms := []func(m, n int) string{
		func(m, n int) string { return fmt.Sprintf("rn > %d AND rn <= %d", m-1, n) },
		func(m, n int) string { return fmt.Sprintf("rn BETWEEN %d AND %d", m, n) },
		func(m, n int) string { return fmt.Sprintf("%d >= rn AND %d <= rn", n, m) },
		func(m, n int) string { return fmt.Sprintf("(rn >= %d) AND (rn < %d)", m, n+1) },
		func(m, n int) string {
			if m == n {
				return fmt.Sprintf("rn = %d", m)
			}
			return fmt.Sprintf("rn >= %d AND rn <= %d", m, n)
		},
		func(_, n int) string { return fmt.Sprintf("(rn <= %d)", n) }, // (M is 1)
	}
	for seed := range 12 {
		r := rand.New(rand.NewPCG(uint64(seed), 31))
		rows, in := keyedRows(r, 1+r.IntN(50), 3, 12)
		fn := []string{"ROW_NUMBER", "RANK", "DENSE_RANK"}[seed%3]
		form := seed % len(forms)
		m, n := 1+r.IntN(3), 0
		if form == len(forms)-1 {
			m = 1
		}
		n = m + r.IntN(3)
		withRank := seed%2 == 0
		var want []string
		for _, rs := range rankedByKey(rows) {
			for i, x := range rs {
				rank := i + 1 // ROW_NUMBER
				if fn != "ROW_NUMBER" {
					greater := map[int]bool{}
					count := 0
					for _, y := range rs {
						if y.x > x.x {
							greater[y.x] = true
							count++
						}
					}
					rank = count + 1
					if fn == "DENSE_RANK" {
						rank = len(greater) + 1
					}
				}
				if rank < m || rank > n {
					continue
				}
				if withRank {
					want = append(want, fmt.Sprintf("%s,%d,%d", x.k, x.x, rank))
				} else {
					want = append(want, fmt.Sprintf("%s,%d", x.k, x.x))
				}
			}
		}
		slices.Sort(want)
		sel := "k, x"
		if withRank {
			sel += ", rn"
		}
		query := fmt.Sprintf("SELECT %s FROM (SELECT k, x, %s() OVER (PARTITION BY k ORDER BY x DESC) AS rn FROM s) WHERE %s;\n", sel, fn, forms[form](m, n))
		checkTopNModes(t, seed, in, query, want)
	}
}

// checkTopNModes runs query over stream s (k VARCHAR, x BIGINT) of the csv
// rows in, in batch and in streaming mode, and fails unless each gives the
// rows want (sorted): the final table over a bounded input, the changelog
// applied in streaming mode (which must print one).
func checkTopNModes(t *testing.T, seed int, in, query string, want []string) {
	t.Helper()
	for _, mode := range []string{"batch", "streaming"} {
		sql := "CREATE STREAM s (k VARCHAR, x BIGINT) WITH ('connector'='file', 'path'='s.csv', 'format'='csv');\n" +
			"SET 'execution.runtime-mode' = '" + mode + "';\n" + query
		out, errs, code := runSQL(t, map[string]string{"s.csv": in}, sql, "--format", "csv")
		if code != 0 {
			t.Fatalf("seed %d %s: %s exit %d: %s", seed, mode, query, code, errs)
		}
		var got []string
		if strings.HasPrefix(out, "op,") {
			got = applyChangelog(t, out)
		} else if mode == "streaming" {
			t.Fatalf("seed %d: streaming mode printed no changelog:\n%s", seed, out)
		} else {
			got = csvRows(out)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("seed %d %s: %s got %q\nwant %q", seed, mode, query, got, want)
		}
	}
}

// rankedByKey groups rows by key, each group sorted by x descending, ties
// in arrival order (the Top-N references' ranking).
func rankedByKey(rows []keyedRow) map[string][]keyedRow {
	byKey := map[string][]keyedRow{}
	for _, x := range rows {
		byKey[x.k] = append(byKey[x.k], x)
	}
	for _, rs := range byKey {
		sort.SliceStable(rs, func(i, j int) bool { return rs[i].x > rs[j].x })
	}
	return byKey
}
