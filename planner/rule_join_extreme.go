package planner

import (
	"slices"

	"streamql/catalog"
	"streamql/planner/plan"
)

// ruleJoinExtreme marks an INNER interval join one of whose inputs is a
// TUMBLE window aggregate's MAX (or MIN) of the other input's own stream,
// which the join's keys equal to a column of that input (plan.JoinExtreme;
// Nexmark q7: the bids whose price is their window's highest). Such a join
// keeps a row of that input only while its value can still equal the
// aggregate of a window it can join: the largest value of the window's
// rows so far bounds the window's MAX from below, and rises with every row,
// so of a window's rows the join holds only the few that were the highest
// when they came (op.JoinExtreme), not the interval's every row. The
// output is the same.
//
// It proves, from the plan, what op.JoinExtreme needs:
//   - the aggregating input is a subquery, WITH name or view of one query
//     over the same stream as the other input reads directly (the rows the
//     join takes of it are rows the aggregate takes: no WHERE, side branch,
//     join or UNNEST before the aggregate; the other input may filter its
//     own, rule_pushdown.go), with a TUMBLE window on that stream's event
//     time and no grouping key but the window;
//   - the join's key column of the aggregating input is MAX(c) or MIN(c) as
//     it is (no DISTINCT, FILTER or expression: the call's argument is the
//     column c itself, BIGINT, TIMESTAMP or DOUBLE), and the other input's
//     key of that pair is c itself;
//   - the aggregating input's event time is window_start, window_end or
//     window_time as it is, so the interval's bounds say which windows a row
//     can join;
//   - the other input has a WATERMARK: a row the join takes is not late by
//     its CURRENT_WATERMARK, so its window had not fired for the aggregate;
//   - the stream is repeatable (catalog.ConnectorSpec.Repeatable: a bounded
//     file, values, nexmark): the aggregate's read of it and the join's give
//     the same rows with the same stamps (not a Kafka group's partitions,
//     interleaved as they come, or a clock's datagen times).
//
// HAVING and a LIMIT of the subquery only take windows away, which no row
// can join then either. It runs after pushdown, once the join is planned.
func ruleJoinExtreme(sp *selectPlan) error {
	if sp.both != nil {
		sp.both.Extreme = joinExtreme(sp.both)
	}
	return nil
}

// joinExtreme returns both's plan.JoinExtreme, the zero value when the
// join is not one ruleJoinExtreme can prove.
func joinExtreme(both *plan.BothJoin) plan.JoinExtreme {
	if !both.Interval || both.Window || both.Lookup || both.Temporal || both.Type != plan.InnerJoin || both.Changes[0] || both.Changes[1] || slices.Contains(both.NullSafe, true) {
		// (a null-safe key's NULL rows join: none is an extreme to drop by)
		return plan.JoinExtreme{}
	}
	for a := range 2 { // a: the aggregating input; s: the stream's
		s := 1 - a
		d, in := plan.DerivedOf(both.Inputs[a].Stream), &both.Inputs[s]
		if d == nil || len(d.Parts) != 1 || plan.DerivedOf(in.Stream) != nil || in.WatermarkCol < 0 || in.TimeCol() < 0 || !repeatable(in.Stream) {
			continue
		}
		job := d.Parts[0]
		m := job.Main
		if job.Stream != in.Stream || m == nil || len(job.Branches) > 0 || job.Both != nil || job.Unnest != nil ||
			m.Where != nil || m.Join != nil || m.Unnest != nil || m.Rank != nil || m.Agg == nil {
			continue
		}
		ag := m.Agg
		w := ag.Window
		if w == nil || w.Func != "TUMBLE" || w.Of != nil || w.ProcTime || w.Size <= 0 || !ag.Grouped || len(ag.Keys) > 0 || w.TimeCol != in.TimeCol() {
			continue
		}
		// the aggregating input's time is window_end + delta
		if d.TimeCol < 0 || d.TimeCol >= len(m.Project) || m.Project[d.TimeCol].Op != plan.OpCol {
			continue
		}
		var delta int64
		switch m.Project[d.TimeCol].Col { // (the aggregate row: window_start, window_end, window_time, ...)
		case 0:
			delta = -w.Size
		case 1:
		case 2:
			delta = -1
		default:
			continue
		}
		for k := range both.Keys[a] {
			rc, lc := both.Keys[a][k], both.Keys[s][k]
			if rc >= len(m.Project) || lc >= len(in.Stream.Columns) {
				continue
			}
			pe := m.Project[rc]
			if pe.Op != plan.OpCol || pe.Col < ag.CallBase || pe.Col-ag.CallBase >= len(ag.Calls) {
				continue
			}
			call := ag.Calls[pe.Col-ag.CallBase]
			if call.Spec.Func != plan.AggMax && call.Spec.Func != plan.AggMin || call.Spec.Distinct || call.Arg == nil || call.Arg.Op != plan.OpCol || call.Arg.Col != lc {
				continue
			}
			if t := in.Types[lc]; t != catalog.BigInt && t != catalog.Timestamp && t != catalog.Double {
				continue
			}
			// the interval bounds left.t - right.t; as the stream's t minus
			// the aggregate's time (window_end + delta), then minus window_end
			lo, hi := both.Lo, both.Hi
			if s == 1 {
				lo, hi = -both.Hi, -both.Lo
			}
			return plan.JoinExtreme{Side: s, Col: lc, Max: call.Spec.Func == plan.AggMax, Size: w.Size, Offset: w.Offset, Lo: lo + delta, Hi: hi + delta}
		}
	}
	return plan.JoinExtreme{}
}

// repeatable reports whether two reads of st give the same rows with the
// same CURRENT_WATERMARK stamps (catalog.ConnectorSpec.Repeatable).
func repeatable(st *catalog.Stream) bool {
	c := st.Connector
	return c != nil && c.Repeatable != nil && c.Repeatable(st.Options)
}
