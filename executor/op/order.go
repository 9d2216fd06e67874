package op

import (
	"bytes"
	"context"
	"math"
	"time"

	"streamql/catalog"
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

// cmpCell compares value i of v with value (row k, column c) of r, both of
// type t: -1, 0 or 1; NULL is the smallest value.
func cmpCell(t catalog.Type, v *vector.Vec, i int, r *Rows, k, c int) int {
	an, bn := v.Null[i], r.Null(k, c)
	switch {
	case an && bn:
		return 0
	case an:
		return -1
	case bn:
		return 1
	}
	switch t {
	case catalog.BigInt, catalog.Timestamp:
		return cmpInt(v.I[i], r.Int(k, c))
	case catalog.Double:
		return compareDouble(v.F[i], r.Float(k, c))
	case catalog.Boolean:
		return cmpBool(v.B[i], r.Bool(k, c))
	case catalog.Varchar:
		return bytes.Compare(v.S[i], r.Str(k, c))
	}
	return 0
}

// cmpStored compares (row a, column c) with (row b, column c) of r.
func cmpStored(t catalog.Type, r *Rows, a, b, c int) int {
	an, bn := r.Null(a, c), r.Null(b, c)
	switch {
	case an && bn:
		return 0
	case an:
		return -1
	case bn:
		return 1
	}
	switch t {
	case catalog.BigInt, catalog.Timestamp:
		return cmpInt(r.Int(a, c), r.Int(b, c))
	case catalog.Double:
		return compareDouble(r.Float(a, c), r.Float(b, c))
	case catalog.Boolean:
		return cmpBool(r.Bool(a, c), r.Bool(b, c))
	case catalog.Varchar:
		return bytes.Compare(r.Str(a, c), r.Str(b, c))
	}
	return 0
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// compareDouble is Java's Double.compare: -0.0 < 0.0, every NaN equal and
// above +Infinity.
func compareDouble(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	an, bn := math.IsNaN(a), math.IsNaN(b)
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	}
	return cmpInt(int64(math.Float64bits(a)), int64(math.Float64bits(b))) // -0.0 against 0.0
}

// order is a list of sort keys over one row layout.
type order struct {
	types []catalog.Type
	keys  []SortKey
}

// cmpIn compares row i of b with stored row k of r in the order.
func (o *order) cmpIn(b *vector.Batch, i int, r *Rows, k int) int {
	for _, s := range o.keys {
		c := cmpCell(o.types[s.Col], b.Cols[s.Col], i, r, k, s.Col)
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
		c := cmpStored(o.types[s.Col], r, a, b, s.Col)
		if c != 0 {
			if s.Desc {
				return -c
			}
			return c
		}
	}
	return 0
}

// partKey appends the partition key of row i of b (the columns cols, framed,
// NULL one value: SPEC 2.4's grouping) to dst.
func partKey(dst []byte, types []catalog.Type, cols []int, b *vector.Batch, i int) []byte {
	for _, c := range cols {
		v := b.Cols[c]
		if v.Null[i] {
			dst = append(dst, 0)
			continue
		}
		dst = append(dst, 1)
		switch types[c] {
		case catalog.BigInt, catalog.Timestamp:
			dst = appendU64(dst, uint64(v.I[i]))
		case catalog.Double:
			f := v.F[i]
			if math.IsNaN(f) {
				f = math.NaN() // every NaN one group (Java's Double.equals)
			}
			dst = appendU64(dst, math.Float64bits(f))
		case catalog.Boolean:
			if v.B[i] {
				dst = append(dst, 1)
			} else {
				dst = append(dst, 0)
			}
		case catalog.Varchar:
			dst = appendU64(dst, uint64(len(v.S[i])))
			dst = append(dst, v.S[i]...)
		}
	}
	return dst
}

func appendU64(dst []byte, u uint64) []byte {
	return append(dst, byte(u), byte(u>>8), byte(u>>16), byte(u>>24), byte(u>>32), byte(u>>40), byte(u>>48), byte(u>>56))
}

// rowBytes is what stored row k of r takes (as Rows.Add counted it).
func (r *Rows) rowBytes(k int) int64 {
	n := int64(8 + len(r.types))
	for c, t := range r.types {
		switch t {
		case catalog.BigInt, catalog.Timestamp, catalog.Double:
			n += 8
		case catalog.Boolean:
			n++
		case catalog.Varchar:
			n += 4 + int64(r.cols[c].off[k+1]-r.cols[c].off[k])
		}
	}
	return n
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
