package aggregate

import (
	"streamql/executor/flow"
	"streamql/planner/plan"
)

// Replay is a Kafka group source's replay as the aggregate sees it (the
// executor's replay.go; the connector package doc, "Scale-out over Kafka
// partitions, and replay"; SPEC 2.5).
type Replay interface {
	// Replayed reports whether the row at source position pos is read again
	// below its partition's end of replay (I3) while the replay filters the
	// outputs: its windowed rows and changes were written already.
	Replayed(pos int64) bool
	// FiredBy reports whether a window of partition p's groups ending at
	// end (epoch ms) fired before p came to this process (I4).
	FiredBy(p int32, end int64) bool
	// Changed notes that fired windows left the state: torn until their rows
	// reach the sinks.
	Changed()
}

// StartReplay makes ao's aggregates keep, for r, the partition, offset and
// watermark of each group's and session's first row (the hold frontier)
// and leave out what r says was written already.
func (ao *Operator) StartReplay(r Replay) {
	for _, o := range ao.ops {
		o.rep = r
	}
}

// StartReplayPassing is StartReplay with pass, not r, for the aggregate of
// branch b: the window TVF's rows or the GROUP BY a rank operator of b
// reads, which passes the rows read again on into that operator's state
// (the executor's passReplay), while the other branches' aggregates hold
// theirs back (r).
func (ao *Operator) StartReplayPassing(r, pass Replay, b *plan.Branch) {
	ao.StartReplay(r)
	for _, o := range ao.ops {
		if o.br == b {
			o.rep = pass
		}
	}
}

// Frontiers implements flow.Checkpoint, the window or updating aggregate's
// side of a replay: each partition's first row in an open group
// (aggOp.heldAll), with its partition's watermark before it.
func (ao *Operator) Frontiers(dst map[int32]flow.Frontier) {
	held := map[int32]heldAt{}
	for _, o := range ao.ops {
		o.heldAll(held)
	}
	for p, h := range held {
		dst[p] = flow.Frontier{Off: h.off, Timed: true, WM: h.cw, WMSet: h.cwSet}
	}
}

// OpenAtOrBelow returns the end of an open window of ao that holds a group
// of partition p and ends at or below f (epoch ms), or ok false: with f the
// fire frontier p would commit, a replay's invariant I4 says there is none
// (every such window fired and is in the outputs). For the replay's tests.
func (ao *Operator) OpenAtOrBelow(p int32, f int64) (end int64, ok bool) {
	for _, o := range ao.ops {
		for _, ws := range o.open {
			for _, g := range ws.groups {
				if g.x().part == p && ws.win.End <= f {
					return ws.win.End, true
				}
			}
		}
	}
	return 0, false
}

// Drop implements flow.Checkpoint: p's groups go (aggOp.drop), and the
// windows left empty.
func (ao *Operator) Drop(p int32) {
	for _, o := range ao.ops {
		o.drop(p)
	}
}
