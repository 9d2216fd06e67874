package planner

import (
	"fmt"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"

	"streamql/catalog"
	"streamql/parser"
	"streamql/planner/plan"
)

// This file plans a FROM of more than two relations (a JOIN b ON ... JOIN c
// ON ..., FROM a, b, c WHERE ..., SPEC 2.7) as a tree of two-input joins:
// a side of a join that is itself a join is planned as a derived relation
// (plan.Derived of Kind "join", SPEC 2.6) whose rows are that join's rows,
// every column of its relations in FROM order; TiDB's AST is left-deep, so
// the plan is too. The query's names still bind to the relations as
// written (B.bidder, P.id), each at its offset in the joined batch.
//
// A join that reads another join's rows sees that join's event time as a
// view over it would (timeOfPart): an interval, lookup or temporal join
// keeps its left input's time column and watermark (a RIGHT interval join
// its right input's: plan.BothJoin.OutputTime), a regular join has none
// (Flink materializes the time attributes of a regular join's inputs), and
// then the rows are an input without event time (SPEC 2.7).

// fromLeaf is one relation named in a FROM of joins: its TableSource, the
// stream it resolves to and the name the query reads it by.
type fromLeaf struct {
	ts   *ast.TableSource
	st   *catalog.Stream
	name string
}

// joinTree returns n without a comma join's one-sided wrapper (FROM a, b
// wraps a in a Join without a right side) or a TableSource around a
// parenthesized join.
func joinTree(n ast.ResultSetNode) ast.ResultSetNode {
	for {
		switch x := n.(type) {
		case *ast.Join:
			if x.Right != nil {
				return x
			}
			n = x.Left
		case *ast.TableSource:
			if j, ok := x.Source.(*ast.Join); ok && x.AsName.O == "" {
				n = j
				continue
			}
			return x
		default:
			return n
		}
	}
}

// leaves resolves the relations of the FROM tree n, in FROM order; each is
// resolved once per statement (sp.resolved is shared with the joins planned
// inside it), so a subquery is planned once.
func (sp *selectPlan) leaves(n ast.ResultSetNode) ([]fromLeaf, error) {
	switch x := joinTree(n).(type) {
	case *ast.TableSource:
		if sp.resolved == nil {
			sp.resolved = map[*ast.TableSource]fromLeaf{}
		}
		if l, ok := sp.resolved[x]; ok {
			return []fromLeaf{l}, nil
		}
		st, name, err := sp.p.source(x, sp.pos)
		if err != nil {
			return nil, err
		}
		l := fromLeaf{ts: x, st: st, name: name}
		sp.resolved[x] = l
		return []fromLeaf{l}, nil
	case *ast.Join:
		l, err := sp.leaves(x.Left)
		if err != nil {
			return nil, err
		}
		r, err := sp.leaves(x.Right)
		if err != nil {
			return nil, err
		}
		return append(l, r...), nil
	default:
		return nil, parser.Errorf(sp.pos(n), "FROM needs stream names, subqueries or joins of them")
	}
}

// pushSide returns the side (0 left, 1 right) of a join whose relations are
// sides[0] and sides[1] that holds every column WHERE conjunct c reads, -1
// when c reads both sides, no column, an unknown or ambiguous name, or holds
// a subquery: such a conjunct stays with the join that sees all of them.
func pushSide(c ast.ExprNode, sides [2][]fromLeaf) int {
	if hasSubquery(c) {
		return -1
	}
	var cc colCollector
	c.Accept(&cc)
	side := -1
	for _, col := range cc.cols {
		tbl, name := col.Name.Table.O, col.Name.Name.O
		s := -1
		for k, ls := range sides {
			for _, l := range ls {
				if tbl != "" && !strings.EqualFold(tbl, l.name) || tbl == "" && l.st.Column(name) < 0 {
					continue
				}
				if s >= 0 && s != k {
					return -1 // (on both sides: ambiguous, said by the join that sees both)
				}
				s = k
			}
		}
		if s < 0 || side >= 0 && side != s {
			return -1
		}
		side = s
	}
	return side
}

// hasSubquery reports whether n holds a subquery (IN, EXISTS or a scalar
// one): it stays with the query, which lowers it (SPEC 2.2).
func hasSubquery(n ast.Node) bool {
	var v subqueryFinder
	n.Accept(&v)
	return v.found
}

type subqueryFinder struct{ found bool }

func (v *subqueryFinder) Enter(n ast.Node) (ast.Node, bool) {
	switch n.(type) {
	case *ast.SubqueryExpr, *ast.ExistsSubqueryExpr:
		v.found = true
		return n, true
	}
	return n, v.found
}

func (v *subqueryFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// joinRelation plans the join j, one side of a join of more than two
// relations, as a derived relation (plan.Derived, Kind "join"): a SELECT *
// over j whose WHERE is the conjuncts where (pushed down from the query's
// WHERE, as Flink pushes filters into the join's inputs). late names its
// relations' late outputs in FROM order (LATE INTO SIDE, "" for the
// default), latePos the script offsets of those names. It returns the relation and the relations it holds, at their
// offsets in its rows.
func (sp *selectPlan) joinRelation(j *ast.Join, where []ast.ExprNode, late [2]string, latePos [2]int) (*catalog.Stream, []relation, error) {
	sel := *sp.sel
	sel.Side, sel.Stream, sel.Insert, sel.InsertColumns, sel.InsertColumnPos = "", "", "", nil, nil
	sel.Window, sel.Unnest = nil, nil
	sel.Late, sel.Late2 = late[0], late[1]
	sel.LatePos, sel.Late2Pos = latePos[0], latePos[1]
	// the FOR SYSTEM_TIME AS OF clauses of j's own relations
	sel.AsOf = nil
	for tn, a := range sp.sel.AsOf {
		if joinHolds(j, tn) {
			if sel.AsOf == nil {
				sel.AsOf = map[*ast.TableName]parser.AsOf{}
			}
			sel.AsOf[tn] = a
		}
	}
	q := &ast.SelectStmt{Kind: ast.SelectStmtKindSelect, SelectStmtOpts: &ast.SelectStmtOpts{SQLCache: true},
		From:   &ast.TableRefsClause{TableRefs: j},
		Fields: &ast.FieldList{Fields: []*ast.SelectField{{WildCard: &ast.WildCardField{}}}}}
	if len(where) > 0 {
		q.Where = where[0]
		for _, c := range where[1:] {
			q.Where = &ast.BinaryOperationExpr{Op: opcode.LogicAnd, L: q.Where, R: c}
		}
	}
	sel.Query = q
	inner := &selectPlan{p: sp.p, sel: &sel, q: q, ticks: sp.ticks, start: sp.start, resolved: sp.resolved}
	for _, r := range selectRules {
		if err := r.apply(inner); err != nil {
			return nil, nil, err
		}
	}
	b := inner.b
	job, err := NewJob(b.Stream, nil, b, sp.p.Source)
	if err != nil {
		return nil, nil, err
	}
	var names []string
	for _, r := range inner.sc.rels {
		names = append(names, r.name)
	}
	name := "(" + strings.Join(names, " JOIN ") + ")"
	d := &plan.Derived{Kind: "join", Name: name, Parts: []*Job{job}, TimeCol: -1, WindowStart: -1, WindowEnd: -1}
	st := &catalog.Stream{Name: name, Columns: append([]catalog.Column(nil), b.Columns...), EventTime: -1, Connector: plan.DerivedConnector,
		Options: map[string]string{"bounded": fmt.Sprint(b.Stream.Bounded())}, Derived: d}
	// its event time: the join's own (SPEC 2.7: an interval, lookup or
	// temporal join keeps its left input's time column and watermark, a
	// RIGHT interval join its right input's), as a
	// view over the join would have it (timeOfPart)
	if t := timeOfPart(job); t.col >= 0 && t.wm != nil {
		d.TimeCol, d.Watermark = t.col, t.wm
		st.EventTime = t.col
		st.Watermark = &catalog.Watermark{Text: t.wm.Text, Def: t.wm}
	}
	// its rows are every column of its relations, in FROM order (joinWildcard)
	var rels []relation
	off := 0
	for _, r := range inner.sc.rels {
		rels = append(rels, relation{stream: r.stream, name: r.name, offset: off})
		off += len(r.stream.Columns)
	}
	if off != len(st.Columns) {
		return nil, nil, fmt.Errorf("planner: the join %s gives %d columns, its relations %d", name, len(st.Columns), off)
	}
	return st, rels, nil
}

// joinHolds reports whether tn is a relation of the FROM tree n.
func joinHolds(n ast.ResultSetNode, tn *ast.TableName) bool {
	switch x := joinTree(n).(type) {
	case *ast.TableSource:
		return x.Source == tn
	case *ast.Join:
		return joinHolds(x.Left, tn) || x.Right != nil && joinHolds(x.Right, tn)
	}
	return false
}
