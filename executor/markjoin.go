package executor

import (
	"streamql/catalog"
	"streamql/executor/expr"
	"streamql/executor/vector"
	"streamql/planner/plan"
)

// markJoin is one branch's semi or anti join (SPEC 2.2) as DuckDB's MARK
// join: for the rows offered to it it computes each row's mark, "has a
// partner", a three-valued BOOLEAN; it keeps no rows. The router holds it as
// its branch's gate (route.Gate, executor/route), a predicate like its WHERE: SEMI passes a
// row whose mark is TRUE, ANTI one whose mark is FALSE, so first-match
// routing stays plain predicate evaluation (SPEC 2.1: NULL is not matched)
// and the router knows nothing of joins.
//
// It is evaluated by the router, over the rows offered to its branch (those
// no branch before took), not by an operator of its own before the router
// over every row: the join's key and condition expressions must see the
// offered rows only, as a WHERE does, since what they do is observable (the
// NULLs a zero divisor gives, counted by EXPLAIN ANALYZE; a failing
// user-defined function's row on the errors output, SPEC 2.10).
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
// stopped job that drains what it holds routes rows some build watermark
// has not passed, and which of them a join cannot decide yet is not the
// mark's to say but the hold's (semijoin.go's pendingJoin, the gate's
// route.Gate.Pending): the mark is the join alone.
type markJoin struct {
	j    *plan.Join
	ks   *keySet
	keys []*expr.Kernel // the probe keys, compiled
	pf   *expr.Kernel   // the probe filter, nil when none
	vecs []*vector.Vec
	key  []byte
	mark *vector.Vec // the marks of the last rows evaluated, at their batch indexes
}

// newMarkJoin returns the mark join of j over the build state ks, its
// expressions compiled in the job's expression context exprs.
func newMarkJoin(j *plan.Join, ks *keySet, exprs *expr.Context) *markJoin {
	return &markJoin{j: j, ks: ks, vecs: make([]*vector.Vec, len(j.ProbeKeys)), mark: vector.NewVec(catalog.Boolean),
		keys: exprs.CompileAll(j.ProbeKeys), pf: exprs.Compile(j.ProbeFilter)}
}

// Eval returns the marks of the rows sel of b, by the rules of markJoin: row
// i's at index i of a vector valid until the next call (as a kernel's).
func (m *markJoin) Eval(b *vector.Batch, sel []int32) *vector.Vec {
	j := m.j
	et := j.EventTime()
	if et {
		m.ks.mu.Lock()
		defer m.ks.mu.Unlock()
	}
	for k, e := range m.keys {
		m.vecs[k] = e.Eval(b, sel)
	}
	var pf *vector.Vec
	if m.pf != nil {
		pf = m.pf.Eval(b, sel)
	}
	mb, mn := m.mark.B, m.mark.Null
	keys, types, key := m.ks.keys, j.KeyTypes, m.key
	nullAware := j.NullAware && m.ks.rows > 0 // (against an empty build side the mark is FALSE)
	for _, i := range sel {
		var ok, null, match bool
		key, ok, null = appendKey(key[:0], types, m.vecs, int(i))
		if ok {
			var t int64
			t, match = keys[string(key)]
			if match && et {
				match = t <= b.Cols[j.ProbeTime].I[i]
			}
		}
		cond := pf == nil || (pf.B[i] && !pf.Null[i])
		mb[i], mn[i] = cond && match, false
		if nullAware && cond && !match && (null || m.ks.hasNull) {
			mn[i] = true // x NOT IN (…, NULL, …) is NULL (SPEC 2.2)
		}
	}
	m.key = key
	return m.mark
}
