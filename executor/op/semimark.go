package op

import (
	"encoding/binary"
	"fmt"
	"math"

	"streamql/catalog"
	"streamql/executor/vector"
)

// This file is SemiJoin's Mark mode (SemiSpec.Mark): SPEC 2.2's semi and
// anti join as DuckDB's MARK join, the gate of a branch's stage of the
// executor's router (executor/markjoin.go). Its right input is the join's
// build side, pushed on port 1 as the columns the executor evaluated (the
// build keys, the build side's own condition, its event time and each row's
// watermark); its state is the distinct right keys, each with the earliest
// event time it came with (0 for a right side without event time), encoded
// as bytes (AppendKey) and charged to the Account by their bytes plus
// MarkKeyOverhead. Its left side is never pushed: the stage gives it the
// evaluated left keys of the rows offered to the branch and asks for their
// marks (Marks), so the rows stay the router's.

// MarkKeyOverhead is the bytes a distinct right key costs in Mark mode
// besides its encoded bytes: the map entry's string header, event time and
// the map's per-entry overhead (an estimate, for 'state.max-bytes'; EXPLAIN
// ANALYZE shows the sum).
const MarkKeyOverhead = 48

// markState is the right side's state of a SemiJoin in Mark mode.
type markState struct {
	keys  map[string]int64 // each distinct right key, encoded, with its earliest event time
	types []catalog.Type   // the key columns' types, in key order
	ns    []bool           // the null-safe key parts (MarkLayout.NullSafe)
	vecs  []*vector.Vec    // the right batch's key columns (absorb)
	key   []byte           // absorb's key buffer
}

// MarkLayout is the build side of a MARK join as its right input (port 1)
// carries it, a layout NewMarkJoin builds the operator from: the key
// columns first, in key order, then, when present, a BOOLEAN column holding
// the build side's own condition, its event time, and each row's watermark
// (the build stream's WATERMARK expression, epoch ms). Columns gives the
// types and indexes; since the operator is built from the same layout, its
// columns are always the input's (no layout error is possible).
type MarkLayout struct {
	// KeyTypes are the key columns' types, in key order (none: an
	// uncorrelated EXISTS, SPEC 2.2).
	KeyTypes []catalog.Type
	// NullSafe marks the key parts compared by IS NOT DISTINCT FROM (nil:
	// none; else one flag a key part): a NULL there matches a NULL, and is
	// no NULL for NOT IN's rule (AppendKey).
	NullSafe []bool
	// Cond says a build condition column follows the keys.
	Cond bool
	// Time is the event time's type (BIGINT or TIMESTAMP), catalog.Unknown
	// for a build side without event time.
	Time catalog.Type
	// WM says each row's watermark follows (with Time; without it the right
	// watermark comes only from the operator's Watermark calls).
	WM bool
}

// Columns returns the types of the columns of l and the indexes of its
// condition, time and watermark columns (-1 each when absent): the keys are
// columns 0 … len(KeyTypes)-1, and the three others always have their place
// (len(KeyTypes), +1, +2), so one layout fits every branch.
func (l MarkLayout) Columns() (types []catalog.Type, cond, time, wm int) {
	n := len(l.KeyTypes)
	types = append(append(make([]catalog.Type, 0, n+3), l.KeyTypes...), catalog.Boolean, catalog.BigInt, catalog.BigInt)
	cond, time, wm = -1, -1, -1
	if l.Cond {
		cond = n
	}
	if l.Time != catalog.Unknown {
		time, types[n+1] = n+1, l.Time
		if l.WM {
			wm = n + 2
		}
	}
	return types, cond, time, wm
}

// NewMarkJoin returns the MARK join (a SemiJoin in Mark mode, SPEC 2.2) of a
// branch whose build side is pushed on port 1 laid out as l: an anti join
// when anti, with NOT IN's three-valued rule when nullAware, charging its
// distinct keys to acct (nil: no budget). It has no error: the spec's
// columns are those of l's own layout (Columns).
func NewMarkJoin(l MarkLayout, anti, nullAware bool, acct Account) *SemiJoin {
	types, cond, time, wm := l.Columns()
	keys := make([]int, len(l.KeyTypes))
	for k := range keys {
		keys[k] = k
	}
	spec := SemiSpec{Mark: true, Anti: anti, NullAware: nullAware, Types: [2][]catalog.Type{nil, types},
		Keys: [2][]int{nil, keys}, Time: [2]int{-1, time}, Cond: -1, Stamp: -1, RightCond: cond, RightWM: wm}
	j := newMarkJoin(spec, nil, acct)
	j.mark.ns = l.NullSafe
	return j
}

// newMarkJoin returns the Mark mode SemiJoin of a checked spec (newMark's).
func newMarkJoin(spec SemiSpec, out Emitter, acct Account) *SemiJoin {
	if acct == nil {
		acct = noAccount{}
	}
	// (no rows are held nor emitted: none of newSemiJoin's stores and batches)
	return &SemiJoin{joinOutput: joinOutput{out: out}, spec: spec, acct: acct,
		mark: markState{keys: map[string]int64{}, types: markTypes(spec), vecs: make([]*vector.Vec, len(spec.Keys[1]))}}
}

// newMark checks and completes a Mark mode spec: its right columns must be
// the right input's (the left side is given evaluated to Marks, so Types[0],
// Keys[0], Cond and Stamp are unused). No key column is a join without an
// equality (an uncorrelated EXISTS, SPEC 2.2): every left row whose cond
// holds has a partner once a right row entered.
func newMark(spec SemiSpec) (SemiSpec, error) {
	for _, c := range append([]int{spec.Time[1], spec.RightCond, spec.RightWM}, spec.Keys[1]...) {
		if c >= len(spec.Types[1]) {
			return spec, fmt.Errorf("semi join: right column %d of a MARK join is past its %d columns", c, len(spec.Types[1]))
		}
	}
	spec.Keys[0], spec.Cond, spec.Stamp = nil, -1, -1
	return spec, nil
}

// markTypes returns the types of the right key columns of spec.
func markTypes(spec SemiSpec) []catalog.Type {
	types := make([]catalog.Type, len(spec.Keys[1]))
	for k, c := range spec.Keys[1] {
		types[k] = spec.Types[1][c]
	}
	return types
}

// absorbMark adds the right rows of b to the Mark mode's state (SPEC 2.2: the
// build side keeps distinct keys only): each row whose RightCond holds enters
// with its key, unless it is late (with event time: its time is below the
// right watermark the rows before it gave); then the row's RightWM advances
// the right watermark. The new keys are charged as one growth, so a
// *StateLimitError of the Account comes after the whole batch entered.
func (j *SemiJoin) absorbMark(b *vector.Batch) error {
	m := &j.mark
	for k, c := range j.spec.Keys[1] {
		m.vecs[k] = b.Cols[c]
	}
	var cond, wm, tv *vector.Vec
	if c := j.spec.RightCond; c >= 0 {
		cond = b.Cols[c]
	}
	if c := j.spec.RightWM; c >= 0 {
		wm = b.Cols[c]
	}
	if c := j.spec.Time[1]; c >= 0 {
		tv = b.Cols[c]
	}
	var grown int64
	for i := 0; i < b.N; i++ {
		if cond == nil || (cond.B[i] && !cond.Null[i]) {
			grown += j.insertMark(tv, i)
		}
		if wm != nil && !wm.Null[i] && (!j.wmSet[1] || wm.I[i] > j.wm[1]) {
			j.wm[1], j.wmSet[1] = wm.I[i], true
		}
	}
	return j.acct.Grow(grown)
}

// insertMark adds right row i (its key in j.mark.vecs, its time in tv, nil
// without event time) to the state and returns the bytes a new key costs.
func (j *SemiJoin) insertMark(tv *vector.Vec, i int) int64 {
	m := &j.mark
	var t int64
	if tv != nil {
		t = tv.I[i]
		if j.wmSet[1] && t < j.wm[1] {
			return 0 // a late right row (SPEC 2.2)
		}
	}
	j.nright++
	var ok, null bool
	m.key, ok, null = AppendKey(m.key[:0], m.types, m.ns, m.vecs, i)
	if null {
		j.hasNull = true
	}
	if !ok {
		return 0 // (a NaN key matches nothing, but is no NULL: NOT IN still decides)
	}
	var grown int64
	old, dup := m.keys[string(m.key)]
	if !dup {
		grown = int64(len(m.key)) + MarkKeyOverhead
	}
	if !dup || t < old {
		m.keys[string(m.key)] = t
	}
	return grown
}

// Marks writes the marks of the left rows sel into mark (BOOLEAN; row i's
// at index i), Mark mode: keys are the rows' left key columns, evaluated
// (of the right keys' types, in key order), cond their left condition
// (BOOLEAN; nil: none; a row whose cond is not TRUE has no partner) and t
// their event times (nil: the right side has none). The mark is TRUE when a
// right key equals the row's key (with event time: one that came with a time
// <= the row's), FALSE otherwise; with NullAware (NOT IN) it is NULL instead
// of FALSE when the right side is not empty, the row's cond holds and its
// key or any right key is NULL (SPEC 2.2's three-valued IN). The marks
// are of the state as it is: whether a partner may still come (the right
// watermark, RightWatermark) is the caller's. buf is the caller's scratch
// for the keys' encoding, returned (grown) for its next call: Marks only
// reads the operator, so that the chains of a parallel path mark at once,
// each with a buf of its own, once the right side was pushed whole.
func (j *SemiJoin) Marks(keys []*vector.Vec, cond *vector.Vec, t []int64, sel []int32, mark *vector.Vec, buf []byte) []byte {
	m := &j.mark
	mb, mn := mark.B, mark.Null
	key := buf
	nullAware := j.spec.NullAware && j.nright > 0 // (against an empty right side the mark is FALSE)
	for _, i := range sel {
		var ok, null, match bool
		key, ok, null = AppendKey(key[:0], m.types, m.ns, keys, int(i))
		if ok {
			var e int64
			e, match = m.keys[string(key)]
			if match && t != nil {
				match = e <= t[i]
			}
		}
		c := cond == nil || (cond.B[i] && !cond.Null[i])
		mb[i], mn[i] = c && match, false
		if nullAware && c && !match && (null || j.hasNull) {
			mn[i] = true // x NOT IN (…, NULL, …) is NULL (SPEC 2.2)
		}
	}
	return key
}

// RightWatermark returns the right input's watermark (epoch ms; set false:
// none yet) and whether the right input has ended (its watermark is then
// +∞).
func (j *SemiJoin) RightWatermark() (wm int64, set, ended bool) {
	return j.wm[1], j.wmSet[1], j.done[1]
}

// MarkCounts returns the right rows that entered a Mark mode's state (late
// ones excepted; NULL keys included) and its distinct keys (EXPLAIN ANALYZE).
func (j *SemiJoin) MarkCounts() (rows, keys int64) {
	return j.nright, int64(len(j.mark.keys))
}

// AppendKey encodes the key of row i of vecs (of types, in key order) into
// dst, as Mark mode keeps its keys; ok is false when a key part is NULL or
// NaN, which never matches (SPEC 2.2, SPEC 2: NaN equals nothing), and null
// says a part is NULL. The two differ for NOT IN's three-valued rule (SPEC
// 2.2): x = NaN is false, not NULL, so a NaN takes no part in it. -0.0 is
// encoded as 0.0. A null-safe part (ns, MarkLayout.NullSafe; nil: none)
// is a tag byte, 1 for NULL, which then matches NULL, or 0 and the value:
// every part stays self-delimiting, so no NULL encodes as a value.
func AppendKey(dst []byte, types []catalog.Type, ns []bool, vecs []*vector.Vec, i int) (key []byte, ok, null bool) {
	ok = true
	for k, v := range vecs {
		if nullSafe(ns, k) {
			if v.Null[i] {
				dst = append(dst, 1)
				continue
			}
			dst = append(dst, 0)
		} else if v.Null[i] {
			return dst, false, true
		}
		switch types[k] {
		case catalog.BigInt, catalog.Timestamp:
			dst = binary.LittleEndian.AppendUint64(dst, uint64(v.I[i]))
		case catalog.Double:
			f := v.F[i]
			if math.IsNaN(f) {
				ok = false // (the parts after it may still be NULL)
				continue
			}
			if f == 0 {
				f = 0 // -0 = 0
			}
			dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(f))
		case catalog.Boolean:
			if v.B[i] {
				dst = append(dst, 1)
			} else {
				dst = append(dst, 0)
			}
		case catalog.Varchar:
			dst = binary.AppendUvarint(dst, uint64(len(v.S[i])))
			dst = append(dst, v.S[i]...)
		}
	}
	return dst, ok, false
}
