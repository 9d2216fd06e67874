package executor

import (
	"testing"
	"time"

	"streamql/internal/sensorbench"
)

// discardCounting is a sink that counts the rows of the outputs, chunks
// (fired windows) included.
type discardCounting struct{ rows, chunkRows int64 }

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
func (s *discardCounting) Errors(string, []ErrorRow) error { return nil }
func (s *discardCounting) Flush() error                    { return nil }
func (s *discardCounting) Close() error                    { return nil }

// BenchmarkTumble: the per-device per-minute TUMBLE job of issue 11 item 7
// (COUNT(*), AVG, MIN, MAX of temperature) through the job loop, one batch of
// decoded rows per op; allocs/op is the allocations per batch (windows open
// and fire as the watermark passes: state stays bounded).
//
//	go test ./executor -run XXX -bench 'Tumble' -benchmem
func BenchmarkTumble(b *testing.B) {
	job := sensorbench.Plan(b, sensorbench.TumbleScript, "")
	src := &limitSource{Source: newEndlessSource(job)}
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
	if b.N > 100 && sink.chunkRows == 0 {
		b.Fatal("no window fired")
	}
}

// BenchmarkTumbleVsSplit runs the TUMBLE job and the split job (SPEC 2.1's
// example) over the same decoded rows in the same run and reports the ratio of
// their wall times (issue 11 item 7: at most 1.2).
func BenchmarkTumbleVsSplit(b *testing.B) {
	timeJob := func(script string) time.Duration {
		job := sensorbench.Plan(b, script, "")
		src := &limitSource{Source: newEndlessSource(job), n: b.N}
		var stats Stats
		t := time.Now()
		if err := run(b.Context(), job, src, &discardCounting{}, &stats, nil); err != nil {
			b.Fatal(err)
		}
		return time.Since(t)
	}
	b.ReportAllocs()
	split := timeJob(sensorbench.SplitScript)
	tumble := timeJob(sensorbench.TumbleScript)
	b.ReportMetric(float64(tumble)/float64(split), "tumble/split")
}
