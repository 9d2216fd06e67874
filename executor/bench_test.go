package executor

// Per-operator benchmarks of the sensor split job (SPEC 2.1's main example):
// decode, filter, route, and decode→route, each op one batch of vector.Cap rows,
// so -benchmem's allocs/op is the allocations per batch (0 on the hot path):
//
//	go test ./executor -run XXX -bench 'Decode|Filter|Route' -benchmem
//
// The encoders live in cmd/streamql/render (bench_test.go there, with the
// decode→route→encode benchmark); the end-to-end job is in tests/bench_test.go.

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"syscall"
	"testing"
	"time"

	"streamql/catalog"
	"streamql/executor/csvdec"
	"streamql/executor/vector"
	"streamql/parser"
	"streamql/planner"
)

const splitScript = `CREATE STREAM sensors (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE)
  WITH ('connector' = 'file', 'path' = 'sensors.csv', 'format' = 'csv');
SELECT deviceNo, temperature INTO SIDE 'low-tmp' FROM sensors WHERE temperature < 10;
SELECT deviceNo, temperature INTO SIDE 'high-tmp' FROM sensors WHERE temperature > 70;
SELECT * FROM sensors;
`

// sensorCSV returns rows lines shaped like ../shared/bench/gen's output:
// 设备<n>,<epoch ms>,<temperature with one decimal, 0.0..100.0>.
func sensorCSV(rows int) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	var buf bytes.Buffer
	ts := int64(1610035289736)
	for range rows {
		ts += 10 + r.Int64N(20)
		t := r.IntN(1001)
		buf.WriteString("设备")
		buf.WriteString(strconv.Itoa(1 + r.IntN(8)))
		buf.WriteByte(',')
		buf.WriteString(strconv.FormatInt(ts, 10))
		buf.WriteByte(',')
		buf.WriteString(strconv.Itoa(t / 10))
		buf.WriteByte('.')
		buf.WriteByte(byte('0' + t%10))
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

// planSplitJob plans splitScript: side branches low-tmp and high-tmp, then the
// main query, over the stream sensors (a bounded file).
func planSplitJob(tb testing.TB) *planner.Job { return planScript(tb, splitScript) }

// planScript plans src: a CREATE STREAM of sensors (deviceNo VARCHAR, ts BIGINT,
// temperature DOUBLE), side branches, and a main query, into one job.
func planScript(tb testing.TB, src string) *planner.Job {
	tb.Helper()
	script, err := parser.Parse("split.sql", src)
	if err != nil {
		tb.Fatal(err)
	}
	cat := catalog.New()
	var branches []*planner.Branch
	var main *planner.Branch
	for _, st := range script.Stmts {
		switch st := st.(type) {
		case *parser.CreateStream:
			s := &catalog.Stream{Name: st.Name, EventTime: -1, Columns: []catalog.Column{
				{Name: "deviceNo", Type: catalog.Varchar}, {Name: "ts", Type: catalog.BigInt}, {Name: "temperature", Type: catalog.Double}}}
			if s.Connector, s.Options, err = catalog.ValidateOptions(st.Options, s.Columns, 0); err != nil {
				tb.Fatal(err)
			}
			cat.Add(s)
		case *parser.Select:
			p := &planner.Planner{Cat: cat, Source: src}
			b, err := p.PlanSelect(st)
			if err != nil {
				tb.Fatal(err)
			}
			if st.Side != "" {
				branches = append(branches, b)
			} else {
				main = b
			}
		}
	}
	job, err := planner.NewJob(main.Stream, branches, main, src)
	if err != nil {
		tb.Fatal(err)
	}
	return job
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
	return &endlessSource{dec: csvdec.NewDecoder(&loopReader{data: sensorCSV(100_000)}, st.Names(), st.Types(), csvdec.Options{})}
}

func (s *endlessSource) Next(b *vector.Batch, bad *[]BadRow) error { return s.dec.Decode(b, bad) }
func (s *endlessSource) Position(line int64) string                { return fmt.Sprint("sensors.csv:", line) }
func (s *endlessSource) Progress() (int64, int64)                  { return s.dec.BytesRead(), 0 }
func (s *endlessSource) Close() error                              { return nil }

// reportRows reports ns/row and cpu-ns/row (user+system CPU time since cpu0,
// steadier than ns/row when other processes compete for the cores) for a
// benchmark that handled rows rows.
func reportRows(b *testing.B, rows int64, cpu0 time.Duration) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(rows), "ns/row")
	b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(rows), "cpu-ns/row")
}

// cpuTime is the user+system CPU time used by this process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

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
func BenchmarkDecode(b *testing.B) {
	job := planSplitJob(b)
	src := newEndlessSource(job)
	batch := vector.NewBatch(job.BatchTypes)
	var bad []BadRow
	var rows int64
	b.SetBytes(int64(float64(len(sensorCSV(1000))) / 1000 * vector.Cap))
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		bad = bad[:0]
		if err := src.Next(batch, &bad); err != nil {
			b.Fatal(err)
		}
		rows += int64(batch.N)
	}
	reportRows(b, rows, cpu0)
}

// BenchmarkFilter: the low-tmp branch's WHERE temperature < 10 over a batch.
func BenchmarkFilter(b *testing.B) {
	job := planSplitJob(b)
	batch := decodedBatch(b, job)
	sel := allRows(batch.N)
	where := job.Branches[0].Where
	b.ReportAllocs()
	n := 0
	cpu0 := cpuTime()
	for b.Loop() {
		if where.Eval(batch, sel).B[0] {
			n++
		}
	}
	reportRows(b, int64(b.N)*int64(batch.N), cpu0)
}

// BenchmarkRoute: first-match routing of a batch over low-tmp, high-tmp, main,
// projections included.
func BenchmarkRoute(b *testing.B) {
	job := planSplitJob(b)
	batch := decodedBatch(b, job)
	sel := allRows(batch.N)
	r := newRouter(job, nil)
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		r.route(batch, sel)
	}
	reportRows(b, int64(b.N)*int64(batch.N), cpu0)
	if len(r.out.Parts[0].Sel) == 0 || len(r.out.Parts[2].Sel) == 0 {
		b.Fatal("routing took no rows")
	}
}

// discardSink counts routed rows.
type discardSink struct{ rows int64 }

func (s *discardSink) Rows(r *Routed) error {
	for _, p := range r.Parts {
		s.rows += int64(len(p.Sel))
	}
	return nil
}
func (s *discardSink) Errors(string, []ErrorRow) error { return nil }
func (s *discardSink) Flush() error                    { return nil }
func (s *discardSink) Close() error                    { return nil }

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
	cpu0 := cpuTime()
	if err := run(b.Context(), job, src, sink, &stats, nil); err != nil {
		b.Fatal(err)
	}
	reportRows(b, stats.Rows, cpu0)
	if sink.rows != stats.Rows {
		b.Fatalf("routed %d rows of %d", sink.rows, stats.Rows)
	}
}
