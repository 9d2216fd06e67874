package op

import (
	"context"
	"math"

	"streamql/executor/vector"
)

// This file is Join's side of a Kafka replay (SPEC 2.5; the executor's
// joinreplay.go): the rows of a partition still in its state, the drop of a
// partition's rows, and the outputs a replayed row does not write again.

// JoinReplay tells a Join which of its outputs the run before this one wrote
// already: a process that took over a partition reads its rows again from
// the oldest row still in the join's state (either input) at the last
// checkpoint, into state, and only the outputs that run had not written
// come out.
type JoinReplay interface {
	// Written reports whether the outputs that a row of input s at source
	// position pos makes when the join's watermark passes t (its pairs when
	// it is handled at its event time t, or its padding when its interval
	// ends at t, or at its own time t when the interval ended before it:
	// Join.padAt) were written by the run before: the join's watermark had
	// passed t at that run's last checkpoint (SPEC 2.7: a join emits in
	// event-time order, so what it wrote is exactly what lies below its
	// watermark).
	Written(s int, pos int64, t int64) bool
}

// SetReplay makes the join ask r before it writes an output (nil: none). A
// join with a replay needs event time on both inputs. (Both sides keep
// their rows' positions, which it reads.)
func (j *Join) SetReplay(r JoinReplay) {
	j.replay = r
}

// SetRewrite makes a join with a replay (SetReplay) emit again the
// outputs the run before wrote (JoinReplay.Written), instead of leaving
// them out, in batches of joined rows of their own, for which Old is true:
// the state after the join (an aggregate over the joined rows) is rebuilt
// from them, and it alone takes them (the executor's joinSource; the
// connector package doc, "A join followed by an aggregate"). The job plans
// it for joins whose output is append-only: an INNER join's pairs, an
// outer interval join's paddings when the interval closes.
func (j *Join) SetRewrite(on bool) { j.rewrite = on }

// Old reports, while the join emits a batch of joined rows (Emitter.Emit,
// port JoinOut), whether its rows are outputs the run before wrote
// (SetRewrite): every row of a batch is old, or none is.
func (o *joinOutput) Old() bool { return o.rewrite && o.old }

// emitOld is emit for a pair whose outputs the run before wrote or not
// (old): with SetRewrite, the joined rows queued so far are emitted first
// when they are of the other kind, so that each batch is of one (Old).
func (j *Join) emitOld(ctx context.Context, l, r int, kind vector.RowKind, old bool) error {
	if j.rewrite && old != j.old {
		if err := j.flush(ctx); err != nil {
			return err
		}
		j.old = old
	}
	return j.emit(ctx, l, r, kind)
}

// padOld pads row k of side s (an outer side's row without a partner) as
// emitOld writes a pair: when the run before did not write it (old
// false), or, with SetRewrite, in a batch of old rows.
func (j *Join) padOld(ctx context.Context, s, k int, old bool) error {
	switch {
	case old && !j.rewrite:
		return nil
	case s == 0:
		return j.emitOld(ctx, k, -1, vector.Insert, old)
	}
	return j.emitOld(ctx, -1, k, vector.Insert, old)
}

// padAt returns the time in the join's event-time order at which an
// interval join pads row k of side s, whose interval ends at end (epoch
// ms): end, or the row's own time when its interval ended before it (a
// RIGHT join's right row when the upper bound is below 0, a LEFT join's
// left row when the lower bound is above 0). Such a row is handled at its
// time, after its interval ended, and padded right then (expire, before
// the join's watermark passes its time), so a run whose watermark passed
// end but not the row's time wrote neither its pairs nor its padding
// (JoinReplay.Written is asked with this time: with end alone, a replay
// took the padding for written and lost it).
func (j *Join) padAt(s, k int, end int64) int64 {
	return max(end, j.side[s].rows.Int(k, j.spec.Time[s]))
}

// written reports whether the outputs of row k of side s at time t were
// written before (JoinReplay).
func (j *Join) written(s, k int, t int64) bool {
	return j.replay != nil && j.replay.Written(s, j.side[s].rows.Pos(k), t)
}

// Watermarked returns the join's watermark so far (epoch ms; ok false:
// none yet): every output of a row below it has been emitted.
func (j *Join) Watermarked() (wm int64, ok bool) {
	if j.emitted == math.MinInt64 {
		return 0, false
	}
	return j.emitted, true
}

// Rewind sets input port's watermark to wm (epoch ms; set false: none
// until the next Watermark), also below the one it had, and the join's
// own (Watermarked) down to the inputs' smallest (none while one has
// none). The executor's joinSource calls it when a Kafka partition comes
// to or leaves one input of a join of two co-partitioned topics read in a
// consumer group (issue 23 item 6; SPEC 2.5: an input's watermark is the
// minimum over the partitions the process reads): the partition's rows,
// read again from its committed offset, lie below the watermark the join
// had, and are held until the inputs' watermarks pass them again, which
// they do only once both inputs read the partition. Rows already handled
// stay as they are: a partition's rows join only rows of the same
// partition (the topics are keyed by the join key), and those of a
// partition that came were dropped (DropRows) and are read again.
func (j *Join) Rewind(port int, wm int64, set bool) {
	j.rewind(port, wm, set)
	j.emitted = min(j.emitted, j.bound())
}

// EachRow calls f with the source position of each row of input s a replay
// must read again, and the row's stamp column (JoinSpec.Stamp; null when it
// has none): each row of s in the state (held for the aligner, or handled
// and still able to join), and, with a replay set (SetReplay), the first
// partner in s of each row of the other input in the state that an outer
// join may still pad (read again, the pair is found again and the row is
// not padded; its stamp is then unknown, null). It walks the whole state: a
// checkpoint's cost, not the hot path's.
func (j *Join) EachRow(s int, f func(pos int64, stamp int64, null bool)) {
	sd := &j.side[s]
	sc := j.spec.Stamp[s]
	if j.spec.DropStamp[s] {
		sc = -1 // (not held: JoinSpec.DropStamp)
	}
	for k := range sd.rows.Len() {
		if sd.dead[k] {
			continue
		}
		if sc < 0 {
			f(sd.rows.Pos(k), 0, true)
			continue
		}
		f(sd.rows.Pos(k), sd.rows.Int(k, sc), sd.rows.Null(k, sc))
	}
	od := &j.side[1-s]
	if !j.spec.Kind.outer(1-s) || od.partner.n == 0 {
		return
	}
	for k := range od.rows.Len() {
		if !od.dead[k] && od.partner.get(k) >= 0 {
			f(od.partner.get(k), 0, true)
		}
	}
}

// notePartners notes, for the rows of an outer side, the first partner's
// source position (EachRow): row k of side s and row o of the other side
// have just joined.
func (j *Join) notePartners(s, k, o int) {
	sd, od := &j.side[s], &j.side[1-s]
	if j.spec.Kind.outer(s) && sd.partner.get(k) < 0 {
		sd.partner.set(k, od.rows.Pos(o))
	}
	if j.spec.Kind.outer(1-s) && od.partner.get(o) < 0 {
		od.partner.set(o, sd.rows.Pos(k))
	}
}

// DropRows drops the rows of input s for which drop (given the row's
// source position) is true from the state, held or handled, without any
// output: a Kafka partition revoked, or read again from its committed
// offset. Their bytes go back to the Account.
func (j *Join) DropRows(s int, drop func(pos int64) bool) error {
	sd := &j.side[s]
	for k := range sd.rows.Len() {
		if !sd.dead[k] && drop(sd.rows.Pos(k)) {
			if err := j.drop(sd, k); err != nil {
				return err
			}
		}
	}
	return j.compact()
}

// The temporal join's side of a Kafka replay (SPEC 2.5, 2.7; the
// executor's joinreplay.go): the same contract as Join's. Its state is the
// rows held until both watermarks pass them (either input) and, on the right
// input, each key's current version: a version stays able to be the version
// of a future left row until a later version of its key (or a delete)
// replaces it, so the right input's oldest row a replay must read again is
// its oldest current version. Read again from there, in event-time order,
// the right rows rebuild exactly the versions of the crash (a version below
// that row was replaced by one at or after it: the topics are keyed by the
// join key, so a key's versions are in one partition), and a left row read
// again joins the version it joined before; its joined or padded row is not
// written again when its time is below the crashed join's watermark (the
// temporal join emits a left row's output when the watermarks pass its time,
// in event-time order).

// SetReplay makes the temporal join ask r before it writes a left row's
// output (nil: none).
func (j *Temporal) SetReplay(r JoinReplay) { j.replay = r }

// Watermarked returns the join's watermark so far (epoch ms; ok false: none
// yet): every output of a left row below it has been emitted.
func (j *Temporal) Watermarked() (wm int64, ok bool) {
	if j.emitted == math.MinInt64 {
		return 0, false
	}
	return j.emitted, true
}

// Rewind is Join.Rewind for the temporal join: input port's watermark
// becomes wm (set false: none), also when lower, and the join's own goes
// down to the inputs' smallest.
func (j *Temporal) Rewind(port int, wm int64, set bool) {
	j.rewind(port, wm, set)
	j.emitted = min(j.emitted, j.bound())
}

// EachRow calls f with the source position of each row of input s a replay
// must read again, and the row's stamp (TemporalSpec.Stamp; null when it has
// none): the rows of s held until the watermarks pass them and, for the
// right input, each key's current version. It walks the whole state: a
// checkpoint's cost, not the hot path's.
func (j *Temporal) EachRow(s int, f func(pos int64, stamp int64, null bool)) {
	rows, sc := j.rows[s], j.spec.Stamp[s]
	for k := range rows.Len() {
		switch {
		case j.dead[s][k]:
		case sc < 0:
			f(rows.Pos(k), 0, true)
		default:
			f(rows.Pos(k), rows.Int(k, sc), rows.Null(k, sc))
		}
	}
}

// DropRows drops the rows of input s for which drop (given the row's source
// position) is true from the state, held rows and versions alike, without
// any output: a Kafka partition revoked, or read again from its committed
// offset. Their bytes go back to the Account.
func (j *Temporal) DropRows(s int, drop func(pos int64) bool) error {
	gone := false
	for k := range j.rows[s].Len() {
		if !j.dead[s][k] && drop(j.rows[s].Pos(k)) {
			if err := j.kill(s, k); err != nil {
				return err
			}
			gone = true
		}
	}
	if !gone {
		return nil
	}
	held := j.pending
	j.pending = nil
	for _, it := range held {
		if !j.dead[1-int(it.side)][it.row] {
			j.pending.push(it)
		}
	}
	if s == 1 {
		for h, ks := range j.version {
			kept := ks[:0]
			for _, k := range ks {
				if !j.dead[1][k] {
					kept = append(kept, k)
				}
			}
			if len(kept) == 0 {
				delete(j.version, h)
			} else {
				j.version[h] = kept
			}
		}
	}
	return j.compact()
}

// SetRewrite is Join.SetRewrite for the temporal join: a left row's
// output the run before wrote is emitted again, in a batch of its own.
func (j *Temporal) SetRewrite(on bool) { j.rewrite = on }

// emitOld is emit for a left row's output that the run before wrote or
// not (old), as Join.emitOld.
func (j *Temporal) emitOld(ctx context.Context, l, r int, old bool) error {
	switch {
	case old && !j.rewrite:
		return nil
	case j.rewrite && old != j.old:
		if err := j.flush(ctx); err != nil {
			return err
		}
		j.old = old
	}
	return j.emit(ctx, l, r)
}

// written reports whether left row l's output at its time t was written
// before (JoinReplay).
func (j *Temporal) written(l int, t int64) bool {
	return j.replay != nil && j.replay.Written(0, j.rows[0].Pos(l), t)
}
