package planner

import (
	"streamql/catalog"
	"streamql/planner/plan"
)

// PruneColumnsKey is the SET key that turns column pruning off
// ('planner.prune-columns' = 'false'; 'true', the default, turns it on):
// Planner.KeepColumns. The outputs are the same either way; only the
// memory a join's state and a Top-N's rows take changes
// (rule_prune_rank.go).
const PruneColumnsKey = "planner.prune-columns"

// rulePruneColumns marks, for a query that reads a join of two streams (SPEC
// 2.7), the columns of each input the join holds and passes on
// (plan.JoinInput.Keep): those some reader of the joined rows reads (the
// select list, WHERE, the join's residual ON terms and time bounds, GROUP
// BY and the aggregates' arguments, a window's late rows, a semi join's
// keys: the query's scope marks each column it compiles, Branch.Uses), and
// the join's keys, event times and CURRENT_WATERMARK columns (but a lookup
// join's right side's, which the join does not read). A join's
// state then holds only those (op.Rows leaves the others out), so an input
// padded with columns no one reads (Nexmark's auction.extra) costs only
// what the query needs. Late rows of an input leave before the join keeps
// anything and go out whole (SPEC 2.7: as they came), so they print every
// column still.
//
// What a query does not read of a subquery, a WITH definition or the join
// of a FROM of more than two relations (a relation planned for this query
// alone, SPEC 2.6) is not needed of it either: the joins inside such a
// relation keep only what its other clauses and the read columns of its
// select list need (pruneDerived), down through nested relations. A view
// is planned once for every query that reads it and keeps its columns.
//
// The joined rows carry fewer still (plan.JoinInput.Pass): for a
// statement's own SELECT whose readers call no function, only the columns
// they read (scope.reads), not the keys, event times and CURRENT_WATERMARK
// columns that only the join reads (the benchmark suite's interval join
// writes 4 of its 8 columns). A relation's join (a subquery, WITH name, view
// or inner join of three relations) passes on every column it keeps: its
// reader may read its time and stamp columns by their places.
//
// It runs last, once every expression of the query is compiled; an
// ORDER BY, Top-N or OVER reads the query's output columns, which the
// select list has marked. SET 'planner.prune-columns' = 'false'
// (Planner.KeepColumns) turns it off: every column is then kept.
func rulePruneColumns(sp *selectPlan) error {
	if sp.p.KeepColumns || sp.sc == nil || sp.sc.uses == nil {
		return nil
	}
	if sp.both == nil {
		sp.p.pruneDerived(sp.st, sp.sc.uses)
		return nil
	}
	pass := sp.sc.reads
	if sp.sc.fails || !sp.top {
		pass = nil
	}
	sp.p.pruneJoin(sp.both, sp.sc.uses, pass)
	return nil
}

// pruneJoin sets the Keep of both's inputs from reads, the columns of the
// joined layout its readers read, and their Pass from pass, those the
// joined rows' readers read besides the join's own keys and time bounds
// (scope.reads; nil: every column kept is passed on, as for a query whose
// readers call a function, scope.fails, or a join inside a relation), and
// narrows the relations its inputs read (pruneDerived).
func (p *Planner) pruneJoin(both *plan.BothJoin, reads, pass []bool) {
	off := 0
	for s := range both.Inputs {
		in := &both.Inputs[s]
		keep := make([]bool, len(in.Types))
		pruned := false
		// a lookup join's right side is a table read whole first: the join
		// reads neither its times nor its watermarks (op.JoinSpec.Lookup),
		// so they are kept only when a reader reads them
		times := !both.Lookup || s == 0
		for c := range keep {
			keep[c] = off+c >= len(reads) || reads[off+c] || times && (c == in.WatermarkCol || c == in.TimeCol()) ||
				c >= len(in.Types)-len(in.KeyExprs) // (the computed keys)
			pruned = pruned || !keep[c]
		}
		for _, k := range both.Keys[s] {
			keep[k] = true
		}
		in.Pass = nil
		if pass != nil {
			out := make([]bool, len(in.Types))
			passAll := true
			for c := range out {
				out[c] = keep[c] && (off+c >= len(pass) || pass[off+c])
				passAll = passAll && out[c]
			}
			if !passAll {
				in.Pass = out
			}
		}
		off += len(in.Types)
		in.Keep = nil
		if pruned {
			in.Keep = keep
		}
		need := keep
		if in.Filter != nil { // (the filter reads its columns before the join keeps any: rule_pushdown.go)
			need = append([]bool(nil), keep...)
			exprReads(in.Filter, need)
		}
		p.pruneDerived(in.Stream, need)
	}
}

// pruneDerived narrows the joins inside st, when st is a relation planned
// for one query (a subquery, a WITH definition, a join of a FROM of more
// than two relations, or a UNION ALL of those) whose reader reads only the
// columns c of st with need[c] (nil or short: every column). A part whose
// main query aggregates, unnests or has side branches keeps what it keeps;
// one that ranks (SPEC 2.9) keeps every column of its select list.
func (p *Planner) pruneDerived(st *catalog.Stream, need []bool) {
	d := plan.DerivedOf(st)
	if d == nil || d.Kind == "view" || p.viewCopies[st] {
		return
	}
	for _, job := range d.Parts {
		m := job.Main
		if m == nil || len(job.Branches) > 0 || m.Agg != nil || m.Unnest != nil || m.Join != nil && m.Join.EventTime() {
			continue
		}
		reads := make([]bool, len(job.BatchTypes))
		mark := func(e *plan.Expr) { exprReads(e, reads) }
		mark(m.Where)
		if jn := m.Join; jn != nil {
			mark(jn.ProbeFilter)
			for _, k := range jn.ProbeKeys {
				mark(k)
			}
		}
		for i, e := range m.Project {
			if i >= len(st.Columns) || i >= len(need) || need[i] || i == d.TimeCol || d.ProcTime != nil || m.Rank != nil {
				mark(e)
			}
		}
		if job.WatermarkCol >= 0 {
			reads[job.WatermarkCol] = true
		}
		if b := job.Both; b != nil {
			for _, e := range b.Residual {
				mark(e)
			}
			p.pruneJoin(b, reads, nil)
		} else {
			p.pruneDerived(job.Stream, reads)
		}
	}
}

// exprReads marks in reads the batch columns e reads (a column, or a
// CURRENT_WATERMARK column).
func exprReads(e *plan.Expr, reads []bool) {
	if e == nil {
		return
	}
	if c := colOf(e); c >= 0 && c < len(reads) {
		reads[c] = true
	}
	for _, a := range e.Args {
		exprReads(a, reads)
	}
}

// colOf returns the batch column the node e reads itself (a column, or a
// CURRENT_WATERMARK column), -1 when it reads none (its operands may).
func colOf(e *plan.Expr) int {
	switch e.Op {
	case plan.OpCol:
		return e.Col
	case plan.OpCurrentWatermark:
		return int(e.Param)
	}
	return -1
}
