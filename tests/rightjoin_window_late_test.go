package tests

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// TestWindowOverRightIntervalJoinLateInputs (SPEC 2.3, 2.4, 2.6, 2.7): a
// TUMBLE aggregate over a view of a RIGHT interval join (its output keeps
// the right side's time, plan.BothJoin.OutputTime), over random file
// inputs with rows out of order (so some are late for their own stream's
// watermark and go to the join's late output, joining nothing), random
// watermark delays and random interval bounds, gives the windows of a
// reference written here from the SPEC alone: each stream's watermark
// before each row in file order (the maximum of ts - delay over the rows
// before it), its late rows left out, a nested-loop RIGHT join of the
// rest with l.ts - r.ts in [lo, hi], then the windows over all joined
// rows (the bounds as plain millisecond offsets of a BIGINT time,
// r.ts -2000, the executor's test writes INTERVALs); and no joined row reaches the window's late output ('lt'): the
// join gives none behind the watermark it gives.
func TestWindowOverRightIntervalJoinLateInputs(t *testing.T) {
	type row struct {
		k  string
		ts int64
	}
	const size = 2000
	rng := rand.New(rand.NewSource(13))
	gen := func(n int) []row {
		var rows []row
		ts := int64(rng.Intn(2000))
		for range n {
			ts += int64(rng.Intn(1200))
			t := ts
			if rng.Intn(5) == 0 { // (out of order: late when the watermark passed it)
				t = max(0, ts-int64(rng.Intn(4000)))
			}
			rows = append(rows, row{string(rune('a' + rng.Intn(3))), t})
		}
		return rows
	}
	// onTime returns the rows that are not late for their stream (SPEC 2.3).
	onTime := func(rows []row, delay int64) []row {
		var out []row
		var wm int64
		set := false
		for _, x := range rows {
			if !set || x.ts >= wm {
				out = append(out, x)
			}
			if v := x.ts - delay; !set || v > wm {
				wm, set = v, true
			}
		}
		return out
	}
	bounds := [][2]int64{{-2000, 1000}, {0, 3000}, {500, 2500}, {-3000, -500}, {-1000, 0}}
	rounds := 20
	if testing.Short() {
		rounds = 5
	}
	lateIn, padded := 0, 0 // (what the rounds exercised)
	for round := range rounds {
		lrows, rrows := gen(5+rng.Intn(25)), gen(5+rng.Intn(25))
		ld, rd := int64(rng.Intn(3))*500, int64(rng.Intn(3))*500
		b := bounds[rng.Intn(len(bounds))]
		lo, hi := b[0], b[1]
		// the reference
		lok, rok := onTime(lrows, ld), onTime(rrows, rd)
		lateIn += len(lrows) - len(lok) + len(rrows) - len(rok)
		type win struct {
			start int64
			k     string
		}
		n, c := map[win]int{}, map[win]int{}
		for _, y := range rok {
			w := win{y.ts - y.ts%size, y.k}
			matched := 0
			for _, x := range lok {
				if x.k == y.k && x.ts >= y.ts+lo && x.ts <= y.ts+hi {
					matched++
				}
			}
			if matched == 0 {
				padded++
			}
			n[w] += max(1, matched)
			c[w] += matched
		}
		var want []string
		for w, cnt := range n {
			want = append(want, fmt.Sprintf("main,%d,%s,%d,%d", w.start, w.k, cnt, c[w]))
		}
		// the engine
		csv := func(rows []row) string {
			var sb strings.Builder
			for _, x := range rows {
				fmt.Fprintf(&sb, "%s,%d\n", x.k, x.ts)
			}
			return sb.String()
		}
		sql := fmt.Sprintf(`CREATE STREAM l (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '%d' MILLISECOND) WITH ('connector'='file', 'path'='l.csv', 'format'='csv');
CREATE STREAM r (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '%d' MILLISECOND) WITH ('connector'='file', 'path'='r.csv', 'format'='csv');
CREATE VIEW j AS SELECT r.k AS k, r.ts AS t, l.ts AS p FROM l RIGHT JOIN r ON l.k = r.k AND l.ts BETWEEN r.ts %+d AND r.ts %+d;
SELECT window_start, k, COUNT(*) AS n, COUNT(p) AS c FROM TABLE(TUMBLE(TABLE j, DESCRIPTOR(t), INTERVAL '%d' MILLISECOND)) GROUP BY window_start, window_end, k LATE INTO SIDE 'lt';
`, ld, rd, lo, hi, size)
		out, errs, code := runSQL(t, map[string]string{"l.csv": csv(lrows), "r.csv": csv(rrows)}, sql, "--format", "csv")
		if code != 0 {
			t.Fatalf("round %d: exit %d: %s", round, code, errs)
		}
		var got []string
		for _, l := range outputRows(out) {
			if strings.HasPrefix(l, "main,") || strings.HasPrefix(l, "lt,") {
				got = append(got, l)
			}
		}
		if g, w := sortedLines(got), sortedLines(want); g != w {
			t.Fatalf("round %d, delays %d/%d ms, l.ts - r.ts in [%d, %d]\nl:\n%sr:\n%sgot:\n%s\nwant (no 'lt' row: no joined row is late at the window):\n%s",
				round, ld, rd, lo, hi, csv(lrows), csv(rrows), g, w)
		}
	}
	if lateIn == 0 || padded == 0 {
		t.Errorf("the inputs had %d late rows and %d padded right rows: the test checks nothing of them", lateIn, padded)
	}
}
