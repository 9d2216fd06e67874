package op

import (
	"context"
	"fmt"
	"math"

	"streamql/catalog"
	"streamql/executor/vector"
)

// TemporalSpec is an event-time temporal join (SPEC 2.7's table: `JOIN r FOR
// SYSTEM_TIME AS OF l.t`; Flink's event-time temporal table join): input 0
// (left) is an append-only stream, input 1 (right) a versioned relation,
// each of its rows the version of its key from its event time on.
type TemporalSpec struct {
	// Kind is Inner or Left: a left row without a valid version is dropped,
	// or padded with NULLs.
	Kind JoinKind
	// Types are each input's column types.
	Types [2][]catalog.Type
	// Keep marks, per input, the columns held (as JoinSpec.Keep; nil holds
	// every column): the others are NULL in the joined rows.
	Keep [2][]bool
	// Keys are the left columns and the right side's key (its PRIMARY KEY,
	// or the upsert key of an updating right side), pairwise of one type.
	Keys [2][]int
	// NullSafe marks the key pairs compared by IS NOT DISTINCT FROM, as
	// JoinSpec.NullSafe (nil: none): a left row with a NULL there joins
	// the version of the NULL key.
	NullSafe []bool
	// Time is each input's event-time column (BIGINT epoch ms or
	// TIMESTAMP): the left row's time picks the version, the right row's is
	// the time its version becomes valid. Both are required.
	Time [2]int
	// Stamp is each input's CURRENT_WATERMARK column (as JoinSpec.Stamp), -1
	// for none.
	Stamp [2]int
	// KeepVersions makes the right side's -D rows end no version, as -U
	// (a deduplication keeping the last row: each -D is half of the update
	// whose +I follows; plan.BothJoin.KeepVersions).
	KeepVersions bool
	// Residual, when set, reports whether row i of b (the output layout:
	// the left columns, then the right ones) meets the ON condition's other
	// terms (as JoinSpec.Residual). It is tested on the version valid at
	// the left row's time (Flink's TemporalRowTimeJoinOperator): a left row
	// whose version fails it joins nothing, and LEFT pads it. from are the
	// pair's rows' positions, as JoinSpec.Residual's.
	Residual func(b *vector.Batch, i int, from [2]int64) bool
}

// Temporal is the event-time temporal join operator of SPEC 2.7. Each left
// row joins the version of its key that is valid at the left row's event
// time: the right row of that key with the largest event time not above it
// (equal times: the one that arrived last), unless a delete of the key
// (-D, from an updating right side) came after that version and not after
// the left row's time. So:
//   - rows of both inputs are held until both watermarks are greater than
//     their time, then handled in event-time order; at equal times the right
//     input's rows come first (a version valid from t is valid at t), then
//     each input's in arrival order. The output (rows and order) is the
//     same for every interleaving of the inputs and every batch size (SPEC
//     2.7, "Determinism");
//   - a handled right row becomes its key's version (+I, +U), or ends it
//     (-D; -U is the first half of an update whose +U follows, and changes
//     nothing); a handled left row emits its joined row (+I), or, for LEFT,
//     itself padded with NULLs when no version is valid; the output is
//     append-only;
//   - a row late for its own input (its time below its CURRENT_WATERMARK
//     stamp, or NULL) goes, as it came, to that input's late port
//     (JoinLateLeft, JoinLateRight): a late version would change results
//     already emitted.
//
// Its state is the held rows and one version per key, charged to its
// Account ('state.max-bytes'): memory follows the right side's keys, not
// its rows.
type Temporal struct {
	twoInputs
	joinOutput
	spec TemporalSpec
	acct Account

	rows    [2]*Rows     // held rows of each input; the right one also keeps the versions
	view    [2]*keepView // each input's batch as rows keeps it (TemporalSpec.Keep; nil: whole)
	size    [2][]int32
	dead    [2][]bool
	ndead   [2]int
	kinds   []vector.RowKind   // each right row's kind
	version map[uint64][]int32 // each key's version (a right row), by key hash
	pending pendingHeap        // held rows by (time, right first, arrival); side holds 1 - input
	seq     int64
	emitted int64
	count   JoinCounts
	used    []bool        // each right row joined a left row
	pairB   *vector.Batch // one candidate pair, for TemporalSpec.Residual
	// replay says which outputs a Kafka replay's rows wrote before
	// (joinreplay.go); nil: none
	replay JoinReplay
}

// Held returns the rows of input side (0 left, 1 right) in the join's
// state (the live status's count, once a batch).
func (t *Temporal) Held(side int) int { return t.rows[side].Len() - t.ndead[side] }

// SideState returns the rows input side (0 left, 1 right: the versions
// and the right rows held) holds in the join's state, and its keys: the
// right side's keyed versions; the left side's rows held for the watermark
// are not indexed by key (0). As Join.SideState, for the message of a job
// stopped by 'state.max-bytes'.
func (t *Temporal) SideState(side int) (rows, keys int) {
	rows = t.rows[side].Len() - t.ndead[side]
	if side == 1 {
		keys = len(t.version)
	}
	return rows, keys
}

// NewTemporal returns the temporal join of spec emitting into out, charging
// its state to acct (nil: no budget). It returns an error for a spec it
// cannot run: a kind other than INNER or LEFT, keys of different counts or
// types, or an input without event time.
func NewTemporal(spec TemporalSpec, out Emitter, acct Account) (*Temporal, error) {
	if spec.Kind != Inner && spec.Kind != Left {
		return nil, fmt.Errorf("temporal join: %s JOIN is not supported (INNER or LEFT, as Flink)", spec.Kind)
	}
	if len(spec.Keys[0]) != len(spec.Keys[1]) || len(spec.Keys[0]) == 0 {
		return nil, fmt.Errorf("temporal join: %d left and %d right key columns (the condition must hold the right side's key)", len(spec.Keys[0]), len(spec.Keys[1]))
	}
	for i := range spec.Keys[0] {
		if l, r := spec.Types[0][spec.Keys[0][i]], spec.Types[1][spec.Keys[1][i]]; l != r {
			return nil, fmt.Errorf("temporal join: key %d is %s on the left and %s on the right", i+1, l, r)
		}
	}
	if spec.Time[0] < 0 || spec.Time[1] < 0 {
		return nil, fmt.Errorf("temporal join: both inputs need event time")
	}
	if acct == nil {
		acct = noAccount{}
	}
	j := &Temporal{joinOutput: joinOutput{out: out}, spec: spec, acct: acct, version: map[uint64][]int32{}, emitted: math.MinInt64}
	for s := range 2 {
		keep := keepWith(spec.Keep[s], spec.Keys[s], spec.Time[s], spec.Stamp[s])
		j.rows[s] = NewRows(keptTypes(spec.Types[s], keep))
		j.view[s] = newKeepView(spec.Types[s], keep)
		j.lateB[s] = vector.NewBatch(spec.Types[s])
	}
	j.outB = vector.NewBatch(append(append([]catalog.Type{}, spec.Types[0]...), spec.Types[1]...))
	j.from = newSources()
	if spec.Residual != nil {
		j.pairB = vector.NewBatch(append(append([]catalog.Type{}, spec.Types[0]...), spec.Types[1]...))
	}
	return j, nil
}

// Push implements Operator: the rows of input port (0 left, 1 right) are
// held, late ones go to the input's late port, and the held rows both
// watermarks have passed are handled.
func (j *Temporal) Push(ctx context.Context, port int, b *vector.Batch) error {
	tc := j.spec.Time[port]
	j.count.In[port] += int64(b.N)
	kb := j.view[port].of(b) // (the row as the state keeps it; late rows go out from b, whole)
	for i := 0; i < b.N; i++ {
		v := b.Cols[tc]
		late := j.wmSet[port] && v.I[i] < j.wm[port]
		if sc := j.spec.Stamp[port]; sc >= 0 {
			w := b.Cols[sc]
			late = !w.Null[i] && v.I[i] < w.I[i]
		}
		if v.Null[i] || late {
			j.count.Late[port]++
			if err := j.late(ctx, port, b, i); err != nil {
				return err
			}
			continue
		}
		k, bytes := j.rows[port].Add(kb, i)
		j.size[port] = append(j.size[port], int32(bytes))
		j.dead[port] = append(j.dead[port], false)
		if port == 1 {
			kind := vector.Insert
			if b.Kinds != nil {
				kind = b.Kinds[i]
			}
			j.kinds = append(j.kinds, kind)
			j.used = append(j.used, false)
		}
		if err := j.acct.Grow(bytes); err != nil {
			return err
		}
		j.seq++
		j.pending.push(pendingItem{t: v.I[i], side: int8(1 - port), seq: j.seq, row: int32(k)})
	}
	if err := j.release(ctx); err != nil {
		return err
	}
	return j.flush(ctx)
}

// Watermark implements Operator: input port's watermark is wm.
func (j *Temporal) Watermark(ctx context.Context, port int, wm int64) error {
	j.advance(port, wm)
	if err := j.release(ctx); err != nil {
		return err
	}
	return j.flush(ctx)
}

// Finish implements Operator: input port has ended; once both have, every
// held row is handled.
func (j *Temporal) Finish(ctx context.Context, port int) error {
	j.done[port] = true
	if err := j.release(ctx); err != nil {
		return err
	}
	return j.flush(ctx)
}

// Counts returns what the join did with each input's rows so far (as
// Join.Counts; a right row is partnered once a left row joined it).
func (j *Temporal) Counts() JoinCounts { return j.count }

// bound is the time below which held rows are handled: the smaller
// watermark of the inputs that have not ended (MaxInt64 when both have,
// MinInt64 while one has no watermark yet).
func (j *Temporal) bound() int64 { return j.twoInputs.bound([2]bool{true, true}) }

// release handles the held rows below the bound in order, then emits the
// operator's watermark.
func (j *Temporal) release(ctx context.Context) error {
	bound := j.bound()
	all := bound == math.MaxInt64
	for len(j.pending) > 0 && (all || j.pending[0].t < bound) {
		it := j.pending.pop()
		if err := j.handle(ctx, 1-int(it.side), int(it.row)); err != nil {
			return err
		}
	}
	if err := j.compact(); err != nil {
		return err
	}
	if bound > j.emitted && bound != math.MinInt64 {
		j.emitted = bound
		if err := j.flush(ctx); err != nil {
			return err
		}
		return j.out.EmitWatermark(ctx, bound)
	}
	return nil
}

// handle applies right row k as its key's version, or joins left row k with
// its key's version.
func (j *Temporal) handle(ctx context.Context, s, k int) error {
	h, ok := j.rows[s].keyHash(k, j.spec.Keys[s], j.spec.NullSafe)
	var cur = -1 // the key's version (index into the right rows)
	list := j.version[h]
	at := -1
	if ok {
		for i, o := range list {
			if keyEqual(j.rows[s], k, j.spec.Keys[s], j.rows[1], int(o), j.spec.Keys[1], j.spec.NullSafe) {
				cur, at = int(o), i
				break
			}
		}
	}
	if s == 0 {
		if cur >= 0 && !j.holds(k, cur) {
			cur = -1 // (the valid version fails the other ON terms: no partner)
		}
		var err error
		old := j.replay != nil && j.written(k, j.rows[0].Int(k, j.spec.Time[0])) // (a replayed row's output was written: JoinReplay)
		switch {
		case cur >= 0:
			j.count.Partnered[0]++
			if !j.used[cur] {
				j.used[cur] = true
				j.count.Partnered[1]++
			}
			err = j.emitOld(ctx, k, cur, old)
		case j.spec.Kind == Left:
			err = j.emitOld(ctx, k, -1, old)
		}
		if err != nil {
			return err
		}
		return j.kill(0, k)
	}
	if !ok { // a NULL key versions nothing
		return j.kill(1, k)
	}
	kind := j.kinds[k]
	if kind == vector.UpdateBefore || kind == vector.Delete && j.spec.KeepVersions { // (the +U, +I that follows replaces the version)
		return j.kill(1, k)
	}
	if cur >= 0 {
		if err := j.kill(1, cur); err != nil {
			return err
		}
		list = append(list[:at], list[at+1:]...)
	}
	if kind == vector.Delete {
		if len(list) == 0 {
			delete(j.version, h)
		} else {
			j.version[h] = list
		}
		return j.kill(1, k)
	}
	j.version[h] = append(list, int32(k))
	return nil
}

// holds reports whether left row l and right row r meet
// TemporalSpec.Residual (always true without one).
func (j *Temporal) holds(l, r int) bool {
	if j.spec.Residual == nil {
		return true
	}
	b := j.pairB
	b.Reset()
	j.rows[0].CopyTo(b, 0, 0, l)
	j.rows[1].CopyTo(b, 0, len(j.spec.Types[0]), r)
	b.N = 1
	return j.spec.Residual(b, 0, [2]int64{j.rows[0].Pos(l), j.rows[1].Pos(r)})
}

// kill marks row k of input s as no longer state and releases its bytes.
func (j *Temporal) kill(s, k int) error {
	j.dead[s][k] = true
	j.ndead[s]++
	return j.acct.Grow(-int64(j.size[s][k]))
}

// emit writes left row l joined with right row r (-1: NULLs).
func (j *Temporal) emit(ctx context.Context, l, r int) error {
	i := j.outB.N
	j.rows[0].CopyTo(j.outB, i, 0, l)
	j.rows[1].CopyTo(j.outB, i, len(j.spec.Types[0]), r)
	j.outB.Pos[i] = j.rows[0].Pos(l)
	j.from[0][i], j.from[1][i] = j.rows[0].Pos(l), -1
	if r >= 0 {
		j.from[1][i] = j.rows[1].Pos(r)
	}
	j.outB.N++
	if j.outB.N == vector.Cap {
		return j.flush(ctx)
	}
	return nil
}

// compact drops an input's dead rows once they outnumber the live ones (and
// 1024), remapping the versions and the held rows.
func (j *Temporal) compact() error {
	for s := range 2 {
		if j.ndead[s] < 1024 || j.ndead[s]*2 < j.rows[s].Len() {
			continue
		}
		dead := j.dead[s]
		moved := j.rows[s].Compact(func(k int) bool { return !dead[k] })
		n := 0
		for k, to := range moved {
			if to < 0 {
				continue
			}
			j.size[s][to], dead[to] = j.size[s][k], false
			if s == 1 {
				j.kinds[to], j.used[to] = j.kinds[k], j.used[k]
			}
			n++
		}
		j.size[s], j.dead[s] = j.size[s][:n], dead[:n]
		if s == 1 {
			j.kinds, j.used = j.kinds[:n], j.used[:n]
			for h, ks := range j.version {
				for i, k := range ks {
					ks[i] = int32(moved[k])
				}
				j.version[h] = ks
			}
		}
		j.ndead[s] = 0
		for i := range j.pending {
			if 1-int(j.pending[i].side) == s {
				j.pending[i].row = int32(moved[j.pending[i].row])
			}
		}
	}
	return nil
}
