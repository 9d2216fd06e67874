package executor

import (
	"fmt"
	"math"
	"slices"

	"streamql/catalog"
	"streamql/executor/agg"
	"streamql/executor/vector"
	"streamql/executor/window"
	"streamql/planner"
)

// aggOp is the window/aggregate operator of one branch (SPEC 2.4): it keeps per
// window × group accumulators (never the rows), fires a window once when the
// watermark of its stream reaches the window's end, right after the row that
// moved it, in (window_end, window_start, group's first row) order, and sends
// rows whose windows all fired to the late output. GROUP BY without a window and
// global aggregates keep one pseudo-window that fires at the stream's end. A
// window TVF without aggregation emits each row once per window as it arrives.
type aggOp struct {
	br      *planner.Branch
	a       *planner.Aggregate
	kind    window.Kind
	latePt  int // index of the late part in the router's Routed, -1 without a window
	acct    *StateAccount
	seq     int64
	open    []*winState // unsorted; minEnd is at most the smallest end
	minEnd  int64
	byWin   map[window.Win]*winState
	bySess  map[string][]*winState // SESSION: open sessions per partition key
	keyBuf  []byte
	pkBuf   []byte
	wins    []window.Win
	keys    []*vector.Vec // per batch: the keys of the taken rows
	args    []*vector.Vec
	pkeys   []*vector.Vec
	row     *vector.Batch // aggregate rows (or windowed rows) to emit
	out     Routed
	sel     []int32
	fireBuf []*winState
	grpBuf  []*aggGroup
	late    int64 // late rows, for the stderr line (SPEC 2.4)
	bytes   int64 // state charged to acct
}

// winState is one open window (or session, or the pseudo-window of GROUP BY
// without a window) with its groups in first-row order.
type winState struct {
	win    window.Win
	pkey   string
	groups []*aggGroup
	index  map[string]*aggGroup
}

// aggGroup is one group of a window: its key values and accumulators.
type aggGroup struct {
	first  int64 // arrival number of its first row
	key    string
	vals   []keyVal
	states []agg.State
}

// keyVal is one grouping key's value, owned by the group.
type keyVal struct {
	null bool
	i    int64
	f    float64
	b    bool
	s    []byte
}

// groupBytes is the state a new group costs before its accumulators grow.
func (o *aggOp) groupBytes(keyLen int) int64 {
	return int64(96 + 2*keyLen + len(o.a.Keys)*48 + len(o.a.Calls)*agg.FixedBytes)
}

func newAggOp(br *planner.Branch, budget *StateBudget) *aggOp {
	a := br.Agg
	o := &aggOp{br: br, a: a, latePt: -1, byWin: map[window.Win]*winState{}, bySess: map[string][]*winState{}, minEnd: math.MaxInt64}
	if a.Window != nil {
		o.kind = window.KindOf(a.Window.Func)
	}
	what := "groups (GROUP BY without a window)"
	switch {
	case a.Window != nil && o.kind == window.Session:
		what = "open sessions × groups"
	case a.Window != nil:
		what = "open windows × groups"
	}
	o.acct = budget.Account("the aggregate of "+br.Text, what)
	o.row = vector.NewBatch(a.RowTypes)
	o.sel = make([]int32, 0, vector.Cap)
	o.out.Dest = make([]int16, vector.Cap)
	o.out.Parts = []Part{{Output: br.Output, Cols: make([]*vector.Vec, len(br.Project))}}
	return o
}

// windowedTypes sets the layout of the windowed batch of a TVF without
// aggregation: the source batch's types, then the three window columns.
func (o *aggOp) windowedTypes(batch []catalog.Type) {
	types := append(append([]catalog.Type{}, batch...), o.a.Window.TimeType, o.a.Window.TimeType, o.a.Window.TimeType)
	o.row = vector.NewBatch(types)
}

// prepare evaluates the keys and arguments for the rows the branch took.
func (o *aggOp) prepare(b *vector.Batch, taken []int32) {
	o.keys = o.keys[:0]
	for _, k := range o.a.Keys {
		o.keys = append(o.keys, k.Eval(b, taken))
	}
	o.args = o.args[:0]
	for _, c := range o.a.Calls {
		if c.Arg == nil {
			o.args = append(o.args, nil)
			continue
		}
		o.args = append(o.args, c.Arg.Eval(b, taken))
	}
	o.pkeys = o.pkeys[:0]
	if w := o.a.Window; w != nil {
		for _, k := range w.Partition {
			o.pkeys = append(o.pkeys, k.Eval(b, taken))
		}
	}
}

// add takes row i of b (taken by the branch); cw is CURRENT_WATERMARK of the
// row (cwSet false before the first). It reports whether the row is late (SPEC
// 2.4: all its windows fired, or its t is NULL), and returns a state error.
func (o *aggOp) add(b *vector.Batch, i int, cw int64, cwSet bool) (bool, error) {
	o.seq++
	a := o.a
	if a.Window == nil {
		return false, o.addTo(o.pseudo(), b, i)
	}
	tv := b.Cols[a.Window.TimeCol]
	if tv.Null[i] {
		return true, nil
	}
	t := tv.I[i]
	w := a.Window
	if o.kind == window.Session {
		return o.addSession(b, i, t, cw, cwSet)
	}
	o.wins = window.Assign(o.wins[:0], o.kind, w.Size, w.Slide, w.Offset, t)
	took := false
	for _, win := range o.wins {
		if cwSet && win.End <= cw {
			continue // fired: the row joins the open ones only
		}
		took = true
		ws := o.byWin[win]
		if ws == nil {
			ws = o.openWindow(win, "")
			o.byWin[win] = ws
		}
		if err := o.addTo(ws, b, i); err != nil {
			return false, err
		}
	}
	return !took, nil
}

func (o *aggOp) openWindow(win window.Win, pkey string) *winState {
	ws := &winState{win: win, pkey: pkey, index: map[string]*aggGroup{}}
	o.open = append(o.open, ws)
	o.minEnd = min(o.minEnd, win.End)
	return ws
}

// pseudo returns the one window of GROUP BY without a window.
func (o *aggOp) pseudo() *winState {
	if len(o.open) == 0 {
		o.openWindow(window.Win{Start: math.MaxInt64, End: math.MaxInt64}, "")
	}
	return o.open[0]
}

// addSession adds row i at time t to the sessions of its partition key (SPEC
// 2.4): [t, t + gap) merges every open session of the key it overlaps or touches;
// a row that touches none and has t + gap <= CURRENT_WATERMARK is late.
func (o *aggOp) addSession(b *vector.Batch, i int, t, cw int64, cwSet bool) (bool, error) {
	o.pkBuf = o.pkBuf[:0]
	for k, v := range o.pkeys {
		o.pkBuf = agg.AppendKeyFramed(o.pkBuf, o.a.Window.Partition[k].Type, v, i)
	}
	end := t + o.a.Window.Gap
	list := o.bySess[string(o.pkBuf)]
	var into *winState
	kept := list[:0]
	for _, s := range list {
		if s.win.Start <= end && t <= s.win.End {
			if into == nil {
				into = s
			} else {
				o.mergeSession(into, s)
				continue
			}
		}
		kept = append(kept, s)
	}
	if into == nil {
		if cwSet && end <= cw {
			return true, nil
		}
		pk := string(o.pkBuf)
		into = o.openWindow(window.Win{Start: t, End: end}, pk)
		kept = append(kept, into)
		o.bySess[pk] = kept
	} else {
		o.bySess[into.pkey] = kept
		into.win.Start = min(into.win.Start, t)
		into.win.End = max(into.win.End, end)
	}
	return false, o.addTo(into, b, i)
}

// mergeSession merges the open session s into into and drops s.
func (o *aggOp) mergeSession(into, s *winState) {
	into.win.Start = min(into.win.Start, s.win.Start)
	into.win.End = max(into.win.End, s.win.End)
	for _, g := range s.groups {
		if h := into.index[g.key]; h != nil {
			for c := range h.states {
				h.states[c].Merge(&o.a.Calls[c].Spec, &g.states[c])
			}
			h.first = min(h.first, g.first)
			continue
		}
		into.index[g.key] = g
		into.groups = append(into.groups, g)
	}
	slices.SortFunc(into.groups, func(x, y *aggGroup) int { return cmp64(x.first, y.first) })
	for k, w := range o.open {
		if w == s {
			o.open = append(o.open[:k], o.open[k+1:]...)
			break
		}
	}
}

func cmp64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// addTo adds row i to its group of window ws.
func (o *aggOp) addTo(ws *winState, b *vector.Batch, i int) error {
	o.keyBuf = o.keyBuf[:0]
	for k, v := range o.keys {
		o.keyBuf = agg.AppendKeyFramed(o.keyBuf, o.a.Keys[k].Type, v, i)
	}
	g := ws.index[string(o.keyBuf)]
	if g == nil {
		g = &aggGroup{first: o.seq, key: string(o.keyBuf), states: make([]agg.State, len(o.a.Calls))}
		for k, v := range o.keys {
			kv := keyVal{null: v.Null[i]}
			if !kv.null {
				switch o.a.Keys[k].Type {
				case catalog.BigInt, catalog.Timestamp:
					kv.i = v.I[i]
				case catalog.Double:
					kv.f = v.F[i]
				case catalog.Boolean:
					kv.b = v.B[i]
				case catalog.Varchar:
					kv.s = append([]byte(nil), v.S[i]...)
				}
			}
			g.vals = append(g.vals, kv)
		}
		ws.index[g.key] = g
		ws.groups = append(ws.groups, g)
		if err := o.grow(o.groupBytes(len(g.key))); err != nil {
			return err
		}
	}
	var grew int64
	for c := range o.a.Calls {
		grew += g.states[c].Add(&o.a.Calls[c].Spec, o.args[c], i, o.seq)
	}
	if grew != 0 {
		return o.grow(grew)
	}
	return nil
}

func (o *aggOp) grow(n int64) error {
	o.bytes += n
	return o.acct.Grow(n)
}

// due reports whether a watermark of wm fires a window.
func (o *aggOp) due(wm int64) bool { return o.a.Window != nil && wm >= o.minEnd }

// fire emits the windows with end <= wm (all of them when all), in SPEC 2.4's
// order, through emit, chunk by chunk of aggregate rows in o.row; their state
// is freed. It returns emit's error or stop (a LIMIT reached).
func (o *aggOp) fire(wm int64, all bool, emit func(n int) (stop bool, err error)) (bool, error) {
	fired := o.fireBuf[:0]
	kept := o.open[:0]
	o.minEnd = math.MaxInt64
	for _, ws := range o.open {
		if all || ws.win.End <= wm {
			fired = append(fired, ws)
			continue
		}
		kept = append(kept, ws)
		o.minEnd = min(o.minEnd, ws.win.End)
	}
	clear(o.open[len(kept):])
	o.open = kept
	o.fireBuf = fired[:0]
	if len(fired) == 0 && !(all && o.a.Window == nil && len(o.a.Keys) == 0) {
		return false, nil
	}
	slices.SortFunc(fired, func(x, y *winState) int {
		if c := cmp64(x.win.End, y.win.End); c != 0 {
			return c
		}
		return cmp64(x.win.Start, y.win.Start)
	})
	for _, ws := range fired {
		if o.a.Window == nil {
			continue
		}
		if o.kind == window.Session {
			list := o.bySess[ws.pkey]
			for k, s := range list {
				if s == ws {
					list = append(list[:k], list[k+1:]...)
					break
				}
			}
			if len(list) == 0 {
				delete(o.bySess, ws.pkey)
			} else {
				o.bySess[ws.pkey] = list
			}
		} else {
			delete(o.byWin, ws.win)
		}
	}
	if all && o.a.Window == nil && len(o.a.Keys) == 0 && len(fired) == 0 {
		// a global aggregate over no rows gives one row (COUNT 0)
		fired = append(fired, &winState{groups: []*aggGroup{{states: make([]agg.State, len(o.a.Calls))}}})
	}
	stop, err := o.emitWindows(fired, emit)
	var freed int64
	for _, ws := range fired {
		for _, g := range ws.groups {
			freed += o.groupBytes(len(g.key))
			for c := range g.states {
				freed += g.states[c].Bytes()
			}
		}
	}
	freed = min(freed, o.bytes)
	o.bytes -= freed
	o.acct.Grow(-freed)
	clear(fired)
	return stop, err
}

// emitWindows writes the groups of the fired windows (sorted) as aggregate rows,
// groups of windows with the same bounds (sessions of several keys) ordered by
// their first rows.
func (o *aggOp) emitWindows(fired []*winState, emit func(n int) (bool, error)) (bool, error) {
	n := 0
	flush := func() (bool, error) {
		if n == 0 {
			return false, nil
		}
		k := n
		n = 0
		stop, err := emit(k)
		for _, c := range o.row.Cols {
			c.ResetArena()
		}
		return stop, err
	}
	for s := 0; s < len(fired); {
		e := s + 1
		for e < len(fired) && fired[e].win == fired[s].win {
			e++
		}
		groups := fired[s].groups
		if e-s > 1 {
			groups = o.grpBuf[:0]
			for _, ws := range fired[s:e] {
				groups = append(groups, ws.groups...)
			}
			slices.SortFunc(groups, func(x, y *aggGroup) int { return cmp64(x.first, y.first) })
			o.grpBuf = groups[:0]
		}
		for _, g := range groups {
			o.writeRow(n, fired[s].win, g)
			n++
			if n == vector.Cap {
				if stop, err := flush(); stop || err != nil {
					return stop, err
				}
			}
		}
		s = e
	}
	return flush()
}

// writeRow writes group g of window win as row n of o.row.
func (o *aggOp) writeRow(n int, win window.Win, g *aggGroup) {
	a := o.a
	cols := o.row.Cols
	if a.Window != nil {
		for k, v := range [3]int64{win.Start, win.End, win.End - 1} {
			cols[k].I[n], cols[k].Null[n] = v, false
		}
	}
	for k, kv := range g.vals {
		c := cols[a.KeyBase+k]
		c.Null[n] = kv.null
		switch a.Keys[k].Type {
		case catalog.BigInt, catalog.Timestamp:
			c.I[n] = kv.i
		case catalog.Double:
			c.F[n] = kv.f
		case catalog.Boolean:
			c.B[n] = kv.b
		case catalog.Varchar:
			c.S[n] = kv.s
		}
	}
	for k := range a.Calls {
		g.states[k].Result(&a.Calls[k].Spec, cols[a.CallBase+k], n)
	}
	o.row.N = n + 1
}

// routed projects the first n rows of o.row (HAVING applied) as one Routed for
// the sink, and returns it with the number of rows that passed HAVING; limit >= 0
// keeps at most that many rows.
func (o *aggOp) routed(n int, limit int64) (*Routed, int64) {
	sel := o.sel[:0]
	for i := 0; i < n; i++ {
		sel = append(sel, int32(i))
	}
	o.sel = sel
	r := &o.out
	r.N = n
	for i := 0; i < n; i++ {
		r.Dest[i] = 0
	}
	if h := o.a.Having; h != nil {
		v := h.Eval(o.row, sel)
		kept := sel[:0]
		for _, i := range sel {
			if v.B[i] && !v.Null[i] {
				kept = append(kept, i)
			} else {
				r.Dest[i] = -1
			}
		}
		sel = kept
	}
	if limit >= 0 && int64(len(sel)) > limit {
		for _, i := range sel[limit:] {
			r.Dest[i] = -1
		}
		sel = sel[:limit]
		if len(sel) > 0 {
			r.N = int(sel[len(sel)-1]) + 1
		} else {
			r.N = 0
		}
	}
	p := &r.Parts[0]
	p.Sel = sel
	for c, e := range o.br.Project {
		p.Cols[c] = e.Eval(o.row, sel)
	}
	return r, int64(len(sel))
}

// windowRows fills o.row with row i of b once per window of its time (SPEC 2.4:
// a window TVF without aggregation, in window-start order) and returns how many.
// A row whose t is NULL gives none (it is late).
func (o *aggOp) windowRows(b *vector.Batch, i int) int {
	w := o.a.Window
	tv := b.Cols[w.TimeCol]
	if tv.Null[i] {
		return 0
	}
	o.wins = window.Assign(o.wins[:0], o.kind, w.Size, w.Slide, w.Offset, tv.I[i])
	o.row.N = 0
	for _, c := range o.row.Cols {
		c.ResetArena()
	}
	base := o.a.WindowBase
	for k, win := range o.wins {
		if k == vector.Cap {
			break
		}
		o.row.AppendRows(b, i, i+1)
		for c, v := range [3]int64{win.Start, win.End, win.End - 1} {
			o.row.Cols[base+c].I[k], o.row.Cols[base+c].Null[k] = v, false
		}
	}
	return o.row.N
}

// Notice is the stderr line of a query with late rows (SPEC 2.4): the count,
// the query's text (shortened), and where the rows went.
func (l *LateRows) Notice() string {
	return fmt.Sprintf("%d late row(s) of the query %q sent to '%s'", l.Rows, shortText(l.Query), l.Output)
}

func shortText(s string) string {
	r := []rune(s)
	if len(r) > 60 {
		return string(r[:57]) + "..."
	}
	return s
}

// LateRows counts the late rows of one windowed query of a job (SPEC 2.4: stderr
// gets a line per query with late rows).
type LateRows struct {
	Query  string // the query's text
	Output string // the late output's name
	Rows   int64
}

// aggRun runs a job's aggregate operators inside its process operator: after
// each input row it lets the operators take the row and fire, and it sends the
// routed rows to the sink in segments, so fired rows come right after the row
// that fired them, interleaved with the other outputs in input order (SPEC 2.4,
// SPEC 4).
type aggRun struct {
	ops     []*aggOp
	at      []int // the router branch of each operator
	pos     []int // per operator: next index into its taken rows
	main    *aggOp
	limit   int64 // the main query's LIMIT when it aggregates, -1
	emitted int64
	seg     Routed
	stopped bool
	wmCol   int
	counts  []*LateRows
}

// newAggRun returns the aggregate operators of job (nil when it has none), with
// a late part per windowed operator added to the router's parts.
func newAggRun(job *planner.Job, r *router, budget *StateBudget, stats *Stats) *aggRun {
	var ar *aggRun
	for k, br := range r.branches {
		if br.Agg == nil {
			continue
		}
		if ar == nil {
			ar = &aggRun{limit: -1, wmCol: job.WatermarkCol}
		}
		o := newAggOp(br, budget)
		if !br.Agg.Grouped {
			o.windowedTypes(job.BatchTypes)
		}
		if br.Agg.Window != nil {
			o.latePt = len(r.out.Parts)
			r.out.Parts = append(r.out.Parts, Part{Output: br.Agg.LateOutput, Cols: r.curCols(len(job.Stream.Columns))})
			lr := &LateRows{Query: br.Text, Output: br.Agg.Late}
			stats.Late = append(stats.Late, lr)
			ar.counts = append(ar.counts, lr)
		} else {
			ar.counts = append(ar.counts, nil)
		}
		ar.ops = append(ar.ops, o)
		ar.at = append(ar.at, k)
		ar.pos = append(ar.pos, 0)
		if br == job.Main {
			ar.main, ar.limit = o, br.Limit
		}
	}
	return ar
}

// curCols returns n vectors that routeAggs points at the batch's first n columns.
func (r *router) curCols(n int) []*vector.Vec { return make([]*vector.Vec, n) }

// rows routes one batch's rows through the aggregate operators and sends
// everything to the sink in input order; sel are the rows routed (up to the
// LIMIT's cut when done), wm/wmSet the watermark after the batch. It reports
// whether a LIMIT on an aggregating main query ended the job.
func (ar *aggRun) rows(p *process, b *vector.Batch, sel []int32, wm int64, wmSet bool) (bool, error) {
	r := p.r
	out := &r.out
	for k, o := range ar.ops {
		o.prepare(b, r.taken[ar.at[k]])
		ar.pos[k] = 0
		if o.latePt >= 0 {
			lp := &out.Parts[o.latePt]
			lp.Sel = lp.Sel[:0]
			copy(lp.Cols, b.Cols)
		}
	}
	if r.cutAt >= 0 {
		n := 0
		for n < len(sel) && int(sel[n]) <= r.cutAt {
			n++
		}
		sel = sel[:n]
	}
	cursor, bad := 0, 0
	var wmv *vector.Vec
	if ar.wmCol >= 0 {
		wmv = b.Cols[ar.wmCol]
	}
	for idx, i32 := range sel {
		i := int(i32)
		cw, cwSet := int64(0), false
		if wmv != nil {
			cw, cwSet = wmv.I[i], !wmv.Null[i]
		}
		for k, o := range ar.ops {
			taken := r.taken[ar.at[k]]
			if ar.pos[k] >= len(taken) || int(taken[ar.pos[k]]) != i {
				continue
			}
			ar.pos[k]++
			if !o.a.Grouped {
				if n := o.windowRows(b, i); n > 0 {
					var err error
					if cursor, bad, err = ar.segment(p, cursor, i+1, bad, false); err != nil {
						return true, err
					}
					if err := ar.emit(p, o, n); err != nil || ar.stopped {
						return true, err
					}
					continue
				}
				ar.markLate(out, o, k, i)
				continue
			}
			late, err := o.add(b, i, cw, cwSet)
			if err != nil {
				return true, err
			}
			if late {
				ar.markLate(out, o, k, i)
			}
		}
		if wmv == nil {
			continue
		}
		next, nextSet := wm, wmSet
		if idx+1 < len(sel) {
			j := sel[idx+1]
			next, nextSet = wmv.I[j], !wmv.Null[j]
		}
		if !nextSet {
			continue
		}
		for _, o := range ar.ops {
			if !o.due(next) {
				continue
			}
			var err error
			if cursor, bad, err = ar.segment(p, cursor, i+1, bad, false); err != nil {
				return true, err
			}
			if _, err := o.fire(next, false, func(n int) (bool, error) { return ar.emitRows(p, o, n) }); err != nil || ar.stopped {
				return true, err
			}
		}
	}
	_, _, err := ar.segment(p, cursor, out.N, bad, true)
	return false, err
}

func (ar *aggRun) markLate(out *Routed, o *aggOp, k, i int) {
	out.Dest[i] = int16(o.latePt)
	lp := &out.Parts[o.latePt]
	lp.Sel = append(lp.Sel, int32(i))
	o.late++
	if c := ar.counts[k]; c != nil {
		c.Rows++
	}
}

// segment sends the routed rows [from, to) with their malformed rows (from bad
// on; the last segment takes the rest) to the sink, then clears their Dest.
func (ar *aggRun) segment(p *process, from, to, bad int, last bool) (int, int, error) {
	out := &p.r.out
	hi := bad
	for hi < len(out.Bad) && (last || out.Bad[hi].At < to) {
		hi++
	}
	if to <= from && hi == bad {
		return to, hi, nil
	}
	seg := &ar.seg
	*seg = *out
	seg.N = to
	seg.Bad = out.Bad[bad:hi]
	err := p.sink.Rows(seg)
	for j := from; j < to; j++ {
		out.Dest[j] = -1
	}
	return max(to, from), hi, err
}

// emitRows sends n fired aggregate rows of o (HAVING applied) to the sink,
// counting them against the main query's LIMIT.
func (ar *aggRun) emitRows(p *process, o *aggOp, n int) (bool, error) {
	limit := int64(-1)
	if o == ar.main && ar.limit >= 0 {
		limit = ar.limit - ar.emitted
	}
	rt, got := o.routed(n, limit)
	if o == ar.main {
		ar.emitted += got
	}
	if rt.N > 0 {
		if err := p.sink.Rows(rt); err != nil {
			return true, err
		}
	}
	if o == ar.main && ar.limit >= 0 && ar.emitted >= ar.limit {
		ar.stopped = true
		return true, nil
	}
	return false, nil
}

// emit sends the n windowed rows of a TVF without aggregation.
func (ar *aggRun) emit(p *process, o *aggOp, n int) error {
	_, err := ar.emitRows(p, o, n)
	return err
}

// finish fires every open window and the groups of GROUP BY without a window at
// the stream's end (watermark +∞), operator by operator (SPEC 2.4).
func (ar *aggRun) finish(p *process) error {
	if ar.stopped {
		return nil
	}
	for _, o := range ar.ops {
		if !o.a.Grouped {
			continue
		}
		if _, err := o.fire(math.MaxInt64, true, func(n int) (bool, error) { return ar.emitRows(p, o, n) }); err != nil || ar.stopped {
			return err
		}
	}
	return nil
}

// hasAggregates reports whether a branch of job aggregates or reads a window TVF.
func hasAggregates(job *planner.Job) bool {
	for _, b := range append(job.Branches[:len(job.Branches):len(job.Branches)], job.Main) {
		if b != nil && b.Agg != nil {
			return true
		}
	}
	return false
}
