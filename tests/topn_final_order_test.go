package tests

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestTopNFinalTableInOrder: the final table of a Top-N over the whole
// input whose rows are changes (SPEC 2.9: ORDER BY … LIMIT, or ROW_NUMBER()
// without PARTITION BY, over an updating GROUP BY: a bounded input in
// streaming mode) is in the query's order (SPEC 2.8: table and markdown
// print the materialized result once at the end; a terminal's live table
// prints it so when the job ends): it was in the order the changes put the
// rows in. And the Top-N takes back each group's old row (ORDER BY …
// LIMIT right over the query's own GROUP BY kept every count a group had
// had, one group filling the top). Keys descending and ascending, one and
// two keys, BIGINT and DOUBLE, in one query and over a subquery; random
// inputs whose counts and sums differ between groups (no tie to order);
// the reference counts, sums, sorts and cuts here, apart from the engine.
func TestTopNFinalTableInOrder(t *testing.T) {
	ddl := "SET 'execution.runtime-mode' = 'streaming';\nCREATE STREAM g (k VARCHAR, v BIGINT) WITH ('connector'='file', 'path'='g.csv', 'format'='csv');\n"
	type group struct {
		k string
		c int
		s float64
	}
	for seed := range 4 {
		rng := rand.New(rand.NewPCG(uint64(seed), 23))
		ng := 6 + rng.IntN(6)
		var rows []string
		groups := make([]group, ng)
		for i, c := range rng.Perm(ng) { // (distinct counts: c+1 rows of each group)
			groups[i] = group{k: fmt.Sprintf("k%02d", i), c: c + 1}
			for j := range c + 1 {
				v := int64(1 + j + (c+1)*100) // (distinct sums too)
				rows = append(rows, fmt.Sprintf("%s,%d", groups[i].k, v))
				groups[i].s += float64(v) / 2
			}
		}
		rng.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
		files := map[string]string{"g.csv": strings.Join(rows, "\n") + "\n"}
		n := 1 + rng.IntN(ng-1)
		ref := func(less func(a, b group) int, cols func(g group) string) []string {
			s := slices.Clone(groups)
			slices.SortFunc(s, less)
			var out []string
			for _, g := range s[:n] {
				out = append(out, cols(g))
			}
			return out
		}
		kc := func(g group) string { return fmt.Sprintf("%s|%d", g.k, g.c) }
		byCountDesc := func(a, b group) int { return cmp.Compare(b.c, a.c) }
		for _, tc := range []struct {
			name, sql string
			want      []string
		}{
			{"count descending", fmt.Sprintf("SELECT k, COUNT(*) AS c FROM g GROUP BY k ORDER BY c DESC LIMIT %d", n), ref(byCountDesc, kc)},
			{"count ascending", fmt.Sprintf("SELECT k, COUNT(*) AS c FROM g GROUP BY k ORDER BY c LIMIT %d", n), ref(func(a, b group) int { return cmp.Compare(a.c, b.c) }, kc)},
			{"over a subquery", fmt.Sprintf("SELECT k, c FROM (SELECT k, COUNT(*) AS c FROM g GROUP BY k) ORDER BY c DESC LIMIT %d", n), ref(byCountDesc, kc)},
			{"ROW_NUMBER without PARTITION BY", fmt.Sprintf("SELECT k, c FROM (SELECT k, c, ROW_NUMBER() OVER (ORDER BY c DESC) AS rn FROM (SELECT k, COUNT(*) AS c FROM g GROUP BY k)) WHERE rn <= %d", n), ref(byCountDesc, kc)},
			{"DOUBLE, two keys", fmt.Sprintf("SELECT k, SUM(v / 2.0) AS s FROM g GROUP BY k ORDER BY s DESC, k LIMIT %d", n), ref(func(a, b group) int { return cmp.Or(cmp.Compare(b.s, a.s), cmp.Compare(a.k, b.k)) }, func(g group) string { return fmt.Sprintf("%s|%.1f", g.k, g.s) })},
		} {
			for _, format := range []string{"markdown", "table"} {
				out, errs, code := runSQL(t, files, ddl+tc.sql+";\n", "--format", format)
				if code != 0 {
					t.Fatalf("seed %d, %s: exit %d: %s", seed, tc.name, code, errs)
				}
				var got []string
				for _, l := range strings.Split(out, "\n") {
					l = strings.ReplaceAll(l, "│", "|")
					if !strings.HasPrefix(l, "| k") {
						continue
					}
					var f []string
					for _, c := range strings.Split(strings.Trim(l, "|"), "|") {
						f = append(f, strings.TrimSpace(c))
					}
					if f[0] != "k" { // (not the header)
						got = append(got, strings.Join(f, "|"))
					}
				}
				if !slices.Equal(got, tc.want) {
					t.Errorf("seed %d, %s (%s): %s\nfinal table:\n%s\nwant its rows %q", seed, tc.name, format, tc.sql, out, tc.want)
				}
			}
		}
	}
}
