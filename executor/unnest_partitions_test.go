package executor

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// unnestArray is the ARRAY the partition tests unnest per key: two elements
// for k0 and k3, one for k1, none (NULL) for k2 and k4, whose rows still
// move their partition's watermark.
const unnestArray = "CASE WHEN k = 'k0' OR k = 'k3' THEN ARRAY[k, k] WHEN k = 'k1' THEN ARRAY[k] END"

// unnestCount is how many rows unnestArray gives for key k.
func unnestCount(k string) int {
	switch k {
	case "k0", "k3":
		return 2
	case "k1":
		return 1
	}
	return 0
}

// TestUnnestWatermarkPerPartition (SPEC 2.3, 2.5, 2.10; issue 23 item 6):
// CROSS JOIN UNNEST over a partitioned stream (two Kafka partitions read in
// random interleavings and batch sizes) stamps each unnested row with its
// input partition's watermark before its input row, which the partition's
// input rows without unnested rows (a NULL ARRAY) moved too, as Flink's
// unnest passes its input's watermark on (and an unnested row moves it
// after it, as any row): CURRENT_WATERMARK equals a
// reference computed from each partition's input rows alone (ts - 1 s, the
// stream's WATERMARK, in offset order). A TUMBLE over a WITH relation of the
// unnested rows calls no row late (no input row is late in its partition)
// and counts what a reference windowing every unnested row counts: the
// stream's watermark is the partitions' minimum, not the largest of any.
// Before, the job had no partitions and one watermark over all rows, so a
// slower partition's rows were late by the other's. 12 seeds (4 with -short).
func TestUnnestWatermarkPerPartition(t *testing.T) {
	seeds := int64(12)
	if testing.Short() {
		seeds = 4
	}
	for seed := int64(1); seed <= seeds; seed++ {
		rng := rand.New(rand.NewSource(seed))
		used := map[int64]bool{}
		var parts [2][][]replayRow
		parts[0] = pnInput(rng, 20+rng.Intn(60), []int{0, 1, 2, 3}, used)
		// the reference: each partition's input rows in offset order
		var want []string
		windows := map[string]int{}
		for _, rows := range parts[0] {
			wm, set := int64(0), false
			for _, r := range rows {
				for range unnestCount(r.k) {
					stamp := "NULL"
					if set {
						stamp = fmt.Sprint(wm)
					}
					want = append(want, fmt.Sprintf("%s,%d,%s", r.k, r.ts, stamp))
					ws := r.ts - r.ts%2000
					windows[fmt.Sprintf("%d,%d,%s", ws, ws+2000, r.k)]++
					if !set || r.ts-1000 > wm { // (an unnested row moves it too, as any row: TestUnnestPassesWatermark)
						wm, set = r.ts-1000, true
					}
				}
				if !set || r.ts-1000 > wm {
					wm, set = r.ts-1000, true
				}
			}
		}
		slices.Sort(want)
		var wantWindows []string
		for w, n := range windows {
			wantWindows = append(wantWindows, fmt.Sprintf("%s,%d", w, n))
		}
		slices.Sort(wantWindows)

		cat := jaApartCatalog(t, "")
		q := "SELECT k, ts, CURRENT_WATERMARK(ts) AS wm FROM l CROSS JOIN UNNEST(" + unnestArray + ") AS t (y)"
		got := unnestMain(t, jaRunWhole(t, q, cat, planWith(t, cat, q), parts, rand.New(rand.NewSource(seed)), false, "l"))
		if !slices.Equal(got, want) {
			t.Fatalf("seed %d: %s\ngot  %q\nwant %q", seed, q, got, want)
		}

		cat = jaApartCatalog(t, "")
		q = "WITH v AS (SELECT k, ts FROM l CROSS JOIN UNNEST(" + unnestArray + ") AS t (y)) " +
			"SELECT window_start, window_end, k, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE v, DESCRIPTOR(ts), INTERVAL '2' SECOND)) GROUP BY window_start, window_end, k"
		got = unnestMain(t, jaRunWhole(t, q, cat, planWith(t, cat, q), parts, rand.New(rand.NewSource(seed)), false, "l"))
		if !slices.Equal(got, wantWindows) {
			t.Fatalf("seed %d: %s\ngot  %q\nwant %q", seed, q, got, wantWindows)
		}
	}
}

// unnestMain returns the main rows of out (jaRunWhole's lines), sorted;
// any other line (a late row) fails t.
func unnestMain(t *testing.T, out []string) []string {
	t.Helper()
	var got []string
	for _, row := range out {
		v, ok := strings.CutPrefix(row, "main: ")
		if !ok {
			t.Fatalf("a row not of main (none is late): %s", row)
		}
		got = append(got, v)
	}
	slices.Sort(got)
	return got
}
