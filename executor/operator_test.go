package executor

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"streamql/catalog"
	"streamql/executor/vector"
	"streamql/parser"
	"streamql/planner"
)

// planSides plans the side branches sides and the main query main over a
// stream s (k VARCHAR, ts BIGINT) whose watermark is ts itself (SPEC 2.3).
func planSides(t testing.TB, sides []string, main string) *planner.Job {
	t.Helper()
	return planSidesWM(t, "ts", sides, main)
}

// planSidesWM is planSides with the watermark expression wm.
func planSidesWM(t testing.TB, wm string, sides []string, main string) *planner.Job {
	t.Helper()
	return planSidesWith(t, wm, "'connector'='socket', 'port'='1'", sides, main)
}

// planSidesWith is planSidesWM over stream s declared WITH the options with.
func planSidesWith(t testing.TB, wm, with string, sides []string, main string) *planner.Job {
	t.Helper()
	st, cat := streamS(t, wm, with)
	var branches []*planner.Branch
	for _, s := range sides {
		branches = append(branches, planBranch(t, cat, s))
	}
	mb := planBranch(t, cat, main)
	if len(sides) == 0 && mb.Stream != nil {
		st = mb.Stream // (a query over a subquery of s reads the subquery)
	}
	job, err := planner.NewJob(st, branches, mb, main)
	if err != nil {
		t.Fatal(err)
	}
	return job
}

// streamS declares the stream s (k VARCHAR, ts BIGINT) whose watermark is
// wm ("": none, no event time), WITH the options with, in a catalog of
// its own.
func streamS(t testing.TB, wm, with string) (*catalog.Stream, *catalog.Catalog) {
	t.Helper()
	ddl := `CREATE STREAM s (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ` + wm + `) WITH (` + with + `);`
	if wm == "" { // (no event time)
		ddl = `CREATE STREAM s (k VARCHAR, ts BIGINT) WITH (` + with + `);`
	}
	script, err := parser.Parse("test", ddl)
	if err != nil {
		t.Fatal(err)
	}
	cs := script.Stmts[0].(*parser.CreateStream)
	st := &catalog.Stream{Name: "s", EventTime: 1, Watermark: planner.Watermark(cs.Watermark),
		Columns: []catalog.Column{{Name: "k", Type: catalog.Varchar}, {Name: "ts", Type: catalog.BigInt}}}
	if wm == "" {
		st.EventTime = -1
	}
	if st.Connector, st.Options, err = planner.ValidateOptions(cs.Options, st.Columns, 0); err != nil {
		t.Fatal(err)
	}
	cat := catalog.New()
	cat.Add(st)
	return st, cat
}

// fireEvery is a toy aggregate: it fires each time its stream's watermark
// reaches its next multiple of every ms, emitting one row of its own
// ("fire", threshold) into output out, placed right after the input row that
// moved the watermark (SPEC 2.4's rule for windows), and one ("end", -1) row at
// the stream's end (the Final event).
type fireEvery struct {
	down   *Emitter
	out    int
	every  int64
	next   int64
	col    []*vector.Vec // the chunks' columns (k VARCHAR, ts BIGINT), two per chunk of a batch
	chunks []Chunk
	final  Step
	err    error // returned by the next Push, when set
}

func (f *fireEvery) ReadsMarks() {}

func (f *fireEvery) emitRow(k int, text string, value int64) *Chunk {
	for len(f.col) <= 2*k {
		f.col = append(f.col, vector.NewVec(catalog.Varchar), vector.NewVec(catalog.BigInt))
	}
	v, n := f.col[2*k], f.col[2*k+1]
	v.ResetArena()
	v.SetString(0, []byte(text))
	v.Null[0], n.Null[0], n.I[0] = false, false, value
	f.chunks = append(f.chunks, Chunk{Part: Part{Output: f.out, Sel: []int32{0}, Cols: []*vector.Vec{v, n}}})
	return &f.chunks[len(f.chunks)-1]
}

func (f *fireEvery) Push(ctx context.Context, port Port, r *Step) error {
	if f.err != nil {
		return f.err
	}
	f.chunks = f.chunks[:0]
	for _, m := range r.Marks {
		for m.Value >= f.next {
			c := f.emitRow(len(f.chunks), "fire", f.next)
			c.At = m.At
			f.next += f.every
		}
	}
	r.Chunks = append(r.Chunks, f.chunks...)
	return f.down.Push(ctx, port, r)
}

func (f *fireEvery) Watermark(ctx context.Context, wm Watermark) error {
	if wm.Final {
		f.chunks = f.chunks[:0]
		f.emitRow(0, "end", -1)
		f.final = Step{Chunks: f.chunks}
		if err := f.down.Push(ctx, wm.Port, &f.final); err != nil {
			return err
		}
	}
	return f.down.Watermark(ctx, wm)
}

func (f *fireEvery) Finish(ctx context.Context) error { return f.down.Finish(ctx) }

// orderSink prints every row in the order a line-format sink writes it:
// operators' chunks and malformed rows at their At, input rows by
// their ports' ordinals (destsOf); a NULL as NULL, never the value its
// vector holds behind the flag (an aggregate's output slot or a join's
// padding leaves whatever was there: it differs from plan to plan, so
// printing it made equal NULL results compare unequal,
// TestWindowAggregatesOverPaddedColumns).
type orderSink struct {
	names []string
	out   []string
	kinds bool // each row's change kind before its values ("main: +I a,1")
}

func (o *orderSink) row(p *Part, i int) {
	var vals []string
	for _, v := range p.Cols {
		if v.Null[i] {
			vals = append(vals, "NULL")
			continue
		}
		vals = append(vals, string(vector.AppendValue(nil, v.Type, v, i)))
	}
	kind := ""
	if o.kinds {
		kind = p.KindAt(i).String() + " "
	}
	o.out = append(o.out, o.names[p.Output]+": "+kind+strings.Join(vals, ","))
}

func (o *orderSink) Rows(r *Step) error {
	dest := destsOf(r)
	ch, bad := 0, 0
	at := func(i int) {
		for ; ch < len(r.Chunks) && r.Chunks[ch].At <= i; ch++ {
			for _, j := range r.Chunks[ch].Sel {
				o.row(&r.Chunks[ch].Part, int(j))
			}
		}
		for ; bad < len(r.Errors.Rows) && r.Errors.Rows[bad].At <= i; bad++ {
			o.out = append(o.out, "errors: "+string(r.Errors.Rows[bad].Raw))
		}
	}
	for i := 0; i < r.N; i++ {
		at(i)
		if k := dest[i]; k >= 0 {
			o.row(&r.Parts[k], i)
		}
	}
	at(r.N)
	return nil
}
func (o *orderSink) Errors(string, []ErrorRow) error { return nil }
func (o *orderSink) Flush() error                    { return nil }
func (o *orderSink) Close() error                    { return nil }

// rowBatch makes a batch of (k, ts) rows in job's batch layout.
func rowBatch(job *planner.Job, rows ...row) *vector.Batch {
	b := vector.NewBatch(job.BatchTypes)
	for i, r := range rows {
		b.Cols[0].SetString(i, []byte(r.k))
		b.Cols[0].Null[i] = false
		b.Cols[1].I[i], b.Cols[1].Null[i] = r.ts, false
		b.Pos[i] = int64(i + 1)
	}
	b.N = len(rows)
	return b
}

// toyChain builds job's chain with a fireEvery (every 2 s) between the router
// and an orderSink.
func toyChain(job *planner.Job) (*orderSink, *fireEvery, *chain) {
	return toyChainTimed(job, true)
}

// toyChainTimed is toyChain, its operators timed or not (chainOpts.timed).
func toyChainTimed(job *planner.Job, timed bool) (*orderSink, *fireEvery, *chain) {
	sink := &orderSink{names: []string{"main", "early"}}
	toy := &fireEvery{out: 0, every: 2000, next: 2000}
	c := buildChain(job, nil, sink, chainOpts{afterRouter: []func(*Emitter) (Operator, string){
		func(down *Emitter) (Operator, string) { toy.down = down; return toy, "toy" },
	}, timed: timed})
	return sink, toy, c
}

// TestOperatorRowsAtWatermark: an operator that emits rows it built itself
// when the watermark passes a threshold (what a window aggregate does, SPEC
// 2.4) gets them placed in the output order right after the input row that
// moved the watermark, between the side output's and the main query's rows,
// within a batch and across batches, and at the stream's end (+∞, SPEC 2.3).
func TestOperatorRowsAtWatermark(t *testing.T) {
	job := planSides(t, []string{"SELECT k, ts INTO SIDE 'early' FROM s WHERE ts < 2600"}, "SELECT k, ts FROM s")
	sink, _, c := toyChain(job)
	ctx := context.Background()
	step := newStep("errors")
	// batch 1: b moves the watermark to 2500 (past 2000); batch 2: d is late
	// (it does not move it), e moves it to 4100 and f to 6000 (past 4000 and 6000)
	for _, b := range []*vector.Batch{
		rowBatch(job, row{"a", 1000}, row{"b", 2500}, row{"c", 2600}),
		rowBatch(job, row{"d", 1500}, row{"e", 4100}, row{"f", 6000}, row{"g", 6100}),
	} {
		step.SelectRows(b, 0, b.N)
		if err := c.head.Push(ctx, Port{}, step); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.head.Finish(ctx); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"early: a,1000", "early: b,2500", "main: fire,2000", "main: c,2600",
		"early: d,1500", "main: e,4100", "main: fire,4000", "main: f,6000", "main: fire,6000", "main: g,6100",
		"main: end,-1",
	}
	if got := strings.Join(sink.out, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("output order:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	// The CURRENT_WATERMARK stamps stay per row: before d (the second batch's
	// first row) the watermark was 2600.
	if wm := step.In.Cols[job.WatermarkCol]; wm.I[0] != 2600 || wm.Null[0] {
		t.Errorf("watermark before d: %d (null %v), want 2600", wm.I[0], wm.Null[0])
	}
}

// TestOperatorCounters: the instrumented wrapper counts each operator's rows
// in and out (the toy's own rows are its rows out), batches, watermark events
// and time, checks cancellation before a push, and wraps an operator's error
// so that its message stays and errors.Is sees the cause.
func TestOperatorCounters(t *testing.T) {
	for _, timed := range []bool{true, false} {
		t.Run(fmt.Sprint("timed=", timed), func(t *testing.T) { testOperatorCounters(t, timed) })
	}
}

// testOperatorCounters is TestOperatorCounters with the chain timed or not:
// untimed (a job that is not EXPLAIN ANALYZE'd), the same counts and no time.
func testOperatorCounters(t *testing.T, timed bool) {
	job := planSides(t, []string{"SELECT k, ts INTO SIDE 'early' FROM s WHERE ts < 2600"}, "SELECT k, ts FROM s WHERE ts > 1000")
	sink, toy, c := toyChainTimed(job, timed)
	ctx := context.Background()
	step := newStep("errors")
	b := rowBatch(job, row{"a", 1000}, row{"b", 2500}, row{"c", 2600}, row{"d", 900})
	// a, b and d go to early, c to main; b moves the watermark past 2000
	step.SelectRows(b, 0, b.N)
	if err := c.head.Push(ctx, Port{}, step); err != nil {
		t.Fatal(err)
	}
	// x goes to early and does not move the watermark
	b2 := rowBatch(job, row{"x", 100})
	step.SelectRows(b2, 0, b2.N)
	if err := c.head.Push(ctx, Port{}, step); err != nil {
		t.Fatal(err)
	}
	if err := c.head.Finish(ctx); err != nil {
		t.Fatal(err)
	}
	type counts struct {
		name                         string
		in, out, batches, watermarks int64
	}
	var got []counts
	var nanos int64
	for _, s := range c.stats {
		got = append(got, counts{s.Name, s.RowsIn, s.RowsOut, s.Batches, s.Watermarks})
		if s.Nanos < 0 {
			t.Errorf("%s: negative time %d", s.Name, s.Nanos)
		}
		nanos += s.Nanos
	}
	// watermark: 5 rows in and out in 2 batches, no events in (it makes
	// them); router: 5 in, 5 routed; toy: 5 in, 5 + its two rows out (the
	// fire at 2000, the end's in a push of its own); limit (none), project
	// and sink: those 7, 3 batches.
	// Events: one after batch 1 (batch 2 did not move the watermark), then +∞.
	want := []counts{
		{"watermark", 5, 5, 2, 0},
		{"router", 5, 5, 2, 2},
		{"toy", 5, 7, 2, 2},
		{"limit", 7, 7, 3, 2},
		{"project", 7, 7, 3, 2},
		{"sink", 7, 0, 3, 2},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("counters:\n%v\nwant\n%v", got, want)
	}
	if timed && nanos <= 0 {
		t.Errorf("no time counted")
	}
	if !timed && nanos != 0 {
		t.Errorf("%d ns counted by an untimed chain", nanos)
	}
	if len(sink.out) != 7 {
		t.Errorf("the sink wrote %d rows, its counter says 7: %v", len(sink.out), sink.out)
	}

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	step.SelectRows(b2, 0, b2.N)
	if err := c.head.Push(cctx, Port{}, step); !errors.Is(err, context.Canceled) {
		t.Errorf("push after cancel: %v, want context.Canceled", err)
	}
	if c.stats[0].Batches != 2 {
		t.Errorf("a cancelled push was counted: %d batches", c.stats[0].Batches)
	}

	cause := errors.New("disk full")
	toy.err = cause
	err := c.head.Push(ctx, Port{}, step)
	var oe *OpError
	if !errors.Is(err, cause) || err.Error() != cause.Error() || !errors.As(err, &oe) || oe.Op != "toy" {
		t.Errorf("error %v (%T): want the cause's message, wrapped as the toy's OpError", err, err)
	}
}

// BenchmarkAssignerMarks: the watermark assigner over a batch whose every row
// moves the watermark, without marks (a job with no MarkReader) and with them.
func BenchmarkAssignerMarks(b *testing.B) {
	job := planSides(b, nil, "SELECT k, ts FROM s")
	rows := make([]row, vector.Cap)
	for i := range rows {
		rows[i] = row{"k", int64(i)}
	}
	batch := rowBatch(job, rows...)
	for _, marks := range []bool{false, true} {
		b.Run(fmt.Sprint("marks=", marks), func(b *testing.B) {
			w := newWatermarker(job, nil)
			if marks {
				w.marks, w.buf = true, make([]Mark, 0, vector.Cap)
			}
			step := newStep("")
			step.SelectRows(batch, 0, batch.N)
			b.ReportAllocs()
			for b.Loop() {
				w.set = false
				w.stampMarks(step)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/vector.Cap, "ns/row")
		})
	}
}

// TestWatermarkOffsetLoop: the assigner's own loop for a WATERMARK of the
// form ts ± INTERVAL (watermarker.offCol) stamps the same CURRENT_WATERMARK
// and the same marks as the compiled expression, for random times with NULLs
// and int64 edges (where the sum overflows: NULL, no move; SPEC 2.3).
func TestWatermarkOffsetLoop(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	edges := []int64{math.MinInt64, math.MinInt64 + 1, math.MinInt64 + 4999, math.MinInt64 + 5000, -1, 0, 1, math.MaxInt64 - 5000, math.MaxInt64}
	for _, wm := range []string{"ts - INTERVAL '5' SECOND", "ts + INTERVAL '5' SECOND", "ts"} {
		job := planSidesWM(t, wm, nil, "SELECT k, ts FROM s")
		fast, slow, plain := newWatermarker(job, nil), newWatermarker(job, nil), newWatermarker(job, nil)
		if wm != "ts" && fast.offCol < 0 {
			t.Fatalf("%s: not taken as a column and an offset", wm)
		}
		slow.offCol = -1
		for _, w := range []*watermarker{fast, slow} {
			w.marks, w.buf = true, make([]Mark, 0, vector.Cap)
		}
		for range 200 {
			rows := make([]row, 1+r.IntN(vector.Cap))
			nulls := make([]bool, len(rows))
			for i := range rows {
				nulls[i] = r.IntN(20) == 0
				rows[i] = row{"k", int64(r.IntN(100_000)) - 50_000}
				if r.IntN(10) == 0 {
					rows[i].ts = edges[r.IntN(len(edges))]
				}
			}
			var got [2][]string
			for k, w := range []*watermarker{fast, slow} {
				b := rowBatch(job, rows...)
				copy(b.Cols[1].Null, nulls)
				step := newStep("")
				step.SelectRows(b, 0, b.N)
				w.stampMarks(step)
				for _, i := range step.Sel {
					c := b.Cols[job.WatermarkCol]
					got[k] = append(got[k], fmt.Sprint(c.Null[i], c.I[i]))
				}
				for _, m := range step.Marks {
					got[k] = append(got[k], fmt.Sprint("mark", m.At, m.Value))
				}
			}
			if fmt.Sprint(got[0]) != fmt.Sprint(got[1]) {
				t.Fatalf("%s: the offset loop stamped %v, the expression %v", wm, got[0], got[1])
			}
			// stamping without marks (watermarker.stamp: a join's input,
			// the offset loop's own path once the watermark is set)
			b := rowBatch(job, rows...)
			copy(b.Cols[1].Null, nulls)
			sel := make([]int32, b.N)
			for i := range sel {
				sel[i] = int32(i)
			}
			if r.IntN(3) == 0 && len(sel) > 1 {
				sel = sel[:len(sel)-1] // (rows 0..n-2)
			}
			plain.stamp(b, sel)
			for _, i := range sel {
				c := b.Cols[job.WatermarkCol]
				if g, w := fmt.Sprint(c.Null[i], c.I[i]), got[1][i]; g != w {
					t.Fatalf("%s: row %d stamped %s without marks, %s with", wm, i, g, w)
				}
			}
			if len(sel) < len(rows) { // (the row left out moves the others' watermark: it is stamped too)
				plain.stamp(b, []int32{int32(len(sel))})
			}
		}
	}
}

// TestWatermarkAheadCopy: the copy of an input's watermark assigner that
// stamps its batches on the pipelined join's reader goroutine
// (watermarker.aheadCopy, joinpipe.go's holdPreparer), made at any batch,
// stamps every later batch as the assigner itself would and ends at its
// watermark, for random times with NULLs and int64 edges; an assigner whose
// stamping it cannot copy (an expression other than ts ± INTERVAL, marks
// kept) gives none.
func TestWatermarkAheadCopy(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 19))
	edges := []int64{math.MinInt64, math.MinInt64 + 4999, -1, 0, math.MaxInt64 - 5000, math.MaxInt64}
	for _, wm := range []string{"ts - INTERVAL '5' SECOND", "ts + INTERVAL '5' SECOND"} {
		job := planSidesWM(t, wm, nil, "SELECT k, ts FROM s")
		own := newWatermarker(job, nil)
		var ahead *watermarker
		copyAt := r.IntN(4)
		for n := range 40 {
			if n == copyAt {
				if ahead = own.aheadCopy(); ahead == nil {
					t.Fatalf("%s: no ahead copy", wm)
				}
			}
			rows := make([]row, 1+r.IntN(vector.Cap))
			nulls := make([]bool, len(rows))
			for i := range rows {
				nulls[i] = r.IntN(20) == 0
				rows[i] = row{"k", int64(n*1000+r.IntN(30_000)) - 15_000}
				if r.IntN(50) == 0 {
					rows[i].ts = edges[r.IntN(len(edges))]
				}
			}
			sel := make([]int32, len(rows))
			for i := range sel {
				sel[i] = int32(i)
			}
			var got [2][]string
			for k, w := range []*watermarker{own, ahead} {
				if w == nil {
					continue
				}
				b := rowBatch(job, rows...)
				copy(b.Cols[1].Null, nulls)
				w.stamp(b, sel)
				c := b.Cols[job.WatermarkCol]
				for i := range sel {
					got[k] = append(got[k], fmt.Sprint(c.Null[i], c.I[i]))
				}
				got[k] = append(got[k], fmt.Sprint("after", w.set, w.wm))
			}
			if ahead != nil && fmt.Sprint(got[0]) != fmt.Sprint(got[1]) {
				t.Fatalf("%s, batch %d (copied at %d): the ahead copy stamped %v, the assigner %v", wm, n, copyAt, got[1], got[0])
			}
		}
	}
	if w := newWatermarker(planSidesWM(t, "ts", nil, "SELECT k, ts FROM s"), nil); w.offCol < 0 && w.aheadCopy() != nil {
		t.Error("an assigner of a compiled expression gave an ahead copy")
	}
	w := newWatermarker(planSidesWM(t, "ts - INTERVAL '1' SECOND", nil, "SELECT k, ts FROM s"), nil)
	if w.marks = true; w.aheadCopy() != nil {
		t.Error("an assigner that keeps marks gave an ahead copy")
	}
}

// TestAppendPrefix: appendPrefix gives a batch's rows 0..n-1, for batches
// up to and past vector.Cap rows, after what sel held.
func TestAppendPrefix(t *testing.T) {
	for _, n := range []int{0, 1, 7, vector.Cap - 1, vector.Cap, vector.Cap + 3} {
		got := appendPrefix([]int32{-5}, n)
		if len(got) != n+1 || got[0] != -5 {
			t.Fatalf("n %d: %d rows, first %d", n, len(got), got[0])
		}
		for i, v := range got[1:] {
			if int(v) != i {
				t.Fatalf("n %d: row %d is %d", n, i, v)
			}
		}
	}
}
