package tests

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestUnionWatermarkMinimum: a UNION ALL of streams whose WATERMARKs hold
// one column back by different delays keeps the column's event time (SPEC
// 2.6: through unions, with the minimum of the inputs' watermarks); it had
// none, so CURRENT_WATERMARK over it was an error. Its rows come in
// event-time order (the earliest head row first, the first part on a tie)
// and its watermark is the greatest time so far less the largest delay, or
// the least of the live parts' own watermarks when that is more (a part
// that ended is +inf, SPEC 2.3; plan.Derived.Stamps): random inputs against that merge and watermark computed here, through
// CURRENT_WATERMARK and a TUMBLE count per window (the parts in order, so no
// row is late). Watermarks of other forms still give the union no event
// time.
func TestUnionWatermarkMinimum(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 4))
	for round := range 6 {
		delays := []int64{int64(rng.IntN(4)) * 500, int64(rng.IntN(4)) * 500, int64(rng.IntN(4)) * 500}
		type row struct {
			id string
			ts int64
		}
		var parts [3][]row
		files := map[string]string{}
		ddl := ""
		for p := range parts {
			var sb strings.Builder
			ts := int64(rng.IntN(2000))
			for i := range 5 + rng.IntN(8) {
				ts += int64(rng.IntN(900))
				r := row{fmt.Sprintf("p%d-%d", p, i), ts}
				parts[p] = append(parts[p], r)
				fmt.Fprintf(&sb, "%s,%d\n", r.id, r.ts)
			}
			files[fmt.Sprintf("u%d.csv", p)] = sb.String()
			wm := "ts"
			if delays[p] > 0 {
				wm = fmt.Sprintf("ts - INTERVAL '%d' MILLISECOND", delays[p])
			}
			ddl += fmt.Sprintf("CREATE STREAM u%d (id VARCHAR, ts BIGINT, WATERMARK FOR ts AS %s) WITH ('connector'='file', 'path'='u%d.csv', 'format'='csv');\n", p, wm, p)
		}
		ddl += "CREATE VIEW v AS SELECT id, ts FROM u0 UNION ALL SELECT id, ts FROM u1 UNION ALL SELECT id, ts FROM u2;\n"
		// the reference: merge by time (first part on a tie), the watermark
		// before each row the greatest time so far less the largest delay,
		// or, when more, the least of the parts' own watermarks before
		// their next rows, a part that has given all its rows left out (its
		// watermark is +inf once it ends, SPEC 2.3), unset while one of
		// them is unset
		maxDelay := max(delays[0], delays[1], delays[2])
		var want strings.Builder
		want.WriteString("id,ts,wm\n")
		counts := map[int64]int{}
		var at [3]int
		seen, hi := false, int64(0)
		for {
			best := -1
			for p := range parts {
				if at[p] < len(parts[p]) && (best < 0 || parts[p][at[p]].ts < parts[best][at[best]].ts) {
					best = p
				}
			}
			if best < 0 {
				break
			}
			r := parts[best][at[best]]
			at[best]++
			low, lowSet, lowNull := int64(0), false, false
			for p := range parts {
				switch {
				case p != best && at[p] >= len(parts[p]):
				case p == best && at[p] == 1 || p != best && at[p] == 0:
					lowNull = true
				default:
					k := at[p] - 1
					if p == best {
						k--
					}
					if v := parts[p][k].ts - delays[p]; !lowSet || v < low {
						low, lowSet = v, true
					}
				}
			}
			wm := ""
			switch {
			case seen && lowSet && !lowNull:
				wm = fmt.Sprint(max(hi-maxDelay, low))
			case seen:
				wm = fmt.Sprint(hi - maxDelay)
			}
			fmt.Fprintf(&want, "%s,%d,%s\n", r.id, r.ts, wm)
			seen, hi = true, max(hi, r.ts)
			counts[r.ts-r.ts%1000]++
		}
		got, stderr, code := runSQL(t, files, ddl+"SELECT id, ts, CURRENT_WATERMARK(ts) AS wm FROM v;\n", "--format", "csv")
		if code != 0 || got != want.String() {
			t.Fatalf("round %d, delays %v (exit %d, %s):\n%s\nwant:\n%s", round, delays, code, stderr, got, want.String())
		}
		var wc strings.Builder
		wc.WriteString("window_start,n\n")
		for s := int64(0); s < 20000; s += 1000 {
			if counts[s] > 0 {
				fmt.Fprintf(&wc, "%d,%d\n", s, counts[s])
			}
		}
		got, stderr, code = runSQL(t, files, ddl+"SELECT window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE v, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY window_start, window_end;\n", "--format", "csv")
		if code != 0 || got != wc.String() || strings.Contains(stderr, "late") {
			t.Fatalf("round %d, delays %v (exit %d, %s):\n%s\nwant:\n%s", round, delays, code, stderr, got, wc.String())
		}
	}
	files := map[string]string{"a.csv": "x,1\n", "b.csv": "y,2\n"}
	ddl := "CREATE STREAM a (id VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts * 2) WITH ('connector'='file', 'path'='a.csv', 'format'='csv');\n" +
		"CREATE STREAM b (id VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='b.csv', 'format'='csv');\n"
	_, stderr, code := runSQL(t, files, ddl+"SELECT CURRENT_WATERMARK(ts) AS wm FROM (SELECT id, ts FROM a UNION ALL SELECT id, ts FROM b) u;\n")
	if code != 2 || !strings.Contains(stderr, "has no watermark on 'ts'") {
		t.Errorf("a union of other watermarks: exit %d, %s; want no event time", code, stderr)
	}
}
