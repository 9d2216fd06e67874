package op

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"

	"streamql/catalog"
	"streamql/executor/agg"
	"streamql/executor/vector"
)

// OverAgg is one aggregate of an OVER aggregation: a function of SPEC 2.4
// and its argument column (ignored by COUNT(*)).
type OverAgg struct {
	Spec agg.Spec
	Arg  int
}

// OverSpec describes an OVER aggregation (SPEC 2.9): agg(x) OVER (PARTITION
// BY Keys ORDER BY Time ROWS BETWEEN Preceding PRECEDING AND CURRENT ROW), or
// with Range, RANGE BETWEEN INTERVAL Preceding ms PRECEDING AND CURRENT ROW.
type OverSpec struct {
	Types []catalog.Type
	Keys  []int
	Time  int // the event-time column, ascending
	Stamp int // as DedupSpec.Stamp
	// Range makes Preceding a time in ms (the frame is the partition's rows
	// whose time is in [t - Preceding, t], the current row's peers
	// included); otherwise it is a number of rows (the current row and up to
	// Preceding rows before it in (time, arrival) order).
	Range     bool
	Preceding int64
	Aggs      []OverAgg
	// Arrival orders the rows by their arrival, not by Time (an OVER
	// ordered by a processing-time column, as Flink's
	// ProcTimeRowsBoundedPrecedingFunction and
	// ProcTimeUnboundedPrecedingFunction): each row is handled when it is
	// pushed, its frame the current row and up to Preceding rows before it
	// in arrival order (every row before it when Preceding is
	// math.MaxInt64); no row is late, nothing is held, and a watermark only
	// passes through. Range must then be unset.
	Arrival bool
}

// Over is the OVER aggregation operator (SPEC 2.9), append-only: each input
// row gets one output row, its columns then one column per aggregate over
// its frame, emitted when the watermark passes its time; rows are handled in
// (time, arrival) order; late rows go to port TimedLate. Its state is the
// held rows and, per partition, the rows a later frame can still hold.
type Over struct {
	spec  OverSpec
	out   Emitter
	acct  Account
	rows  liveRows
	parts map[string]int32
	state []overPart
	held  timeHeap
	ready []timed
	at    []int // each ready row's index in its partition's history
	wm    int64
	seq   int64
	key   []byte
	ob    *outBatch
	late  *vector.Batch
	frame *vector.Batch
	aggs  []agg.State
	res   []*vector.Vec
}

// overPart is one partition's history: its handled rows in order, with
// their times.
type overPart struct {
	hist  []int32
	times []int64
}

// NewOver returns an OVER aggregation that emits to out and charges acct.
// Errors: a column out of range, an event time that is not BIGINT or
// TIMESTAMP, a negative Preceding.
func NewOver(spec OverSpec, out Emitter, acct Account) (*Over, error) {
	if err := checkCols(spec.Types, spec.Keys, []SortKey{{Col: spec.Time}}); err != nil {
		return nil, err
	}
	if t := spec.Types[spec.Time]; t != catalog.BigInt && t != catalog.Timestamp {
		return nil, fmt.Errorf("over: the event time is %s", t)
	}
	if spec.Preceding < 0 {
		return nil, fmt.Errorf("over: %d PRECEDING", spec.Preceding)
	}
	if spec.Arrival && spec.Range {
		return nil, fmt.Errorf("over: a RANGE frame in arrival order")
	}
	if acct == nil {
		acct = noAccount{}
	}
	o := &Over{spec: spec, out: out, acct: acct, rows: newLiveRows(spec.Types), parts: map[string]int32{}, wm: math.MinInt64,
		late: vector.NewBatch(spec.Types), frame: vector.NewBatch(spec.Types), aggs: make([]agg.State, len(spec.Aggs))}
	types := slices.Clip(spec.Types)
	for _, a := range spec.Aggs {
		if a.Spec.Func != agg.CountStar && (a.Arg < 0 || a.Arg >= len(spec.Types)) {
			return nil, fmt.Errorf("over: argument column %d of %d", a.Arg, len(spec.Types))
		}
		rt := a.Spec.ResultType()
		types = append(types, rt)
		o.res = append(o.res, vector.NewVec(rt))
	}
	o.ob = newOutBatch(types, TimedOut, false)
	return o, nil
}

// Push implements Operator.
func (o *Over) Push(ctx context.Context, _ int, b *vector.Batch) error {
	for i := 0; i < b.N; i++ {
		if !o.spec.Arrival && isLate(b, i, o.spec.Time, o.spec.Stamp, o.wm) {
			if err := sendLate(ctx, o.out, o.late, b, i); err != nil {
				return err
			}
			continue
		}
		o.seq++
		o.key = partKey(o.key[:0], o.spec.Types, o.spec.Keys, b, i)
		pi, ok := o.parts[string(o.key)]
		if !ok {
			pi = int32(len(o.state))
			o.state = append(o.state, overPart{})
			o.parts[string(o.key)] = pi
			if err := o.acct.Grow(int64(len(o.key)) + 64); err != nil {
				return err
			}
		}
		k, n := o.rows.add(b, i)
		if err := o.acct.Grow(n + 36); err != nil {
			return err
		}
		h := timed{t: b.Cols[o.spec.Time].I[i], seq: o.seq, row: int32(k), part: pi}
		if !o.spec.Arrival {
			o.held.push(h)
			continue
		}
		p := &o.state[pi] // (arrival order: handled now, Flink's proctime OVER)
		p.hist = append(p.hist, h.row)
		p.times = append(p.times, h.t)
		if err := o.handle(ctx, h, len(p.hist)-1); err != nil {
			return err
		}
		o.trim(p)
	}
	if o.spec.Arrival {
		return o.ob.flush(ctx, o.out)
	}
	return flushLate(ctx, o.out, o.late)
}

// Watermark implements Operator: the held rows the watermark passed are
// handled, in (time, arrival) order.
func (o *Over) Watermark(ctx context.Context, _ int, wm int64) error {
	if wm <= o.wm {
		return nil
	}
	o.wm = wm
	if o.spec.Arrival {
		return o.out.EmitWatermark(ctx, wm)
	}
	o.ready, o.at = o.ready[:0], o.at[:0]
	for len(o.held) > 0 && o.held[0].t < wm {
		h := o.held.pop()
		p := &o.state[h.part]
		o.ready = append(o.ready, h)
		o.at = append(o.at, len(p.hist))
		p.hist = append(p.hist, h.row)
		p.times = append(p.times, h.t)
	}
	for j, h := range o.ready {
		if err := o.handle(ctx, h, o.at[j]); err != nil {
			return err
		}
	}
	for _, h := range o.ready {
		o.trim(&o.state[h.part])
	}
	if err := o.ob.flush(ctx, o.out); err != nil {
		return err
	}
	return o.out.EmitWatermark(ctx, wm)
}

// handle emits held row h, the j-th of its partition's history, with its
// aggregates.
func (o *Over) handle(ctx context.Context, h timed, j int) error {
	p := &o.state[h.part]
	lo, hi := max(0, j-int(min(o.spec.Preceding, math.MaxInt32))), j+1
	if o.spec.Range {
		from := h.t - o.spec.Preceding
		if from > h.t { // (overflow: every time is in the frame)
			from = math.MinInt64
		}
		lo = sort.Search(len(p.times), func(x int) bool { return p.times[x] >= from })
		for hi < len(p.times) && p.times[hi] == h.t {
			hi++ // the current row's peers
		}
	}
	for a := range o.aggs {
		o.aggs[a].Reset()
	}
	for from := lo; from < hi; from += vector.Cap {
		to := min(hi, from+vector.Cap)
		o.frame.Reset()
		for x := from; x < to; x++ {
			o.rows.CopyTo(o.frame, x-from, 0, int(p.hist[x]))
		}
		for a, s := range o.spec.Aggs {
			arg := max(s.Arg, 0)
			for x := from; x < to; x++ {
				o.aggs[a].Add(&o.spec.Aggs[a].Spec, o.frame.Cols[arg], x-from, int64(x))
			}
		}
	}
	i := o.ob.add(o.rows.Rows, int(h.row), vector.Insert)
	for a := range o.spec.Aggs {
		rv := o.res[a]
		rv.ResetArena()
		o.aggs[a].Result(&o.spec.Aggs[a].Spec, rv, 0)
		copyValue(o.ob.b.Cols[len(o.spec.Types)+a], i, rv, 0)
	}
	return o.ob.full(ctx, o.out)
}

// copyValue writes value j of src into row i of dst (same type), a string
// copied into dst's arena, an ARRAY, MAP or ROW value into its child vectors.
func copyValue(dst *vector.Vec, i int, src *vector.Vec, j int) {
	dst.Null[i] = src.Null[j]
	if dst.Text != nil {
		dst.Text[i] = nil
	}
	if !src.Null[j] {
		dst.CopyValue(i, src, j)
	}
}

// trim drops from p's history the rows no later frame holds.
func (o *Over) trim(p *overPart) {
	drop := 0
	if o.spec.Range {
		if n := len(p.times); n > 0 && p.times[n-1]-o.spec.Preceding <= p.times[n-1] {
			from := p.times[n-1] - o.spec.Preceding
			for drop < n && p.times[drop] < from {
				drop++
			}
		}
	} else if keep := o.spec.Preceding; int64(len(p.hist)) > keep {
		drop = len(p.hist) - int(keep)
	}
	if drop == 0 {
		return
	}
	for _, k := range p.hist[:drop] {
		_ = o.acct.Grow(-o.rows.release(k) - 36)
	}
	p.hist = append(p.hist[:0], p.hist[drop:]...)
	p.times = append(p.times[:0], p.times[drop:]...)
}

// Finish implements Operator: every held row is handled (SPEC 2.3: the
// watermark becomes +∞).
func (o *Over) Finish(ctx context.Context, _ int) error {
	return o.Watermark(ctx, 0, math.MaxInt64)
}
