package op

import (
	"bytes"
	"cmp"
	"context"
	"time"

	"streamql/catalog"
	"streamql/executor/agg"
	"streamql/executor/vector"
)

// SortKey is one ORDER BY item of a ranking, OVER or sort operator: a column of
// the input and its direction. NULL sorts below every value, so it comes first
// for ASC and last for DESC (Flink's default null ordering; SPEC 2.9).
// DOUBLE orders as Java's Double.compare (-0.0 < 0.0, NaN last).
type SortKey struct {
	Col  int
	Desc bool
}

// cell is one value of a row, as the sort compares it.
type cell struct {
	null bool
	i    int64
	f    float64
	b    bool
	s    []byte
}

// cellOf returns value i of v.
func cellOf(v *vector.Vec, i int) cell {
	x := cell{null: v.Null[i]}
	switch {
	case x.null:
	case v.I != nil:
		x.i = v.I[i]
	case v.F != nil:
		x.f = v.F[i]
	case v.B != nil:
		x.b = v.B[i]
	case v.S != nil:
		x.s = v.S[i]
	}
	return x
}

// storedCell returns column c of stored row k of r.
func storedCell(r *Rows, k, c int) cell {
	x := cell{null: r.Null(k, c)}
	if x.null {
		return x
	}
	switch r.types[c] {
	case catalog.BigInt, catalog.Timestamp:
		x.i = r.Int(k, c)
	case catalog.Double:
		x.f = r.Float(k, c)
	case catalog.Boolean:
		x.b = r.Bool(k, c)
	case catalog.Varchar:
		x.s = r.Str(k, c)
	}
	return x
}

// cmpCells compares a and b of type t: -1, 0 or 1; NULL is the smallest
// value, DOUBLE in Java's Double.compare order.
func cmpCells(t catalog.Type, a, b cell) int {
	switch {
	case a.null && b.null:
		return 0
	case a.null:
		return -1
	case b.null:
		return 1
	}
	switch t {
	case catalog.BigInt, catalog.Timestamp:
		return cmp.Compare(a.i, b.i)
	case catalog.Double:
		return agg.CompareDouble(a.f, b.f)
	case catalog.Boolean:
		switch {
		case a.b == b.b:
			return 0
		case !a.b:
			return -1
		}
		return 1
	case catalog.Varchar:
		return bytes.Compare(a.s, b.s)
	}
	return 0
}

func cmpInt(a, b int64) int { return cmp.Compare(a, b) }

// order is a list of sort keys over one row layout.
type order struct {
	types []catalog.Type
	keys  []SortKey
}

// cmpIn compares row i of b with stored row k of r in the order.
func (o *order) cmpIn(b *vector.Batch, i int, r *Rows, k int) int {
	for _, s := range o.keys {
		c := cmpCells(o.types[s.Col], cellOf(b.Cols[s.Col], i), storedCell(r, k, s.Col))
		if c != 0 {
			if s.Desc {
				return -c
			}
			return c
		}
	}
	return 0
}

// cmp compares stored rows a and b of r in the order.
func (o *order) cmp(r *Rows, a, b int) int {
	for _, s := range o.keys {
		c := cmpCells(o.types[s.Col], storedCell(r, a, s.Col), storedCell(r, b, s.Col))
		if c != 0 {
			if s.Desc {
				return -c
			}
			return c
		}
	}
	return 0
}

// partKey appends the partition key of row i of b (the columns cols, each
// framed, as grouping compares them: SPEC 2.4, NULL one value) to dst.
func partKey(dst []byte, types []catalog.Type, cols []int, b *vector.Batch, i int) []byte {
	for _, c := range cols {
		dst = agg.AppendKeyFramed(dst, types[c], b.Cols[c], i)
	}
	return dst
}

// timed is a held row in event-time order: its time, its arrival sequence
// (ties: arrival order), its index in the operator's Rows and an index of
// the operator's own (its partition, or -1).
type timed struct {
	t, seq int64
	row    int32
	part   int32
}

func (a timed) less(b timed) bool { return a.t < b.t || a.t == b.t && a.seq < b.seq }

// timeHeap is a min-heap of held rows by (time, arrival).
type timeHeap []timed

func (h *timeHeap) push(x timed) {
	*h = append(*h, x)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !s[i].less(s[p]) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *timeHeap) pop() timed {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s = s[:n]
	i := 0
	for {
		l, m := 2*i+1, i
		if l < n && s[l].less(s[m]) {
			m = l
		}
		if l+1 < n && s[l+1].less(s[m]) {
			m = l + 1
		}
		if m == i {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return top
}

// outBatch gathers an operator's output rows for one port and emits them
// when full (vector.Cap) or flushed.
type outBatch struct {
	b    *vector.Batch
	port int
}

func newOutBatch(types []catalog.Type, port int, kinds bool) *outBatch {
	o := &outBatch{b: vector.NewBatch(types), port: port}
	if kinds {
		o.b.Kinds = make([]vector.RowKind, vector.Cap)
	}
	return o
}

// add writes stored row k of r into the next row (columns from 0), with kind
// when the batch has kinds; it returns the row's index in the batch, so the
// caller may set further columns before the next add. Call full afterwards.
func (o *outBatch) add(r *Rows, k int, kind vector.RowKind) int {
	i := o.b.N
	r.CopyTo(o.b, i, 0, k)
	o.b.Pos[i] = r.Pos(k)
	if o.b.Kinds != nil {
		o.b.Kinds[i] = kind
	}
	o.b.N++
	return i
}

// full emits the batch when it is full.
func (o *outBatch) full(ctx context.Context, out Emitter) error {
	if o.b.N < vector.Cap {
		return nil
	}
	return o.flush(ctx, out)
}

// passWatermark emits the rows gathered, then the watermark wm (an
// operator without a time of its own: the Top-Ns).
func (o *outBatch) passWatermark(ctx context.Context, out Emitter, wm int64) error {
	if err := o.flush(ctx, out); err != nil {
		return err
	}
	return out.EmitWatermark(ctx, wm)
}

// flush emits the rows gathered, if any.
func (o *outBatch) flush(ctx context.Context, out Emitter) error {
	if o.b.N == 0 {
		return nil
	}
	if err := out.Emit(ctx, o.port, o.b); err != nil {
		return err
	}
	o.b.Reset()
	return nil
}

// addIn adds row i of src (of the batch's layout) as a change of kind:
// Batch.AppendRows of one row, value by value (no call to copy memory);
// strings are copied into the batch's arenas.
func (o *outBatch) addIn(src *vector.Batch, i int, kind vector.RowKind) {
	b := o.b
	j := b.N
	b.LineCols = 0 // (the lines would not outlive src)
	if src.Pos != nil {
		b.Pos[j] = src.Pos[i]
	}
	for c, s := range src.Cols {
		d := b.Cols[c]
		if d.Type != s.Type {
			continue // not kept
		}
		d.Null[j] = s.Null[i]
		switch {
		case d.I != nil:
			d.I[j] = s.I[i]
		case d.F != nil:
			d.F[j] = s.F[i]
		case d.B != nil:
			d.B[j] = s.B[i]
		case d.S != nil:
			if !s.Null[i] {
				d.SetString(j, s.S[i])
			}
		case d.Kids != nil:
			if !s.Null[i] {
				d.CopyValue(j, s, i)
			}
		}
		if d.Text != nil {
			d.Text[j] = nil
		}
	}
	if b.Kinds != nil {
		b.Kinds[j] = kind
	}
	b.N++
}

// addRanked is add, with the rank r written into column rankCol when it is
// not negative (a Top-N's rank column).
func (o *outBatch) addRanked(r *Rows, k int, kind vector.RowKind, rankCol int, rank int64) {
	i := o.add(r, k, kind)
	if rankCol >= 0 {
		o.setInt(i, rankCol, rank)
	}
}

// setInt writes a BIGINT into column c of row i of the batch.
func (o *outBatch) setInt(i, c int, x int64) {
	v := o.b.Cols[c]
	v.I[i], v.Null[i] = x, false
	if v.Text != nil {
		v.Text[i] = nil
	}
}

// ttlClock is the processing-time clock of 'table.exec.state.ttl' (SPEC 2.8:
// state untouched that long is dropped): now in epoch ms.
type ttlClock func() int64

func (c ttlClock) now() int64 {
	if c == nil {
		return time.Now().UnixMilli()
	}
	return c()
}

// liveRows is a Rows store whose rows are released one by one (the rows an
// operator no longer holds): a released row's slot is reused by the next
// add (Rows.Set), so the store holds the rows held and no more, and a row
// keeps its index while it is held.
type liveRows struct {
	*Rows
	alive []bool
	free  []int32 // released slots
}

func newLiveRows(types []catalog.Type) liveRows { return liveRows{Rows: NewRows(types)} }

// add stores row i of b in a released slot, or a new one, and returns its
// index and the bytes it takes.
func (l *liveRows) add(b *vector.Batch, i int) (int, int64) {
	if n := len(l.free); n > 0 {
		k := l.free[n-1]
		l.free = l.free[:n-1]
		l.alive[k] = true
		return int(k), l.Set(int(k), b, i)
	}
	l.alive = append(l.alive, true)
	return l.Rows.Add(b, i)
}

// release marks row k as no longer held (its slot free for the next add),
// and returns the bytes it took.
func (l *liveRows) release(k int32) int64 {
	if !l.alive[k] {
		return 0 // (released already)
	}
	l.alive[k] = false
	l.free = append(l.free, k)
	return l.Free(int(k))
}
