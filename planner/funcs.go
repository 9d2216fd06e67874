package planner

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"streamql/catalog"
	"streamql/catalog/functions"
	"streamql/parser"
)

// funcCall is one function call being compiled (SPEC 2, functions): its AST,
// its lower-case name and, unless its rule takes raw arguments, its compiled
// arguments.
type funcCall struct {
	sc   *scope
	n    *ast.FuncCallExpr
	name string
	args []*Expr
}

// funcRule compiles the calls of one function (or of its aliases). raw rules
// read the call's AST themselves (CURRENT_WATERMARK's column, an INTERVAL's
// literal and unit); the others get args compiled in order.
type funcRule struct {
	compile func(c *funcCall) (*Expr, error)
	raw     bool
}

// funcRules maps a function's lower-case name to its rule; each rule_func_*.go
// file registers its family in an init function (registerFunc).
var funcRules = map[string]funcRule{}

// registerFunc registers r under each of names (lower case).
func registerFunc(r funcRule, names ...string) {
	for _, n := range names {
		funcRules[n] = r
	}
}

// call compiles the functions of SPEC 2 by their rules, or by the function
// table's signatures (rule_func_table.go). The arguments are compiled first
// (their errors come first), then an unknown name is an error at the call
// that names the closest functions streamql has.
func (sc *scope) call(n *ast.FuncCallExpr) (*Expr, error) {
	name := n.FnName.L
	r, ok := funcRules[name]
	c := &funcCall{sc: sc, n: n, name: name}
	if ok && r.raw {
		return r.compile(c)
	}
	c.args = make([]*Expr, len(n.Args))
	for i, a := range n.Args {
		e, err := sc.compile(a)
		if err != nil {
			return nil, err
		}
		c.args[i] = e
	}
	if !ok {
		if f := functions.Lookup(name); f != nil && !f.Rule {
			return c.bindTable(f)
		}
		if f := sc.funcs.Lookup(name); f != nil { // a user function (SPEC 2.10)
			return c.bindTable(f)
		}
		return nil, sc.unknownFunction(n)
	}
	return r.compile(c)
}

// writtenName returns a call's function name as the script spells it, upper
// case: TiDB renames some calls (CHAR becomes char_func), and a message must
// name what the user wrote. Without a position it falls back to TiDB's name.
func (sc *scope) writtenName(n *ast.FuncCallExpr) string {
	if sc.locate != nil {
		if p := sc.locate(n); p >= 0 && p < len(sc.src) {
			end := p
			for end < len(sc.src) && (sc.src[end] == '_' || sc.src[end] >= 0x80 || unicode.IsLetter(rune(sc.src[end])) || unicode.IsDigit(rune(sc.src[end]))) {
				end++
			}
			if w := sc.src[p:end]; w != "" && !unicode.IsDigit(rune(w[0])) {
				return strings.ToUpper(w)
			}
		}
	}
	return strings.ToUpper(n.FnName.O)
}

// arity returns an error at the call unless it has lo to hi arguments.
func (c *funcCall) arity(lo, hi int) error {
	if len(c.args) < lo || len(c.args) > hi {
		want := strconv.Itoa(lo)
		if hi != lo {
			want = strconv.Itoa(lo) + " to " + strconv.Itoa(hi)
		}
		return parser.Errorf(c.sc.pos(c.n), "%s takes %s arguments, got %d", strings.ToUpper(c.name), want, len(c.args))
	}
	return nil
}

// needText converts argument i to VARCHAR (NULL only) or returns an error at it
// that suggests CAST.
func (c *funcCall) needText(i int) error {
	c.args[i] = coerce(c.args[i], catalog.Varchar)
	if c.args[i].Type != catalog.Varchar {
		return parser.Errorf(c.sc.pos(c.n.Args[i]), "%s needs text, got %s (%s); use CAST(... AS VARCHAR)", strings.ToUpper(c.name), exprTextOf(c.args[i]), c.args[i].Type)
	}
	return nil
}

// needInt converts argument i to BIGINT (NULL only) or returns an error at it.
func (c *funcCall) needInt(i int) error {
	c.args[i] = coerce(c.args[i], catalog.BigInt)
	if c.args[i].Type != catalog.BigInt {
		return parser.Errorf(c.sc.pos(c.n.Args[i]), "%s needs a BIGINT here, got %s", strings.ToUpper(c.name), c.args[i].Type)
	}
	return nil
}

// allConst reports whether every one of args is constant.
func allConst(args []*Expr) bool {
	for _, a := range args {
		if !a.Const {
			return false
		}
	}
	return true
}
