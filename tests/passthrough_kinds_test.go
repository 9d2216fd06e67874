package tests

import (
	"encoding/csv"
	"fmt"
	mrand "math/rand"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
)

// applyChangelog applies a csv changelog (op first, SPEC 2.8) and returns
// the final table's rows as csv lines (without op), sorted; it fails on a
// line without a kind or a retraction of a row not in the table.
func applyChangelog(t *testing.T, out string) []string {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(recs) == 0 || recs[0][0] != "op" {
		t.Fatalf("output %q (%v): want a changelog with an op column", out, err)
	}
	table := map[string]int{}
	for _, rec := range recs[1:] {
		applyKind(t, table, rec[0], strings.Join(rec[1:], ","), fmt.Sprintf("%v in:\n%s", rec, out))
	}
	return tableRows(table)
}

// applyKind applies one change of kind (+I, +U add a row, -U, -D take one
// back: SPEC 2.8) of row to table, a multiset of rows; it fails on another
// kind or on a retraction of a row not in the table, naming the change by
// where.
func applyKind(t *testing.T, table map[string]int, kind, row, where string) {
	t.Helper()
	switch kind {
	case "+I", "+U":
		table[row]++
	case "-U", "-D":
		if table[row] == 0 {
			t.Fatalf("a retraction of a row not in the result: %s", where)
		}
		table[row]--
	default:
		t.Fatalf("kind %q: %s", kind, where)
	}
}

// tableRows returns the rows of table, each as many times as it holds it,
// sorted.
func tableRows(table map[string]int) []string {
	var got []string
	for row, n := range table {
		for range n {
			got = append(got, row)
		}
	}
	slices.Sort(got)
	return got
}

// TestPassThroughKeepsKinds: a filter or projection passes each row's kind
// through (SPEC 2.8), whatever makes the relation it reads updating: a
// debezium-json stream, and a subquery (SPEC 2.6) over an updating GROUP BY,
// a regular FULL JOIN or a Top-N. Each output is a changelog (an op column)
// whose final table equals a reference computed from the whole input. (A
// stream of changes read through WHERE printed its -U rows as rows.)
func TestPassThroughKeepsKinds(t *testing.T) {
	for seed := range 4 {
		// a debezium-json stream's final table, filtered
		cs := randomChanges(mrand.New(mrand.NewSource(int64(seed+1))), 50+seed*40)
		state := map[int64]string{}
		for _, c := range cs {
			if c.After == nil {
				delete(state, int64(c.Before["id"].(float64)))
				continue
			}
			if c.Before != nil {
				delete(state, int64(c.Before["id"].(float64)))
			}
			name := "" // (csv reads NULL and '' alike: an empty field, "")
			if v, ok := c.After["name"].(string); ok {
				name = v
			}
			state[int64(c.After["id"].(float64))] = name
		}
		var want []string
		for id, name := range state {
			if id%2 == 0 {
				want = append(want, fmt.Sprintf("%d,%s", id, name))
			}
		}
		slices.Sort(want)
		out, errs, code := runSQL(t, map[string]string{"p.json": encodeChanges(t, cs)}, cdcDDL+"SELECT id, name FROM p WHERE id % 2 = 0;\n", "--format", "csv")
		if code != 0 {
			t.Fatalf("seed %d: exit %d: %s", seed, code, errs)
		}
		if got := applyChangelog(t, out); !slices.Equal(got, want) {
			t.Fatalf("seed %d: debezium stream through WHERE:\n got %q\nwant %q", seed, got, want)
		}

		// subqueries over updating queries, filtered
		r := rand.New(rand.NewPCG(uint64(seed), 31))
		rows, in := keyedRows(r, 1+r.IntN(50), 5, 20)
		counts := map[string]int{}
		byKey := map[string][]int{}
		for _, x := range rows {
			counts[x.k]++
			byKey[x.k] = append(byKey[x.k], x.x)
		}
		var wantCount, wantTop []string
		for k, n := range counts {
			if n > 1 {
				wantCount = append(wantCount, fmt.Sprintf("%s,%d", k, n))
			}
			xs := byKey[k]
			sort.SliceStable(xs, func(i, j int) bool { return xs[i] > xs[j] })
			if k != "k0" {
				wantTop = append(wantTop, fmt.Sprintf("%s,%d", k, xs[0]))
			}
		}
		var wantJoin []string // s FULL JOIN s2 ON k, s2 the rows with x >= 10
		for _, a := range rows {
			for _, b := range rows {
				if a.k == b.k && b.x >= 10 {
					wantJoin = append(wantJoin, fmt.Sprintf("%s,%d,%d", a.k, a.x, b.x))
				}
			}
		}
		slices.Sort(wantCount)
		slices.Sort(wantTop)
		slices.Sort(wantJoin)
		ddl := "CREATE STREAM s (k VARCHAR, x BIGINT) WITH ('connector'='file', 'path'='s.csv', 'format'='csv');\n" +
			"CREATE STREAM s2 (k VARCHAR, x BIGINT) WITH ('connector'='file', 'path'='s.csv', 'format'='csv');\n" +
			"SET 'execution.runtime-mode' = 'streaming';\n"
		for _, tc := range []struct {
			query string
			want  []string
		}{
			{"SELECT k, n FROM (SELECT k, COUNT(*) AS n FROM s GROUP BY k) q WHERE n > 1", wantCount},
			{"SELECT k, x FROM (SELECT k, x, ROW_NUMBER() OVER (PARTITION BY k ORDER BY x DESC) AS rn FROM s) WHERE rn = 1 AND k <> 'k0'", wantTop},
			{"SELECT k, x, x2 FROM (SELECT s.k, s.x, s2.x AS x2 FROM s FULL JOIN s2 ON s.k = s2.k) q WHERE x2 >= 10 AND x IS NOT NULL", wantJoin},
		} {
			out, errs, code := runSQL(t, map[string]string{"s.csv": in}, ddl+tc.query+";\n", "--format", "csv")
			if code != 0 {
				t.Fatalf("seed %d: %s: exit %d: %s", seed, tc.query, code, errs)
			}
			if got := applyChangelog(t, out); !slices.Equal(got, tc.want) {
				t.Fatalf("seed %d: %s:\n got %q\nwant %q", seed, tc.query, got, tc.want)
			}
		}
	}
}
