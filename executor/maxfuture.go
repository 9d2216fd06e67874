package executor

import (
	"errors"
	"math"
	"slices"

	"streamql/catalog"
	"streamql/executor/aggregate"
	"streamql/executor/connector"
	"streamql/executor/expr"
	"streamql/executor/format"
	"streamql/executor/source"
	"streamql/executor/vector"
	"streamql/executor/window"
	"streamql/planner/plan"
)

// maxFuture is the watermark assigner's part for the stream option
// 'watermark.max-future' (SPEC 4, "Finding out why"; catalog.MaxFutureOption):
// a row whose event time is more than ms above the watermark before it (once
// there is one) is taken out of the batch's live rows, does not move the
// watermark, and goes where the stream's errors policy sends malformed rows
// (SPEC 1: the errors output with the reason catalog.MaxFutureReason, skipped,
// or the job fails). For a partitioned source (Kafka, SPEC 2.5) the watermark
// is the row's partition's, so the decision does not depend on how the
// partitions interleave.
//
// It also refuses, the same way, a row whose time has a window of one of
// the job's window aggregates or window TVFs that does not fit in an int64
// (SPEC 2.4, issue 30: aggregate.WindowRangeReason), so that such a row,
// malformed, does not move the watermark either (SPEC 1, "Bad input"). In a
// part of a relation whose rows carry its watermark (plan.Derived.Stamps)
// that includes its readers' windows (plan.Job.ReaderWindows, which the
// planner sets, planner/rule_readerwins.go): a row the relation drops
// (its WHERE, or an UNNEST of nothing) would otherwise move the watermark
// its readers carry.
type maxFuture struct {
	ms    int64
	hasMs bool       // the stream has 'watermark.max-future' (ms)
	wins  []winRange // the job's windows' time ranges
	col   int        // the batch column of the event time
	rej   []int32    // scratch: the rows refused in the batch being stamped
	src   Source     // for the refused rows' positions
	es    *StreamErrors
	// refused counts the rows refused (EXPLAIN ANALYZE, Analysis.Refused)
	refused int64
	rep     *replay // a Kafka group source's replay (replay.go): its rows went to their outputs already; nil: none
}

// newMaxFuture returns the option's state for job, nil when the stream has no
// WATERMARK or not the option.
func newMaxFuture(job *plan.Job) *maxFuture {
	if job.Watermark == nil {
		return nil
	}
	ms, ok := job.Stream.MaxFuture()
	ok = ok && job.Stream.EventTime >= 0
	wins := windowRanges(job)
	if !ok && len(wins) == 0 {
		return nil
	}
	return &maxFuture{ms: ms, hasMs: ok, wins: wins, col: job.Stream.EventTime, rej: make([]int32, 0, vector.Cap)}
}

// winRange is the times whose windows fit in an int64 (window.Range) of one
// window of a job over its batch column col: a row at another time is
// malformed.
type winRange struct {
	col    int
	lo, hi int64
	fn     string // TUMBLE, HOP, CUMULATE or SESSION
	name   string // the column's name, for the reason
}

// windowRanges returns the ranges of the job's window aggregates and window
// TVFs (plan.Aggregate.Window), one per distinct window.
func windowRanges(job *plan.Job) []winRange {
	var out []winRange
	for _, br := range job.AllBranches() {
		if br.Agg == nil || br.Agg.Window == nil || br.Agg.Window.TimeCol < 0 || br.Agg.Window.TimeCol >= len(job.BatchTypes) {
			continue
		}
		w := br.Agg.Window
		out = addRange(out, job, w)
	}
	for _, w := range job.ReaderWindows { // (over the job's event time, the readers' of its relation)
		if w.TimeCol >= 0 && w.TimeCol < len(job.BatchTypes) {
			out = addRange(out, job, w)
		}
	}
	return out
}

// addRange appends the range of window w of job to out, once.
func addRange(out []winRange, job *plan.Job, w *plan.Window) []winRange {
	r := winRange{col: w.TimeCol, fn: w.Func, name: "event time"}
	r.lo, r.hi = window.Range(window.KindOf(w.Func), w.Size, w.Slide, w.Offset, w.Gap)
	if w.TimeCol < len(job.Stream.Columns) {
		r.name = job.Stream.Columns[w.TimeCol].Name
	}
	if !slices.Contains(out, r) {
		out = append(out, r)
	}
	return out
}

// outside returns the first of m's windows that row i of b has a time
// outside the range of, -1 for none (a NULL time is in range: the
// aggregate drops it).
func (m *maxFuture) outside(b *vector.Batch, i int32) int {
	for k, r := range m.wins {
		if c := b.Cols[r.col]; !c.Null[i] && (c.I[i] < r.lo || c.I[i] > r.hi) {
			return k
		}
	}
	return -1
}

// tooFar reports whether row i of b is refused under the watermark wm (set:
// there is one): its time has a window outside int64, or it is too far
// ahead; a NULL event time is not (the decoder made it malformed).
func (m *maxFuture) tooFar(b *vector.Batch, i int32, wm int64, set bool) bool {
	if len(m.wins) > 0 && m.outside(b, i) >= 0 {
		return true
	}
	c := b.Cols[m.col]
	return m.hasMs && set && !c.Null[i] && tooFarAhead(c.I[i], wm, m.ms)
}

// tooFarIn is tooFar over rows b of the job's first ncols batch columns:
// the input rows of CROSS JOIN UNNEST (unnestSource.stampInput, whose
// columns are those), checked by the assigner's own rule before they are
// unnested, so that a row it refuses moves no watermark there either. A
// window over a later column (an unnested one) is checked on the unnested
// rows by the assigner alone; nothing is refused when the event time is
// not among the columns.
func (m *maxFuture) tooFarIn(b *vector.Batch, i int32, wm int64, set bool, ncols int) bool {
	if m.col < 0 || m.col >= ncols {
		return false
	}
	for _, r := range m.wins {
		if c := b.Cols[r.col]; r.col < ncols && !c.Null[i] && (c.I[i] < r.lo || c.I[i] > r.hi) {
			return true
		}
	}
	c := b.Cols[m.col]
	return m.hasMs && set && !c.Null[i] && tooFarAhead(c.I[i], wm, m.ms)
}

// reason is why row i of b, refused, is malformed.
func (m *maxFuture) reason(b *vector.Batch, i int32) string {
	if k := m.outside(b, i); k >= 0 {
		r := m.wins[k]
		return aggregate.WindowRangeReason(r.name, b.Cols[r.col].Type, b.Cols[r.col].I[i], r.fn, r.lo, r.hi)
	}
	return catalog.MaxFutureReason
}

// tooFarAhead reports whether event time t is more than ms above the
// watermark wm (SPEC 4: 'watermark.max-future').
func tooFarAhead(t, wm, ms int64) bool {
	limit := wm + ms
	if wm > math.MaxInt64-ms {
		limit = math.MaxInt64
	}
	return t > limit
}

// advance is watermarker.advance with the option: it stamps the rows sel of
// b, moves the watermark over the rows it keeps, records the refused ones in
// m.rej, and returns the kept rows (sel, compacted in place) and marks.
func (m *maxFuture) advance(w *watermarker, b *vector.Batch, sel []int32, marks []Mark, keep bool) ([]int32, []Mark) {
	m.rej = m.rej[:0]
	if w.carriedParts {
		return w.advanceParts(b, sel, marks, keep, m)
	}
	col := b.Cols[w.job.WatermarkCol]
	kept := sel[:0]
	if !m.hasMs && len(m.wins) == 1 && w.offCol >= 0 {
		// the common case, one window's range and WATERMARK FOR ts AS ts -
		// INTERVAL: in one loop, as watermarker.advance's
		r, tv := m.wins[0], b.Cols[w.offCol]
		rc := b.Cols[r.col]
		for _, i := range sel {
			if w.carried {
				marks = w.carry(col, i, marks, keep)
			}
			col.Null[i] = !w.set
			col.I[i] = w.wm
			if !rc.Null[i] && (rc.I[i] < r.lo || rc.I[i] > r.hi) {
				m.rej = append(m.rej, i)
				continue
			}
			kept = append(kept, i)
			if v, ok := expr.AddInterval(tv.I[i], w.off); ok && !tv.Null[i] && (!w.set || v > w.wm) {
				w.wm, w.set = v, true
				if keep {
					marks = append(marks, Mark{At: int(i) + 1, Value: v})
				}
			}
		}
		return kept, marks
	}
	vals := w.expr.Eval(b, sel)
	for _, i := range sel {
		if w.carried {
			marks = w.carry(col, i, marks, keep)
		}
		col.Null[i] = !w.set
		col.I[i] = w.wm
		if m.tooFar(b, i, w.wm, w.set) {
			m.rej = append(m.rej, i)
			continue
		}
		kept = append(kept, i)
		if !vals.Null[i] && (!w.set || vals.I[i] > w.wm) {
			w.wm, w.set = vals.I[i], true
			if keep {
				marks = append(marks, Mark{At: int(i) + 1, Value: w.wm})
			}
		}
	}
	return kept, marks
}

// drop removes the refused rows m.rej from sel (both ascending), in place.
func (m *maxFuture) drop(sel []int32) []int32 {
	if len(m.rej) == 0 {
		return sel
	}
	kept, k := sel[:0], 0
	for _, i := range sel {
		if k < len(m.rej) && m.rej[k] == i {
			k++
			continue
		}
		kept = append(kept, i)
	}
	return kept
}

// refuse sends the refused rows of r's batch where the stream's errors policy
// says (SPEC 1), in input order among r.Bad; with 'errors'='fail' it cuts
// r.Sel before the first and returns the job's *RowError.
func (m *maxFuture) refuse(st *catalog.Stream, r *Step) error {
	if m.rep != nil && m.rep.active {
		kept := m.rej[:0]
		for _, i := range m.rej {
			if !m.rep.replayed(r.In.Pos[i]) {
				kept = append(kept, i)
			}
		}
		m.rej = kept
	}
	if len(m.rej) == 0 {
		return nil
	}
	b := r.In
	for _, i := range m.rej {
		if len(m.wins) == 0 || m.outside(b, i) < 0 {
			m.refused++ // (by 'watermark.max-future'; the others are malformed)
		}
	}
	policy := "side"
	if m.es != nil {
		policy = m.es.Policy
		m.es.Malformed += countBad(policy, len(m.rej))
	}
	switch policy {
	case "skip":
		return nil
	case "fail":
		first := m.rej[0]
		k := 0
		for k < len(r.Sel) && r.Sel[k] < first {
			k++
		}
		r.Sel = r.Sel[:k]
		return &RowError{Stream: errorsName(st), Position: m.position(b, first), Reason: m.reason(b, first)}
	}
	for _, i := range m.rej {
		e := ErrorRow{Stream: errorsName(st), Position: m.position(b, i), Raw: rawRow(st, b, i), Error: m.reason(b, i), At: int(i)}
		// after the malformed rows that came before row i
		k := len(r.Errors.Rows)
		for k > 0 && r.Errors.Rows[k-1].At > int(i) {
			k--
		}
		r.Errors.Rows = append(r.Errors.Rows, ErrorRow{})
		copy(r.Errors.Rows[k+1:], r.Errors.Rows[k:])
		r.Errors.Rows[k] = e
	}
	return nil
}

// position is row i's position in its source (path:line, topic:partition:offset).
func (m *maxFuture) position(b *vector.Batch, i int32) string {
	if m.src == nil {
		return ""
	}
	return m.src.Position(b.Pos[i])
}

// rawRow is row i of b as the errors output's raw text: the decoder's record
// text when it kept it, otherwise its values as a csv line (SPEC 4).
func rawRow(st *catalog.Stream, b *vector.Batch, i int32) []byte {
	if b.Line != nil && b.Line[i] != nil && b.LineCols == len(st.Columns) {
		return append([]byte(nil), b.Line[i]...)
	}
	return format.AppendCSVRow(nil, st.Columns, b.Cols[:len(st.Columns)], int(i), ',')
}

// futureSource applies 'watermark.max-future' (SPEC 4, "Finding out why") at
// a source, before anything reads its rows: a row whose event time is more
// than ms above the watermark before it (its partition's when per partition
// and the source is partitioned, SPEC 2.5) is taken out of the batch and
// given back as a malformed row (BadRow) with the reason
// catalog.MaxFutureReason, so it follows the stream's errors policy wherever
// the batch goes, and the watermark moves over the kept rows only. It serves
// the inputs that no watermark assigner of a chain stamps row by row before
// routing: the probe stream of an event-time semi or anti join (its rows are
// held until the build watermarks pass them, SPEC 2.2) and the build sides
// of semi and anti joins. Rows that are not refused cost one evaluation of
// the WATERMARK expression per batch and no allocation.
//
// Its watermark starts unset with the job: a Kafka group source that
// restarts from a committed offset decides the first rows after it afresh.
type futureSource struct {
	Source
	st    *catalog.Stream
	ms    int64
	col   int          // the batch column of the event time
	wm    *expr.Kernel // the WATERMARK expression over the batch
	parts connector.PartitionedSource
	// the watermark per partition (index 0 when not per partition)
	wms  []int64
	sets []bool
	sel  []int32 // 0..Cap-1
	keep []int32 // the kept rows of the last batch, by their index in it
	// refusedAt is, for each malformed row the last batch gave (its bad rows
	// from the first this source added), the index of the refused row in the
	// connector's batch, -1 for the connector's own malformed rows; nil when
	// the last batch had no refused row
	refusedAt []int
	idx       []int // the refused rows of the last batch, by their index in it
	drops     []BadRow
	refused   int64 // rows refused (EXPLAIN ANALYZE)
}

// withMaxFuture returns in's source reading stream st through a futureSource
// when st has 'watermark.max-future' and the watermark wmExpr (over the
// batch whose event time is column col), compiled in the job's expression
// context exprs, else in; perPartition keeps one
// watermark per partition of a partitioned source (in's declared
// partitions, SourceHandles.Partitions: a probe stream's rows are late by
// their partition's watermark, as the chain's assigner stamps them:
// partwm.go), otherwise one for the stream (a build side's, semiBuild.absorb).
// The result takes rows back (Unreader) when in's source does, and keeps
// in's handles but the parallel reader (SourceHandles.Wrapped: its rows
// come through Next).
func withMaxFuture(st *catalog.Stream, wmExpr *plan.Expr, col int, in opened, perPartition bool, exprs *expr.Context) opened {
	ms, ok := st.MaxFuture()
	if !ok || wmExpr == nil || col < 0 || in.src == nil {
		return in
	}
	src := in.src
	f := &futureSource{Source: src, st: st, ms: ms, col: col, wm: exprs.Compile(wmExpr),
		sel: make([]int32, vector.Cap), keep: make([]int32, 0, vector.Cap), wms: make([]int64, 1), sets: make([]bool, 1)}
	for i := range f.sel {
		f.sel[i] = int32(i)
	}
	if perPartition {
		f.parts = in.h.Partitions
	}
	out := opened{src: f, h: in.h.Wrapped()}
	if _, ok := src.(Unreader); ok {
		out.src = &futureUnreader{f}
	}
	if in.h.HandsBack != nil { // (the job's account of its rows, in the connector's rows)
		out.h.HandsBack = futureHandsBack{f: f, in: in.h.HandsBack}
	}
	return out
}

// Next reads a batch and refuses its rows too far ahead (see futureSource).
func (f *futureSource) Next(b *vector.Batch, bad *[]BadRow) error {
	before := len(*bad)
	err := f.Source.Next(b, bad)
	f.refusedAt, f.idx = f.refusedAt[:0], f.idx[:0]
	if errors.Is(err, ErrWaiting) || b.N == 0 {
		return err // (after ErrWaiting a live source may still be filling b: untouched)
	}
	vals := f.wm.Eval(b, f.sel[:b.N])
	et := b.Cols[f.col]
	keep, drops := f.keep[:0], f.drops[:0]
	for i := 0; i < b.N; i++ {
		p := 0
		if f.parts != nil {
			p = int(f.parts.Partition(b.Pos[i]))
			for len(f.wms) <= p {
				f.wms, f.sets = append(f.wms, 0), append(f.sets, false)
			}
		}
		wm, set := f.wms[p], f.sets[p]
		if set && !et.Null[i] && tooFarAhead(et.I[i], wm, f.ms) {
			drops = append(drops, BadRow{Index: len(keep), Line: b.Pos[i], Raw: rawRow(f.st, b, int32(i)), Reason: catalog.MaxFutureReason})
			f.idx = append(f.idx, i)
			continue
		}
		keep = append(keep, int32(i))
		if !vals.Null[i] && (!set || vals.I[i] > wm) {
			f.wms[p], f.sets[p] = vals.I[i], true
		}
	}
	f.keep, f.drops = keep, drops
	if len(drops) == 0 {
		return err
	}
	f.refused += int64(len(drops))
	// which malformed row of the batch is which (Unread): merged by Index
	f.refusedAt = source.DropRows(b, bad, before, keep, drops, f.idx, f.refusedAt)
	for k, d := range f.refusedAt {
		if d >= 0 {
			f.refusedAt[k] = f.idx[d]
		}
	}
	return err
}

// futureUnreader is a futureSource over a source that takes rows back
// (stdin, SPEC 1): the counts a job gives, of the batch without its refused
// rows, become the connector's (a refused row is a good row to it).
type futureUnreader struct{ *futureSource }

// Unread implements Unreader: the first rows kept rows were used, and the
// refused rows before the last of them.
func (f *futureUnreader) Unread(rows int) {
	u := f.Source.(Unreader)
	if len(f.refusedAt) == 0 {
		u.Unread(rows)
		return
	}
	u.Unread(f.goodEnd(rows))
}

// UnreadAfter implements Unreader: the first rows kept rows and the first
// bad malformed rows (refused ones included) were used.
func (f *futureUnreader) UnreadAfter(rows, bad int) {
	f.Source.(Unreader).UnreadAfter(f.connectorRows(rows, bad))
}

// connectorRows maps the first rows kept rows and the first bad malformed
// rows (refused ones included) of the last batch to the connector's good
// and malformed rows up to the later of the two, for which a refused row
// is good.
func (f *futureSource) connectorRows(rows, bad int) (good, own int) {
	if len(f.refusedAt) == 0 {
		return rows, bad
	}
	good = f.goodEnd(rows)
	for _, at := range f.refusedAt[:min(bad, len(f.refusedAt))] {
		if at < 0 {
			own++
		} else {
			good = max(good, at+1)
		}
	}
	return good, own
}

// futureHandsBack is the hand-back handle (connector.HandsBack) of a
// futureSource over a source that hands back (stdin): it gives the
// connector's source the job's HandBack in the connector's rows.
type futureHandsBack struct {
	f  *futureSource
	in connector.HandsBack
}

// SetHandBack implements connector.HandsBack.
func (h futureHandsBack) SetHandBack(hb connector.HandBack) {
	h.in.SetHandBack(futureHandBack{f: h.f, hb: hb})
}

// futureHandBack is a job's HandBack in the connector's rows
// (futureSource.connectorRows).
type futureHandBack struct {
	f  *futureSource
	hb connector.HandBack
}

// Used implements connector.HandBack.
func (t futureHandBack) Used() (rows, bad int, ok bool) {
	if rows, bad, ok = t.hb.Used(); !ok {
		return 0, 0, false
	}
	rows, bad = t.f.connectorRows(rows, bad)
	return rows, bad, true
}

// goodEnd is the number of the connector's good rows up to the rows-th kept
// row of the last batch.
func (f *futureSource) goodEnd(rows int) int {
	if rows <= 0 {
		return 0
	}
	return int(f.keep[min(rows, len(f.keep))-1]) + 1
}

// futureProbe is the probe stream in of job, an event-time semi or anti
// join's (runEventJoin), read through a futureSource when its stream has
// 'watermark.max-future'; the rows refused count in an's Refused (nil-safe).
func futureProbe(an *Analysis, job *plan.Job, in opened, exprs *expr.Context) opened {
	in = withMaxFuture(job.Stream, job.Watermark, job.Stream.EventTime, in, true, exprs)
	if an != nil {
		an.future = futureOf(in.src)
	}
	return in
}

// futureBuild is the build side in of b's join read through a futureSource
// when its stream has 'watermark.max-future' and the join reads it by event
// time; the rows refused count in the join's JoinAnalysis.Refused.
func futureBuild(an *Analysis, b *plan.Branch, in opened, exprs *expr.Context) opened {
	j := b.Join
	in = withMaxFuture(j.Build, j.BuildWatermark, j.BuildTime, in, false, exprs)
	if an != nil {
		for _, js := range an.joins {
			if js.j == j {
				js.future = futureOf(in.src)
			}
		}
	}
	return in
}

// futureOf returns the futureSource src is, nil when it is none.
func futureOf(src Source) *futureSource {
	switch f := src.(type) {
	case *futureSource:
		return f
	case *futureUnreader:
		return f.futureSource
	}
	return nil
}
