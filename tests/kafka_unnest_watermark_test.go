package tests

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"streamql/tests/kafkatest"
)

// TestKafkaUnnestWatermark (SPEC 2.3, 2.5, 2.10; issue 23 item 6), against
// the real broker: CROSS JOIN UNNEST over a two-partition topic stamps each
// unnested row with its own partition's watermark before its input row
// (records whose ARRAY is NULL move it too; an unnested row moves it after
// it, as any row), so CURRENT_WATERMARK equals a reference computed from
// each partition's records alone, whatever the consumer's interleaving;
// and a TUMBLE over a view of the unnested rows calls late exactly the rows
// late in their partition, counting the others. Partition 0
// runs 20 s ahead of partition 1: with one watermark over both, as before,
// the rows of partition 1 were late.
func TestKafkaUnnestWatermark(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	var vals []string
	var ps []int32
	var want []string
	var late []string
	var wm [2]int64
	var set [2]bool
	ts := [2]int64{20_000, 0}
	for range 200 {
		p := rng.Intn(2)
		ts[p] += int64(rng.Intn(700))
		at := ts[p]
		if rng.Intn(8) == 0 {
			at -= int64(rng.Intn(5_000)) // (sometimes late in its partition)
		}
		k := fmt.Sprint("k", rng.Intn(3))
		vals = append(vals, fmt.Sprintf("%s,%d", k, at))
		ps = append(ps, int32(p))
		n := map[string]int{"k0": 2, "k1": 1}[k] // (k2: a NULL ARRAY, no row)
		for range n {
			stamp := ""
			if set[p] {
				stamp = fmt.Sprint(wm[p])
			}
			want = append(want, fmt.Sprintf("%s,%d,%s", k, at, stamp))
			ws := at - ((at%2000)+2000)%2000 // (floored: a time below 0 is in the window before 0)
			if set[p] && ws+2000 <= wm[p] {  // (its window fired at its partition's watermark, SPEC 2.4, 2.5)
				late = append(late, fmt.Sprintf("%s,%d", k, at))
			}
			if !set[p] || at-1000 > wm[p] {
				wm[p], set[p] = at-1000, true
			}
		}
		if !set[p] || at-1000 > wm[p] {
			wm[p], set[p] = at-1000, true
		}
	}
	in := kafkatest.CreateTopic(t, 2, nil)
	produceValues(t, in, vals, ps)
	const cols = "k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND"
	const arr = "CASE WHEN k = 'k0' THEN ARRAY[k, k] WHEN k = 'k1' THEN ARRAY[k] END"
	stream := kafkaStream(t, "s", cols, in, ", 'format'='csv', 'scan.startup.mode'='earliest-offset', 'scan.bounded.mode'='latest-offset'")
	out, errs, code := runSQL(t, nil, stream+"SELECT k, ts, CURRENT_WATERMARK(ts) AS wm FROM s CROSS JOIN UNNEST("+arr+") AS t (y);\n", "--format", "csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	rows := outputRows(out)
	if got, w := sortedLines(rows[1:]), sortedLines(want); got != w {
		t.Fatalf("CURRENT_WATERMARK of the unnested rows: got\n%s\nwant (each row its partition's, SPEC 2.5)\n%s", got, w)
	}
	// a window over the unnested rows: its late rows are those late in
	// their partition, the others are all counted
	out, errs, code = runSQL(t, nil, stream+"CREATE VIEW v AS SELECT k, ts FROM s CROSS JOIN UNNEST("+arr+") AS t (y);\n"+
		"SELECT window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE v, DESCRIPTOR(ts), INTERVAL '2' SECOND)) GROUP BY window_start, window_end LATE INTO SIDE 'lt';\n", "--format", "csv")
	if code != 0 {
		t.Fatalf("window: exit %d: %s", code, errs)
	}
	counted, lateRows := 0, 0
	for _, l := range outputRows(out) {
		f := strings.Split(l, ",")
		switch {
		case f[0] == "lt":
			lateRows++
		case f[0] == "main" && len(f) == 3:
			var n int
			fmt.Sscan(f[2], &n)
			counted += n
		}
	}
	if counted+lateRows != len(want) || lateRows != len(late) || len(late) == 0 {
		t.Fatalf("window: %d rows counted and %d late, want %d in all, %d late in their partition:\n%s", counted, lateRows, len(want), len(late), out)
	}
}
