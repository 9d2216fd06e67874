package planner

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"streamql/parser"
)

// ruleUnsupportedClauses refuses the clauses a stream query does not have
// (SPEC 2: a query filters, projects, routes and joins rows one by one; windows
// are SPEC 2.4's TVFs): GROUP BY ... WITH ROLLUP, ORDER BY and WINDOW (DISTINCT: rule_distinct.go).
func ruleUnsupportedClauses(sp *selectPlan) error {
	q := sp.q
	unsupported := func(n ast.Node, what string) error {
		return parser.Errorf(sp.pos(n), "%s is not supported in a stream query", what)
	}
	switch {
	case q.GroupBy != nil && q.GroupBy.Rollup:
		return unsupported(q.GroupBy, "GROUP BY ... WITH ROLLUP")
	case q.OrderBy != nil:
		return unsupported(q.OrderBy, "ORDER BY")
	case q.WindowSpecs != nil:
		// (a named window an OVER reads is rule_rank.go's: this one none reads)
		w := q.WindowSpecs[0].Name.O
		return parser.Errorf(sp.topWord("WINDOW"), "WINDOW %s AS (…) names an OVER window, and no OVER %s reads it here: read it in the select list, e.g. SUM(x) OVER %s, or remove the clause", w, w, w)
	}
	for tn, a := range sp.sel.AsOf {
		// FOR SYSTEM_TIME AS OF names a temporal join's right side (SPEC 2.7)
		if q.From == nil || q.From.TableRefs == nil || !asOfRight(q.From.TableRefs, tn) {
			return parser.Errorf(a.Pos, "FOR SYSTEM_TIME AS OF stands after the right side of a JOIN (a temporal join, SPEC 2.7): FROM l JOIN r FOR SYSTEM_TIME AS OF l.t ON l.k = r.k")
		}
	}
	return nil
}

// asOfRight reports whether tn is the right side of a join in the FROM tree
// n: of the join of two relations, or, in a FROM of more (a JOIN r FOR
// SYSTEM_TIME AS OF a.t ON ... JOIN c ON ..., rule_join_multi.go), of any of
// its joins, which plans that join as a temporal join (SPEC 2.7).
func asOfRight(n ast.ResultSetNode, tn *ast.TableName) bool {
	j, ok := joinTree(n).(*ast.Join)
	if !ok {
		return false
	}
	if ts, ok := j.Right.(*ast.TableSource); ok && ts.Source == tn {
		return true
	}
	return asOfRight(j.Left, tn) || asOfRight(j.Right, tn)
}

// topWord returns the offset of the first of words (bare, any case) outside
// parentheses in the statement's text, or the statement's start: the position
// of a clause TiDB's AST does not locate (SPEC 4: the caret is under the
// offending token).
func (sp *selectPlan) topWord(words ...string) int {
	start, end := sp.sel.Span()
	if start < 0 || end > len(sp.p.Source) || start >= end {
		return sp.start
	}
	depth := 0
	for _, t := range parser.Tokens(sp.p.Source[start:end]) {
		switch {
		case t.Kind == parser.TokOp && t.Text == "(":
			depth++
		case t.Kind == parser.TokOp && t.Text == ")":
			depth--
		case t.Kind == parser.TokIdent && depth == 0:
			for _, w := range words {
				if strings.EqualFold(t.Text, w) {
					return start + t.Offset
				}
			}
		}
	}
	return sp.start
}
