package executor

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

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
}

type step struct {
	rows  []row
	badAt []int
}

func (s *scripted) Next(b *vector.Batch, bad *[]BadRow) error {
	b.Reset()
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

func (c *counting) Rows(r *Routed) error {
	c.bad += int64(len(r.Bad))
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
				job.Stream.Options["errors"] = policy
				job.Main.Join.Build.Options["errors"] = policy
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
				err := runJob(ctx, job, ls, []Source{rs}, []*planner.Branch{job.Main}, sink, &stats, NewStateBudget(0))
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
