package planner

// PruneColumnsKey is the SET key that turns column pruning off
// ('planner.prune-columns' = 'false'; 'true', the default, turns it on):
// Planner.KeepColumns. The outputs are the same either way; only the
// memory a join's state takes changes.
const PruneColumnsKey = "planner.prune-columns"

// rulePruneColumns marks, for a query that reads a join of two streams (SPEC
// 2.7), the columns of each input the join holds and passes on
// (plan.JoinInput.Keep): those some reader of the joined rows reads (the
// select list, WHERE, the join's residual ON terms and time bounds, GROUP
// BY and the aggregates' arguments, a window's late rows, a semi join's
// keys: the query's scope marks each column it compiles, Branch.Uses), and
// the join's keys, event times and CURRENT_WATERMARK columns. A join's
// state then holds only those (op.Rows leaves the others out), so an input
// padded with columns no one reads (Nexmark's auction.extra) costs only
// what the query needs. Late rows of an input leave before the join keeps
// anything and go out whole (SPEC 2.7: as they came), so they print every
// column still.
//
// It runs last, once every expression of the query is compiled; an
// ORDER BY, Top-N or OVER reads the query's output columns, which the
// select list has marked. SET 'planner.prune-columns' = 'false'
// (Planner.KeepColumns) turns it off: every column is then kept.
func rulePruneColumns(sp *selectPlan) error {
	both := sp.both
	if both == nil || sp.p.KeepColumns || sp.sc == nil || sp.sc.uses == nil {
		return nil
	}
	uses := sp.sc.uses
	off := 0
	for s := range both.Inputs {
		in := &both.Inputs[s]
		keep := make([]bool, len(in.Types))
		pruned := false
		for c := range keep {
			keep[c] = off+c >= len(uses) || uses[off+c] || c == in.WatermarkCol || c == in.TimeCol() ||
				c >= len(in.Types)-len(in.KeyExprs) // (the computed keys)
			pruned = pruned || !keep[c]
		}
		for _, k := range both.Keys[s] {
			keep[k] = true
		}
		off += len(in.Types)
		if pruned {
			in.Keep = keep
		}
	}
	return nil
}
