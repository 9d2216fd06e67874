package tests

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestGroupOverTopNAgainstReference: a GROUP BY (with HAVING) or a SELECT
// DISTINCT right over a Top-N's subquery (SPEC 2.6 and 2.9, as Flink SQL
// allows: SELECT g, SUM(x) FROM (SELECT …, RANK() OVER (PARTITION BY k ORDER
// BY x DESC) AS rn FROM s) WHERE rn <= N GROUP BY g) gives, for random inputs
// and N, for ROW_NUMBER, RANK and DENSE_RANK, over bounded input (the final
// table) and read as a stream (its changelog applied, SPEC 2.8), the table of
// a separately written batch reference (rank each partition's rows over the
// whole input, keep ranks <= N, group, sum, count), and the same as the query over
// the bounded Top-N as a relation (FROM (SELECT * FROM (…) WHERE rn <= N) AS t).
func TestGroupOverTopNAgainstReference(t *testing.T) {
	type row struct {
		k, g string
		x    int
	}
	funcs := []string{"ROW_NUMBER", "RANK", "DENSE_RANK"}
	for seed := range 12 {
		r := rand.New(rand.NewPCG(uint64(seed), 29))
		var rows []row
		var in strings.Builder
		for range 1 + r.IntN(60) {
			x := row{fmt.Sprintf("k%d", r.IntN(3)), fmt.Sprintf("g%d", r.IntN(3)), r.IntN(8)}
			rows = append(rows, x)
			fmt.Fprintf(&in, "%s,%s,%d\n", x.k, x.g, x.x)
		}
		fn, n, streaming := funcs[seed%3], 1+r.IntN(3), seed%2 == 1
		// the reference: each row's rank within its k over the whole input
		// (by x descending): ROW_NUMBER counts the rows before it (which of
		// equal x are kept does not change a group's sum or count), RANK the
		// rows with a larger x, DENSE_RANK the distinct larger x.
		kept := []row{}
		for i, a := range rows {
			rank, larger, before := 1, map[int]bool{}, 0
			for j, b := range rows {
				if b.k != a.k {
					continue
				}
				if b.x > a.x {
					larger[b.x] = true
					rank++
				}
				if b.x > a.x || b.x == a.x && j < i {
					before++
				}
			}
			switch fn {
			case "ROW_NUMBER":
				rank = before + 1
			case "DENSE_RANK":
				rank = len(larger) + 1
			}
			if rank <= n {
				kept = append(kept, a)
			}
		}
		sum, count := map[string]int{}, map[string]int{}
		for _, a := range kept {
			sum[a.g] += a.x
			count[a.g]++
		}
		var wantGroups, wantDistinct []string
		for g := range sum {
			if count[g] > 1 { // (HAVING COUNT(*) > 1)
				wantGroups = append(wantGroups, fmt.Sprintf("%s,%d,%d", g, sum[g], count[g]))
			}
		}
		seen := map[string]bool{}
		for _, a := range kept {
			if d := fmt.Sprintf("%s,%d", a.g, a.x); !seen[d] {
				seen[d] = true
				wantDistinct = append(wantDistinct, d)
			}
		}
		wantCount := []string{fmt.Sprint(len(kept))} // (HAVING COUNT(*) > 0: rows is never empty, nor kept)
		slices.Sort(wantGroups)
		slices.Sort(wantDistinct)
		topN := fmt.Sprintf("(SELECT k, g, x, %s() OVER (PARTITION BY k ORDER BY x DESC) AS rn FROM s)", fn)
		bound := fmt.Sprintf("rn <= %d", n)
		for _, c := range []struct {
			query string
			want  []string
		}{
			{"SELECT g, SUM(x) AS s, COUNT(*) AS c FROM " + topN + " WHERE " + bound + " GROUP BY g HAVING COUNT(*) > 1", wantGroups},
			{"SELECT g, SUM(x) AS s, COUNT(*) AS c FROM (SELECT * FROM " + topN + " WHERE " + bound + ") AS t GROUP BY g HAVING COUNT(*) > 1", wantGroups},
			{"SELECT COUNT(*) AS c FROM " + topN + " WHERE " + bound + " HAVING COUNT(*) > 0", wantCount},
			{"SELECT DISTINCT g, x FROM " + topN + " AS t WHERE " + bound, wantDistinct},
			{"SELECT DISTINCT g, x FROM (SELECT * FROM " + topN + " WHERE " + bound + ") AS t", wantDistinct},
		} {
			sql := "CREATE STREAM s (k VARCHAR, g VARCHAR, x BIGINT) WITH ('connector'='file', 'path'='s.csv', 'format'='csv');\n"
			if streaming {
				sql += "SET 'execution.runtime-mode' = 'streaming';\n"
			}
			sql += c.query + ";\n"
			out, errs, code := runSQL(t, map[string]string{"s.csv": in.String()}, sql, "--format", "csv")
			if code != 0 {
				t.Fatalf("seed %d: %s: exit %d: %s", seed, c.query, code, errs)
			}
			var got []string
			if streaming {
				got = applyChangelog(t, out)
			} else {
				got = strings.Split(strings.TrimSpace(out), "\n")[1:]
				slices.Sort(got)
			}
			if !slices.Equal(got, c.want) && !(len(got) == 0 && len(c.want) == 0) {
				t.Fatalf("seed %d (%s, N %d, streaming %v): %s\ngave\n%s\nwant\n%s\noutput:\n%s", seed, fn, n, streaming, c.query,
					strings.Join(got, "\n"), strings.Join(c.want, "\n"), out)
			}
		}
	}
}
