package executor

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"streamql/catalog"
	"streamql/executor/vector"
	"streamql/planner/plan"
)

// TestDerivedKafkaWatermarkProperty (SPEC 2.5, 2.6; plan.Derived.StreamWatermarks):
// a window over a view, WITH name or subquery that filters and projects a
// Kafka stream (read whole, no consumer group, so the relation is read as a
// job of its own) sees the stream's watermarks: each row late by its
// partition's watermark before it, which rows the relation's WHERE dropped
// moved too, and the windows fired as the partitions' minimum passes their
// end. So the window over the relation gives, row for row and in order, what
// the same window gives over the stream with the relation's WHERE inline:
// random rows of two interleaved partitions (read through groupFake, the
// same batches both ways), random filters, delays and windows (TUMBLE, HOP,
// CUMULATE, SESSION), a view over a view, a 10 s TUMBLE over the
// window_time of a relation of 2 s TUMBLE TVF rows (the same windows as
// over ts), and CURRENT_WATERMARK (the row's partition's) over a subquery. The relation recomputed the watermark over
// the rows it kept, one for both partitions, so rows of a lagging
// partition were late there that are on time over the stream, and rows
// late over the stream (by rows the WHERE dropped) were counted.
func TestDerivedKafkaWatermarkProperty(t *testing.T) {
	filters := []string{"k <> 'k1'", "k = 'k0'", "ts % 3 <> 0", "ts % 2 = 0 OR k = 'k2'"}
	windows := []string{
		"TUMBLE(TABLE %s, DESCRIPTOR(ts), INTERVAL '10' SECOND)",
		"HOP(TABLE %s, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '15' SECOND)",
		"CUMULATE(TABLE %s, DESCRIPTOR(ts), INTERVAL '4' SECOND, INTERVAL '12' SECOND)",
		"SESSION(TABLE %s PARTITION BY k, DESCRIPTOR(ts), INTERVAL '3' SECOND)",
	}
	const with = "'connector'='kafka', 'topic'='t', 'properties.bootstrap.servers'='127.0.0.1:9', 'format'='csv'"
	differs, lates := 0, 0
	for seed := int64(1); seed <= 40; seed++ {
		rng := rand.New(rand.NewSource(seed))
		rows := tornRows(rng)
		f := filters[rng.Intn(len(filters))]
		win := windows[rng.Intn(len(windows))]
		wm := []string{"ts", "ts - INTERVAL '2' SECOND", "ts - INTERVAL '1500' MILLISECOND"}[rng.Intn(3)]
		agg := func(rel, where string) string {
			return "SELECT window_start, window_end, k, COUNT(*) AS n, SUM(ts) AS s FROM TABLE(" + fmt.Sprintf(win, rel) + ")" + where +
				" GROUP BY window_start, window_end, k LATE INTO SIDE 'lt'"
		}
		cases := []struct{ name, q, ref string }{
			{"WITH", "WITH v AS (SELECT k, ts FROM s WHERE " + f + ") " + agg("v", ""), agg("s", " WHERE "+f)},
			{"WITH projecting", "WITH v AS (SELECT k, ts, ts * 2 AS t2 FROM s WHERE " + f + ") SELECT window_start, window_end, k, COUNT(*) AS n, SUM(t2) AS s FROM TABLE(" + fmt.Sprintf(win, "v") + ") GROUP BY window_start, window_end, k LATE INTO SIDE 'lt'",
				"SELECT window_start, window_end, k, COUNT(*) AS n, SUM(ts * 2) AS s FROM TABLE(" + fmt.Sprintf(win, "s") + ") WHERE " + f + " GROUP BY window_start, window_end, k LATE INTO SIDE 'lt'"},
			{"over a relation over a relation", "WITH v AS (SELECT * FROM s WHERE " + f + "), w AS (SELECT k, ts FROM v WHERE ts % 5 <> 1) " + agg("w", ""), agg("s", " WHERE ("+f+") AND ts % 5 <> 1")},
			{"window TVF", "WITH v AS (SELECT k, ts, window_time FROM TABLE(TUMBLE(TABLE s, DESCRIPTOR(ts), INTERVAL '2' SECOND)) WHERE " + f + ") SELECT window_start, window_end, k, COUNT(*) AS n, SUM(ts) AS s FROM TABLE(TUMBLE(TABLE v, DESCRIPTOR(window_time), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, k LATE INTO SIDE 'lt'",
				"SELECT window_start, window_end, k, COUNT(*) AS n, SUM(ts) AS s FROM TABLE(TUMBLE(TABLE s, DESCRIPTOR(ts), INTERVAL '10' SECOND)) WHERE " + f + " GROUP BY window_start, window_end, k LATE INTO SIDE 'lt'"},
			{"CURRENT_WATERMARK", "SELECT k, ts, CURRENT_WATERMARK(ts) AS w FROM (SELECT k, ts FROM s WHERE " + f + ") q", "SELECT k, ts, CURRENT_WATERMARK(ts) AS w FROM s WHERE " + f},
		}
		for _, c := range cases {
			var got [2]string
			for k, q := range []string{c.q, c.ref} {
				st, cat := streamS(t, wm, with)
				job := planWith(t, cat, q)
				out := strings.Split(runOnePart(t, job, st, rows, rand.New(rand.NewSource(seed*31))), "\n") // (the same batches both ways)
				if k == 0 && (c.name == "WITH projecting" || c.name == "window TVF") {
					for i, l := range out { // (its late rows are the relation's: k, ts, t2 or window_time)
						if strings.HasPrefix(l, "lt: ") {
							out[i] = l[:strings.LastIndexByte(l, ',')]
						}
					}
				}
				got[k] = strings.Join(out, "\n")
			}
			if got[0] != got[1] {
				t.Fatalf("seed %d, %s, WATERMARK FOR ts AS %s:\n%s\ngives\n%s\nwhere the stream with the WHERE inline gives (SPEC 2.5, 2.6)\n%s\n%s", seed, c.name, wm, c.q, got[0], c.ref, got[1])
			}
			lates += strings.Count(got[0], "lt: ")
			if c.name == "WITH" && got[0] != recomputed(t, rows, wm, with, c.q, seed) {
				differs++
			}
		}
	}
	if lates == 0 || differs == 0 {
		t.Errorf("%d late rows, %d runs where the stream's watermark made a difference: the test checks too little", lates, differs)
	}
}

// recomputed runs q with the relation read as before plan.Derived.StreamWatermarks
// (its reader's own watermark over the rows it kept), for the property
// test's count of runs the change decides.
func recomputed(t *testing.T, rows []replayRow, wm, with, q string, seed int64) string {
	st, cat := streamS(t, wm, with)
	job := planWith(t, cat, q)
	for _, s := range job.Streams() {
		if d := plan.DerivedOf(s); d != nil {
			d.Stamps, d.StreamWatermarks = false, false
		}
	}
	job.BatchTypes = job.BatchTypes[:job.WatermarkCol+1]
	return runOnePart(t, job, st, rows, rand.New(rand.NewSource(seed*31)))
}

// TestAdvancePartsAllocatesNothing: the watermark assigner of a relation
// whose rows carry their stamps and their stream's watermark
// (watermarker.advanceParts, plan.Derived.StreamWatermarks) stamps a batch
// and makes its marks without an allocation, with and without
// 'watermark.max-future”s window ranges (maxFuture.advance), once its
// marks buffer has grown.
func TestAdvancePartsAllocatesNothing(t *testing.T) {
	types := []catalog.Type{catalog.Varchar, catalog.BigInt, catalog.BigInt, catalog.BigInt, catalog.BigInt}
	b := vector.NewBatch(types)
	for i := range vector.Cap {
		b.Cols[1].I[i] = int64(i * 10)
		b.Cols[2].I[i], b.Cols[3].I[i], b.Cols[4].I[i] = int64(i*10-5), int64(i*10-7), int64(i*10-3)
	}
	b.N = vector.Cap
	sel := make([]int32, vector.Cap)
	job := &plan.Job{WatermarkCol: 2, BatchTypes: types}
	for _, m := range []*maxFuture{nil, {wins: []winRange{{col: 1, lo: -1 << 40, hi: 1 << 40}}, col: 1, rej: make([]int32, 0, vector.Cap)}} {
		w := &watermarker{job: job, carried: true, carriedParts: true, offCol: -1, max: m}
		buf := make([]Mark, 0, 2*vector.Cap)
		run := func() {
			w.set = false
			for i := range sel {
				sel[i] = int32(i)
			}
			var marks []Mark
			if m != nil {
				_, marks = m.advance(w, b, sel, buf[:0], true)
			} else {
				marks = w.advance(b, sel, buf[:0], true)
			}
			if len(marks) != 2*vector.Cap || b.Cols[2].I[7] != 65 {
				t.Fatalf("%d marks, row 7's stamp %d: want %d marks (before and after each row), its own stamp 65", len(marks), b.Cols[2].I[7], 2*vector.Cap)
			}
		}
		if a := testing.AllocsPerRun(20, run); a != 0 {
			t.Errorf("max-future %v: %.1f allocations a batch, want 0", m != nil, a)
		}
	}
}
