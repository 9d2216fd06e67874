package planner

import (
	"fmt"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"streamql/catalog"
	"streamql/parser"
)

// ruleUpdatingSource refuses, for now, the operators that cannot yet consume
// the changes of an updating stream (SPEC 2.8: a stream reading a changelog
// format, debezium-json, canal-json or maxwell-json, or an upsert-kafka
// stream): a window, a semi or anti join, and LIMIT (an interval, window or
// temporal join's left side refuse it in ruleJoinBoth; a regular join
// retracts, plan.BothJoin.Changes). An aggregate without
// a window (GROUP BY keys, or a global aggregate) retracts: it is an
// updating aggregate over the stream (rule_aggregate.go). Filters,
// projections and side branches pass each row's kind through to the outputs,
// as Flink's Calc does. Flink refuses the same operators over a changelog
// when they do not retract ("... doesn't support consuming update and delete
// changes"); the error names the stream, why it is updating and what does run.
func ruleUpdatingSource(sp *selectPlan) error {
	refuseAt := func(st *catalog.Stream, pos int, what string) error {
		why := st.Updating()
		if why == "" {
			return nil
		}
		return parser.Errorf(pos, "stream '%s' is updating (%s, SPEC 2.8): %s cannot consume its changes (-U, +U, -D) yet; "+
			"filters, projections and INTO SIDE branches pass them through to the outputs", st.Name, why, what)
	}
	refuse := func(st *catalog.Stream, n ast.Node, what string) error {
		return refuseAt(st, sp.pos(n), what)
	}
	b := sp.b
	if b == nil {
		return nil
	}
	if sp.both != nil {
		for s, in := range sp.both.Inputs {
			if s == 1 && sp.both.Temporal || sp.both.Changes[s] {
				continue // (SPEC 2.7: a temporal join's versioned side may be updating, its changes its versions; a regular join retracts, SPEC 2.8)
			}
			if err := refuse(in.Stream, sp.q.From, fmt.Sprintf("a join reading it (%s)", in.Name)); err != nil {
				return err
			}
		}
		return nil
	}
	st := b.Stream
	if st == nil {
		return nil
	}
	switch {
	case b.Agg != nil && b.Agg.Window != nil:
		if tvf := sp.sel.Window; tvf != nil { // (the caret at the window function)
			return refuseAt(st, tvf.Pos, "a window")
		}
		return refuse(st, sp.q.From, "a window")
	case b.Agg != nil && !b.Agg.Updating:
		var at ast.Node = sp.q.From
		if sp.q.GroupBy != nil {
			at = sp.q.GroupBy
		}
		return refuse(st, at, "an aggregate")
	case b.Join != nil:
		if err := refuse(st, sp.q.From, "a join"); err != nil {
			return err
		}
		return refuse(b.Join.Build, sp.q.From, "a join")
	case b.Limit >= 0:
		return refuse(st, sp.q.Limit, "LIMIT")
	}
	return nil
}
