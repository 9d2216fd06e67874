package planner

import (
	"streamql/catalog"
	"streamql/planner/plan"
)

// pruneRankInput takes out of an updating Top-N's input (in's projection,
// SPEC 2.9) the subquery's columns that the query over it does not select
// and that the Top-N does not partition or order by, so that the rows it
// holds (a row per partition's top N, for as long as the job runs) keep
// only what it emits or ranks by (issue 24: memory proportional to the
// keys and what is kept of them; issue 26). SELECT auction, price FROM
// (SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC)
// AS rn FROM bid) WHERE rn <= 10 then holds two BIGINTs a row, not bid's
// text columns too. A column is taken out only when it reads a column of
// the input as it is (plan.OpCol): a computed one may fail or draw a
// random value or the clock, which its evaluation must keep doing. The
// hidden PARTITION BY and ORDER BY columns stay. It remaps r's columns
// (Keys, Order, Time, Output with its rank column; a Top-N with a
// CURRENT_WATERMARK, window or late columns is left as it is) and in's visible and
// hidden ones. The outputs are the same; SET 'planner.prune-columns' =
// 'false' (Planner.KeepColumns) keeps every column, as for joins.
func (p *Planner) pruneRankInput(in *inner, r *plan.Rank) {
	if p.KeepColumns || r.Kind != plan.RankTopN || r.Stamp >= 0 || r.Start >= 0 || r.End >= 0 || len(r.LateCols) > 0 {
		return
	}
	n := len(in.b.Project)
	used := make([]bool, n)
	for c := in.visible; c < n; c++ { // (the hidden columns, CURRENT_WATERMARK's)
		used[c] = true
	}
	for _, c := range r.Output {
		if c < n { // (n: the rank column)
			used[c] = true
		}
	}
	for _, c := range r.Keys {
		used[c] = true
	}
	for _, k := range r.Order {
		used[k.Col] = true
	}
	if r.Time >= 0 {
		used[r.Time] = true
	}
	to := make([]int, n+1) // old column -> new (n: the rank column)
	var project []*Expr
	var cols []catalog.Column
	visible := 0
	for c, e := range in.b.Project {
		if !used[c] && e != nil && e.Op == plan.OpCol {
			to[c] = -1
			continue
		}
		to[c] = len(project)
		project = append(project, e)
		cols = append(cols, in.b.Columns[c])
		if c < in.visible {
			visible++
		}
	}
	if len(project) == n {
		return
	}
	to[n] = len(project)
	in.b.Project, in.b.Columns = project, cols
	in.visible = visible
	for k, c := range in.hidden {
		in.hidden[k] = to[c]
	}
	for k, c := range r.Keys {
		r.Keys[k] = to[c]
	}
	for k := range r.Order {
		r.Order[k].Col = to[r.Order[k].Col]
	}
	if r.Time >= 0 {
		r.Time = to[r.Time]
	}
	for k, c := range r.Output {
		r.Output[k] = to[c]
	}
}
