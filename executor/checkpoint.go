package executor

// aggCheckpoint is the window or updating aggregate's Checkpoint: the first
// row of each partition in its open groups (aggOp.heldAll) and the drop of a
// partition's groups (aggOp.drop).
type aggCheckpoint struct{ agg *aggOperator }

// Frontiers implements flow.Checkpoint: each partition's first row in an open
// group, with its partition's watermark before it.
func (c aggCheckpoint) Frontiers(dst map[int32]Frontier) {
	held := map[int32]heldAt{}
	for _, o := range c.agg.ops {
		o.heldAll(held)
	}
	for p, h := range held {
		dst[p] = Frontier{Off: h.off, Timed: true, WM: h.cw, WMSet: h.cwSet}
	}
}

// Drop implements flow.Checkpoint: p's groups go, and the windows left empty.
func (c aggCheckpoint) Drop(p int32) {
	for _, o := range c.agg.ops {
		o.drop(p)
	}
}
