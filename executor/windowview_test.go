package executor

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"streamql/planner"
)

// TestWindowOverViewInlinedIsTheRelations (the planner's ruleInlineView,
// issue 24 item 5): a TUMBLE, HOP, CUMULATE or SESSION aggregate over a
// relation that filters and projects a Kafka stream in a group, planned as one job
// over the stream, gives row for row and in order (windows, late rows
// with the relation's columns, LATE INTO SIDE's too) what the query gives
// over the relation read as a job of its own (the plan without a consumer
// group), over random rows of one partition, in random batches, 30 seeds
// per query: the relation read as a job of its own carries the stream's
// watermarks through its WHERE (SPEC 2.6, plan.Derived.StreamWatermarks), as the
// inlined job has them (TestDerivedKafkaWatermarkProperty: two partitions).
func TestWindowOverViewInlinedIsTheRelations(t *testing.T) {
	for _, q := range append([]string{
		"WITH v AS (SELECT UPPER(k) AS u, ts * 2 AS t2, ts FROM s) SELECT window_start, u, COUNT(*) AS n, SUM(t2) AS s2 FROM TABLE(TUMBLE(TABLE v, DESCRIPTOR(ts), INTERVAL '10' SECOND)) WHERE t2 % 3 <> 1 GROUP BY window_start, window_end, u",
	}, windowOverViewQueries[:4]...) {
		c := struct{ q, ref string }{q, q} // (the same query both ways)
		ref := c.ref
		windows, lates := 0, 0
		for seed := int64(1); seed <= 30; seed++ {
			rows := onePartRows(rand.New(rand.NewSource(seed)))
			var got [2]string
			for k, run := range []struct {
				q     string
				group bool
			}{{c.q, true}, {ref, false}} {
				with := "'connector'='kafka', 'topic'='t', 'properties.bootstrap.servers'='127.0.0.1:9', 'format'='csv'"
				if run.group {
					with = kafkaGroup
				}
				wm := "ts"
				if seed%2 == 0 {
					wm = "ts - INTERVAL '2' SECOND"
				}
				st, cat := streamS(t, wm, with)
				mb := planBranch(t, cat, run.q)
				job, err := planner.NewJob(mb.Stream, nil, mb, run.q)
				if err != nil {
					t.Fatal(err)
				}
				if inlined := job.Stream == st && job.ReplayStrategy() == "replayed"; inlined != run.group {
					t.Fatalf("%s: planned as one replayed job over the stream: %v, want %v", run.q, inlined, run.group)
				}
				got[k] = strings.Join(runFake(t, job, st, rows, rand.New(rand.NewSource(seed*7+int64(k)))), "\n") // (its rows all of partition 0)
			}
			if got[0] != got[1] {
				t.Fatalf("%s, seed %d: one job over the stream gives\n%s\nthe relation read apart gives\n%s", c.q, seed, got[0], got[1])
			}
			windows += strings.Count(got[0], "main: ")
			lates += strings.Count(got[0], "late: ") + strings.Count(got[0], "tardy: ")
		}
		if windows == 0 || lates == 0 {
			t.Errorf("%s: %d windows and %d late rows written: the test checks too little", c.q, windows, lates)
		}
	}
}

// onePartRows returns random rows of partition 0: keys k0 to k2, times
// rising by up to 2.5 s, one in six going back up to 20 s (late when
// below the watermark; for a 15 s HOP too).
func onePartRows(rng *rand.Rand) []replayRow {
	var rows []replayRow
	ts := int64(rng.Intn(20_000))
	for off := range 60 + rng.Intn(60) {
		ts += int64(rng.Intn(2500))
		at := ts
		if rng.Intn(6) == 0 {
			at -= int64(rng.Intn(20_000))
		}
		rows = append(rows, replayRow{0, int64(off), fmt.Sprintf("k%d", rng.Intn(3)), at})
	}
	return rows
}
