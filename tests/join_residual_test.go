package tests

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestOuterJoinConditionsAgainstReference: an outer join's ON terms beyond
// its key equalities and time bounds are part of the join (SPEC 2.7, as
// Flink's join condition), not a filter after it: a pair joins only when they
// hold, and a row none of whose pairs does is padded. Lookup, interval (with
// BIGINT time bounds written as plain millisecond offsets) and regular outer
// joins, on random inputs, give the rows of a nested-loop reference.
func TestOuterJoinConditionsAgainstReference(t *testing.T) {
	gen := func(r *rand.Rand, n int) []jrow {
		rows := make([]jrow, n)
		for i := range rows {
			rows[i] = jrow{id: fmt.Sprintf("k%d", r.IntN(6)), ts: int64(i*100) + r.Int64N(400), v: r.IntN(10)}
		}
		return rows
	}
	for seed := range 12 {
		r := rand.New(rand.NewPCG(uint64(seed), 31))
		l, rr := gen(r, 5+r.IntN(40)), gen(r, 5+r.IntN(40))
		files := map[string]string{"l.csv": jrowFile(l), "r.csv": jrowFile(rr)}
		ddl := `CREATE STREAM l (id VARCHAR, ts BIGINT, v BIGINT, WATERMARK FOR ts AS ts - INTERVAL '10' SECOND) WITH ('connector'='file', 'path'='l.csv', 'format'='csv');
CREATE STREAM r (id VARCHAR, ts BIGINT, v BIGINT, WATERMARK FOR ts AS ts - INTERVAL '10' SECOND) WITH ('connector'='file', 'path'='r.csv', 'format'='csv');
CREATE STREAM lb (id VARCHAR, ts BIGINT, v BIGINT) WITH ('connector'='file', 'path'='l.csv', 'format'='csv');
CREATE STREAM rb (id VARCHAR, ts BIGINT, v BIGINT) WITH ('connector'='file', 'path'='r.csv', 'format'='csv');
`
		greater := func(a, b jrow) bool { return b.v > a.v }
		mod3 := func(a, b jrow) bool { return (a.v+b.v)%3 == 0 }
		differ := func(a, b jrow) bool { return a.v != b.v }
		for _, tc := range []struct {
			query    string
			kind     string
			interval bool
			where    func(a, b jrow) bool
		}{
			{"SELECT a.id, a.v, b.id, b.v FROM l a LEFT JOIN rb b ON a.id = b.id AND b.v > a.v", "LEFT", false, greater},           // lookup
			{"SELECT a.id, a.v, b.id, b.v FROM lb a FULL JOIN rb b ON a.id = b.id AND MOD(a.v + b.v, 3) = 0", "FULL", false, mod3}, // regular, bounded
			{"SELECT a.id, a.v, b.id, b.v FROM l a RIGHT JOIN r b ON a.id = b.id AND a.v <> b.v", "RIGHT", false, differ},          // regular, event time
			{"SELECT a.id, a.v, b.id, b.v FROM l a LEFT JOIN r b ON a.id = b.id AND b.ts BETWEEN a.ts - 300 AND a.ts + 200 AND a.v <> b.v", "LEFT", true, differ},
			{"SELECT a.id, a.v, b.id, b.v FROM l a FULL JOIN r b ON a.id = b.id AND b.ts >= a.ts - 300 AND b.ts <= a.ts + 200 AND b.v > a.v", "FULL", true, greater},
		} {
			out, errs, code := runSQL(t, files, ddl+tc.query+";\n", "--format", "csv")
			if code != 0 {
				t.Fatalf("seed %d: %s: exit %d: %s", seed, tc.query, code, errs)
			}
			var got []string
			if strings.HasPrefix(out, "op,") { // an updating result (a regular outer join): its final table
				got = applyChangelog(t, out)
			} else {
				got = strings.Split(strings.TrimSpace(out), "\n")[1:]
				slices.Sort(got)
			}
			want := referencePairsWhere(l, rr, tc.kind, tc.interval, -300, 200, tc.where)
			if !slices.Equal(got, want) {
				t.Fatalf("seed %d: %s:\n got %q\nwant %q", seed, tc.query, got, want)
			}
		}
	}
}
