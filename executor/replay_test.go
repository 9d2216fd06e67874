package executor

import (
	"context"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"streamql/executor/connector"
	"streamql/planner"
)

// fakeReplayer is a partitioned source that takes the job's replay state
// (connector.Replayer), as a Kafka source in a consumer group does.
type fakeReplayer struct {
	fakeParts
	rep connector.Replay
}

func (f *fakeReplayer) SetReplay(r connector.Replay) { f.rep = r }

// replayRow is a row of partition p at offset off.
type replayRow struct {
	p   int32
	off int64
	k   string
	ts  int64
}

// replayRun is one process of a job over two partitions: its chain with the
// aggregate, its replay state and its output lines.
type replayRun struct {
	t    *testing.T
	job  *planner.Job
	sink *orderSink
	c    *chain
	src  *fakeReplayer
	used map[int32]int64
}

func newReplayRun(t *testing.T, job *planner.Job) *replayRun {
	var names []string
	for _, o := range job.Outputs {
		names = append(names, o.Name)
	}
	r := &replayRun{t: t, job: job, sink: &orderSink{names: names}, src: &fakeReplayer{fakeParts: fakeParts{live: []int32{0, 1}}}, used: map[int32]int64{}}
	var agg *aggOperator
	opts := aggChain(job, NewStateBudget(0), &Stats{}, &agg, false)
	opts.src = r.src
	r.c = buildChain(job, nil, r.sink, opts)
	if newReplay(r.src, r.c, agg) == nil || r.src.rep == nil {
		t.Fatal("the aggregate's job gave its source no replay state")
	}
	return r
}

// push pushes rows as one batch, each with its Kafka position.
func (r *replayRun) push(rows []replayRow) {
	r.t.Helper()
	var rs []row
	for _, x := range rows {
		rs = append(rs, row{x.k, x.ts})
	}
	b := rowBatch(r.job, rs...)
	for i, x := range rows {
		b.Pos[i] = connector.KafkaPosition(x.p, x.off)
		r.used[x.p] = x.off + 1
	}
	step := newStep("errors")
	step.selectRows(b, 0, b.N)
	if err := r.c.head.Push(context.Background(), Port{}, step); err != nil {
		r.t.Fatal(err)
	}
}

// mark is what the source would commit for p now: H_p and the mark.
func (r *replayRun) mark(p int32) (int64, connector.ReplayMark) {
	off, wm, set := r.src.rep.Hold(p, r.used[p])
	m := connector.ReplayMark{Emitted: r.used[p], WM: wm, WMSet: set}
	m.Fired, m.FiredSet = r.src.rep.Fired(p)
	return off, m
}

// TestReplayRebuildsWindows (the connector package doc's I1-I4): a process
// that crashes after some batches, its partitions then read again by a new
// one from the committed hold frontiers with their marks, emit together
// exactly what one uninterrupted process emits: every window with the same
// aggregate, every side row and late row once. For TUMBLE, HOP, CUMULATE and
// SESSION, random rows (each key on one partition, some late by their
// partition's watermark, some taken by a side branch) and random crash
// points; the new process reads the partitions interleaved differently.
func TestReplayRebuildsWindows(t *testing.T) {
	side := "SELECT k, ts INTO SIDE 'hot' FROM s WHERE ts % 7 = 0"
	for _, q := range []string{
		"SELECT window_start, k, COUNT(*) AS n, SUM(ts) AS s FROM TABLE(TUMBLE(TABLE s, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, k",
		"SELECT window_start, k, COUNT(*) AS n, SUM(ts) AS s FROM TABLE(HOP(TABLE s, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '15' SECOND)) GROUP BY window_start, window_end, k",
		"SELECT window_start, window_end, k, COUNT(*) AS n FROM TABLE(CUMULATE(TABLE s, DESCRIPTOR(ts), INTERVAL '4' SECOND, INTERVAL '12' SECOND)) GROUP BY window_start, window_end, k",
		"SELECT window_start, window_end, k, COUNT(*) AS n, SUM(ts) AS s FROM TABLE(SESSION(TABLE s PARTITION BY k, DESCRIPTOR(ts), INTERVAL '3' SECOND)) GROUP BY window_start, window_end, k",
	} {
		for seed := int64(1); seed <= 30; seed++ {
			rng := rand.New(rand.NewSource(seed))
			// two partitions, keys k0* on 0 and k1* on 1, times rising by
			// up to 2.5 s, one in six going back (late when below the
			// partition's watermark, ts itself)
			var parts [2][]replayRow
			for p := range parts {
				ts := int64(rng.Intn(20_000))
				for off := range 60 + rng.Intn(60) {
					ts += int64(rng.Intn(2500))
					at := ts
					if rng.Intn(6) == 0 {
						at -= int64(rng.Intn(12_000))
					}
					parts[p] = append(parts[p], replayRow{int32(p), int64(off), fmt.Sprintf("k%d%d", p, rng.Intn(3)), at})
				}
			}
			batches := func(from [2]int64) [][]replayRow {
				var out [][]replayRow
				next := [2]int{int(from[0]), int(from[1])}
				for next[0] < len(parts[0]) || next[1] < len(parts[1]) {
					var b []replayRow
					for n := 1 + rng.Intn(8); n > 0; n-- {
						p := rng.Intn(2)
						if next[p] == len(parts[p]) {
							p = 1 - p
						}
						if next[p] == len(parts[p]) {
							break
						}
						b = append(b, parts[p][next[p]])
						next[p]++
					}
					out = append(out, b)
				}
				return out
			}
			wm := "ts"
			if seed%2 == 0 {
				wm = "ts - INTERVAL '2' SECOND" // (then a row can be late by the seeded w alone)
			}
			job := planSidesWM(t, wm, []string{side}, q)
			whole := newReplayRun(t, job)
			for _, b := range batches([2]int64{}) {
				whole.push(b)
			}
			if err := whole.c.head.Finish(context.Background()); err != nil {
				t.Fatal(err)
			}

			first := newReplayRun(t, job)
			all := batches([2]int64{})
			crash := 1 + rng.Intn(len(all)-1)
			for _, b := range all[:crash] {
				first.push(b)
			}
			second := newReplayRun(t, job)
			var from [2]int64
			var marks [2]connector.ReplayMark
			for p := range int32(2) {
				from[p], marks[p] = first.mark(p)
			}
			// The second process gets partition 1 first, reads some of it
			// alone (its watermark runs ahead), then partition 0 too: the
			// stream's watermark goes back to partition 0's.
			late := rng.Intn(2) == 0
			if late {
				second.src.live = []int32{1}
			}
			second.src.rep.Assign(1, from[1], marks[1], true)
			ahead := from
			if late {
				for n := rng.Intn(len(parts[1]) - int(from[1]) + 1); n > 0; n-- {
					second.push([]replayRow{parts[1][ahead[1]]})
					ahead[1]++
				}
				second.src.live = []int32{0, 1}
			}
			second.src.rep.Assign(0, from[0], marks[0], true)
			for _, b := range batches(ahead) {
				second.push(b)
			}
			if err := second.c.head.Finish(context.Background()); err != nil {
				t.Fatal(err)
			}
			got := append(append([]string{}, first.sink.out...), second.sink.out...)
			sort.Strings(got)
			want := append([]string{}, whole.sink.out...)
			sort.Strings(want)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("%s, watermark %s, seed %d, crash after batch %d of %d, replayed from %v (partition 1 alone first: %v):\nthe two processes emitted\n%s\none process emitted\n%s",
					q, wm, seed, crash, len(all), from, late, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		}
	}
}

// TestReplaySeedsTheWatermark: a partition assigned with a mark starts at its
// watermark w (a row of a window ending at or before w is late, as it was
// for the process that committed), and the stream's watermark goes back to
// it: partition 1 ran ahead alone, so partition 0's windows then fire as soon
// as partition 0's watermark passes their end (SPEC 2.5: the minimum), not
// when it catches up with partition 1's. Rows below e write no output, and
// windows ending at or before f are not emitted.
func TestReplaySeedsTheWatermark(t *testing.T) {
	job := planSides(t, []string{"SELECT k, ts INTO SIDE 'hot' FROM s WHERE ts % 7 = 0"},
		"SELECT window_start, k, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE s, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, k")
	r := newReplayRun(t, job)
	r.src.live = []int32{1}
	r.src.rep.Assign(1, 0, connector.ReplayMark{}, false)
	r.push([]replayRow{{1, 0, "b", 90_000}, {1, 1, "b", 100_000}})
	r.sink.out = nil
	r.src.live = []int32{0, 1}
	r.src.rep.Assign(0, 5, connector.ReplayMark{Emitted: 7, WM: 30_000, WMSet: true, Fired: 30_000, FiredSet: true}, true)
	r.push([]replayRow{
		{0, 5, "a", 25_001}, // below e: late, not written again
		{0, 6, "a", 27_006}, // below e: the side row is not written again
		{0, 7, "a", 28_001}, // late by w alone: its window ended at 30,000
		{0, 8, "a", 35_001},
		{0, 9, "a", 38_000},
		{0, 10, "a", 41_000}, // fires [30,000, 40,000) of partition 0
	})
	want := []string{"late: a,28001", "main: 30000,a,2"}
	if got := strings.Join(r.sink.out, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("after the assignment:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	if off, m := r.mark(0); off != 10 || m.Emitted != 11 || !m.WMSet || m.WM != 38_000 || !m.FiredSet || m.Fired != 41_000 {
		t.Errorf("partition 0 would commit %d %v, want 10 (the open window's first row) with e=11 w=38000 f=41000", off, m)
	}
	r.src.rep.Revoke(0)
	if off, _ := r.mark(0); off != 11 {
		t.Errorf("a revoked partition still holds offset %d", off)
	}
}
