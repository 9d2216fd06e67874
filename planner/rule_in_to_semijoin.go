package planner

import (
	"fmt"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"

	"streamql/parser"
	"streamql/planner/plan"
)

// ruleInToSemiJoin lowers the IN / EXISTS conjuncts of WHERE to the branch's
// join (SPEC 2.2: the same plan as SEMI / ANTI JOIN); the other conjuncts stay
// its WHERE. A query has one join at most.
func ruleInToSemiJoin(sp *selectPlan) error {
	if sp.q.Where == nil {
		return nil
	}
	for _, c := range conjuncts(sp.q.Where, nil) {
		if sp.consumed[c] {
			continue // (a comma join's condition: ruleBothJoin took it)
		}
		sj, err := sp.p.subqueryJoin(sp.sc, c, sp.wm, sp.pos)
		if err != nil {
			return err
		}
		if sj == nil {
			sp.rest = append(sp.rest, c)
			continue
		}
		if sp.both != nil && sj.EventTime() {
			return joinedProbeError(sp.both, sj, sp.pos(c))
		}
		if sp.j != nil {
			return parser.Errorf(sp.pos(c), "one SEMI/ANTI JOIN or IN/EXISTS subquery per query is supported; split the query into side branches")
		}
		sp.j = sj
	}
	return nil
}

// joinedProbeError is the planning error of an IN or EXISTS subquery j
// whose build side is unbounded, so that it decides by event time (SPEC 2.2:
// a WATERMARK on both sides), in the WHERE of a query whose FROM is a join
// of two streams, both, at script offset pos: the joined rows have no
// event time of their own (plan.JoinedStream). It says what to write: a
// subquery over the join that selects the join's output time as it is
// (SPEC 2.6 and 2.7, plan.BothJoin.OutputTime), whose rows then carry it,
// when the join has one (else to write a join that has one), or a bounded
// build side.
func joinedProbeError(both *plan.BothJoin, j *Join, pos int) error {
	joined := plan.JoinedStream(both).Name
	msg := fmt.Sprintf("%s is unbounded, so the %s decides by event time and needs a WATERMARK on both sides (SPEC 2.2), but the rows of %s have no event time of their own; ", j.BuildName, j.Text, joined)
	if t := both.OutputTimeName(); t != "" {
		return parser.Errorf(pos, "%sread the join through a subquery that selects its output time as it is, SELECT … FROM (SELECT %s, … FROM %s ON …) AS j WHERE …, whose rows carry it (or read a bounded build side)", msg, t, joined)
	}
	return parser.Errorf(pos, "%sthe output of this %s (%s) has none (SPEC 2.7: an INNER or LEFT interval join keeps its left side's time, a lookup join its left side's): write it as such a join, read through a subquery that selects that time as it is, or read a bounded build side", msg, both.Kind(), both.Type)
}

// subqueryJoin lowers a WHERE conjunct that is [NOT] IN (subquery) or [NOT]
// EXISTS (subquery) to a join (SPEC 2.2: the same plan as SEMI / ANTI JOIN); it
// returns nil for other conjuncts.
func (p *Planner) subqueryJoin(sc *scope, c ast.ExprNode, wm int, pos func(ast.Node) int) (*Join, error) {
	c = unparen(c)
	not := false
	if u, ok := c.(*ast.UnaryOperationExpr); ok && (u.Op == opcode.Not || u.Op == opcode.Not2) {
		switch x := unparen(u.V).(type) {
		case *ast.ExistsSubqueryExpr:
			not, c = true, x
		case *ast.PatternInExpr:
			// NOT (x IN (subquery)) is x NOT IN (subquery), SQL's
			// definition of NOT IN (its three-valued rule included)
			if x.Sel != nil {
				flipped := *x
				flipped.Not = !x.Not
				c = &flipped
			}
		}
	}
	var sub *ast.SubqueryExpr
	var in *ast.PatternInExpr
	switch x := c.(type) {
	case *ast.PatternInExpr:
		if x.Sel == nil {
			return nil, nil
		}
		in, not = x, x.Not
		sub, _ = x.Sel.(*ast.SubqueryExpr)
	case *ast.ExistsSubqueryExpr:
		not = not != x.Not
		sub, _ = x.Sel.(*ast.SubqueryExpr)
	default:
		return nil, nil
	}
	var q *ast.SelectStmt
	if sub != nil {
		q, _ = sub.Query.(*ast.SelectStmt)
	}
	if q == nil || q.From == nil || q.From.TableRefs.Right != nil {
		// (an IN subquery that joins or unions is read as a relation: the
		// parser's inRelation; EXISTS correlates with the query around it)
		return nil, parser.Errorf(pos(c), "the subquery must read one relation: (SELECT col FROM r [WHERE ...]), r a stream, a view or a subquery in FROM; for a join or UNION ALL, read a view or a subquery of it: EXISTS (SELECT 1 FROM (SELECT ... FROM a JOIN b ON ...) AS j WHERE j.k = ...)")
	}
	if q.GroupBy != nil || q.Having != nil || q.Limit != nil || q.OrderBy != nil {
		return nil, parser.Errorf(pos(c), "the subquery may not have GROUP BY, HAVING, ORDER BY or LIMIT")
	}
	ts, ok := q.From.TableRefs.Left.(*ast.TableSource)
	if !ok {
		return nil, parser.Errorf(pos(c), "the subquery must read one stream")
	}
	rst, rname, err := p.source(ts, pos)
	if err != nil {
		return nil, err
	}
	two := p.twoScope(sc, rst, rname, true)
	var cond ast.ExprNode
	if q.Where != nil {
		cond = q.Where
	}
	mode := Semi
	if not {
		mode = Anti
	}
	var keys [][2]ast.ExprNode
	text := "EXISTS subquery on " + rname
	if in != nil {
		if len(q.Fields.Fields) != 1 {
			return nil, parser.Errorf(pos(c), "IN (subquery) needs a subquery that selects one column")
		}
		key := q.Fields.Fields[0].Expr
		if q.Fields.Fields[0].WildCard != nil {
			// SELECT * of a relation of one column: that column (an IN
			// subquery read as a relation, parser.inRelation, is one)
			if len(rst.Columns) != 1 {
				return nil, parser.Errorf(pos(c), "IN (subquery) needs a subquery that selects one column; it selects %d", len(rst.Columns))
			}
			key = &ast.ColumnNameExpr{Name: &ast.ColumnName{Table: ast.NewCIStr(rname), Name: ast.NewCIStr(rst.Columns[0].Name)}}
		}
		keys = [][2]ast.ExprNode{{in.Expr, key}}
		text = "IN subquery on " + rname
		if not {
			text = "NOT " + text
		}
	} else if not {
		text = "NOT " + text
	}
	j, err := p.buildJoin(two, mode, cond, keys, in == nil, pos(c), text, wm)
	if err != nil {
		return nil, err
	}
	j.NullAware = in != nil && not
	if j.NullAware && j.EventTime() {
		return nil, parser.Errorf(pos(c), "NOT IN (subquery) over the unbounded stream %s cannot be decided (a NULL may still arrive); use NOT EXISTS (SELECT 1 FROM %s WHERE ...)", rname, rname)
	}
	return j, nil
}
