package executor

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"streamql/executor/connector"
	"streamql/executor/vector"
)

// fakeParts is a connector.PartitionedSource of which only the partition
// methods are used: positions made by connector.KafkaPosition, the
// partitions still to come in live.
type fakeParts struct {
	Source
	live []int32
	idle time.Duration
}

func (f *fakeParts) Partition(pos int64) int32      { p, _ := connector.KafkaPartitionOf(pos); return p }
func (f *fakeParts) Partitions(dst []int32) []int32 { return append(dst, f.live...) }
func (f *fakeParts) IdleTimeout() time.Duration     { return f.idle }

// TestPartitionWatermarks (SPEC 2.5): each row's CURRENT_WATERMARK is its
// partition's; the stream's watermark, which fires the toy aggregate's
// thresholds (every 2 s), is the minimum over the partitions still to come,
// leaving out one idle past 'scan.watermark.idle-timeout' and one that ended.
func TestPartitionWatermarks(t *testing.T) {
	job := planSides(t, nil, "SELECT k, ts FROM s")
	sink, _, c := toyChain(job)
	src := &fakeParts{live: []int32{0, 1}, idle: 80 * time.Millisecond}
	c.assign.partitionBy(src)
	if c.assign.parts == nil {
		t.Fatal("a PartitionedSource got one watermark")
	}
	ctx := context.Background()
	step := newStep("errors")
	type prow struct {
		p  int32
		k  string
		ts int64
	}
	push := func(rows ...prow) *vector.Vec {
		t.Helper()
		var rs []row
		for _, r := range rows {
			rs = append(rs, row{r.k, r.ts})
		}
		b := rowBatch(job, rs...)
		for i, r := range rows {
			b.Pos[i] = connector.KafkaPosition(r.p, int64(i))
		}
		step.SelectRows(b, 0, b.N)
		if err := c.head.Push(ctx, Port{}, step); err != nil {
			t.Fatal(err)
		}
		return step.In.Cols[job.WatermarkCol]
	}
	stamps := func(wm *vector.Vec, n int) string {
		var s []string
		for i := range n {
			if wm.Null[i] {
				s = append(s, "NULL")
			} else {
				s = append(s, strconv.FormatInt(wm.I[i], 10))
			}
		}
		return strings.Join(s, " ")
	}
	// p0 runs ahead: the stream's watermark is p1's (100), nothing fires.
	wm := push(prow{0, "a", 1000}, prow{0, "b", 5000}, prow{1, "c", 100})
	if got := stamps(wm, 3); got != "NULL 1000 NULL" {
		t.Errorf("stamps of batch 1: %s, want NULL 1000 NULL (each row its partition's)", got)
	}
	// p1 reaches 3000: the minimum is 3000, the 2000 threshold fires after d.
	wm = push(prow{1, "d", 3000}, prow{0, "e", 4000})
	if got := stamps(wm, 2); got != "100 5000" {
		t.Errorf("stamps of batch 2: %s, want 100 5000", got)
	}
	// p1 idle past the timeout: p0 alone moves the stream to 9000.
	time.Sleep(120 * time.Millisecond)
	push(prow{0, "f", 9000})
	// p0 ends: p1 (back, at 3500) alone holds the stream.
	src.live = []int32{1}
	push(prow{1, "g", 3500}, prow{1, "h", 11000})
	want := []string{
		"main: a,1000", "main: b,5000", "main: c,100",
		"main: d,3000", "main: fire,2000", "main: e,4000",
		"main: f,9000", "main: fire,4000", "main: fire,6000", "main: fire,8000",
		"main: g,3500", "main: h,11000", "main: fire,10000",
	}
	if got := strings.Join(sink.out, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("output:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
}

// twoPartsRows are the rows of a twoParts source, in the order it gives
// them: partition 0's event times are far above partition 1's.
var twoPartsRows = []struct {
	p  int32
	k  string
	ts int64
}{{0, "a", 10}, {1, "x", 1}, {0, "b", 20}, {1, "y", 2}, {0, "c", 30}, {1, "z", 3}}

// twoParts gives twoPartsRows in one batch, each row's position its
// partition and offset (connector.KafkaPosition), as a Kafka source does.
type twoParts struct{ done bool }

func (s *twoParts) Next(b *vector.Batch, _ *[]BadRow) error {
	if s.done {
		return io.EOF
	}
	s.done = true
	b.Reset()
	for i, r := range twoPartsRows {
		b.Cols[0].SetString(i, []byte(r.k))
		b.Cols[0].Null[i] = false
		b.Cols[1].I[i], b.Cols[1].Null[i] = r.ts, false
		b.Pos[i] = connector.KafkaPosition(r.p, int64(i))
	}
	b.N = len(twoPartsRows)
	return nil
}
func (s *twoParts) Position(pos int64) string {
	p, off := connector.KafkaPartitionOf(pos)
	return fmt.Sprintf("t:%d:%d", p, off)
}
func (s *twoParts) Progress() (int64, int64) { return 0, 0 }
func (s *twoParts) Close() error             { return nil }
func (s *twoParts) Partition(pos int64) int32 {
	p, _ := connector.KafkaPartitionOf(pos)
	return p
}
func (s *twoParts) Partitions(dst []int32) []int32 {
	if s.done {
		return dst
	}
	return append(dst, 0, 1)
}
func (s *twoParts) IdleTimeout() time.Duration { return 0 }

// TestJoinPeerPartitionsAreNotIdle (issue 23 item 6; joinSource.rewind):
// with 'scan.watermark.idle-timeout', a partition only the other input of
// a join reads (peer), and one just assigned to the input (touch), hold
// the input's watermark back, as one without a watermark does: neither is
// idle because this input has read no row of it. The watermarker started
// an hour ago, longer than the timeout, as a process that gains a
// partition mid-run did.
func TestJoinPeerPartitionsAreNotIdle(t *testing.T) {
	for _, assigned := range []bool{false, true} {
		self := &fakeParts{live: []int32{0}, idle: time.Minute}
		peer := &fakeParts{live: []int32{0, 1}}
		pw := &partWatermarks{src: self, idle: self.idle, start: time.Now().Add(-time.Hour), peer: peer}
		w := &watermarker{parts: pw}
		pw.seed(0, 5000, true)
		pw.last[0] = time.Now() // (partition 0 had a row just now)
		w.wm, w.set = 5000, true
		if assigned { // (partition 1 came to this input too, without a mark)
			self.live = []int32{0, 1}
			pw.seed(1, 0, false)
			pw.touch(1)
		}
		if pw.ready(w, time.Now()) {
			t.Errorf("assigned %v: the input's watermark is ready while partition 1, which the join's other input reads, has no watermark of it", assigned)
		}
		peer.live = []int32{0} // (both inputs read partition 0 alone)
		self.live = []int32{0}
		pw.forget(1)
		if !pw.ready(w, time.Now()) {
			t.Errorf("assigned %v: the input's watermark is not ready once neither input reads partition 1", assigned)
		}
	}
}

// TestAssignedPartitionGetsItsIdleTimeout (SPEC 2.5,
// 'scan.watermark.idle-timeout'; partWatermarks.countLive): a partition
// that comes to a job's source once the timeout has passed since the job
// started, or since the partition's last row before a revoke, is not idle
// at once: it holds the stream's watermark back (without a watermark of
// its own, or at its last one) for the whole timeout from its assignment,
// and only then, without a row, does the watermark go on without it.
// Before, its idle clock started at its last row (or at the job's start),
// so the other partitions' rows fired the windows its rows, read from the
// committed offset, belonged to.
func TestAssignedPartitionGetsItsIdleTimeout(t *testing.T) {
	const idle = time.Minute
	for _, again := range []bool{false, true} {
		job := planSides(t, nil, "SELECT k, ts FROM s")
		sink, _, c := toyChain(job)
		src := &fakeParts{live: []int32{0}, idle: idle}
		if again {
			src.live = []int32{0, 1}
		}
		c.assign.partitionBy(src)
		at := time.Now() // (the processing time the timeouts are measured by: partWatermarks.clock)
		c.assign.parts.clock = func() time.Time { return at }
		ctx := context.Background()
		step := newStep("errors")
		off := int64(0)
		push := func(p int32, k string, ts int64) {
			t.Helper()
			b := rowBatch(job, row{k, ts})
			b.Pos[0] = connector.KafkaPosition(p, off)
			off++
			step.SelectRows(b, 0, b.N)
			if err := c.head.Push(ctx, Port{}, step); err != nil {
				t.Fatal(err)
			}
		}
		push(0, "a", 1000)
		if again {
			push(1, "b", 1500) // (partition 1's last row before it leaves: its watermark 1500)
			src.live = []int32{0}
			push(0, "c", 1700)
		}
		at = at.Add(2 * idle)    // (longer than the timeout since the start, and since partition 1's last row)
		src.live = []int32{0, 1} // partition 1 comes (again)
		push(0, "d", 9000)
		if got := strings.Join(sink.out, "\n"); strings.Contains(got, "fire") {
			t.Fatalf("again %v: partition 1, assigned just now, was idle at once: the stream's watermark passed it\n%s", again, got)
		}
		at = at.Add(2 * idle) // (the timeout passed since the assignment, without a row of partition 1)
		push(0, "e", 9100)
		if got := strings.Join(sink.out, "\n"); !strings.Contains(got, "fire,8000") {
			t.Errorf("again %v: partition 1 is not idle after the timeout from its assignment: the stream's watermark did not go on\n%s", again, got)
		}
	}
}
