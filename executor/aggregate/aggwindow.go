// The aggregate's window assigner (SPEC 2.4): the windows of a row (TUMBLE,
// HOP, CUMULATE, SESSION, and GROUP BY's pseudo-window), opening and merging
// them, the windowed rows of a TVF without aggregation, and which windows a
// watermark fires (take).

package aggregate

import (
	"cmp"
	"math"
	"slices"

	"streamql/catalog"
	"streamql/executor/agg"
	"streamql/executor/connector"
	"streamql/executor/vector"
	"streamql/executor/window"
)

// add takes row i of b (taken by the branch); cw is CURRENT_WATERMARK of the
// row (cwSet false before the first). It reports whether the row is late (SPEC
// 2.4: all its windows fired, or its t is NULL), and returns a state error.
func (o *aggOp) add(b *vector.Batch, i int, cw int64, cwSet bool) (bool, error) {
	o.seq++
	if o.rep != nil {
		o.rowPart, o.rowOff = connector.KafkaPartitionOf(b.Pos[i])
		o.rowCw, o.rowCwSet = cw, cwSet
	}
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
	if t < o.tlo || t > o.thi {
		return false, errWindowRange
	}
	if o.kind == window.Session {
		return o.addSession(b, i, t, cw, cwSet)
	}
	if o.kind == window.Tumble {
		// one window per row: the last row's when t falls in it (rows come
		// mostly in time order), else the one window.Nth gives
		ws := o.lastWs
		if ws == nil || t < ws.win.Start || t >= ws.win.End {
			win := window.Nth(window.Tumble, w.Size, w.Slide, w.Offset, t, 0)
			if cwSet && win.End <= cw {
				return true, nil // its window fired
			}
			if o.rep != nil && o.rep.FiredBy(o.rowPart, win.End) {
				return false, nil // emitted before the partition came here (I4)
			}
			if ws = o.byWin[win]; ws == nil {
				ws = o.openWindow(win, "")
				o.byWin[win] = ws
			}
			o.lastWs = ws
		} else if cwSet && ws.win.End <= cw {
			return true, nil
		} else if o.rep != nil && o.rep.FiredBy(o.rowPart, ws.win.End) {
			return false, nil
		}
		return false, o.addTo(ws, b, i)
	}
	// (walked, not made: a HOP of size/slide windows per row may have
	// millions, whose groups count against 'state.max-bytes' as they come)
	took := false
	win, n := window.First(o.kind, w.Size, w.Slide, w.Offset, t)
	for j := int64(0); j < n; j, win = j+1, window.Next(o.kind, win, w.Slide) {
		if cwSet && win.End <= cw {
			continue // fired: the row joins the open ones only
		}
		took = true
		if o.rep != nil && o.rep.FiredBy(o.rowPart, win.End) {
			continue // emitted before the partition came here (I4)
		}
		ws := o.lastWs
		if ws == nil || ws.win != win {
			if ws = o.byWin[win]; ws == nil {
				ws = o.openWindow(win, "")
				o.byWin[win] = ws
			}
			o.lastWs = ws
		}
		if err := o.addTo(ws, b, i); err != nil {
			return false, err
		}
	}
	return !took, nil
}

// tumbleRun is add for the rows of taken that need nothing but their
// group's accumulators, in a loop without add's calls (the parallel
// aggregate's partials: o.pend, TUMBLE, no replay): each row falls in the
// window of the row before (o.lastWs), which its CURRENT_WATERMARK (wm's
// value at the row, never lower than the row before's; nil: none) has not
// fired, and its group there is found.
// It returns how many rows of taken it added, stopping at the first other
// one, which add then takes.
func (o *aggOp) tumbleRun(b *vector.Batch, taken []int32, wm *vector.Vec) int {
	ws := o.lastWs
	p := o.pend
	if ws == nil || p == nil || o.kind != window.Tumble || o.rep != nil {
		return 0
	}
	tv := b.Cols[o.a.Window.TimeCol]
	start, end := ws.win.Start, ws.win.End
	var key *vector.Vec // a single VARCHAR key: findGroup's cache probe, here
	if len(o.keys) == 1 && o.a.Keys[0].Type == catalog.Varchar {
		key = o.keys[0]
	}
	if wm != nil && len(taken) > 0 {
		if l := taken[len(taken)-1]; wm.Null[l] || wm.I[l] < end {
			// The stamps never go down from row to row (one watermark: a
			// file's), so none of these rows' windows has fired.
			wm = nil
		}
	}
	// (the pending rows and the arrival number in locals, kept in o at the end)
	states, rows, seqs, seq := p.states, p.rows, p.seqs, o.seq
	k := 0
	for ; k < len(taken); k++ {
		i := taken[k]
		if tv.Null[i] {
			break
		}
		if t := tv.I[i]; t < start || t >= end {
			break
		}
		if wm != nil && !wm.Null[i] && end <= wm.I[i] {
			break // late
		}
		var g *aggGroup
		if key != nil && !key.Null[i] {
			if s := key.S[i]; len(s) > 0 && len(s) < 8 {
				w, kh := shortKey(s)
				if e := &o.cache[kh%groupCacheSize]; e.ws == ws && e.w == w && e.n == int32(len(s)) {
					g = e.g
				}
			}
		}
		if g == nil {
			if g, _ = o.findGroup(ws, int(i)); g == nil {
				break
			}
		}
		seq++
		states, rows, seqs = append(states, g.states), append(rows, i), append(seqs, seq)
	}
	p.states, p.rows, p.seqs, o.seq = states, rows, seqs, seq
	return k
}

func (o *aggOp) openWindow(win window.Win, pkey string) *winState {
	var ws *winState
	if n := len(o.freeWins); n > 0 {
		ws, o.freeWins = o.freeWins[n-1], o.freeWins[:n-1]
		ws.win, ws.pkey = win, pkey
	} else {
		ws = &winState{win: win, pkey: pkey, index: map[string]*aggGroup{}}
	}
	ws.part = o.rowPart
	o.open = append(o.open, ws)
	o.maxOpen = max(o.maxOpen, int64(len(o.open)))
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
		// A session that the row's partition's watermark passed is closed
		// for the row even before it fires (the other partitions hold the
		// stream back): merging is then a function of the partition's rows
		// alone (SPEC 2.4, 2.5), as a replay needs.
		if s.win.Start <= end && t <= s.win.End && !(cwSet && s.win.End <= cw) {
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
	clear(o.cache[:]) // s's groups move to into or are freed
	into.win.Start = min(into.win.Start, s.win.Start)
	into.win.End = max(into.win.End, s.win.End)
	for _, g := range s.groups {
		if h := o.lookup(into, g.hash, g.keyb); h != nil {
			o.lay.Merge(o.specs, h.states, g.states)
			h.first = min(h.first, g.first)
			h.firstAt = min(h.firstAt, g.firstAt)
			o.mergeHeld(h, g)
			o.freeGroups = append(o.freeGroups, g)
			continue
		}
		o.insert(into, g)
	}
	s.groups = s.groups[:0]
	clear(s.index)
	o.freeWins = append(o.freeWins, s)
	slices.SortFunc(into.groups, func(x, y *aggGroup) int { return cmp.Compare(x.first, y.first) })
	for k, w := range o.open {
		if w == s {
			o.open = append(o.open[:k], o.open[k+1:]...)
			break
		}
	}
}

// due reports whether a watermark of wm fires a window.
func (o *aggOp) due(wm int64) bool { return o.a.Window != nil && wm >= o.minEnd }

// take takes out of the state the windows a watermark of wm fires (every
// open one when all), sorted by end and then start (the pseudo-window of a
// global aggregate over no rows too, at the stream's end), and returns them
// with those of them to emit (a replay leaves out the sessions emitted
// before, I4); ok is false when none fires. finish frees them once emitted.
func (o *aggOp) take(wm int64, all bool) (fired, emitted []*winState, ok bool) {
	fired = o.fireBuf[:0]
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
		return nil, nil, false
	}
	slices.SortFunc(fired, func(x, y *winState) int {
		if c := cmp.Compare(x.win.End, y.win.End); c != 0 {
			return c
		}
		return cmp.Compare(x.win.Start, y.win.Start)
	})
	for _, ws := range fired {
		o.unindex(ws)
	}
	if all && o.a.Window == nil && len(o.a.Keys) == 0 && len(fired) == 0 {
		// a global aggregate over no rows gives one row (COUNT 0)
		fired = append(fired, &winState{win: window.Win{Start: math.MaxInt64, End: math.MaxInt64}, groups: []*aggGroup{{states: make([]agg.State, o.lay.Slots)}}})
	}
	emitted = fired
	if o.rep != nil && o.kind == window.Session {
		// a session of a partition that ended before it came here was
		// emitted by its previous owner (I4)
		emitted = o.sessBuf[:0]
		for _, ws := range fired {
			if !o.rep.FiredBy(ws.part, ws.win.End) {
				emitted = append(emitted, ws)
			}
		}
		o.sessBuf = emitted[:0]
	}
	return fired, emitted, true
}

// windowRows fills o.row with row i of b once per window of its time (SPEC 2.4:
// a window TVF without aggregation, in window-start order), for the windows
// from, from+1, ... up to vector.Cap of them, and returns how many it filled
// and whether windows are left after them (the caller calls again from
// from+n). A row whose t is NULL gives none (it is late).
func (o *aggOp) windowRows(b *vector.Batch, i int, from int64) (n int, more bool) {
	w := o.a.Window
	tv := b.Cols[w.TimeCol]
	if tv.Null[i] {
		return 0, false
	}
	t := tv.I[i]
	win, count := window.First(o.kind, w.Size, w.Slide, w.Offset, t)
	if from > 0 {
		win = window.Nth(o.kind, w.Size, w.Slide, w.Offset, t, from)
	}
	o.row.N = 0
	for _, c := range o.row.Cols {
		c.ResetArena()
	}
	base := o.a.WindowBase
	for k := 0; k < vector.Cap && from+int64(k) < count; k, win = k+1, window.Next(o.kind, win, w.Slide) {
		o.row.AppendRows(b, i, i+1)
		for c, v := range [3]int64{win.Start, win.End, win.End - 1} {
			o.row.Cols[base+c].I[k], o.row.Cols[base+c].Null[k] = v, false
		}
	}
	return o.row.N, from+int64(o.row.N) < count
}
