package executor

import (
	"streamql/catalog"
	"streamql/executor/expr"
	"streamql/executor/vector"
	"streamql/planner/plan"
)

// markJoin is one branch's semi or anti join (SPEC 2.2) as DuckDB's MARK
// join: for the rows offered to it it computes each row's mark, "has a
// partner", a three-valued BOOLEAN; it keeps no rows. It is the gate operator
// of its branch's stage of the router (route.Gate, executor/route): its pass
// port gets the rows SEMI passes (mark TRUE) or ANTI passes (mark FALSE), its
// rest port the others (SPEC 2.1: NULL is not matched), and the router knows
// nothing of joins.
//
// It is evaluated by the router's stage, over the rows offered to its
// branch (those no branch before took), not by an operator of its own before
// the router over every row: the join's key and condition expressions must
// see the offered rows only, as a WHERE does, since what they do is
// observable (the NULLs a zero divisor gives, counted by EXPLAIN ANALYZE; a
// failing user-defined function's row on the errors output, SPEC 2.10).
//
// The mark is TRUE when the row's probe condition holds and a build key
// equals its key (with the event-time strategy: a build key that came with
// an event time <= the row's, SPEC 2.2); FALSE otherwise. NOT IN
// (plan.Join.NullAware) keeps SQL's three-valued IN: against an empty build
// side, or for a row whose probe condition does not hold, the mark is FALSE;
// a matching key is TRUE; otherwise a NULL probe key, or any NULL build key,
// makes it NULL (so NOT IN does not pass the row either).
//
// The bounded strategy decides at once: its build side was read whole
// before the first probe row (runJob). With the event-time strategy the
// held rows (semijoin.go, op.SemiJoin's Hold mode) are routed only once
// every build watermark has passed them, so their marks are decided; only a
// stopped job that drains what it holds (drain, set by routeHeld's drain)
// routes rows some build watermark has not passed: then a row whose build
// watermark has not passed it (unset, or <= its event time) while the build
// stream has not ended is pending, a partner may still come, and the join
// puts it on neither port, so it goes to no branch.
type markJoin struct {
	j    *plan.Join
	mb   *semiBuild     // the build side: its keys are the MARK join operator's (op.SemiJoin's Mark mode)
	keys []*expr.Kernel // the probe keys, compiled
	pf   *expr.Kernel   // the probe filter, nil when none
	vecs []*vector.Vec
	key  []byte      // the keys' encoding (op.SemiJoin.Marks: each chain's own, a parallel path's workers mark at once)
	mark *vector.Vec // the marks of the last rows evaluated, at their batch indexes
	// drain makes an event-time join keep the rows it cannot decide yet off
	// both ports (a stopped job's drain)
	drain bool
}

// newMarkJoin returns the mark join of j over the build side mb, its
// expressions compiled in the job's expression context exprs.
func newMarkJoin(j *plan.Join, mb *semiBuild, exprs *expr.Context) *markJoin {
	return &markJoin{j: j, mb: mb, vecs: make([]*vector.Vec, len(j.ProbeKeys)), mark: vector.NewVec(catalog.Boolean),
		keys: exprs.CompileAll(j.ProbeKeys), pf: exprs.Compile(j.ProbeFilter)}
}

// Eval returns the marks of the rows sel of b, by the rules of markJoin: row
// i's at index i of a vector valid until the next call (as a kernel's).
func (m *markJoin) Eval(b *vector.Batch, sel []int32) *vector.Vec {
	return m.eval(b, sel)
}

// Split implements route.Gate: the rows offered of b whose mark passes the
// join (TRUE for SEMI, FALSE for ANTI, never NULL) go to pass, the others to
// rest, and, while m drains, those the join cannot decide yet to neither.
// The marks of every offered row are evaluated, pending ones included.
func (m *markJoin) Split(b *vector.Batch, offered, pass, rest []int32) ([]int32, []int32) {
	anti := m.j.Mode == plan.Anti
	if !m.j.EventTime() {
		mark := m.eval(b, offered)
		for _, i := range offered {
			if mark.B[i] != anti && !mark.Null[i] {
				pass = append(pass, i)
			} else {
				rest = append(rest, i)
			}
		}
		return pass, rest
	}
	wm, wmSet, ended := m.mb.watermark()
	draining := m.drain && !ended
	mark := m.eval(b, offered)
	t := b.Cols[m.j.ProbeTime].I
	for _, i := range offered {
		switch {
		case draining && (!wmSet || t[i] >= wm): // a partner may still come: no port
		case mark.B[i] != anti && !mark.Null[i]:
			pass = append(pass, i)
		default:
			rest = append(rest, i)
		}
	}
	return pass, rest
}

// eval is Eval: it evaluates the probe keys and filter over the rows sel of b and has the
// MARK join operator mark them (op.SemiJoin.Marks).
func (m *markJoin) eval(b *vector.Batch, sel []int32) *vector.Vec {
	for k, e := range m.keys {
		m.vecs[k] = e.Eval(b, sel)
	}
	var pf *vector.Vec
	if m.pf != nil {
		pf = m.pf.Eval(b, sel)
	}
	var t []int64
	if m.j.EventTime() {
		t = b.Cols[m.j.ProbeTime].I
	}
	m.key = m.mb.op.Marks(m.vecs, pf, t, sel, m.mark, m.key)
	return m.mark
}
