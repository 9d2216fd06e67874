package tests

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestWindowOverSubqueryAgainstReference: a window TVF whose table argument
// is a subquery (SPEC 2.4, 2.6; Flink's TUMBLE(TABLE (SELECT …), …) and
// TUMBLE((SELECT …), …); issue 23 item 4) gives the windows a separately
// written batch computation over the whole input gives: the subquery's rows
// (a filter, a projection, a UNION ALL of two streams) grouped per key and
// window by arithmetic (TUMBLE and HOP) or by merging each key's rows whose
// gaps are at most the session gap (SESSION), as multisets, for random
// inputs (times strictly increasing per stream: no row is late). The same
// query over the stream with the filter in its WHERE gives them too.
func TestWindowOverSubqueryAgainstReference(t *testing.T) {
	const size, slide, gap = 10000, 5000, 3000
	for seed := range 12 {
		r := rand.New(rand.NewPCG(uint64(seed), 41))
		a, b := genCrows(r, 1+r.IntN(80)), genCrows(r, 1+r.IntN(80))
		files := map[string]string{"a.csv": crowFile(a), "b.csv": crowFile(b)}
		c := r.Int64N(100) - 50
		var kept, both []crow
		for _, x := range a {
			if x.v > c {
				kept = append(kept, x)
			}
		}
		both = append(both, kept...)
		for _, x := range b {
			if x.v <= c {
				both = append(both, x)
			}
		}
		type group struct {
			k      string
			ws, we int64
		}
		windows := func(rows []crow, kind string) []string {
			n, s := map[group]int64{}, map[group]int64{}
			add := func(g group, v int64) { n[g]++; s[g] += v }
			switch kind {
			case "tumble":
				for _, x := range rows {
					ws := x.ts - x.ts%size
					add(group{x.k, ws, ws + size}, x.v)
				}
			case "hop":
				for _, x := range rows {
					for ws := x.ts - x.ts%slide - size + slide; ws <= x.ts; ws += slide {
						add(group{x.k, ws, ws + size}, x.v)
					}
				}
			case "session":
				byKey := map[string][]crow{}
				for _, x := range rows {
					byKey[x.k] = append(byKey[x.k], x)
				}
				for k, xs := range byKey {
					slices.SortFunc(xs, func(p, q crow) int { return int(p.ts - q.ts) })
					start, last, cnt, sum := xs[0].ts, xs[0].ts, int64(0), int64(0)
					for i, x := range xs {
						if i > 0 && x.ts > last+gap {
							g := group{k, start, last + gap}
							n[g], s[g] = cnt, sum
							start, cnt, sum = x.ts, 0, 0
						}
						last = x.ts
						cnt++
						sum += x.v
					}
					g := group{k, start, last + gap}
					n[g], s[g] = cnt, sum
				}
			}
			var out []string
			for g, cnt := range n {
				out = append(out, fmt.Sprintf("%s,%d,%d,%d,%d", g.k, g.ws, g.we, cnt, s[g]))
			}
			return canonical(out)
		}
		sub := fmt.Sprintf("(SELECT k, ts, v FROM a WHERE v > %d)", c)
		union := fmt.Sprintf("(SELECT k, ts, v FROM a WHERE v > %d UNION ALL SELECT k, ts, v FROM b WHERE v <= %d)", c, c)
		tumble := "INTERVAL '10' SECOND"
		hop := "INTERVAL '5' SECOND, INTERVAL '10' SECOND"
		session := "INTERVAL '3' SECOND"
		cases := []struct {
			name, tvf string
			rows      []crow
			kind      string
		}{
			{"TUMBLE(TABLE (SELECT …))", "TUMBLE(TABLE " + sub + ", DESCRIPTOR(ts), " + tumble + ")", kept, "tumble"},
			{"TUMBLE((SELECT …))", "TUMBLE(" + sub + ", DESCRIPTOR(ts), " + tumble + ")", kept, "tumble"},
			{"TUMBLE(TABLE s) WHERE", "TUMBLE(TABLE a, DESCRIPTOR(ts), " + tumble + ")", kept, "tumble"},
			{"HOP(TABLE (SELECT …))", "HOP(TABLE " + sub + ", DESCRIPTOR(ts), " + hop + ")", kept, "hop"},
			{"SESSION(TABLE (SELECT …) PARTITION BY k)", "SESSION(TABLE " + sub + " PARTITION BY k, DESCRIPTOR(ts), " + session + ")", kept, "session"},
			{"TUMBLE((UNION ALL))", "TUMBLE(" + union + ", DESCRIPTOR(ts), " + tumble + ")", both, "tumble"},
			{"HOP(TABLE (UNION ALL))", "HOP(TABLE " + union + ", DESCRIPTOR(ts), " + hop + ")", both, "hop"},
		}
		for _, tc := range cases {
			where := ""
			if strings.Contains(tc.name, "WHERE") {
				where = fmt.Sprintf(" WHERE v > %d", c)
			}
			q := "SELECT k, window_start, window_end, COUNT(*) AS n, SUM(v) AS s FROM TABLE(" + tc.tvf + ")" + where + " GROUP BY k, window_start, window_end;\n"
			out, errs, code := runSQL(t, files, crowDDL+q, "--format", "csv")
			if code != 0 {
				t.Fatalf("seed %d %s: exit %d: %s\n%s", seed, tc.name, code, errs, q)
			}
			if strings.Contains(errs, "late") {
				t.Fatalf("seed %d %s: late rows, none expected: %s", seed, tc.name, errs)
			}
			got := canonical(strings.Split(strings.TrimSpace(out), "\n")[1:])
			if want := windows(tc.rows, tc.kind); !slices.Equal(got, want) {
				t.Fatalf("seed %d %s: %s\n got %q\nwant %q", seed, tc.name, q, got, want)
			}
		}
	}
}
