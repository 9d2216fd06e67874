package executor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"streamql/catalog"
	"streamql/executor/op"
	"streamql/executor/vector"
	"streamql/planner"
)

// scripted is a live source of (key, time) rows: each step is one batch with its
// malformed rows (bad[i] comes after the first badAt[i] good rows of the step);
// after the steps it reports ErrWaiting forever (a stalled stream), or io.EOF
// when end is set.
type scripted struct {
	steps []step
	end   bool
	k     int
	done  chan struct{} // closed once every step was read
	after chan struct{} // when set, the first step waits for it to close
}

type step struct {
	rows  []row
	badAt []int
}

func (s *scripted) Next(b *vector.Batch, bad *[]BadRow) error {
	b.Reset()
	if s.after != nil {
		<-s.after
		s.after = nil
	}
	if s.k == len(s.steps) {
		if s.done != nil {
			close(s.done)
			s.done = nil
		}
		if s.end {
			return io.EOF
		}
		time.Sleep(time.Millisecond)
		return ErrWaiting
	}
	st := s.steps[s.k]
	s.k++
	for i, r := range st.rows {
		b.Cols[0].Null[i] = false
		b.Cols[0].S[i] = []byte(r.k)
		b.Cols[1].Null[i] = false
		b.Cols[1].I[i] = r.ts
		b.Pos[i] = int64(i + 1)
	}
	b.N = len(st.rows)
	for _, at := range st.badAt {
		*bad = append(*bad, BadRow{Index: at, Line: int64(at + 1), Raw: []byte("bad"), Reason: "test"})
	}
	return nil
}

func (s *scripted) Position(line int64) string { return "test" }
func (s *scripted) Progress() (int64, int64)   { return 0, 0 }
func (s *scripted) Close() error               { return nil }

// counting is a sink that counts the rows written to each output and the
// malformed rows written to the errors outputs.
type counting struct {
	collect
	bad int64
}

func (c *counting) Rows(r *Step) error {
	c.bad += int64(len(r.Errors.Rows))
	return c.collect.Rows(r)
}

func (c *counting) Errors(_ string, rows []ErrorRow) error {
	c.bad += int64(len(rows))
	return nil
}

// malformed sums the malformed counts the job reports (stderr's summary).
func malformed(stats *Stats) int64 {
	var n int64
	for _, e := range stats.Streams {
		n += e.Malformed
	}
	return n
}

// TestHeldCountsEqualRowsWritten: with an event-time join, the malformed counts a
// job reports equal the malformed rows written, when a LIMIT ends the job while
// malformed rows are still held, after Ctrl-C with rows held, and at the end
// (issue 9 item 8; SPEC 1: never lost silently, SPEC 2.2: after LIMIT nothing is
// read).
func TestHeldCountsEqualRowsWritten(t *testing.T) {
	for _, policy := range []string{"side", "skip"} {
		cases := []struct {
			name       string
			sql        string
			left       []step
			right      []step
			rightEnd   bool
			cancel     bool
			wantOut    string
			wantCounts int64
		}{
			{"LIMIT ends the job before the held malformed rows",
				"SELECT l.k, l.ts FROM l SEMI JOIN r ON l.k = r.k LIMIT 1;",
				[]step{{rows: []row{{"a", 150}, {"c", 3500}}, badAt: []int{1, 2}}},
				[]step{{rows: []row{{"a", 100}, {"z", 9000}}}}, false, false, "a@150", 0},
			{"LIMIT after a malformed row counts it",
				"SELECT l.k, l.ts FROM l SEMI JOIN r ON l.k = r.k LIMIT 1;",
				[]step{{rows: []row{{"a", 150}, {"c", 3500}}, badAt: []int{0, 1}}},
				[]step{{rows: []row{{"a", 100}, {"z", 9000}}}}, false, false, "a@150", 1},
			{"Ctrl-C while malformed rows are held",
				"SELECT l.k, l.ts FROM l SEMI JOIN r ON l.k = r.k;",
				[]step{{rows: []row{{"a", 150}, {"c", 3500}}, badAt: []int{0, 2}}, {rows: nil, badAt: []int{0}}},
				[]step{{rows: []row{{"a", 100}}, badAt: []int{1}}}, false, true, "", -1},
			{"every malformed row counts at the end",
				"SELECT l.k, l.ts FROM l SEMI JOIN r ON l.k = r.k;",
				[]step{{rows: []row{{"a", 150}, {"c", 3500}}, badAt: []int{0, 2}}, {rows: nil, badAt: []int{0}}},
				[]step{{rows: []row{{"a", 100}}, badAt: []int{1}}}, true, false, "a@150", 4},
		}
		for _, c := range cases {
			t.Run(policy+": "+c.name, func(t *testing.T) {
				job := planEventJoin(t, c.sql, 0, 0)
				setOption(t, job.Stream, "errors", policy)
				setOption(t, job.Main.Join.Build, "errors", policy)
				ls := &scripted{steps: c.left, end: !c.cancel, done: make(chan struct{})}
				read := ls.done
				rs := &scripted{steps: c.right, end: c.rightEnd}
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				if c.cancel {
					go func() {
						<-read
						time.Sleep(20 * time.Millisecond)
						cancel()
					}()
				}
				sink := &counting{}
				var stats Stats
				stats.stream(job.Stream)
				err := runJob(ctx, opContext{}, job, testOpened(ls), testOpeneds(rs), []*planner.Branch{job.Main}, sink, &stats, NewStateBudget(0))
				if c.cancel != errors.Is(err, context.Canceled) || (!c.cancel && err != nil) {
					t.Fatalf("error %v", err)
				}
				got := ""
				for i, o := range sink.out {
					if i > 0 {
						got += " "
					}
					got += o
				}
				if got != c.wantOut {
					t.Errorf("main %q, want %q", got, c.wantOut)
				}
				n := malformed(&stats)
				if policy == "side" && n != sink.bad {
					t.Errorf("reported %d malformed rows, wrote %d", n, sink.bad)
				}
				if c.wantCounts >= 0 && n != c.wantCounts {
					t.Errorf("reported %d malformed rows, want %d", n, c.wantCounts)
				}
				if c.cancel && policy == "side" && n != sink.bad {
					t.Errorf("after Ctrl-C: reported %d, wrote %d", n, sink.bad)
				}
			})
		}
	}
}

// TestStateLimitHeldRows: SPEC 1, held rows count against 'state.max-bytes'; a
// job whose build watermark stalls stops with an error naming the operator, what
// grew and the stalled stream (issue 9 item 2).
func TestStateLimitHeldRows(t *testing.T) {
	job := planEventJoin(t, "SELECT l.k, l.ts FROM l SEMI JOIN r ON l.k = r.k;", 0, 0)
	var left []step
	for s := 0; s < 200; s++ {
		var rows []row
		for i := 0; i < 1000; i++ {
			rows = append(rows, row{"a", int64(1000 + s*1000 + i)})
		}
		left = append(left, step{rows: rows})
	}
	rs := &scripted{steps: []step{{rows: []row{{"a", 100}}}}, done: make(chan struct{})} // then stalls
	ls := &scripted{steps: left, after: rs.done}
	var stats Stats
	stats.stream(job.Stream)
	budget := NewStateBudget(1 << 20)
	err := runJob(context.Background(), opContext{}, job, testOpened(ls), testOpeneds(rs), []*planner.Branch{job.Main}, &collect{}, &stats, budget)
	var le *StateLimitError
	if !errors.As(err, &le) {
		t.Fatalf("error %v, want a *StateLimitError", err)
	}
	if le.Stalled != "r" || le.WatermarkText != "100" || le.Rows <= 0 || !strings.Contains(le.What, "held rows of stream l") ||
		!strings.Contains(le.Operator, "l SEMI JOIN r") {
		t.Errorf("error %+v", le)
	}
	msg := err.Error()
	for _, want := range []string{"'state.max-bytes' (1MiB)", "stream r", "did not advance", "SET 'state.max-bytes' = '2MiB'"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q: %s", want, msg)
		}
	}
	// Unset watermark: the message says no build row arrived.
	ls = &scripted{steps: left}
	rs = &scripted{}
	budget = NewStateBudget(1 << 20)
	err = runJob(context.Background(), opContext{}, job, testOpened(ls), testOpeneds(rs), []*planner.Branch{job.Main}, &collect{}, &stats, budget)
	if !errors.As(err, &le) || !strings.Contains(le.WatermarkText, "no row") {
		t.Errorf("error %v, want one saying no row of r arrived", err)
	}
	if budget.Used() != 0 {
		t.Errorf("the job left %d bytes charged", budget.Used())
	}
}

// TestStateLimitBuildKeys: the distinct keys of a join's build side count
// against 'state.max-bytes' (SPEC 1).
func TestStateLimitBuildKeys(t *testing.T) {
	job := planEventJoin(t, "SELECT l.k, l.ts FROM l SEMI JOIN r ON l.k = r.k;", 0, 0)
	j := job.Main.Join
	budget := NewStateBudget(40 << 10)
	ks := newSemiBuild(j, budget.Account(joinName(j), "distinct build keys of stream r"), nil)
	b := vector.NewBatch(j.BuildTypes)
	sel := make([]int32, 0, vector.Cap)
	var err error
	for n := 0; n < 10 && err == nil; n++ {
		b.Reset()
		sel = sel[:0]
		for i := 0; i < 100; i++ {
			b.Cols[0].SetString(i, []byte(fmt.Sprintf("key-%d-%d", n, i)))
			b.Cols[1].I[i], b.Cols[1].Null[i] = int64(n*100+i), false
			sel = append(sel, int32(i))
		}
		b.N = 100
		err = ks.absorb(b, sel)
	}
	var le *StateLimitError
	if !errors.As(err, &le) || le.What != "distinct build keys of stream r" || le.Stalled != "" {
		t.Fatalf("error %v, want a limit on the build keys", err)
	}
	// the same keys again cost nothing
	small := NewStateBudget(1 << 30)
	ks = newSemiBuild(j, small.Account("j", "keys"), nil)
	for n := 0; n < 3; n++ {
		if err := ks.absorb(b, sel); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := small.Used(), int64(100*(len("key-9-00")+op.MarkKeyOverhead))-10*1; got < want-100 || got > want+100 {
		t.Errorf("100 distinct keys charged %d bytes, want about %d", got, want)
	}
}

// TestHeldRowsKeepNeededColumns: held rows keep only the columns the job's
// branches read, and the event time (issue 9 item 2).
func TestHeldRowsKeepNeededColumns(t *testing.T) {
	job := planEventJoin(t, "SELECT l.ts FROM l SEMI JOIN r ON l.ts = r.ts;", 0, 0)
	types := heldTypes(job, -1)
	if types[0] != catalog.Unknown || types[1] != catalog.BigInt || types[2] != catalog.Unknown {
		t.Errorf("held types %v, want k and the watermark column dropped", types)
	}
	job = planEventJoin(t, "SELECT l.k, CURRENT_WATERMARK(l.ts) AS w FROM l SEMI JOIN r ON l.k = r.k;", 0, 0)
	if types := heldTypes(job, -1); types[0] != catalog.Varchar || types[1] != catalog.BigInt || types[2] != catalog.BigInt {
		t.Errorf("held types %v, want every column", types)
	}
}
