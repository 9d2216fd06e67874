package executor

import (
	"math"
	"testing"
	"time"

	"streamql/executor/vector"
	"streamql/internal/sensorbench"
	"streamql/planner"
)

// discardCounting is a sink that counts the rows of the outputs, chunks
// (fired windows) included.
type discardCounting struct {
	nopSink
	rows, chunkRows int64
}

func (s *discardCounting) Rows(r *Routed) error {
	for i := 0; i < r.N; i++ {
		if r.Dest[i] >= 0 {
			s.rows++
		}
	}
	for _, c := range r.Chunks {
		s.chunkRows += int64(len(c.Sel))
	}
	return nil
}

// risingSource is an endless source whose event times keep rising: each time
// the looped data starts again, its times are shifted past the last one, so a
// windowed job sees no late rows and fires windows all along.
type risingSource struct {
	Source
	col        int
	shift, raw int64
}

func newRisingSource(job *planner.Job) *risingSource {
	return &risingSource{Source: newEndlessSource(job), col: job.Stream.Column("ts"), raw: math.MinInt64}
}

func (s *risingSource) Next(b *vector.Batch, bad *[]BadRow) error {
	err := s.Source.Next(b, bad)
	v := b.Cols[s.col]
	for i := 0; i < b.N; i++ {
		if v.Null[i] {
			continue
		}
		if v.I[i] < s.raw { // the data starts again
			s.shift += s.raw - v.I[i] + 20
		}
		s.raw = v.I[i]
		v.I[i] += s.shift
	}
	return err
}

// BenchmarkTumble: the per-device per-minute TUMBLE job of issue 11 item 7
// (COUNT(*), AVG, MIN, MAX of temperature) through the job loop, one batch of
// decoded rows per op; allocs/op is the allocations per batch (windows open
// and fire as the watermark passes: state stays bounded).
//
//	go test ./executor -run XXX -bench 'Tumble' -benchmem
func BenchmarkTumble(b *testing.B) {
	job := sensorbench.Plan(b, sensorbench.TumbleScript, "")
	src := &limitSource{Source: newRisingSource(job)}
	sink := &discardCounting{}
	var stats Stats
	b.ReportAllocs()
	src.n = b.N
	b.ResetTimer()
	cpu0 := sensorbench.CPUTime()
	if err := run(b.Context(), job, src, sink, &stats, nil); err != nil {
		b.Fatal(err)
	}
	sensorbench.ReportRows(b, stats.Rows, cpu0)
	// about 3,000 rows a minute over 8 devices: every window fires, none is late
	if b.N > 100 && (sink.chunkRows < int64(b.N)*1024/3000*8/2 || sink.rows > 0) {
		b.Fatalf("%d window rows and %d late rows for %d batches", sink.chunkRows, sink.rows, b.N)
	}
}

// BenchmarkTumbleVsSplit runs the TUMBLE job and the split job (SPEC 2.1's
// example) over the same decoded rows in the same run and reports the ratio of
// their wall times (issue 11 item 7: at most 1.2).
func BenchmarkTumbleVsSplit(b *testing.B) {
	timeJob := func(script string) time.Duration {
		return timeSensorJob(b, script, func(job *planner.Job) Source { return newRisingSource(job) })
	}
	b.ReportAllocs()
	split := timeJob(sensorbench.SplitScript)
	tumble := timeJob(sensorbench.TumbleScript)
	b.ReportMetric(float64(tumble)/float64(split), "tumble/split")
}
