package executor

import (
	"context"
	"math/rand"
	"testing"
	"time"

	"streamql/planner"
)

// TestLiveCounters runs an event-time join job with a Live in its context: while
// the build stream has sent nothing, every probe row is held (and its bytes
// counted); at the end each stream's watermark is its largest ts minus its delay
// (SPEC 2.3) and nothing is held.
func TestLiveCounters(t *testing.T) {
	job := planEventJoin(t, "SELECT l.k, l.ts FROM l SEMI JOIN r ON l.k = r.k;", 5, 10)
	left := []row{{"a", 100}, {"b", 130}, {"a", 120}, {"c", 150}}
	right := []row{{"a", 90}, {"b", 200}, {"c", 170}}
	ls := &stepSource{rows: left, rng: rand.New(rand.NewSource(1)), step: make(chan struct{}), done: make(chan struct{})}
	rs := &stepSource{rows: right, rng: rand.New(rand.NewSource(2)), step: make(chan struct{}), done: make(chan struct{})}
	lv := &Live{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		var stats Stats
		stats.stream(job.Stream)
		errc <- runJob(ctx, opContext{live: lv}, job, testOpened(ls), testOpeneds(rs), []*planner.Branch{job.Main}, &collect{}, &stats, NewStateBudget(0))
	}()
	for done := false; !done; {
		select {
		case ls.step <- struct{}{}:
		case <-ls.done:
			done = true
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	var s LiveSnapshot
	for {
		s = lv.Snapshot()
		if s.HeldRows == int64(len(left)) || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if s.HeldRows != 4 || s.HeldBytes <= 0 || s.StateBytes < s.HeldBytes {
		t.Fatalf("with the build stream silent: %+v, want 4 held rows and their bytes", s)
	}
	if len(s.Watermarks) != 2 || s.Watermarks[0] != (LiveWatermark{Stream: "l", Set: true, Value: 145, Text: "145"}) ||
		s.Watermarks[1] != (LiveWatermark{Stream: "r", Text: "unset"}) {
		t.Fatalf("watermarks %+v, want l 145 (150 - 5) and r unset", s.Watermarks)
	}
	// the job may end before r does: once r's watermark passed every held row
	var err error
	for ended := false; !ended; {
		select {
		case rs.step <- struct{}{}:
		case <-rs.done:
			err, ended = <-errc, true
		case err = <-errc:
			ended = true
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	s = lv.Snapshot()
	if s.HeldRows != 0 || s.HeldBytes != 0 {
		t.Errorf("at the end %d rows (%d bytes) held, want none", s.HeldRows, s.HeldBytes)
	}
	if w := s.Watermarks[1]; !w.Set || w.Value != 190 {
		t.Errorf("r's watermark %+v, want 190 (200 - 10)", w)
	}
	var nilLive *Live
	if got := nilLive.Snapshot(); len(got.Watermarks) != 0 || got.HeldRows != 0 {
		t.Errorf("a nil Live's snapshot is %+v", got)
	}
}
