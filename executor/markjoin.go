package executor

import (
	"context"

	"streamql/catalog"
	"streamql/executor/expr"
	"streamql/executor/vector"
	"streamql/planner/plan"
)

// markJoin is one branch's semi or anti join (SPEC 2.2) as an operator of the
// probe chain, in front of the router: DuckDB's MARK join. For each live row
// of a batch it writes the row's mark, "has a partner", into a BOOLEAN column
// it adds to the batch (markCol), and pushes the batch on with that column; it
// keeps no rows. The router then takes the join's branch by that column alone
// (routeGate): SEMI passes a row whose mark is TRUE, ANTI one whose mark is
// FALSE, so first-match routing stays plain predicate evaluation (SPEC 2.1:
// NULL is not matched).
//
// The mark is TRUE when the row's probe condition holds and a build key
// equals its key (with the event-time strategy: a build key that came with
// an event time <= the row's, SPEC 2.2); FALSE otherwise. NOT IN
// (plan.Join.NullAware) keeps SQL's three-valued IN: against an empty build
// side, or a row whose probe condition does not hold, the mark is FALSE; a
// matching key is TRUE; otherwise a NULL probe key, or any NULL build key,
// makes it NULL (so NOT IN does not pass the row).
//
// The bounded strategy decides at once: its build side was read whole
// before the first probe row (runJob). With the event-time strategy the held
// driver (eventjoin.go) pushes only rows every build watermark has passed,
// except when a stopped job drains what it holds (drain): a row whose build
// watermark has not passed it yet then gets a NULL mark, and the router's
// gate for an event-time join stops such a row (routeGate.stopNull).
type markJoin struct {
	j    *plan.Join
	ks   *keySet
	keys []*expr.Kernel // the probe keys, compiled
	pf   *expr.Kernel   // the probe filter, nil when none
	vecs []*vector.Vec
	key  []byte
	col  int         // the batch column the mark goes to: len(job.BatchTypes) + the join's index
	mark *vector.Vec // that column
	view vector.Batch
	down *Emitter
	// drain: rows the build watermark has not passed get a NULL mark
	// (holdAndRoute's drain); event-time joins only
	drain bool
}

// newMarkJoin returns the mark operator of join j over the build state ks,
// writing its mark into batch column col.
func newMarkJoin(j *plan.Join, ks *keySet, col int) *markJoin {
	return &markJoin{j: j, ks: ks, col: col, vecs: make([]*vector.Vec, len(j.ProbeKeys)), mark: vector.NewVec(catalog.Boolean),
		keys: expr.CompileAll(j.ProbeKeys), pf: expr.Compile(j.ProbeFilter), down: &Emitter{}}
}

// Push implements Operator: mark r's live rows and push r on, its input batch
// seen with the mark column added (the caller's batch is not changed).
func (m *markJoin) Push(ctx context.Context, port Port, r *Routed) error {
	b := r.In
	m.marks(b, r.Sel)
	cols := append(m.view.Cols[:0], b.Cols[:m.col]...)
	m.view = *b
	m.view.Cols = append(cols, m.mark)
	r.In = &m.view
	err := m.down.Push(ctx, port, r)
	r.In = b
	return err
}

// Watermark implements Operator: events pass on.
func (m *markJoin) Watermark(ctx context.Context, wm Watermark) error {
	return m.down.Watermark(ctx, wm)
}

// Finish implements Operator.
func (m *markJoin) Finish(ctx context.Context) error { return m.down.Finish(ctx) }

// marks writes the mark of each row i in sel of b into m.mark at i, by the
// rules of markJoin.
func (m *markJoin) marks(b *vector.Batch, sel []int32) {
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
	for _, i := range sel {
		var ok, null, match bool
		m.key, ok, null = appendKey(m.key[:0], j.KeyTypes, m.vecs, int(i))
		if ok {
			var t int64
			t, match = m.ks.keys[string(m.key)]
			if match && et {
				match = t <= b.Cols[j.ProbeTime].I[i]
			}
		}
		cond := pf == nil || (pf.B[i] && !pf.Null[i])
		mb[i], mn[i] = cond && match, false
		if j.NullAware && m.ks.rows > 0 && cond && !match && (null || m.ks.hasNull) {
			mn[i] = true // x NOT IN (…, NULL, …) is NULL (SPEC 2.2)
		}
		if m.drain && !m.ks.ended && (!m.ks.wmSet || b.Cols[j.ProbeTime].I[i] >= m.ks.wm) {
			mn[i] = true // its partner may still come
		}
	}
}

// routeGate is what the router reads of a branch's join (markJoin): the mark
// column col of the batch, -1 for a branch without a join. A row passes the
// gate when its mark is TRUE (SEMI) or FALSE (anti: the mark negated); a NULL
// mark does not pass, and with stopNull (an event-time join) the row goes to
// no branch at all, this one or a later one: its join is not decided yet.
type routeGate struct {
	col      int
	anti     bool
	stopNull bool
}
