package tests

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// refTemporal is a temporal join step (SPEC 2.7's table: each left row joins
// the version of its key valid at its time) computed from the SPEC alone over
// whole inputs: for each row of acc, the row of versions with the same id
// whose ts is the largest not above the time at acc's column side (versions'
// ts are distinct here), nil when there is none; INNER drops such a row,
// LEFT pads it. A padded left row (nil at side) finds no version.
func refTemporal(acc []joinedRow, side int, versions []jrow, kind string) []joinedRow {
	var out []joinedRow
	for _, a := range acc {
		var best *jrow
		if l := a[side]; l != nil {
			for k := range versions {
				v := &versions[k]
				if v.id == l.id && v.ts <= l.ts && (best == nil || v.ts > best.ts) {
					best = v
				}
			}
		}
		if best != nil || kind == "LEFT" {
			out = append(out, append(append(joinedRow(nil), a...), best))
		}
	}
	return out
}

// distinctTimeRows returns n rows in rising time, each ts i*100 moved by up
// to spread/2 either way (out of order when spread exceeds 100), no two
// with one ts (so a version lookup by the greatest ts not above a time has
// one answer); ids k0 to k<keys-1>, and about one in blankEvery the empty
// id (a VARCHAR field read as ”, SPEC 1); v is the row's index.
func distinctTimeRows(r *rand.Rand, n int, spread int64, keys, blankEvery int) []jrow {
	rows := make([]jrow, n)
	used := map[int64]bool{}
	for i := range rows {
		ts := int64(i*100) + r.Int64N(spread) - spread/2
		for used[ts] {
			ts++
		}
		used[ts] = true
		id := fmt.Sprintf("k%d", r.IntN(keys))
		if r.IntN(blankEvery) == 0 {
			id = ""
		}
		rows[i] = jrow{id: id, ts: ts, v: i}
	}
	return rows
}

// TestTemporalJoinInAFromOfMoreAgainstReference: a temporal join (JOIN p
// FOR SYSTEM_TIME AS OF a.ts) is one of the joins of a FROM of three
// relations at any place (SPEC 2.6: every operator composes; 2.7: a FROM of
// more relations is a tree of two-input joins): the first join, the second
// one (AS OF the left relation's time column, which the first join keeps),
// nested on the right side, in a comma join, INNER and LEFT. The planner
// refused each but the last join of the FROM ("FOR SYSTEM_TIME AS OF stands
// after the right side of a JOIN", then "takes the left side's event-time
// column (a JOIN b).ts, not a.ts"). The rows are compared with nested loops
// over the on-time rows and a version lookup written from the SPEC.
func TestTemporalJoinInAFromOfMoreAgainstReference(t *testing.T) {
	for seed := range 12 {
		r := rand.New(rand.NewPCG(uint64(seed), 19))
		l, p, m := distinctTimeRows(r, 5+r.IntN(30), 1500, 4, 8), distinctTimeRows(r, 5+r.IntN(30), 1500, 4, 8), distinctTimeRows(r, 3+r.IntN(15), 100, 4, 8)
		files := map[string]string{"l.csv": jrowFile(l), "p.csv": jrowFile(p), "m.csv": jrowFile(m)}
		ddl := `CREATE STREAM l (id VARCHAR, ts BIGINT, v BIGINT, WATERMARK FOR ts AS ts - INTERVAL '0.5' SECOND) WITH ('connector'='file', 'path'='l.csv', 'format'='csv');
CREATE STREAM p (id VARCHAR, ts BIGINT, v BIGINT, WATERMARK FOR ts AS ts - INTERVAL '0.5' SECOND, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector'='file', 'path'='p.csv', 'format'='csv');
CREATE STREAM mb (id VARCHAR, ts BIGINT, v BIGINT) WITH ('connector'='file', 'path'='m.csv', 'format'='csv');
`
		lk, _ := onTime(l, 500)
		pk, _ := onTime(p, 500)
		// (the columns as selected: a, then p, then b; swap reorders the
		// reference's relations into that order)
		swap := func(rows []joinedRow) []joinedRow {
			out := make([]joinedRow, len(rows))
			for i, x := range rows {
				out[i] = joinedRow{x[0], x[2], x[1]}
			}
			return out
		}
		// the rows of l a JOIN (l c JOIN p ...) ON a.id = c.id AND a.ts BETWEEN c.ts AND c.ts + 300:
		// c's row with its version, then a
		nested := func() []joinedRow {
			var out []joinedRow
			for _, cp := range refTemporal(joinedOne(lk), 0, pk, "INNER") {
				for k := range lk {
					a := &lk[k]
					if a.id == cp[0].id && a.ts >= cp[0].ts && a.ts <= cp[0].ts+300 {
						out = append(out, joinedRow{a, cp[1], cp[0]})
					}
				}
			}
			return out
		}
		sel := "SELECT a.id, a.v, p.id, p.v, b.id, b.v FROM "
		checkJoinCases(t, seed, files, ddl, sel, []joinCase{
			{"l a JOIN p FOR SYSTEM_TIME AS OF a.ts ON a.id = p.id JOIN mb b ON b.id = a.id", refJoin(refTemporal(joinedOne(lk), 0, pk, "INNER"), m, "INNER", sameID(0))},
			{"l a LEFT JOIN p FOR SYSTEM_TIME AS OF a.ts ON a.id = p.id LEFT JOIN mb b ON b.id = p.id", refJoin(refTemporal(joinedOne(lk), 0, pk, "LEFT"), m, "LEFT", sameID(1))},
			{"l a JOIN mb b ON a.id = b.id JOIN p FOR SYSTEM_TIME AS OF a.ts ON p.id = a.id", swap(refTemporal(refJoin(joinedOne(lk), m, "INNER", sameID(0)), 0, pk, "INNER"))},
			{"l a LEFT JOIN mb b ON a.id = b.id LEFT JOIN p FOR SYSTEM_TIME AS OF a.ts ON p.id = a.id", swap(refTemporal(refJoin(joinedOne(lk), m, "LEFT", sameID(0)), 0, pk, "LEFT"))},
			{"l a, p FOR SYSTEM_TIME AS OF a.ts, mb b WHERE a.id = p.id AND b.id = a.id", refJoin(refTemporal(joinedOne(lk), 0, pk, "INNER"), m, "INNER", sameID(0))},
			{"l a JOIN (l b JOIN p FOR SYSTEM_TIME AS OF b.ts ON b.id = p.id) ON a.id = b.id AND a.ts BETWEEN b.ts AND b.ts + 300", nested()},
		})
	}
}

// TestTemporalJoinInAFromOfMoreNamesTheTimeColumn: in a FROM of more
// relations, FOR SYSTEM_TIME AS OF takes the left side's event-time column
// as the query names it (a.ts, or ts when one relation has it); another
// column, or a name two relations have, is a planning error at the column
// that names the one to write.
func TestTemporalJoinInAFromOfMoreNamesTheTimeColumn(t *testing.T) {
	files := map[string]string{"l.csv": "k1,100,1\n", "p.csv": "k1,50,2\n", "m.csv": "k1,7,3\n"}
	ddl := `CREATE STREAM l (id VARCHAR, ts BIGINT, v BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='l.csv', 'format'='csv');
CREATE STREAM p (id VARCHAR, ts BIGINT, v BIGINT, WATERMARK FOR ts AS ts, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector'='file', 'path'='p.csv', 'format'='csv');
CREATE STREAM mb (id VARCHAR, t2 BIGINT, w BIGINT) WITH ('connector'='file', 'path'='m.csv', 'format'='csv');
CREATE STREAM mb2 (id VARCHAR, ts BIGINT, w BIGINT) WITH ('connector'='file', 'path'='m.csv', 'format'='csv');
`
	for _, tc := range []struct{ asOf, from, want string }{
		{"a.ts", "mb", "k1,1,2,3"},
		{"ts", "mb", "k1,1,2,3"},
		{"a.v", "mb", "error: FOR SYSTEM_TIME AS OF takes the left side's event-time column a.ts, not a.v"},
		{"b.t2", "mb", "error: FOR SYSTEM_TIME AS OF takes the left side's event-time column a.ts, not b.t2"},
		{"ts", "mb2", "error: FOR SYSTEM_TIME AS OF takes the left side's event-time column a.ts, not ts"},
	} {
		q := fmt.Sprintf("SELECT a.id, a.v, p.v, b.w FROM l a JOIN %s b ON a.id = b.id JOIN p FOR SYSTEM_TIME AS OF %s ON p.id = a.id;\n", tc.from, tc.asOf)
		out, errs, code := runSQL(t, files, ddl+q, "--format", "csv")
		if strings.HasPrefix(tc.want, "error: ") {
			if code != 2 || !strings.HasPrefix(errs, tc.want) || !strings.Contains(errs, "^") {
				t.Errorf("AS OF %s: exit %d, stderr %q; want exit 2 and %q with a caret", tc.asOf, code, errs, tc.want)
			}
			continue
		}
		if got := csvRows(out); code != 0 || !slices.Equal(got, []string{tc.want}) {
			t.Errorf("AS OF %s: exit %d, rows %q (%s); want %q", tc.asOf, code, got, errs, tc.want)
		}
	}
}
