// The aggregate's replay-facing methods (a Kafka group source's replay,
// the executor's replay.go, through Replay): what each group holds of each
// partition (heldAt, heldAll), the state a group frees (groupCost), and
// dropping a revoked partition's windows and groups (drop, unindex). Kept
// together for the Operator's flow.Checkpoint (checkpoint.go).

package aggregate

import (
	"math"

	"streamql/executor/window"
)

// heldAt is the first row of a partition in a group: its offset and the
// watermark of its partition before it (the hold frontier, the executor's
// replay.go).
type heldAt struct {
	off   int64
	cw    int64
	cwSet bool
}

// groupCost is the state group g is charged for.
func (o *aggOp) groupCost(g *aggGroup) int64 {
	n := o.groupBytes(len(g.keyb))
	for c := range g.states {
		n += g.states[c].Bytes()
	}
	return n
}

// fromOther reports whether the row being added to g needs heldOther: it
// is of a partition other than g's first row's, or g has partitions
// dropped (groupExt.gone).
func (o *aggOp) fromOther(g *aggGroup) bool {
	e := g.x()
	return e.part != o.rowPart || e.gone != nil
}

// heldOther notes the row being added as the first of its partition in g
// when g has none of it yet (a topic not partitioned by the key: the
// group's rows come from several partitions), and that its partition's
// rows are g's again if it was dropped (groupExt.gone).
func (o *aggOp) heldOther(g *aggGroup) {
	e := o.extOf(g)
	if e.gone != nil { // (its partition's rows come again: it holds them)
		delete(e.gone, o.rowPart)
		if len(e.gone) == 0 {
			e.gone = nil
		}
	}
	if o.rowPart == e.part {
		return
	}
	if _, ok := e.more[o.rowPart]; ok {
		return
	}
	if e.more == nil {
		e.more = map[int32]heldAt{}
	}
	e.more[o.rowPart] = heldAt{o.rowOff, o.rowCw, o.rowCwSet}
}

// mergeHeld keeps in h, into which g is merged (sessions), the first row of
// each partition of both (nothing to keep when neither has an ext).
func (o *aggOp) mergeHeld(h, g *aggGroup) {
	if h.ext == nil && g.ext == nil {
		return
	}
	he, ge := o.extOf(h), g.x()
	gone := mergeGone(he, ge)
	add := func(p int32, x heldAt) {
		if p == he.part {
			if x.off < he.held.off {
				he.held = x
			}
			return
		}
		if y, ok := he.more[p]; ok && y.off <= x.off {
			return
		}
		if he.more == nil {
			he.more = map[int32]heldAt{}
		}
		he.more[p] = x
	}
	add(ge.part, ge.held)
	for p, x := range ge.more {
		add(p, x)
	}
	he.gone = gone
}

// mergeGone returns the partitions dropped (groupExt.gone) of the merge of
// groups h and g: those each of them has no rows of or dropped; nil for
// none.
func mergeGone(h, g *groupExt) map[int32]bool {
	if h.gone == nil && g.gone == nil {
		return nil
	}
	gone := map[int32]bool{}
	note := func(p int32) {
		if (!h.has(p) || h.gone[p]) && (!g.has(p) || g.gone[p]) {
			gone[p] = true
		}
	}
	for _, e := range []*groupExt{h, g} {
		note(e.part)
		for p := range e.more {
			note(p)
		}
	}
	if len(gone) == 0 {
		return nil
	}
	return gone
}

// has reports whether e's group holds rows of partition p.
func (e *groupExt) has(p int32) bool {
	_, ok := e.more[p]
	return ok || e.part == p
}

// dropped notes that p's rows in g are dropped (drop: p is revoked, or
// read again from its commit) and reports whether g goes with them:
// every partition of its rows is dropped since it last gave g a row. A
// group of several partitions stays while one of them is held (SPEC 2.5:
// a scaled-out aggregate's key is the topic's); one whose every partition
// is read again (an aborted transaction rewinds them all: kafka's
// rewindAborted) is rebuilt from them, not added to.
func (o *aggOp) dropped(g *aggGroup, p int32) bool {
	e := g.x()
	if len(e.more) == 0 {
		return e.part == p
	}
	if !e.has(p) {
		return false
	}
	w := o.extOf(g)
	if w.gone == nil {
		w.gone = map[int32]bool{}
	}
	w.gone[p] = true
	if !w.gone[w.part] {
		return false
	}
	for q := range w.more {
		if !w.gone[q] {
			return false
		}
	}
	return true
}

// heldAll lowers, in dst, each partition's first row held (the smallest offset)
// to that of o's open state (the executor's replay.go: the hold frontier).
func (o *aggOp) heldAll(dst map[int32]heldAt) {
	note := func(p int32, x heldAt) {
		if h, ok := dst[p]; !ok || x.off < h.off {
			dst[p] = x
		}
	}
	for _, ws := range o.open {
		for _, g := range ws.groups {
			e := g.x()
			note(e.part, e.held)
			for p, x := range e.more {
				note(p, x)
			}
		}
	}
}

// drop frees the groups of partition p (revoked, or rebuilt by a replay: the
// executor's replay.go), and the windows and sessions left without groups. A
// group that also holds rows of other partitions stays (the topic is not
// partitioned by the grouping key, which SPEC 2.5 requires of a scaled-out
// aggregate) until each of them is dropped too (dropped).
func (o *aggOp) drop(p int32) {
	o.lastWs = nil
	clear(o.cache[:])
	defer o.reindexUpd()
	var freed int64
	kept := o.open[:0]
	o.minEnd = math.MaxInt64
	for _, ws := range o.open {
		gs := ws.groups[:0]
		for _, g := range ws.groups {
			if o.dropped(g, p) {
				freed += o.groupCost(g)
				o.freeGroups = append(o.freeGroups, g)
				continue
			}
			gs = append(gs, g)
		}
		ws.keepGroups(gs, !o.byIdx())
		if len(gs) == 0 && o.a.Window != nil {
			o.unindex(ws)
			o.freeWins = append(o.freeWins, ws)
			continue
		}
		kept = append(kept, ws)
		o.minEnd = min(o.minEnd, ws.win.End)
	}
	clear(o.open[len(kept):])
	o.open = kept
	freed = min(freed, o.bytes)
	o.bytes -= freed
	o.acct.Grow(-freed)
}

// unindex takes the window (or session) ws, leaving the open state, out of
// byWin (or its key's sessions in bySess); the pseudo-window of GROUP BY
// without a window is in neither.
func (o *aggOp) unindex(ws *winState) {
	switch {
	case o.a.Window == nil:
	case o.kind == window.Session:
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
	default:
		delete(o.byWin, ws.win)
	}
}
