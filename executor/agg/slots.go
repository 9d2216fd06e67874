package agg

import (
	"unsafe"

	"streamql/catalog"

	"streamql/executor/vector"
)

// Layout places an aggregate's calls in a group's States, computed once per
// aggregate from its calls (NewLayout; issue 24: memory proportional to the
// keys, each function its own width). A COUNT or COUNT(*) that is not
// DISTINCT needs one word, its count: it goes in the free third word (lane
// 2, lo) of a MIN or MAX of a fixed-width type (which uses its count n as
// the flag and hi as the value, no arrival number: setI), else up to three
// share one State (its count word and its 128-bit sum's two words: lanes
// 0, 1 and 2; the pointer word stays nil). Every other call has a State of
// its own (lane -1). Nexmark q17's four counts, MIN, MAX, AVG and SUM take
// 5 States a group, not 8. A group holds Slots States; the calls'
// accumulators are read and written through the Layout's methods, which
// give the same results as one State per call.
type Layout struct {
	// Slots is the number of States a group holds.
	Slots int
	at    []Slot
}

// Slot is where one call's accumulator is: State S of the group's, all of
// it (Lane -1) or its count word Lane (0 to 2, a packed COUNT).
type Slot struct {
	S    int32
	Lane int8
}

// countLanes is the number of counts one State holds (its three non-pointer
// words).
const countLanes = 3

// packed reports whether sp's accumulator is its count alone (COUNT(*), or
// COUNT(x) without DISTINCT, retracting or not: a count subtracts).
func packed(sp *Spec) bool {
	return sp.Func == CountStar || sp.Func == Count && !sp.Distinct
}

// hosts reports whether sp's State leaves its third word (lo) free for a
// packed count: MIN or MAX of a fixed-width type, not DISTINCT and not
// Retracting (whose kept values are elsewhere, but kept whole).
func hosts(sp *Spec) bool {
	return (sp.Func == Min || sp.Func == Max) && !sp.Distinct && !sp.Retracting && sp.Arg != catalog.Varchar
}

// NewLayout returns the layout of the calls specs: the calls but counts one
// State each in call order, then the counts in call order in the free
// words of the MINs and MAXs (hosts), then countLanes to a State.
func NewLayout(specs []*Spec) Layout {
	l := Layout{at: make([]Slot, len(specs))}
	var free []int32
	for c, sp := range specs {
		if !packed(sp) {
			l.at[c] = Slot{S: int32(l.Slots), Lane: -1}
			if hosts(sp) {
				free = append(free, int32(l.Slots))
			}
			l.Slots++
		}
	}
	open, used := int32(-1), int8(countLanes)
	for c, sp := range specs {
		if !packed(sp) {
			continue
		}
		if len(free) > 0 {
			l.at[c], free = Slot{S: free[0], Lane: 2}, free[1:]
			continue
		}
		if used == countLanes {
			open, used = int32(l.Slots), 0
			l.Slots++
		}
		l.at[c] = Slot{S: open, Lane: used}
		used++
	}
	return l
}

// At returns call c's place.
func (l *Layout) At(c int) Slot { return l.at[c] }

// Bytes is the state (bytes, 'state.max-bytes', SPEC 1) a group's States
// hold before their buffers grow: StateBytes of each unpacked call and
// FixedBytes for each State of packed counts.
func (l *Layout) Bytes(specs []*Spec) int {
	n := 0
	for c, sp := range specs {
		switch {
		case l.at[c].Lane < 0:
			n += StateBytes(sp)
		case l.at[c].Lane == 0: // (a State of counts; a count in a MIN or MAX costs nothing)
			n += FixedBytes
		}
	}
	return n
}

// word returns count lane k (1 or 2; else 0, the count word n) of st.
func (st *State) word(k int8) *int64 {
	switch k {
	case 1:
		return &st.hi
	case 2:
		return (*int64)(unsafe.Pointer(&st.lo))
	}
	return &st.n
}

// Add is AddOp (op = OpOf(sp)) of call c's accumulator in the group's
// states: the same count, or the same state and bytes grown.
func (l *Layout) Add(states []State, c int, op Op, sp *Spec, v *vector.Vec, i int, seq int64) int64 {
	at := l.at[c]
	if at.Lane < 0 {
		return states[at.S].AddOp(op, sp, v, i, seq)
	}
	if op == OpCountStar || !v.Null[i] {
		*states[at.S].word(at.Lane)++
	}
	return 0
}

// Retract is State.Retract of call c's accumulator in the group's states.
func (l *Layout) Retract(states []State, c int, sp *Spec, v *vector.Vec, i int) int64 {
	at := l.at[c]
	if at.Lane < 0 {
		return states[at.S].Retract(sp, v, i)
	}
	if sp.Func == CountStar || !v.Null[i] {
		*states[at.S].word(at.Lane)--
	}
	return 0
}

// Result is State.Result of call c's accumulator in the group's states:
// row i of out.
func (l *Layout) Result(states []State, c int, sp *Spec, out *vector.Vec, i int) {
	at := l.at[c]
	if at.Lane < 0 {
		states[at.S].Result(sp, out, i)
		return
	}
	out.Null[i] = false
	out.I[i] = *states[at.S].word(at.Lane)
}

// Merge is State.Merge of each call's accumulator of src (a group's States
// of the same layout) into dst's.
func (l *Layout) Merge(specs []*Spec, dst, src []State) {
	for c, sp := range specs {
		at := l.at[c]
		if at.Lane < 0 {
			dst[at.S].Merge(sp, &src[at.S])
			continue
		}
		*dst[at.S].word(at.Lane) += *src[at.S].word(at.Lane)
	}
}
