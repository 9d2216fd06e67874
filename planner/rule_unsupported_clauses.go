package planner

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"streamql/parser"
)

// ruleUnsupportedClauses refuses the clauses a stream query does not have
// (SPEC 2: a query filters, projects, routes and joins rows one by one; windows
// are SPEC 2.4's TVFs): GROUP BY, HAVING, ORDER BY, DISTINCT and WINDOW.
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
	case q.Distinct:
		return parser.Errorf(sp.topWord("DISTINCT", "DISTINCTROW"), "DISTINCT is not supported in a stream query")
	case q.WindowSpecs != nil:
		return parser.Errorf(sp.topWord("WINDOW"), "windows are not supported")
	}
	for _, a := range sp.sel.AsOf {
		// the temporal join's operator exists (executor/op.Temporal); its
		// planning comes with the composition of relations (issue 23)
		return parser.Errorf(a.Pos, "temporal joins (FOR SYSTEM_TIME AS OF) are not supported yet: join on the key and bound the times (an interval join, SPEC 2.7)")
	}
	return nil
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
