package executor

import (
	"context"
	"testing"

	"streamql/catalog"
	"streamql/executor/connector"
	"streamql/executor/vector"
)

// TestMaxFutureAllocatesNothingPerRow: with 'watermark.max-future', stamping
// and routing batches of rows that are not refused allocates nothing (the
// hot path rule; a refused row's errors-output row may allocate).
func TestMaxFutureAllocatesNothingPerRow(t *testing.T) {
	job := planSides(t, nil, "SELECT k, ts FROM s")
	job.Stream.Options[catalog.MaxFutureOption] = "1 h"
	sink := &discardCounting{}
	c := buildChain(job, nil, sink, chainOpts{})
	if c.assign.max == nil {
		t.Fatal("the option made no check")
	}
	b := vector.NewBatch(job.BatchTypes)
	for i := range vector.Cap {
		b.Cols[0].SetString(i, []byte("k"))
		b.Cols[0].Null[i], b.Cols[1].Null[i] = false, false
	}
	b.N = vector.Cap
	step := newStep("errors")
	next := int64(0)
	push := func() {
		for i := range vector.Cap {
			b.Cols[1].I[i] = next
			next += 10
		}
		step.Bad = step.Bad[:0]
		step.selectRows(b, 0, b.N)
		if err := c.head.Push(context.Background(), Port{}, step); err != nil {
			t.Fatal(err)
		}
	}
	push()
	if a := testing.AllocsPerRun(50, push); a != 0 {
		t.Errorf("%.1f allocations per batch of %d rows", a, vector.Cap)
	}
	if sink.rows != 51*vector.Cap+vector.Cap {
		t.Errorf("%d rows reached the sink, want every row", sink.rows)
	}
}

// TestMaxFuturePartitionWatermark: for a partitioned source (Kafka, SPEC 2.5)
// a row is refused by its partition's watermark: a row of the slow partition
// 2 s above that partition's watermark goes to the errors output, though it
// is below the fast partition's; the partition's watermark stays.
func TestMaxFuturePartitionWatermark(t *testing.T) {
	job := planSides(t, nil, "SELECT k, ts FROM s")
	job.Stream.Options[catalog.MaxFutureOption] = "1 s"
	sink := &discardCounting{}
	c := buildChain(job, nil, sink, chainOpts{})
	src := &fakeParts{live: []int32{0, 1}}
	c.assign.partitionBy(src)
	step := newStep("errors")
	push := func(rows []row, parts []int32) {
		t.Helper()
		b := rowBatch(job, rows...)
		for i, p := range parts {
			b.Pos[i] = connector.KafkaPosition(p, int64(i))
		}
		step.Bad = step.Bad[:0]
		step.selectRows(b, 0, b.N)
		if err := c.head.Push(context.Background(), Port{}, step); err != nil {
			t.Fatal(err)
		}
	}
	push([]row{{"a", 10000}, {"b", 100}}, []int32{0, 1})
	push([]row{{"c", 2200}, {"d", 10500}, {"e", 900}}, []int32{1, 0, 1})
	if len(step.Sel) != 2 || step.Sel[0] != 1 || step.Sel[1] != 2 {
		t.Errorf("live rows %v, want [1 2] (c refused)", step.Sel)
	}
	if len(step.Bad) != 1 || step.Bad[0].Error != catalog.MaxFutureReason || step.Bad[0].At != 0 {
		t.Fatalf("errors %+v, want c's", step.Bad)
	}
	if wm := step.In.Cols[job.WatermarkCol]; wm.I[2] != 100 {
		t.Errorf("e stamped %d, want partition 1's watermark 100 (c did not move it)", wm.I[2])
	}
}
