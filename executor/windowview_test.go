package executor

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"streamql/catalog"
	"streamql/executor/connector"
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
		inlinedIsTheRelations(t, q, "", false) // (the same query both ways)
	}
}

// inlinedIsTheRelations checks that query q over a relation that filters
// and projects the Kafka stream s, planned as one replayed job over s
// in a consumer group, gives row for row and in order what ref ("": q)
// gives over the relation read as a job of its own (the plan without a
// group), over random rows of one partition in random batches, 30 seeds
// (with byOutput, each output's rows in order: not how the outputs'
// rows interleave);
// and that the runs wrote main rows and late rows (outputs late and
// tardy), or the check would be empty.
func inlinedIsTheRelations(t *testing.T, q, ref string, byOutput bool) {
	t.Helper()
	if ref == "" {
		ref = q
	}
	rows, lates := 0, 0
	for seed := int64(1); seed <= 30; seed++ {
		in := onePartRows(rand.New(rand.NewSource(seed)))
		var got [2]string
		for k, run := range []struct {
			q     string
			group bool
		}{{q, true}, {ref, false}} {
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
			got[k] = runOnePart(t, job, st, in, rand.New(rand.NewSource(seed*7+int64(k))))
			if byOutput {
				lines := strings.Split(got[k], "\n")
				slices.SortStableFunc(lines, func(a, b string) int {
					x, _, _ := strings.Cut(a, ":")
					y, _, _ := strings.Cut(b, ":")
					return strings.Compare(x, y)
				})
				got[k] = strings.Join(lines, "\n")
			}
		}
		if got[0] != got[1] {
			t.Fatalf("%s, seed %d: one job over the stream gives\n%s\nthe relation read apart gives\n%s", q, seed, got[0], got[1])
		}
		rows += strings.Count(got[0], "main: ")
		lates += strings.Count(got[0], "late: ") + strings.Count(got[0], "tardy: ")
	}
	if rows == 0 || lates == 0 {
		t.Errorf("%s: %d main rows and %d late rows written: the test checks too little", q, rows, lates)
	}
}

// TestDedupOverViewInlinedIsTheRelations (the planner's ruleInlineView,
// SPEC 2.4, 2.9: a late row is the operator's input row, the relation's):
// a deduplication keeping the first row by event time over a relation
// that filters and projects a Kafka stream in a group, planned as one job
// over the stream, gives row for row and in order (first rows, and late
// rows with the relation's columns and values) what it gives over the
// relation read as a job of its own, over random rows, 30 seeds per
// query (inlinedIsTheRelations), each output's rows in order: a
// deduplication writes a batch's late rows before the first rows the
// watermark fires at the batch's end, so how the two outputs interleave
// follows the batches, which the relation's job cuts otherwise. The relation's WHERE goes into the
// reference's query over it (the same rows: the relation carries its
// stream's watermarks, plan.Derived.StreamWatermarks). Before plan.Rank.LateProject the one job wrote the stream's rows
// (k, ts) as its late rows.
func TestDedupOverViewInlinedIsTheRelations(t *testing.T) {
	for _, c := range []struct{ q, ref string }{
		{ // the same query both ways: the relation only projects
			"WITH v AS (SELECT UPPER(k) AS u, ts * 2 AS t2, ts FROM s) SELECT u, t2, ts FROM (SELECT u, t2, ts, ROW_NUMBER() OVER (PARTITION BY u ORDER BY ts) AS rn FROM v) WHERE rn = 1",
			"",
		},
		{ // an event time renamed, two keys, a WHERE over the relation
			"SELECT kk, t, m FROM (SELECT kk, t, m, ROW_NUMBER() OVER (PARTITION BY kk, m ORDER BY t) AS rn FROM (SELECT CONCAT(k, '!') AS kk, ts AS t, ts % 2 AS m FROM s WHERE ts % 3 <> 0) WHERE t % 7 <> 1) WHERE rn = 1",
			"SELECT kk, t, m FROM (SELECT kk, t, m, ROW_NUMBER() OVER (PARTITION BY kk, m ORDER BY t) AS rn FROM (SELECT CONCAT(k, '!') AS kk, ts AS t, ts % 2 AS m FROM s) WHERE t % 3 <> 0 AND t % 7 <> 1) WHERE rn = 1",
		},
		{
			"WITH v AS (SELECT LOWER(k) AS l, ts, ts / 1000 AS sec FROM s WHERE ts % 5 <> 0) SELECT l, sec FROM (SELECT l, sec, ts, ROW_NUMBER() OVER (PARTITION BY l ORDER BY ts ASC) AS rn FROM v) WHERE rn = 1",
			"WITH v AS (SELECT LOWER(k) AS l, ts, ts / 1000 AS sec FROM s) SELECT l, sec FROM (SELECT l, sec, ts, ROW_NUMBER() OVER (PARTITION BY l ORDER BY ts ASC) AS rn FROM v WHERE ts % 5 <> 0) WHERE rn = 1",
		},
	} {
		inlinedIsTheRelations(t, c.q, c.ref, true)
	}
}

// TestWindowOverViewWithSidesInlinedIsTheRelations (the planner's
// ruleInlineView with side branches, issue 24 item 5): a window aggregate
// over a view that projects a Kafka stream in a group, with side branches
// over the view, planned as one job over the stream, gives row for row
// and in order (side rows, windows, late rows with the view's columns)
// what the same queries give over the view read as a job of its own (the
// plan without a consumer group), over random rows of one partition in
// random batches, 30 seeds per case. The view only projects (the
// inlined side branches' shape; a WHERE in the view is carried with the
// stream's watermark too: TestWindowOverViewInlinedIsTheRelations).
func TestWindowOverViewWithSidesInlinedIsTheRelations(t *testing.T) {
	const view = "CREATE VIEW v AS SELECT UPPER(k) AS u, ts * 2 AS t2, ts FROM s"
	for _, c := range []struct {
		sides []string
		q     string
	}{
		{[]string{"SELECT u, t2 INTO SIDE 'hot' FROM v WHERE t2 % 7 = 0", "SELECT LOWER(u) AS l, ts INTO SIDE 'odd' FROM v WHERE ts % 2 = 1 AND ts % 3 = 0"},
			"SELECT window_start, u, COUNT(*) AS n, SUM(t2) AS s2 FROM TABLE(TUMBLE(TABLE v, DESCRIPTOR(ts), INTERVAL '10' SECOND)) WHERE t2 % 3 <> 1 GROUP BY window_start, window_end, u"},
		{[]string{"SELECT u, ts, CURRENT_WATERMARK(ts) AS w INTO SIDE 'tardy' FROM v WHERE ts < CURRENT_WATERMARK(ts) AND ts % 2 = 0"},
			"SELECT window_start, window_end, u, COUNT(*) AS n FROM TABLE(SESSION(TABLE v PARTITION BY u, DESCRIPTOR(ts), INTERVAL '3' SECOND)) GROUP BY window_start, window_end, u"},
	} {
		windows, sides, lates := 0, 0, 0
		for seed := int64(1); seed <= 30; seed++ {
			rows := onePartRows(rand.New(rand.NewSource(seed)))
			var got [2]string
			for k, group := range []bool{true, false} {
				with := "'connector'='kafka', 'topic'='t', 'properties.bootstrap.servers'='127.0.0.1:9', 'format'='csv'"
				if group {
					with = kafkaGroup
				}
				wm := "ts"
				if seed%2 == 0 {
					wm = "ts - INTERVAL '2' SECOND"
				}
				job, st := planViewSidesWith(t, wm, with, view, c.sides, c.q)
				if inlined := job.Stream == st && job.ReplayStrategy() == "replayed"; inlined != group {
					t.Fatalf("%s with %v: planned as one replayed job over the stream: %v, want %v", c.q, c.sides, inlined, group)
				}
				got[k] = runOnePart(t, job, st, rows, rand.New(rand.NewSource(seed*7+int64(k))))
			}
			if got[0] != got[1] {
				t.Fatalf("%s with %v, seed %d: one job over the stream gives\n%s\nthe view read apart gives\n%s", c.q, c.sides, seed, got[0], got[1])
			}
			windows += strings.Count(got[0], "main: ")
			sides += strings.Count(got[0], "hot: ") + strings.Count(got[0], "odd: ") + strings.Count(got[0], "tardy: ")
			lates += strings.Count(got[0], "late: ")
		}
		if windows == 0 || sides == 0 || lates == 0 {
			t.Errorf("%s with %v: %d windows, %d side rows and %d late rows written: the test checks too little", c.q, c.sides, windows, sides, lates)
		}
	}
}

// runOnePart runs job over rows of partition 0 of its Kafka stream st (the
// job's, or the one a relation it reads reads), read through groupFake in
// random batches (rng), and returns its output lines, "<output>: <row>",
// in order.
func runOnePart(t *testing.T, job *planner.Job, st *catalog.Stream, rows []replayRow, rng *rand.Rand) string {
	t.Helper()
	st.Config = st.Kafka()
	st.Connector = tornGroupSpec
	var names []string
	for _, o := range job.Outputs {
		names = append(names, o.Name)
	}
	sink := &orderSink{names: names}
	tornGroupOpen = func(*catalog.Stream, *connector.Env) connector.Source {
		return &groupFake{rows: rows, rng: rng, checks: &tornChecks{}} // (its rows all of partition 0)
	}
	if _, err := Run(context.Background(), job, &Env{}, func() (Sink, error) { return sink, nil }); err != nil {
		t.Fatalf("%s: %v", job.Main.Text, err)
	}
	return strings.Join(sink.out, "\n")
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
