package executor

// Per-operator benchmarks of the sensor split job (SPEC 2.1's main example):
// decode, filter, route, and decode→route, each op one batch of vector.Cap rows,
// so -benchmem's allocs/op is the allocations per batch (0 on the hot path):
//
//	go test ./executor -run XXX -bench 'Decode|Filter|Route' -benchmem
//
// The encoders live in cmd/streamql/render (bench_test.go there, with the
// decode→route→encode benchmark); the end-to-end job is in tests/bench_test.go;
// the job's script, data and planning are in internal/sensorbench.

import (
	"fmt"
	"io"
	"testing"

	"streamql/executor/csvdec"
	"streamql/executor/expr"
	"streamql/executor/route"
	"streamql/executor/stateless"
	"streamql/executor/vector"
	"streamql/internal/sensorbench"
	"streamql/planner"
)

// planSplitJob plans the split job: side branches low-tmp and high-tmp, then
// the main query, over the stream sensors (a bounded file).
func planSplitJob(tb testing.TB) *planner.Job {
	return sensorbench.Plan(tb, sensorbench.SplitScript, "")
}

// loopReader reads data over and over, never ending.
type loopReader struct {
	data []byte
	off  int
}

func (r *loopReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		k := copy(p[n:], r.data[r.off:])
		n += k
		r.off = (r.off + k) % len(r.data)
	}
	return n, nil
}

// endlessSource decodes sensor CSV from a loopReader: a source that never ends,
// so a benchmark op can be one batch.
type endlessSource struct{ dec *csvdec.Decoder }

func newEndlessSource(job *planner.Job) *endlessSource {
	st := job.Stream
	return &endlessSource{dec: csvdec.NewDecoder(&loopReader{data: sensorbench.CSV(100_000)}, st.Names(), st.Types(), csvdec.Options{})}
}

func (s *endlessSource) Next(b *vector.Batch, bad *[]BadRow) error { return s.dec.Decode(b, bad) }
func (s *endlessSource) Position(line int64) string                { return fmt.Sprint("sensors.csv:", line) }
func (s *endlessSource) Progress() (int64, int64)                  { return s.dec.BytesRead(), 0 }
func (s *endlessSource) Close() error                              { return nil }

// decodedBatch returns a full batch of sensor rows.
func decodedBatch(b *testing.B, job *planner.Job) *vector.Batch {
	src := newEndlessSource(job)
	batch := vector.NewBatch(job.BatchTypes)
	var bad []BadRow
	for batch.N < vector.Cap {
		if err := src.Next(batch, &bad); err != nil {
			b.Fatal(err)
		}
	}
	if len(bad) > 0 {
		b.Fatalf("bad rows: %v", bad)
	}
	return batch
}

func allRows(n int) []int32 {
	sel := make([]int32, n)
	for i := range sel {
		sel[i] = int32(i)
	}
	return sel
}

// BenchmarkDecode: CSV text → typed column batch (csvdec), one batch per op.
func BenchmarkDecode(b *testing.B) { benchDecode(b, false) }

// BenchmarkDecodeNoText is BenchmarkDecode into batches that keep no source
// text (vector.Batch.NoText: an aggregating job's).
func BenchmarkDecodeNoText(b *testing.B) { benchDecode(b, true) }

func benchDecode(b *testing.B, noText bool) {
	job := planSplitJob(b)
	src := newEndlessSource(job)
	batch := vector.NewBatch(job.BatchTypes)
	batch.NoText = noText
	var bad []BadRow
	var rows int64
	b.SetBytes(int64(float64(len(sensorbench.CSV(1000))) / 1000 * vector.Cap))
	b.ReportAllocs()
	cpu0 := sensorbench.CPUTime()
	for b.Loop() {
		bad = bad[:0]
		if err := src.Next(batch, &bad); err != nil {
			b.Fatal(err)
		}
		rows += int64(batch.N)
	}
	sensorbench.ReportRows(b, rows, cpu0)
}

// BenchmarkFilter: the low-tmp branch's WHERE temperature < 10 over a batch.
func BenchmarkFilter(b *testing.B) {
	job := planSplitJob(b)
	batch := decodedBatch(b, job)
	sel := allRows(batch.N)
	where := expr.Compile(job.Branches[0].Where)
	b.ReportAllocs()
	n := 0
	cpu0 := sensorbench.CPUTime()
	for b.Loop() {
		if where.Eval(batch, sel).B[0] {
			n++
		}
	}
	sensorbench.ReportRows(b, int64(b.N)*int64(batch.N), cpu0)
}

// BenchmarkRoute: first-match routing of a batch over low-tmp, high-tmp, main,
// projections included.
func BenchmarkRoute(b *testing.B) {
	job := planSplitJob(b)
	batch := decodedBatch(b, job)
	sel := allRows(batch.N)
	r := route.New(job, nil, nil)
	proj := stateless.NewProject(job, &Emitter{}, nil)
	b.ReportAllocs()
	cpu0 := sensorbench.CPUTime()
	var out *Step
	for b.Loop() {
		out = r.Route(batch, sel)
		proj.Apply(out)
	}
	sensorbench.ReportRows(b, int64(b.N)*int64(batch.N), cpu0)
	if len(out.Parts[0].Sel) == 0 || len(out.Parts[2].Sel) == 0 {
		b.Fatal("routing took no rows")
	}
}

// nopSink is the part of a test Sink that does nothing: errors rows, flushes
// and the close.
type nopSink struct{}

func (nopSink) Errors(string, []ErrorRow) error { return nil }
func (nopSink) Flush() error                    { return nil }
func (nopSink) Close() error                    { return nil }

// discardSink counts routed rows.
type discardSink struct {
	nopSink
	rows int64
}

func (s *discardSink) Rows(r *Step) error {
	for _, p := range r.Parts {
		s.rows += int64(len(p.Sel))
	}
	return nil
}

// limitSource ends an endless source after n batches.
type limitSource struct {
	Source
	n int
}

func (s *limitSource) Next(b *vector.Batch, bad *[]BadRow) error {
	if s.n == 0 {
		b.Reset()
		return io.EOF
	}
	s.n--
	return s.Source.Next(b, bad)
}

// BenchmarkDecodeRoute: decode and route through the job loop (run), one
// batch per op, to a sink that only counts rows.
func BenchmarkDecodeRoute(b *testing.B) {
	job := planSplitJob(b)
	src := &limitSource{Source: newEndlessSource(job)}
	sink := &discardSink{}
	var stats Stats
	b.ReportAllocs()
	src.n = b.N
	b.ResetTimer()
	cpu0 := sensorbench.CPUTime()
	if err := run(b.Context(), job, src, sink, &stats, nil); err != nil {
		b.Fatal(err)
	}
	sensorbench.ReportRows(b, stats.Rows, cpu0)
	if sink.rows != stats.Rows {
		b.Fatalf("routed %d rows of %d", sink.rows, stats.Rows)
	}
}
