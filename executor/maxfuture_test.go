package executor

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"streamql/catalog"
	"streamql/executor/connector"
	"streamql/executor/vector"
	"streamql/planner"
)

// TestMaxFutureAllocatesNothingPerRow: with 'watermark.max-future', stamping
// and routing batches of rows that are not refused allocates nothing (the
// hot path rule; a refused row's errors-output row may allocate).
func TestMaxFutureAllocatesNothingPerRow(t *testing.T) {
	job := planSides(t, nil, "SELECT k, ts FROM s")
	setOption(t, job.Stream, catalog.MaxFutureOption, "1 h")
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
		step.Errors.Rows = step.Errors.Rows[:0]
		step.SelectRows(b, 0, b.N)
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
	setOption(t, job.Stream, catalog.MaxFutureOption, "1 s")
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
		step.Errors.Rows = step.Errors.Rows[:0]
		step.SelectRows(b, 0, b.N)
		if err := c.head.Push(context.Background(), Port{}, step); err != nil {
			t.Fatal(err)
		}
	}
	push([]row{{"a", 10000}, {"b", 100}}, []int32{0, 1})
	push([]row{{"c", 2200}, {"d", 10500}, {"e", 900}}, []int32{1, 0, 1})
	if len(step.Sel) != 2 || step.Sel[0] != 1 || step.Sel[1] != 2 {
		t.Errorf("live rows %v, want [1 2] (c refused)", step.Sel)
	}
	if len(step.Errors.Rows) != 1 || step.Errors.Rows[0].Error != catalog.MaxFutureReason || step.Errors.Rows[0].At != 0 {
		t.Fatalf("errors %+v, want c's", step.Errors.Rows)
	}
	if wm := step.In.Cols[job.WatermarkCol]; wm.I[2] != 100 {
		t.Errorf("e stamped %d, want partition 1's watermark 100 (c did not move it)", wm.I[2])
	}
}

// onceSource gives one batch (rows with positions 1.., its own malformed
// rows bad) and then io.EOF, and records what a job took back (Unreader).
type onceSource struct {
	Source
	job        *planner.Job
	rows       []row
	bad        []BadRow
	done       bool
	unread     [2]int // the last Unread/UnreadAfter: good rows, malformed rows
	unreadCall string
	hb         connector.HandBack // the job's account (connector.HandsBack)
}

// usedRows is a job's account of what it used (connector.HandBack).
type usedRows [2]int

func (u usedRows) Used() (rows, bad int, ok bool) { return u[0], u[1], true }

func (s *onceSource) Next(b *vector.Batch, bad *[]BadRow) error {
	if s.done {
		b.N = 0
		return io.EOF
	}
	s.done = true
	*b = *rowBatch(s.job, s.rows...)
	*bad = append(*bad, s.bad...)
	return nil
}
func (s *onceSource) Position(pos int64) string { return fmt.Sprintf("line %d", pos) }
func (s *onceSource) Unread(rows int)           { s.unread, s.unreadCall = [2]int{rows, 0}, "Unread" }
func (s *onceSource) UnreadAfter(rows, bad int) {
	s.unread, s.unreadCall = [2]int{rows, bad}, "UnreadAfter"
}
func (s *onceSource) SetHandBack(hb connector.HandBack) { s.hb = hb }

// TestFutureSourceMerges: the source-side 'watermark.max-future' (the
// inputs of event-time semi and anti joins) takes a row too far ahead out of
// the batch, in place of it gives a malformed row with the reason, in order
// among the connector's own malformed rows (BadRow.Index counted in kept
// rows), keeps the watermark below it, and maps what a job takes back
// (stdin, Unreader, and the job's HandBack that the hand-back handle takes,
// connector.HandsBack) to the connector's rows, for which a refused row is
// good.
func TestFutureSourceMerges(t *testing.T) {
	job := planSides(t, nil, "SELECT k, ts FROM s")
	setOption(t, job.Stream, catalog.MaxFutureOption, "1 s")
	// rows: a 1000, B 9000 (refused: 8 s above a's watermark 1000), c 1500,
	// D 5000 (refused: 3.5 s above c's), e 2000; the connector's malformed
	// rows stand after a (Index 1) and after e (Index 5)
	src := &onceSource{job: job, rows: []row{{"a", 1000}, {"B", 9000}, {"c", 1500}, {"D", 5000}, {"e", 2000}},
		bad: []BadRow{{Index: 1, Line: 10, Reason: "own 1"}, {Index: 5, Line: 11, Reason: "own 2"}}}
	o := withMaxFuture(job.Stream, job.Watermark, job.Stream.EventTime, testOpened(src), true, nil)
	f := o.src
	if o.h.HandsBack == nil {
		t.Fatal("over a source that hands back, the wrapper has no hand-back handle")
	}
	u, ok := f.(Unreader)
	if !ok {
		t.Fatal("over a source that takes rows back, the wrapper does not")
	}
	b := vector.NewBatch(job.BatchTypes)
	var bad []BadRow
	if err := f.Next(b, &bad); err != nil {
		t.Fatal(err)
	}
	var kept []string
	for i := 0; i < b.N; i++ {
		kept = append(kept, string(b.Cols[0].S[i]))
	}
	if strings.Join(kept, ",") != "a,c,e" {
		t.Errorf("kept %v, want a,c,e", kept)
	}
	var got []string
	for _, x := range bad {
		got = append(got, fmt.Sprintf("%d:%d:%s", x.Index, x.Line, x.Reason))
	}
	want := "1:10:own 1,1:2:" + catalog.MaxFutureReason + ",2:4:" + catalog.MaxFutureReason + ",3:11:own 2"
	if strings.Join(got, ",") != want {
		t.Errorf("malformed rows\n%s\nwant\n%s", strings.Join(got, ","), want)
	}
	if string(bad[1].Raw) != "B,9000" {
		t.Errorf("raw text %q, want the refused row's values", bad[1].Raw)
	}
	// the connector counts B and D as good rows
	for _, tc := range []struct {
		call       string
		rows, nbad int
		want       [2]int
	}{
		{"Unread", 0, 0, [2]int{0, 0}},
		{"Unread", 1, 0, [2]int{1, 0}},
		{"Unread", 2, 0, [2]int{3, 0}}, // a, B (refused, before c), c
		{"Unread", 3, 0, [2]int{5, 0}},
		{"UnreadAfter", 1, 1, [2]int{1, 1}}, // a and own 1
		{"UnreadAfter", 1, 2, [2]int{2, 1}}, // a, own 1 and B
		{"UnreadAfter", 3, 4, [2]int{5, 2}},
	} {
		if tc.call == "Unread" {
			u.Unread(tc.rows)
		} else {
			u.UnreadAfter(tc.rows, tc.nbad)
		}
		if src.unreadCall != tc.call || src.unread != tc.want {
			t.Errorf("%s(%d, %d) gave the connector %s%v, want %v", tc.call, tc.rows, tc.nbad, src.unreadCall, src.unread, tc.want)
		}
		o.h.HandsBack.SetHandBack(usedRows{tc.rows, tc.nbad})
		if rows, bad, ok := src.hb.Used(); !ok || [2]int{rows, bad} != tc.want {
			t.Errorf("a job that used %d rows and %d malformed rows gave the connector %d, %d (%v), want %v", tc.rows, tc.nbad, rows, bad, ok, tc.want)
		}
	}
	if fs := futureOf(f); fs == nil || fs.refused != 2 {
		t.Errorf("refused count %+v, want 2", fs)
	}
	// without the option the source is not wrapped
	delete(job.Stream.Options, catalog.MaxFutureOption)
	if err := job.Stream.Configure(); err != nil {
		t.Fatal(err)
	}
	if withMaxFuture(job.Stream, job.Watermark, job.Stream.EventTime, testOpened(src), true, nil).src != Source(src) {
		t.Error("a stream without the option was wrapped")
	}
}
