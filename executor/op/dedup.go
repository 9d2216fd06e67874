package op

import (
	"context"
	"fmt"
	"math"
	"slices"

	"streamql/catalog"
	"streamql/executor/vector"
)

// Output ports of the event-time operators (Dedup, TimeSort, Over,
// WindowTopN): their rows, and the late input rows, as they came.
const (
	TimedOut  = 0
	TimedLate = 1
)

// DedupSpec describes deduplication keeping each key's first row by event
// time (SPEC 2.9: ROW_NUMBER() OVER (PARTITION BY k ORDER BY t ASC) … rn = 1).
type DedupSpec struct {
	Types []catalog.Type
	Keys  []int // PARTITION BY columns (NULL one value)
	Time  int   // the event-time column (BIGINT or TIMESTAMP ms)
	// Stamp is the column holding each row's CURRENT_WATERMARK (NULL before
	// the first), which decides lateness (SPEC 2.3); -1: the operator's own
	// watermark, from Watermark.
	Stamp int
	// TTL forgets a key whose row was emitted once the watermark is TTL ms
	// past that row's time ('table.exec.state.ttl'); 0 keeps keys for ever.
	TTL int64
}

// Dedup is deduplication keeping the first row by event time, append-only
// (SPEC 2.9): per key it holds the row with the smallest time seen (equal
// times: the first to arrive) until the watermark passes that time, then
// emits it, and drops every later row of the key. Rows are emitted in (time,
// arrival) order. A row below the watermark when it arrives is late: it goes,
// as it came, to port TimedLate. A row whose time is NULL is late too. Its
// state (held rows, and the keys already emitted) is charged to its Account.
type Dedup struct {
	spec  DedupSpec
	out   Emitter
	acct  Account
	rows  liveRows
	keys  map[string]int32
	state []dedupKey
	held  timeHeap
	wm    int64
	seq   int64
	key   []byte
	ob    *outBatch
	late  *vector.Batch
	swept int64
}

// dedupKey is one key's state: its held row (-1 when none) and its time, or
// that its row was emitted (done).
type dedupKey struct {
	row  int32
	t    int64
	done bool
	key  string
	pos  int64 // the source position of the key's first row (a replay's DropWhere)
}

// NewDedup returns a Dedup that emits to out and charges acct (nil: none).
func NewDedup(spec DedupSpec, out Emitter, acct Account) (*Dedup, error) {
	if err := checkCols(spec.Types, spec.Keys, []SortKey{{Col: spec.Time}}); err != nil {
		return nil, err
	}
	if t := spec.Types[spec.Time]; t != catalog.BigInt && t != catalog.Timestamp {
		return nil, fmt.Errorf("dedup: the event time is %s", t)
	}
	if acct == nil {
		acct = noAccount{}
	}
	return &Dedup{spec: spec, out: out, acct: acct, rows: newLiveRows(spec.Types), keys: map[string]int32{},
		wm: math.MinInt64, ob: newOutBatch(spec.Types, TimedOut, false), late: vector.NewBatch(spec.Types)}, nil
}

// isLate reports whether row i of b is late (SPEC 2.3), by its stamp or the
// operator's watermark wm.
func isLate(b *vector.Batch, i, time, stamp int, wm int64) bool {
	tv := b.Cols[time]
	if tv.Null[i] {
		return true
	}
	if stamp >= 0 {
		sv := b.Cols[stamp]
		return !sv.Null[i] && tv.I[i] < sv.I[i]
	}
	return tv.I[i] < wm
}

// sendLate gathers row i of b for the late port.
func sendLate(ctx context.Context, out Emitter, late, b *vector.Batch, i int) error {
	late.AppendRows(b, i, i+1)
	if late.N < vector.Cap {
		return nil
	}
	return flushLate(ctx, out, late)
}

func flushLate(ctx context.Context, out Emitter, late *vector.Batch) error {
	if late.N == 0 {
		return nil
	}
	if err := out.Emit(ctx, TimedLate, late); err != nil {
		return err
	}
	late.Reset()
	return nil
}

// Push implements Operator.
func (d *Dedup) Push(ctx context.Context, _ int, b *vector.Batch) error {
	for i := 0; i < b.N; i++ {
		if isLate(b, i, d.spec.Time, d.spec.Stamp, d.wm) {
			if err := sendLate(ctx, d.out, d.late, b, i); err != nil {
				return err
			}
			continue
		}
		d.seq++
		t := b.Cols[d.spec.Time].I[i]
		d.key = partKey(d.key[:0], d.spec.Types, d.spec.Keys, b, i)
		ki, ok := d.keys[string(d.key)]
		if !ok {
			ki = int32(len(d.state))
			d.state = append(d.state, dedupKey{row: -1, key: string(d.key), pos: b.Pos[i]})
			d.keys[d.state[ki].key] = ki
			if err := d.acct.Grow(int64(len(d.key)) + 48); err != nil {
				return err
			}
		}
		s := &d.state[ki]
		if s.done || s.row >= 0 && t >= s.t {
			continue // not the key's first row
		}
		if s.row >= 0 {
			d.release(s.row)
		}
		k, n := d.rows.add(b, i)
		if err := d.acct.Grow(n + 24); err != nil {
			return err
		}
		s.row, s.t = int32(k), t
		d.held.push(timed{t: t, seq: d.seq, row: int32(k), part: ki})
	}
	return flushLate(ctx, d.out, d.late)
}

func (d *Dedup) release(k int32) {
	_ = d.acct.Grow(-d.rows.release(k))
}

// Watermark implements Operator: the held rows whose time the watermark
// passed are emitted, in (time, arrival) order.
func (d *Dedup) Watermark(ctx context.Context, _ int, wm int64) error {
	if wm <= d.wm {
		return nil
	}
	d.wm = wm
	for len(d.held) > 0 && d.held[0].t < wm {
		h := d.held.pop()
		_ = d.acct.Grow(-24)
		if h.part < 0 || h.row < 0 {
			continue // a replaced row of a key since forgotten
		}
		s := &d.state[h.part]
		if s.row != h.row {
			continue // replaced by a row of a smaller time
		}
		d.ob.add(d.rows.Rows, int(h.row), vector.Insert)
		d.release(h.row)
		s.row, s.done = -1, true
		if err := d.ob.full(ctx, d.out); err != nil {
			return err
		}
	}
	if err := d.ob.flush(ctx, d.out); err != nil {
		return err
	}
	d.expire()
	return d.out.EmitWatermark(ctx, wm)
}

// expire forgets the emitted keys whose time is the TTL below the watermark.
func (d *Dedup) expire() {
	if d.spec.TTL <= 0 || d.wm == math.MaxInt64 || d.wm-d.swept < d.spec.TTL/2 || len(d.state) < 1024 {
		return
	}
	d.swept = d.wm
	kept := d.state[:0]
	var moved = make([]int32, len(d.state))
	for i, s := range d.state {
		if s.done && s.t < d.wm-d.spec.TTL {
			delete(d.keys, s.key)
			_ = d.acct.Grow(-int64(len(s.key)) - 48)
			moved[i] = -1
			continue
		}
		moved[i] = int32(len(kept))
		d.keys[s.key] = int32(len(kept))
		kept = append(kept, s)
	}
	d.state = kept
	for j := range d.held {
		if p := d.held[j].part; p >= 0 { // (-1: a key forgotten by a sweep before, its replaced row's entry still held)
			d.held[j].part = moved[p]
		}
	}
}

// Finish implements Operator: the input ended, its watermark is +∞ (SPEC
// 2.3): every held row is emitted.
func (d *Dedup) Finish(ctx context.Context, _ int) error {
	return d.Watermark(ctx, 0, math.MaxInt64)
}

// TimeSortSpec describes ORDER BY t (the event time, ascending) at the end
// of a query over an unbounded input (SPEC 2.9).
type TimeSortSpec struct {
	Types []catalog.Type
	Time  int
	Stamp int // as DedupSpec.Stamp
}

// TimeSort releases rows in event-time order as the watermark passes them
// (SPEC 2.9: ORDER BY t over an unbounded input), equal times in arrival
// order; late rows go to port TimedLate. Its state is the held rows.
type TimeSort struct {
	spec  TimeSortSpec
	out   Emitter
	acct  Account
	rows  *Rows
	held  timeHeap
	wm    int64
	seq   int64
	ob    *outBatch
	late  *vector.Batch
	freed int
}

// NewTimeSort returns a TimeSort that emits to out and charges acct.
func NewTimeSort(spec TimeSortSpec, out Emitter, acct Account) (*TimeSort, error) {
	if err := checkCols(spec.Types, nil, []SortKey{{Col: spec.Time}}); err != nil {
		return nil, err
	}
	if acct == nil {
		acct = noAccount{}
	}
	return &TimeSort{spec: spec, out: out, acct: acct, rows: NewRows(spec.Types), wm: math.MinInt64,
		ob: newOutBatch(spec.Types, TimedOut, false), late: vector.NewBatch(spec.Types)}, nil
}

// Push implements Operator.
func (s *TimeSort) Push(ctx context.Context, _ int, b *vector.Batch) error {
	for i := 0; i < b.N; i++ {
		if isLate(b, i, s.spec.Time, s.spec.Stamp, s.wm) {
			if err := sendLate(ctx, s.out, s.late, b, i); err != nil {
				return err
			}
			continue
		}
		s.seq++
		k, n := s.rows.Add(b, i)
		if err := s.acct.Grow(n + 24); err != nil {
			return err
		}
		s.held.push(timed{t: b.Cols[s.spec.Time].I[i], seq: s.seq, row: int32(k)})
	}
	return flushLate(ctx, s.out, s.late)
}

// Watermark implements Operator: rows the watermark passed are emitted.
func (s *TimeSort) Watermark(ctx context.Context, _ int, wm int64) error {
	if wm <= s.wm {
		return nil
	}
	s.wm = wm
	for len(s.held) > 0 && s.held[0].t < wm {
		h := s.held.pop()
		s.ob.add(s.rows, int(h.row), vector.Insert)
		_ = s.acct.Grow(-s.rows.rowBytes(int(h.row)) - 24)
		s.freed++
		if err := s.ob.full(ctx, s.out); err != nil {
			return err
		}
	}
	if err := s.ob.flush(ctx, s.out); err != nil {
		return err
	}
	if s.freed >= 1024 && s.freed*2 >= s.rows.Len() { // every held row is in the heap
		live := make([]bool, s.rows.Len())
		for _, h := range s.held {
			live[h.row] = true
		}
		moved := s.rows.Compact(func(k int) bool { return live[k] })
		for j := range s.held {
			s.held[j].row = int32(moved[s.held[j].row])
		}
		s.freed = 0
	}
	return s.out.EmitWatermark(ctx, wm)
}

// Finish implements Operator: every held row is emitted.
func (s *TimeSort) Finish(ctx context.Context, _ int) error {
	return s.Watermark(ctx, 0, math.MaxInt64)
}

// SortSpec describes ORDER BY … [LIMIT n] at the end of a query over a
// bounded input (SPEC 2.9): the rows sorted when the input ends.
type SortSpec struct {
	Types []catalog.Type
	Order []SortKey
	Limit int64 // -1: none
	// NewerFirst puts the newer of two rows equal in Order first (an ORDER
	// BY whose last key is the processing time, DESC: the planner's
	// arrivalOrder); otherwise equal rows go in arrival order.
	NewerFirst bool
}

// Sort is the bounded input's sort (SPEC 2.9): it keeps the rows (with a
// LIMIT, only the first Limit in the order) and emits them sorted at Finish,
// equal rows in arrival order (the newer first with NewerFirst). NULLs come
// first for ASC and last for DESC (Flink's).
type Sort struct {
	spec SortSpec
	out  Emitter
	acct Account
	rows *Rows
	rk   ranking
	list []int32
	ob   *outBatch
}

// NewSort returns a Sort that emits to out and charges acct.
func NewSort(spec SortSpec, out Emitter, acct Account) (*Sort, error) {
	if len(spec.Order) == 0 {
		return nil, fmt.Errorf("sort: no ORDER BY")
	}
	if err := checkCols(spec.Types, nil, spec.Order); err != nil {
		return nil, err
	}
	if acct == nil {
		acct = noAccount{}
	}
	n := spec.Limit
	if n < 0 {
		n = math.MaxInt64
	}
	return &Sort{spec: spec, out: out, acct: acct, rows: NewRows(spec.Types),
		rk: ranking{ord: order{types: spec.Types, keys: spec.Order}, n: n, newerFirst: spec.NewerFirst}, ob: newOutBatch(spec.Types, TimedOut, false)}, nil
}

// Push implements Operator.
func (s *Sort) Push(ctx context.Context, _ int, b *vector.Batch) error {
	for i := 0; i < b.N; i++ {
		pos := len(s.list)
		if s.spec.Limit >= 0 {
			var ok bool
			if pos, ok = s.rk.place(s.list, s.rows, b, i); !ok {
				continue
			}
		}
		k, n := s.rows.Add(b, i)
		if err := s.acct.Grow(n + 4); err != nil {
			return err
		}
		s.list = insertAt(s.list, pos, int32(k))
		if s.spec.Limit >= 0 && int64(len(s.list)) > s.spec.Limit {
			last := s.list[len(s.list)-1]
			_ = s.acct.Grow(-s.rows.rowBytes(int(last)) - 4)
			s.list = s.list[:len(s.list)-1]
		}
	}
	if s.spec.Limit >= 0 && s.rows.Len() >= 2048 && s.rows.Len() > 2*len(s.list) {
		live := make([]bool, s.rows.Len())
		for _, k := range s.list {
			live[k] = true
		}
		moved := s.rows.Compact(func(k int) bool { return live[k] })
		for j, k := range s.list {
			s.list[j] = int32(moved[k])
		}
	}
	return nil
}

func insertAt(list []int32, pos int, k int32) []int32 {
	list = append(list, 0)
	copy(list[pos+1:], list[pos:])
	list[pos] = k
	return list
}

// Watermark implements Operator: a bounded sort emits at the end only.
func (s *Sort) Watermark(context.Context, int, int64) error { return nil }

// Finish implements Operator: the rows, sorted.
func (s *Sort) Finish(ctx context.Context, _ int) error {
	if s.spec.Limit < 0 {
		slices.SortStableFunc(s.list, func(a, b int32) int {
			c := s.rk.ord.cmp(s.rows, int(a), int(b))
			if c == 0 && s.spec.NewerFirst { // (without a LIMIT the rows are stored in arrival order)
				return int(b) - int(a)
			}
			return c
		})
	}
	for _, k := range s.list {
		s.ob.add(s.rows, int(k), vector.Insert)
		if err := s.ob.full(ctx, s.out); err != nil {
			return err
		}
	}
	s.list = s.list[:0]
	return s.ob.flush(ctx, s.out)
}
