package op

import (
	"context"
	"math"

	"streamql/catalog"
	"streamql/executor/vector"
)

// addKind returns the kind of the joined rows that row k of side s makes as
// it enters the state (SPEC 2.8, Flink's StreamingJoinOperator): an INNER
// join passes an updating input's +U on, every other pair is +I.
func (j *Join) addKind(s, k int) vector.RowKind {
	if j.spec.Kind == Inner && j.spec.Changes[s] {
		return j.side[s].kinds.get(k)
	}
	return vector.Insert
}

// retract handles row k of side s, a -U or -D of an updating input
// (JoinSpec.Changes): it removes the first live row of the state equal to it
// in every column of the input's row (not the CURRENT_WATERMARK stamp and
// the columns after it: a retraction comes under a later watermark than
// the row it retracts, rowEqual) and emits the retraction of each joined row of that key:
// with the input's kind for an INNER join, -D for an outer one. A row of an
// outer side that loses its last partner is emitted padded again (+I); the
// removed row, when it was padded, is retracted padded (-D). Row k itself
// never stays in the state. A retraction of a row the state does not hold
// (its TTL passed) still retracts the pairs of its key, as Flink's does.
func (j *Join) retract(ctx context.Context, s, k int) error {
	sd, od := &j.side[s], &j.side[1-s]
	kind := sd.kinds.get(k)
	if j.spec.Kind != Inner {
		kind = vector.Delete
	}
	if err := j.drop(sd, k); err != nil { // (the retracting row itself is never state)
		return err
	}
	h, ok := sd.rows.keyHash(k, j.spec.Keys[s], j.spec.NullSafe)
	if !ok { // a NULL or NaN key joined nothing: its padded row, if any, goes
		if j.spec.Kind.outer(s) {
			if err := j.emitPadded(ctx, s, k, vector.Delete); err != nil {
				return err
			}
		}
		return j.compact()
	}
	found := -1
	if si := sd.index.find(h); si >= 0 {
		for prev, f := int32(-1), sd.index.slots[si].head; f >= 0; {
			if sd.dead[f] || !rowEqual(sd.rows, int(f), k, j.spec.Stamp[s]) {
				prev, f = f, sd.index.next[f]
				continue
			}
			found = int(f)
			sd.index.unlink(si, prev, f)
			break
		}
	}
	head := int32(-1)
	if si := od.index.find(h); si >= 0 {
		head = od.index.slots[si].head
	}
	for n := head; n >= 0; n = od.index.next[n] { // (the chain does not change as it joins: emitting touches no index)
		o := int(n)
		if od.dead[o] || !keyEqual(sd.rows, k, j.spec.Keys[s], od.rows, o, j.spec.Keys[1-s], j.spec.NullSafe) || !j.holds(s, k, o) {
			continue
		}
		l, r := k, o
		if s == 1 {
			l, r = o, k
		}
		if err := j.emit(ctx, l, r, kind); err != nil {
			return err
		}
		if m := od.matches.get(o); m > 0 {
			od.matches.set(o, m-1)
		}
		if j.spec.Kind.outer(1-s) && od.matches.get(o) == 0 {
			od.padded.set(o, true)
			if err := j.emitPadded(ctx, 1-s, o, vector.Insert); err != nil {
				return err
			}
		}
	}
	if found >= 0 {
		if j.spec.Kind.outer(s) && sd.matches.get(found) == 0 && sd.padded.get(found) {
			if err := j.emitPadded(ctx, s, k, vector.Delete); err != nil {
				return err
			}
		}
		if err := j.drop(sd, found); err != nil {
			return err
		}
	}
	return j.compact()
}

// rowEqual reports whether stored rows a and b of r hold the same values in
// every column before column upTo (all of them when upTo < 0): NULL equals
// NULL here, and doubles compare by their bits (a retraction repeats the
// row it retracts, SPEC 2.8). A join passes its input's stamp column
// (JoinSpec.Stamp): the columns from it on are the watermarks the row came
// under (CURRENT_WATERMARK, a relation's carried stream watermarks), not
// the row's, and the computed keys after them follow from the row.
func rowEqual(r *Rows, a, b, upTo int) bool {
	n := len(r.cols)
	if upTo >= 0 && upTo < n {
		n = upTo
	}
	for c := range n {
		if r.Null(a, c) != r.Null(b, c) {
			return false
		}
		if r.Null(a, c) {
			continue
		}
		switch r.types[c] {
		case catalog.BigInt, catalog.Timestamp:
			if r.Int(a, c) != r.Int(b, c) {
				return false
			}
		case catalog.Double:
			if math.Float64bits(r.Float(a, c)) != math.Float64bits(r.Float(b, c)) && r.Float(a, c) != r.Float(b, c) {
				return false
			}
		case catalog.Boolean:
			if r.Bool(a, c) != r.Bool(b, c) {
				return false
			}
		default: // VARCHAR and the nested types, as their bytes
			if string(r.Str(a, c)) != string(r.Str(b, c)) {
				return false
			}
		}
	}
	return true
}
