package op

import (
	"context"
	"fmt"

	"streamql/catalog"
	"streamql/executor/vector"
)

// SemiSpec is a keyed two-input filter join of SPEC 2.2: its output is left
// rows only, each at most once, SEMI keeping those with a partner on the
// right, ANTI those without (NOT EXISTS), in left order. Input 0 is the left
// side, input 1 the right side.
type SemiSpec struct {
	// Anti makes it an anti join; NullAware gives it NOT IN's three-valued
	// rule (SPEC 2.2: against an empty right side every row passes;
	// otherwise a NULL left key, or any NULL right key, makes a row not
	// pass). NOT IN needs a bounded right side (the planner refuses it over
	// an unbounded one).
	Anti, NullAware bool
	// Types are each input's column types.
	Types [2][]catalog.Type
	// Keys are each input's key columns, pairwise of one type; rows are
	// partners when every pair is equal (NULL and NaN equal nothing).
	Keys [2][]int
	// Cond is the left column (BOOLEAN) holding the join's condition on the
	// left side alone (SPEC 2.2: an ON or correlated WHERE term that reads
	// the left row only), -1 for none: a left row whose Cond is not TRUE has
	// no partner.
	Cond int
	// Time is each input's event-time column (epoch ms), -1 for none. Without
	// right event time the right side is bounded: every left row waits until
	// it has ended (the executor gives it whole first, SPEC 2.2). With it,
	// both sides have event time: a left row at t waits until the right
	// watermark is greater than t.
	Time [2]int
	// Stamp is the right column holding each right row's CURRENT_WATERMARK
	// (SPEC 2.3), -1 for none (the right input's last Watermark stands for
	// it): a right row whose time is below it is late and never enters the
	// state (SPEC 2.2).
	Stamp int
	// Hold is the executor's event-time strategy of a job's semi and anti
	// joins (SPEC 2.2, "held"): the operator holds the left rows, in arrival
	// order, until the right watermark passes them (input 1 carries only the
	// smallest watermark of the job's right streams, and its end), and the
	// decision is not its own: each branch's join is decided by the
	// executor's router, as a MARK join over the rows offered to the branch
	// (SPEC 2.1's first match: a branch sees only the rows the branches
	// before it left). The held rows leave by Take and Done, not by Emit,
	// so that the executor routes them and keeps the ones a LIMIT or a stop
	// did not use; the malformed rows between them are rows of an input of
	// their own, HoldErrors (semihold.go), each at its ordinal, which leave
	// with the rows before them (ErrorsUpTo, HeldError, DoneErrors). Keys,
	// Cond, Stamp and Types[1] are unused; Time[0] must be set.
	Hold bool
	// Mark is the executor's MARK join of a branch (SPEC 2.2; semimark.go):
	// the gate of the branch's stage of the router, which gives it the
	// evaluated left keys of the rows offered to the branch and asks for
	// each one's mark (Marks), so no left row is pushed; input 1 is the
	// build side as the columns the executor evaluated: Keys[1], the event
	// time Time[1] (-1: a bounded build side, whose time does not count),
	// RightCond and RightWM. Keys[0], Cond, Stamp and Types[0] are unused.
	Mark bool
	// RightCond is Mark mode's right column (BOOLEAN) holding the build
	// side's own condition (its WHERE), -1 for none: a right row whose
	// RightCond is not TRUE does not enter the state.
	RightCond int
	// RightWM is Mark mode's right column (BIGINT or TIMESTAMP) holding the
	// watermark each right row gives (its stream's WATERMARK expression
	// over it; NULL: none), -1 for none: after the row the right watermark
	// is the greatest so far, and a right row whose time is below the
	// watermark before it is late (SPEC 2.2, 2.3).
	RightWM int
}

// SemiJoin is SPEC 2.2's semi and anti join as a keyed two-input operator,
// the event-time ("held") strategy and the bounded right side alike: the
// right rows' keys are its state, each with the earliest event time it came
// with, and the left rows are held in arrival order until they are decided
// (the right watermark is greater than their time, or the right input ended),
// then emitted on port JoinOut if they pass, a decided row waiting behind the
// ones not yet decided before it: the output is the same rows in the same order for
// every interleaving of the inputs and every batch size. A left row at t has
// a partner when a right row of its key with time <= t entered the state.
// Late right rows go to port JoinLateRight, as they came.
//
// Its state (the distinct right keys, the held left rows) is charged to its
// Account ('state.max-bytes', SPEC 1). In Hold mode (semihold.go) it holds
// the executor's event-time probe rows for the router to route; in Mark mode
// (semimark.go) it keeps only the right keys and marks the left rows it is
// given (Marks).
type SemiJoin struct {
	twoInputs
	joinOutput
	spec SemiSpec
	acct Account

	right   *Rows              // one row per distinct right key: its first
	earlies []int64            // per right row: the earliest time of its key
	index   map[uint64][]int32 // right rows by key hash
	nright  int64              // right rows that entered the state (NOT IN's empty side)
	hasNull bool               // a right key held a NULL (NOT IN)

	held  *Rows   // left rows not yet decided, in arrival order, from head on
	bytes []int32 // per held row: its bytes ('state.max-bytes')
	head  int
	one   *Rows   // a right row being absorbed, before it is known to be a new key
	take  []int32 // Take's rows (Hold mode)
	// Hold mode's errors port (semihold.go): the malformed rows held among
	// the left rows, from badHead on, each at its ordinal (badAt: the
	// left rows before it since the first); gone is the ordinal of the
	// first held left row (the rows Done so far)
	bad     *Rows
	badAt   []int64
	badHead int
	gone    int64
	count   JoinCounts
	mark    markState // the right keys (Mark mode, semimark.go)
}

// NewSemiJoin returns the semi or anti join of spec emitting into out,
// charging its state to acct (nil: no budget). It returns an error for a
// spec it cannot run: keys of different counts or types.
func NewSemiJoin(spec SemiSpec, out Emitter, acct Account) (*SemiJoin, error) {
	if spec.Mark {
		spec, err := newMark(spec)
		if err != nil {
			return nil, err
		}
		return newMarkJoin(spec, out, acct), nil
	}
	if spec.Hold {
		if spec.Time[0] < 0 {
			return nil, fmt.Errorf("semi join: holding left rows needs their event time (SPEC 2.2)")
		}
		spec.Keys, spec.Cond, spec.Stamp = [2][]int{}, -1, -1
		j := newSemiJoin(spec, out, acct)
		j.bad = NewRows(heldErrorStore)
		return j, nil
	}
	if len(spec.Keys[0]) != len(spec.Keys[1]) || len(spec.Keys[0]) == 0 {
		return nil, fmt.Errorf("semi join: %d left and %d right key columns (a join needs an equality between its sides)", len(spec.Keys[0]), len(spec.Keys[1]))
	}
	for i := range spec.Keys[0] {
		if l, r := spec.Types[0][spec.Keys[0][i]], spec.Types[1][spec.Keys[1][i]]; l != r {
			return nil, fmt.Errorf("semi join: key %d is %s on the left and %s on the right", i+1, l, r)
		}
	}
	if spec.Time[1] >= 0 && spec.Time[0] < 0 {
		return nil, fmt.Errorf("semi join: a right side with event time needs event time on the left (SPEC 2.2)")
	}
	return newSemiJoin(spec, out, acct), nil
}

// newSemiJoin returns the semi join of a checked spec.
func newSemiJoin(spec SemiSpec, out Emitter, acct Account) *SemiJoin {
	if acct == nil {
		acct = noAccount{}
	}
	j := &SemiJoin{joinOutput: joinOutput{out: out}, spec: spec, acct: acct,
		right: NewRows(spec.Types[1]), index: map[uint64][]int32{}, held: NewRows(spec.Types[0]), one: NewRows(spec.Types[1])}
	j.outB = vector.NewBatch(spec.Types[0])
	j.lateB[0], j.lateB[1] = vector.NewBatch(spec.Types[0]), vector.NewBatch(spec.Types[1])
	return j
}

// Counts returns what the join did so far (In, Late of the right input,
// and Partnered: the left rows decided with a partner).
func (j *SemiJoin) Counts() JoinCounts { return j.count }

// Push implements Operator: left rows are held (and the decided ones
// emitted); right rows enter the state, the late ones excepted. In Hold
// mode port HoldErrors takes malformed rows (semihold.go).
func (j *SemiJoin) Push(ctx context.Context, port int, b *vector.Batch) error {
	if j.spec.Hold && port == HoldErrors {
		return j.holdErrors(b)
	}
	j.count.In[port] += int64(b.N)
	switch {
	case j.spec.Hold:
		return j.hold(b, port)
	case j.spec.Mark && port == 1:
		return j.absorbMark(b)
	case j.spec.Mark:
		return fmt.Errorf("semi join: a MARK join's left rows are marked (Marks), not pushed")
	}
	if port == 0 {
		for i := 0; i < b.N; i++ {
			_, n := j.held.Add(b, i)
			j.bytes = append(j.bytes, int32(n))
			if err := j.acct.Grow(n); err != nil {
				return err
			}
		}
	} else if err := j.absorb(ctx, b); err != nil {
		return err
	}
	if err := j.release(ctx); err != nil {
		return err
	}
	return j.flush(ctx)
}

// absorb adds the right rows of b to the state: each key once, with the
// earliest time it came with; a late row does not enter (SPEC 2.2).
func (j *SemiJoin) absorb(ctx context.Context, b *vector.Batch) error {
	tc := j.spec.Time[1]
	for i := 0; i < b.N; i++ {
		var t int64
		if tc >= 0 {
			v := b.Cols[tc]
			late := j.wmSet[1] && v.I[i] < j.wm[1]
			if sc := j.spec.Stamp; sc >= 0 {
				w := b.Cols[sc]
				late = !w.Null[i] && v.I[i] < w.I[i]
			}
			if v.Null[i] || late {
				j.count.Late[1]++
				if err := j.late(ctx, 1, b, i); err != nil {
					return err
				}
				continue
			}
			t = v.I[i]
		}
		j.nright++
		j.one.reset()
		j.one.Add(b, i)
		h, ok := j.one.keyHash(0, j.spec.Keys[1], nil)
		if !ok {
			j.hasNull = j.hasNull || anyNull(j.one, 0, j.spec.Keys[1])
			continue
		}
		if o, found := j.find(h, j.one, 0, j.spec.Keys[1]); found {
			j.earlies[o] = min(j.earlies[o], t)
			continue
		}
		k, n := j.right.Add(b, i)
		j.index[h] = append(j.index[h], int32(k))
		j.earlies = append(j.earlies, t)
		if err := j.acct.Grow(n + 24); err != nil {
			return err
		}
	}
	return nil
}

// find returns the right row whose key equals the key columns cols of row k
// of rows (hashed h), and whether there is one.
func (j *SemiJoin) find(h uint64, rows *Rows, k int, cols []int) (int, bool) {
	for _, o := range j.index[h] {
		if keyEqual(rows, k, cols, j.right, int(o), j.spec.Keys[1], nil) {
			return int(o), true
		}
	}
	return 0, false
}

// Watermark implements Operator: input port's watermark is wm; the held
// left rows the right watermark has passed are decided.
func (j *SemiJoin) Watermark(ctx context.Context, port int, wm int64) error {
	j.advance(port, wm)
	if j.spec.Hold || j.spec.Mark {
		return nil // (Decided says what Take may give; Marks reads the state)
	}
	if err := j.release(ctx); err != nil {
		return err
	}
	return j.flush(ctx)
}

// Finish implements Operator: input port has ended; once the right one has,
// every held row is decided.
func (j *SemiJoin) Finish(ctx context.Context, port int) error {
	j.done[port] = true
	if j.spec.Hold || j.spec.Mark {
		return nil
	}
	if err := j.release(ctx); err != nil {
		return err
	}
	return j.flush(ctx)
}

// release decides the held left rows from the first on, in order, while
// they are decided: the right input ended, or it has event time and its
// watermark is greater than the row's time.
func (j *SemiJoin) release(ctx context.Context) error {
	tc := j.spec.Time[0]
	for ; j.head < j.held.Len(); j.head++ {
		k := j.head
		if !j.done[1] && (j.spec.Time[1] < 0 || !j.wmSet[1] || j.held.Int(k, tc) >= j.wm[1]) {
			break
		}
		pass := j.decide(k)
		if pass {
			j.held.CopyTo(j.outB, j.outB.N, 0, k)
			j.outB.N++
			if j.outB.N == vector.Cap {
				if err := j.flush(ctx); err != nil {
					return err
				}
			}
		}
		if err := j.acct.Grow(-int64(j.bytes[k])); err != nil {
			return err
		}
	}
	if j.head > 0 && (j.head == j.held.Len() || j.head >= vector.Cap && 2*j.head >= j.held.Len()) {
		// the decided rows leave the store (amortized: at most as many
		// moves as rows decided)
		j.held.Compact(func(k int) bool { return k >= j.head })
		j.bytes = append(j.bytes[:0], j.bytes[j.head:]...)
		j.head = 0
	}
	return nil
}

// anyNull reports whether a key column cols of row k of rows is NULL.
func anyNull(rows *Rows, k int, cols []int) bool {
	for _, c := range cols {
		if rows.Null(k, c) {
			return true
		}
	}
	return false
}

// decide reports whether held left row k passes (SPEC 2.2).
func (j *SemiJoin) decide(k int) bool {
	keys := j.spec.Keys[0]
	cond := true
	if c := j.spec.Cond; c >= 0 {
		cond = !j.held.Null(k, c) && j.held.Bool(k, c)
	}
	match := false
	if h, ok := j.held.keyHash(k, keys, nil); ok && cond {
		if o, found := j.find(h, j.held, k, keys); found {
			match = j.spec.Time[1] < 0 || j.earlies[o] <= j.held.Int(k, j.spec.Time[0])
		}
	}
	if match {
		j.count.Partnered[0]++
	}
	switch {
	case !j.spec.Anti:
		return match
	case j.spec.NullAware && (j.nright == 0 || !cond):
		return true // (the subquery, after its own WHERE, is empty for this row)
	case j.spec.NullAware:
		return !match && !anyNull(j.held, k, keys) && !j.hasNull
	}
	return !match
}
