package planner

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	"github.com/pingcap/tidb/pkg/parser/test_driver"

	"streamql/parser"
)

// refVal is a value of the reference evaluator below: NULL, or a number
// (a boolean as 1 or 0, as the parser's dialect takes them).
type refVal struct {
	null bool
	n    int64
}

var refNull = refVal{null: true}

func refBool(b bool) refVal {
	if b {
		return refVal{n: 1}
	}
	return refVal{}
}

// refNot, refAnd and refOr are SQL's three-valued NOT, AND and OR.
func refNot(v refVal) refVal {
	if v.null {
		return v
	}
	return refBool(v.n == 0)
}

func refAnd(a, b refVal) refVal {
	switch {
	case !a.null && a.n == 0 || !b.null && b.n == 0:
		return refBool(false)
	case a.null || b.null:
		return refNull
	}
	return refBool(true)
}

func refOr(a, b refVal) refVal { return refNot(refAnd(refNot(a), refNot(b))) }

// refEval evaluates the WHERE expression e by SQL's rules, written apart
// from nullness: a.x is ax, every column of b (the padded side) NULL.
func refEval(t *testing.T, e ast.ExprNode, ax refVal) refVal {
	t.Helper()
	ev := func(x ast.ExprNode) refVal { return refEval(t, x, ax) }
	switch x := e.(type) {
	case *ast.ParenthesesExpr:
		return ev(x.Expr)
	case *ast.ColumnNameExpr:
		if x.Name.Table.L == "a" {
			return ax
		}
		return refNull
	case *test_driver.ValueExpr:
		if x.Kind() == test_driver.KindNull {
			return refNull
		}
		return refVal{n: x.GetInt64()}
	case *ast.BinaryOperationExpr:
		l, r := ev(x.L), ev(x.R)
		switch x.Op {
		case opcode.LogicAnd:
			return refAnd(l, r)
		case opcode.LogicOr:
			return refOr(l, r)
		case opcode.LogicXor:
			if l.null || r.null {
				return refNull
			}
			return refBool((l.n != 0) != (r.n != 0))
		case opcode.NullEQ:
			return refBool(l.null && r.null || !l.null && !r.null && l.n == r.n)
		}
		if l.null || r.null {
			return refNull
		}
		switch x.Op {
		case opcode.EQ:
			return refBool(l.n == r.n)
		case opcode.NE:
			return refBool(l.n != r.n)
		case opcode.LT:
			return refBool(l.n < r.n)
		case opcode.LE:
			return refBool(l.n <= r.n)
		case opcode.GT:
			return refBool(l.n > r.n)
		case opcode.GE:
			return refBool(l.n >= r.n)
		case opcode.Plus:
			return refVal{n: l.n + r.n}
		case opcode.Minus:
			return refVal{n: l.n - r.n}
		case opcode.Mul:
			return refVal{n: l.n * r.n}
		}
	case *ast.UnaryOperationExpr:
		v := ev(x.V)
		switch x.Op {
		case opcode.Not, opcode.Not2:
			return refNot(v)
		case opcode.Minus:
			if v.null {
				return v
			}
			return refVal{n: -v.n}
		}
	case *ast.IsNullExpr:
		return refBool(ev(x.Expr).null != x.Not)
	case *ast.IsTruthExpr:
		v := ev(x.Expr)
		is := !v.null && (v.n != 0) == (x.True != 0)
		return refBool(is != x.Not)
	case *ast.BetweenExpr:
		v, lo, hi := ev(x.Expr), ev(x.Left), ev(x.Right)
		in := refAnd(refCmp(v, lo, func(a, b int64) bool { return a >= b }), refCmp(v, hi, func(a, b int64) bool { return a <= b }))
		if x.Not {
			return refNot(in)
		}
		return in
	case *ast.PatternInExpr:
		v, in := ev(x.Expr), refBool(false)
		for _, item := range x.List {
			in = refOr(in, refCmp(v, ev(item), func(a, b int64) bool { return a == b }))
		}
		if x.Not {
			return refNot(in)
		}
		return in
	case *ast.FuncCallExpr:
		switch x.FnName.L {
		case "abs":
			v := ev(x.Args[0])
			if v.null || v.n >= 0 {
				return v
			}
			return refVal{n: -v.n}
		case "if":
			if c := ev(x.Args[0]); !c.null && c.n != 0 {
				return ev(x.Args[1])
			}
			return ev(x.Args[2])
		}
		if x.FnName.L == "coalesce" || x.FnName.L == "ifnull" {
			for _, a := range x.Args {
				if v := ev(a); !v.null {
					return v
				}
			}
			return refNull
		}
	case *ast.CaseExpr:
		for _, w := range x.WhenClauses {
			if c := ev(w.Expr); !c.null && c.n != 0 {
				return ev(w.Result)
			}
		}
		if x.ElseClause != nil {
			return ev(x.ElseClause)
		}
		return refNull
	}
	t.Fatalf("the reference has no rule for %T (%s)", e, e.Text())
	return refNull
}

// refCmp compares a and b by f, NULL when either is.
func refCmp(a, b refVal, f func(a, b int64) bool) refVal {
	if a.null || b.null {
		return refNull
	}
	return refBool(f(a.n, b.n))
}

// genWhere draws a random WHERE over a.x (the preserved side) and b.y, b.z
// (the padded side): comparisons, arithmetic, ABS and IF calls, IS [NOT] NULL, IS [NOT]
// TRUE/FALSE, BETWEEN, IN, <=>, COALESCE, CASE, NULL literals, AND, OR,
// XOR and NOT.
func genWhere(r *rand.Rand, depth int) string {
	operand := func() string {
		switch r.IntN(7) {
		case 0:
			return "a.x"
		case 1:
			return "b.y"
		case 2:
			return "b.z"
		case 3:
			return "NULL"
		case 4:
			return fmt.Sprintf("COALESCE(%s, %d)", []string{"a.x", "b.y", "b.z"}[r.IntN(3)], r.IntN(3))
		case 5:
			c := []string{"a.x", "b.y", "b.z"}[r.IntN(3)]
			switch r.IntN(3) {
			case 0:
				return "ABS(" + c + ")" // (strict: strictFuncs)
			case 1:
				return fmt.Sprintf("IF(%s IS NULL, %d, %s)", c, r.IntN(3), c) // (not strict)
			}
		}
		return fmt.Sprint(r.IntN(3))
	}
	num := func() string {
		switch r.IntN(4) {
		case 0:
			return operand() + " + " + operand()
		case 1:
			return "-" + operand()
		case 2:
			return fmt.Sprintf("CASE WHEN %s IS NULL THEN %d ELSE %s END", operand(), r.IntN(3), operand())
		}
		return operand()
	}
	if depth == 0 || r.IntN(3) == 0 {
		switch r.IntN(9) {
		case 0, 1:
			return fmt.Sprintf("%s %s %s", num(), []string{"=", "<>", "<", "<=", ">", ">="}[r.IntN(6)], num())
		case 2:
			return num() + []string{" IS NULL", " IS NOT NULL"}[r.IntN(2)]
		case 3:
			return fmt.Sprintf("%s BETWEEN %s AND %s", num(), operand(), operand())
		case 4:
			return fmt.Sprintf("%s NOT BETWEEN %s AND %s", num(), operand(), operand())
		case 5:
			return fmt.Sprintf("%s %s (%s, %s)", num(), []string{"IN", "NOT IN"}[r.IntN(2)], operand(), operand())
		case 6:
			return fmt.Sprintf("%s <=> %s", num(), operand())
		case 7:
			return fmt.Sprintf("(%s > 0) %s", operand(), []string{"IS TRUE", "IS FALSE", "IS NOT TRUE", "IS NOT FALSE"}[r.IntN(4)])
		}
		return fmt.Sprintf("%s = %s", operand(), operand())
	}
	a, b := genWhere(r, depth-1), genWhere(r, depth-1)
	switch r.IntN(4) {
	case 0:
		return "(" + a + ") AND (" + b + ")"
	case 1:
		return "(" + a + ") OR (" + b + ")"
	case 2:
		return "(" + a + ") XOR (" + b + ")"
	}
	return "NOT (" + a + ")"
}

// TestRejectsNullsAgainstReference: whenever rejectsNulls says a random
// WHERE drops every row whose padded side's columns are NULL, a reference
// evaluator of SQL's three-valued logic, written here, finds it not TRUE
// for any value of the other side's column (NULL included); and it says
// so of a fair share of them, so the analysis is sound and not trivial
// (Flink's outer-join simplification, rule_simplify_outer_join.go).
func TestRejectsNullsAgainstReference(t *testing.T) {
	rejected := 0
	const n = 3000
	for seed := range n {
		r := rand.New(rand.NewPCG(uint64(seed), 23))
		where := genWhere(r, 3)
		src := "SELECT a.x FROM a LEFT JOIN b ON a.k = b.k WHERE " + where + ";"
		sc, err := parser.Parse("q.sql", src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		sel := sc.Stmts[0].(*parser.Select)
		e := sel.Query.Where
		padded := func(c *ast.ColumnNameExpr) maybe {
			if c.Name.Table.L == "b" {
				return mayN
			}
			return anyValue
		}
		if !rejectsNulls(e, padded) {
			continue
		}
		rejected++
		for _, ax := range []refVal{refNull, {n: -1}, {n: 0}, {n: 1}, {n: 2}, {n: 3}} {
			if v := refEval(t, e, ax); !v.null && v.n != 0 {
				t.Fatalf("WHERE %s: rejectsNulls says no padded row passes, but with a.x = %v and b NULL it is TRUE", where, ax)
			}
		}
	}
	if rejected < n/10 || rejected > n*9/10 {
		t.Fatalf("rejectsNulls took %d of %d random WHEREs to reject the padded rows: want a fair share of both kinds", rejected, n)
	}
}
