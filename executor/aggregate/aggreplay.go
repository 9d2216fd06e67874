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
	n := o.groupBytes(len(g.key))
	for c := range g.states {
		n += g.states[c].Bytes()
	}
	return n
}

// heldOther notes the row being added as the first of its partition in g
// when g has none of it yet (a topic not partitioned by the key: the
// group's rows come from several partitions).
func (o *aggOp) heldOther(g *aggGroup) {
	if _, ok := g.more[o.rowPart]; ok {
		return
	}
	if g.more == nil {
		g.more = map[int32]heldAt{}
	}
	g.more[o.rowPart] = heldAt{o.rowOff, o.rowCw, o.rowCwSet}
}

// mergeHeld keeps in h, into which g is merged (sessions), the first row of
// each partition of both.
func mergeHeld(h, g *aggGroup) {
	add := func(p int32, x heldAt) {
		if p == h.part {
			if x.off < h.held.off {
				h.held = x
			}
			return
		}
		if y, ok := h.more[p]; ok && y.off <= x.off {
			return
		}
		if h.more == nil {
			h.more = map[int32]heldAt{}
		}
		h.more[p] = x
	}
	add(g.part, g.held)
	for p, x := range g.more {
		add(p, x)
	}
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
			note(g.part, g.held)
			for p, x := range g.more {
				note(p, x)
			}
		}
	}
}

// drop frees the groups of partition p (revoked, or rebuilt by a replay: the
// executor's replay.go), and the windows and sessions left without groups. A
// group that also holds rows of other partitions stays (the topic is not
// partitioned by the grouping key, which SPEC 2.5 requires of a scaled-out
// aggregate).
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
			if g.part == p && len(g.more) == 0 {
				freed += o.groupCost(g)
				o.freeGroups = append(o.freeGroups, g)
				continue
			}
			gs = append(gs, g)
		}
		ws.keepGroups(gs)
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
