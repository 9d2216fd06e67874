package executor

import (
	"context"
	"fmt"
	"io"
	"testing"

	"streamql/executor/vector"
	"streamql/planner"
)

// heldBenchSource is a probe or build stream of the held-join benchmark:
// batches full batches of keys "device-<n>" at rising event times, each
// with bad malformed rows among its good ones (BadRow.Index spread over
// the batch), then io.EOF.
type heldBenchSource struct {
	batches, bad, done int
	keys               [][]byte
	raw                []byte
}

func (s *heldBenchSource) Next(b *vector.Batch, bad *[]BadRow) error {
	if s.done == s.batches {
		return io.EOF
	}
	b.Reset()
	for i := range vector.Cap {
		n := s.done*vector.Cap + i
		b.Cols[0].S[i], b.Cols[0].Null[i] = s.keys[n%len(s.keys)], false
		b.Cols[1].I[i], b.Cols[1].Null[i] = int64(n), false
		b.Pos[i] = int64(n + 1)
	}
	b.N = vector.Cap
	for k := range s.bad {
		*bad = append(*bad, BadRow{Index: (k + 1) * vector.Cap / (s.bad + 1), Line: int64(s.done*vector.Cap + k + 1), Raw: s.raw, Reason: "expected 2 fields, got 1"})
	}
	s.done++
	return nil
}

func (s *heldBenchSource) Position(line int64) string { return fmt.Sprint("bench:", line) }
func (s *heldBenchSource) Progress() (int64, int64)   { return 0, 0 }
func (s *heldBenchSource) Close() error               { return nil }

// heldSemiJob plans the held-join benchmark's and alloc test's job: SELECT
// l.k, l.ts FROM l SEMI JOIN r ON l.k = r.k, both streams unbounded with
// their watermark at their event time ts (the event-time strategy).
func heldSemiJob(tb testing.TB) *planner.Job {
	tb.Helper()
	src := `CREATE STREAM l (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='socket', 'port'='1');
CREATE STREAM r (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='socket', 'port'='1');
SELECT l.k, l.ts FROM l SEMI JOIN r ON l.k = r.k;`
	_, job := planEventJoinScript(tb, src)
	return job
}

// deviceKeys returns n keys "device-<i*step%mod>".
func deviceKeys(n, step, mod int) [][]byte {
	keys := make([][]byte, n)
	for i := range keys {
		keys[i] = []byte(fmt.Sprintf("device-%d", i*step%mod))
	}
	return keys
}

// BenchmarkSemiJoinHeld measures SPEC 2.2's event-time strategy end to end
// (runJob: the held probe rows in op.SemiJoin's Hold mode, released once
// the build side's watermark passes them, routed through the MARK gate
// into a sink that drops them): 256 probe batches of 1,024 rows, each with
// 4 malformed rows ('errors'='side', held among the good rows on the
// hold's errors port), against a build side of 4 batches.
func BenchmarkSemiJoinHeld(b *testing.B) {
	const probeBatches = 256
	job := heldSemiJob(b)
	keys := deviceKeys(4096, 37, 8192)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		ls := &heldBenchSource{batches: probeBatches, bad: 4, keys: keys, raw: []byte("device-1")}
		rs := &heldBenchSource{batches: 4, keys: keys}
		var stats Stats
		stats.stream(job.Stream)
		sink := &discardSink{}
		if err := runJob(context.Background(), opContext{}, job, testOpened(ls), testOpeneds(rs), []*planner.Branch{job.Main}, sink, &stats, NewStateBudget(0)); err != nil {
			b.Fatal(err)
		}
		if sink.rows == 0 {
			b.Fatal("no probe row joined: the benchmark is not probing real keys")
		}
		if got, want := stats.Streams[0].Malformed, int64(4*probeBatches); got != want {
			b.Fatalf("%d malformed rows counted, want %d", got, want)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(probeBatches*vector.Cap)*float64(b.N)/b.Elapsed().Seconds(), "probe-rows/s")
}

// gatedSource is a source whose first Next waits until open is closed.
type gatedSource struct {
	Source
	open <-chan struct{}
}

func (s *gatedSource) Next(b *vector.Batch, bad *[]BadRow) error {
	<-s.open
	return s.Source.Next(b, bad)
}

// endingSource closes ended when its source ends.
type endingSource struct {
	Source
	ended chan struct{}
}

func (s *endingSource) Next(b *vector.Batch, bad *[]BadRow) error {
	err := s.Source.Next(b, bad)
	if err == io.EOF {
		select {
		case <-s.ended:
		default:
			close(s.ended)
		}
	}
	return err
}

// TestHeldJobAllocatesNothingPerBatch: an event-time semi join job (the
// scheduler reading the probe stream's port and the build side's, the hold,
// the release through the MARK gate) allocates nothing per probe batch in
// steady state (the hot path rule). The probe stream is read once the build
// side has ended, so every probe row is decided as it comes and the rows
// held never grow with the input.
func TestHeldJobAllocatesNothingPerBatch(t *testing.T) {
	job := heldSemiJob(t)
	keys := deviceKeys(512, 1, 512)
	allocs := func(batches int) float64 {
		return testing.AllocsPerRun(3, func() {
			built := make(chan struct{})
			ls := &gatedSource{Source: &heldBenchSource{batches: batches, keys: keys}, open: built}
			rs := &endingSource{Source: &heldBenchSource{batches: 2, keys: keys}, ended: built}
			var stats Stats
			stats.stream(job.Stream)
			sink := &discardSink{}
			if err := runJob(t.Context(), opContext{}, job, testOpened(ls), testOpeneds(rs), []*planner.Branch{job.Main}, sink, &stats, NewStateBudget(0)); err != nil {
				t.Fatal(err)
			}
			if want := int64(batches * vector.Cap); sink.rows != want {
				t.Fatalf("%d probe batches: %d rows joined, want %d (every key is a build key)", batches, sink.rows, want)
			}
		})
	}
	few, many := allocs(50), allocs(200)
	// (one allocation a batch is 150 more; the readers' goroutines, under
	// the race detector, make a stray one or two)
	if perBatch := (many - few) / 150; perBatch > maxSteadyAllocsPerBatch {
		t.Errorf("%.3f allocations per probe batch of 1024 rows (50 batches: %.0f, 200: %.0f)", perBatch, few, many)
	}
}
