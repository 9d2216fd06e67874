package planner

import (
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
		return parser.Errorf(sp.start, "DISTINCT is not supported in a stream query")
	case q.WindowSpecs != nil:
		return parser.Errorf(sp.start, "windows are not supported")
	}
	return nil
}
