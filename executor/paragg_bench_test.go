package executor

import (
	"testing"

	"streamql/executor/aggregate"
	"streamql/executor/vector"
	"streamql/internal/sensorbench"
)

// BenchmarkPartialAggregate: a worker's part of the parallel window aggregate
// (paragg.go) for the TUMBLE job of issue 11 item 7, over decoded sensor
// rows: the chunk's watermark, routing and the partial aggregates, chunks of
// 10 batches (about what a 256 KiB chunk holds), one batch per op; the
// merge and decoding are not in it. cpu-ns/row is the per-row cost the
// aggregate adds to decoding on the workers.
//
//	go test ./executor -run XXX -bench PartialAggregate -benchmem
func BenchmarkPartialAggregate(b *testing.B) {
	job := sensorbench.Plan(b, sensorbench.TumbleScript, "")
	var ao *aggregate.Operator
	aggChain(job, NewStateBudget(0), &Stats{}, &ao, false, nil, nil).afterRouter[0](&Emitter{})
	w := newPaggWorker(job, ao, opened{}, false, nil)
	o := newPaggOut(ao, 1, len(job.Outputs), NewStateBudget(0))
	src := newRisingSource(job)
	const per = 10
	var batches []*vector.Batch
	for range 20 * per {
		bt := vector.NewBatch(job.BatchTypes)
		var bad []BadRow
		if err := src.Next(bt, &bad); err != nil || len(bad) > 0 {
			b.Fatal(err, bad)
		}
		bt.OwnStrings()
		batches = append(batches, bt)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := sensorbench.CPUTime()
	rows := int64(0)
	for k := range b.N {
		if k%per == 0 {
			w.start(int64(k/per), o) // (the chunk's partials reset: aggregate.Partial.Start)
		}
		bt := batches[k%len(batches)]
		w.in.SelectRows(bt, 0, bt.N)
		if err := w.c.head.Push(b.Context(), Port{}, w.in); err != nil {
			b.Fatal(err)
		}
		if o.agg.Dirty() {
			b.Fatal("a late row")
		}
		rows += int64(bt.N)
	}
	sensorbench.ReportRows(b, rows, cpu0)
}
