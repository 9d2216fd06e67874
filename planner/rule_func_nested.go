package planner

import (
	"strconv"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/test_driver"

	"streamql/catalog"
	"streamql/catalog/functions"
	"streamql/parser"
	"streamql/planner/plan"
)

// The nested types' operators and functions (SPEC 2.10): the parser writes
// arr[i], map['k'] and arr[i].field as ITEM calls and the constructors
// ARRAY[...], MAP[...], ROW(...) as *_VALUE_CONSTRUCTOR calls (Calcite's
// names); row.field reaches the planner as a qualified column name
// (rowField). Each rule types the call from its arguments' types, which the
// function table's signatures cannot express, and reports a wrong argument
// with a caret under it.
func init() {
	registerFunc(funcRule{compile: ruleItem}, "item")
	registerFunc(funcRule{compile: ruleCardinality}, "cardinality", "sq_cardinal")
	registerFunc(funcRule{compile: ruleElement}, "element")
	registerFunc(funcRule{compile: ruleArrayCtor}, "array_value_constructor")
	registerFunc(funcRule{compile: ruleMapCtor}, "map_value_constructor")
	registerFunc(funcRule{compile: ruleRowCtor}, "row_value_constructor")
}

// ruleItem is x[i]: an ARRAY's element i (BIGINT, from 1), a MAP's value for
// a key of its key type, or a ROW's field named by a text constant.
func ruleItem(c *funcCall) (*Expr, error) {
	if err := c.arity(2, 2); err != nil {
		return nil, err
	}
	x, k := c.args[0], c.args[1]
	at := func(i int) int { return c.sc.pos(c.n.Args[i]) }
	var t catalog.Type
	switch x.Type.Kind() {
	case catalog.KindArray:
		if k = coerce(k, catalog.BigInt); k.Type != catalog.BigInt {
			return nil, parser.Errorf(at(1), "an ARRAY's index is a BIGINT (from 1), got %s (%s)", exprTextOf(k), k.Type)
		}
		t = x.Type.Elem()
	case catalog.KindMap:
		if k = coerce(k, x.Type.Key()); k.Type != x.Type.Key() {
			return nil, parser.Errorf(at(1), "the keys of %s (%s) are %s, got %s (%s)", exprTextOf(x), x.Type, x.Type.Key(), exprTextOf(k), k.Type)
		}
		t = x.Type.Elem()
	case catalog.KindRow:
		name, ok := fieldName(c.n.Args[1])
		if !ok {
			return nil, parser.Errorf(at(1), "a ROW's field is named: write row.field or row['field']")
		}
		f := x.Type.FieldIndex(name)
		if f < 0 {
			return nil, unknownField(at(1), name, exprTextOf(x), x.Type)
		}
		t = x.Type.Fields()[f].Type
	default:
		return nil, parser.Errorf(at(0), "[...] needs an ARRAY, a MAP or a ROW; %s is %s", exprTextOf(x), x.Type)
	}
	return c.sc.tableCall(c.n, functions.Lookup("ITEM"), t, []*Expr{x, k})
}

// fieldName returns the text constant a ROW's field is named by.
func fieldName(n ast.ExprNode) (string, bool) {
	v, ok := n.(*test_driver.ValueExpr)
	if !ok || v.Kind() != test_driver.KindString {
		return "", false
	}
	return v.GetString(), true
}

// unknownField is the error of a field a ROW type lacks, at pos: it lists
// the fields it has.
func unknownField(pos int, name, of string, t catalog.Type) error {
	var names []string
	for _, f := range t.Fields() {
		names = append(names, f.Name)
	}
	return parser.Errorf(pos, "unknown field '%s' of %s (%s); it has %s (field names are case-sensitive)", name, of, t, strings.Join(names, ", "))
}

// rowField compiles a qualified name whose qualifier is not a stream but a
// ROW column (row.field, t.row.field, row.a.b): the field, as ITEM calls. It
// returns nil, nil when the name is an ordinary column reference.
func (sc *scope) rowField(n *ast.ColumnNameExpr) (*Expr, error) {
	schema, tbl, col := n.Name.Schema.O, n.Name.Table.O, n.Name.Name.O
	if tbl == "" {
		return nil, nil
	}
	var base *ast.ColumnNameExpr
	var fields []string
	switch {
	case schema == "" && sc.rel(tbl) < 0:
		base = &ast.ColumnNameExpr{Name: &ast.ColumnName{Name: n.Name.Table}}
		fields = []string{col}
	case schema != "" && sc.rel(schema) >= 0:
		base = &ast.ColumnNameExpr{Name: &ast.ColumnName{Table: n.Name.Schema, Name: n.Name.Table}}
		fields = []string{col}
	case schema != "":
		base = &ast.ColumnNameExpr{Name: &ast.ColumnName{Name: n.Name.Schema}}
		fields = []string{tbl, col}
	default:
		return nil, nil
	}
	idx, t, err := sc.column(base)
	if err != nil || t.Kind() != catalog.KindRow {
		return nil, nil // the ordinary lookup reports the name
	}
	sc.use(idx)
	x := &Expr{Op: plan.OpCol, Type: t, Col: idx}
	x.Text = base.Name.String()
	f := functions.Lookup("ITEM")
	for _, name := range fields {
		if x.Type.Kind() != catalog.KindRow {
			return nil, parser.Errorf(sc.pos(n), "'.%s' needs a ROW; %s is %s", name, x.Text, x.Type)
		}
		k := x.Type.FieldIndex(name)
		if k < 0 {
			return nil, unknownField(sc.pos(n), name, x.Text, x.Type)
		}
		lit := strConst(name, "'"+name+"'")
		e := &Expr{Op: plan.OpFunc, Fn: f.Key(), Type: x.Type.Fields()[k].Type, Args: []*Expr{x, lit}}
		e.Text = x.Text + "." + name
		x = build(e)
	}
	return x, nil
}

// ruleCardinality is CARDINALITY(x) of an ARRAY or a MAP.
func ruleCardinality(c *funcCall) (*Expr, error) {
	if err := c.arity(1, 1); err != nil {
		return nil, err
	}
	if k := c.args[0].Type.Kind(); k != catalog.KindArray && k != catalog.KindMap {
		return nil, parser.Errorf(c.sc.pos(c.n.Args[0]), "CARDINALITY needs an ARRAY or a MAP, got %s (%s)", exprTextOf(c.args[0]), c.args[0].Type)
	}
	return c.sc.tableCall(c.n, functions.Lookup("CARDINALITY"), catalog.BigInt, c.args)
}

// ruleElement is ELEMENT(arr) of an ARRAY.
func ruleElement(c *funcCall) (*Expr, error) {
	if err := c.arity(1, 1); err != nil {
		return nil, err
	}
	if c.args[0].Type.Kind() != catalog.KindArray {
		return nil, parser.Errorf(c.sc.pos(c.n.Args[0]), "ELEMENT needs an ARRAY, got %s (%s)", exprTextOf(c.args[0]), c.args[0].Type)
	}
	return c.sc.tableCall(c.n, functions.Lookup("ELEMENT"), c.args[0].Type.Elem(), c.args)
}

// commonOf returns the common type of es (SPEC 2: BIGINT with DOUBLE is
// DOUBLE) and es converted to it; what ARRAY[...] of only NULLs would be is
// an error asking for a CAST.
func (c *funcCall) commonOf(es []*Expr, what string) (catalog.Type, error) {
	t, err := c.sc.commonType(c.n, es)
	if err != nil {
		return 0, err
	}
	if t == catalog.Unknown {
		return 0, parser.Errorf(c.sc.pos(c.n), "the %s of %s are all NULL: give one a type, e.g. CAST(NULL AS BIGINT)", what, c.sc.writtenName(c.n))
	}
	for k, e := range es {
		es[k] = coerce(e, t)
	}
	return t, nil
}

// ruleArrayCtor is ARRAY[a, b, ...]: an ARRAY of the values' common type.
func ruleArrayCtor(c *funcCall) (*Expr, error) {
	if len(c.args) == 0 {
		return nil, parser.Errorf(c.sc.pos(c.n), "ARRAY[] needs at least one element (Flink's rule); write ARRAY[CAST(NULL AS BIGINT)] for one NULL")
	}
	t, err := c.commonOf(c.args, "elements")
	if err != nil {
		return nil, err
	}
	return c.sc.tableCall(c.n, functions.Lookup("ARRAY_VALUE_CONSTRUCTOR"), catalog.ArrayOf(t), c.args)
}

// ruleMapCtor is MAP[k1, v1, ...]: a MAP of the keys' and the values'
// common types.
func ruleMapCtor(c *funcCall) (*Expr, error) {
	if len(c.args) == 0 || len(c.args)%2 != 0 {
		return nil, parser.Errorf(c.sc.pos(c.n), "MAP[...] takes keys and values in pairs: MAP['a', 1, 'b', 2]; got %d values", len(c.args))
	}
	var keys, vals []*Expr
	for k, a := range c.args {
		if k%2 == 0 {
			keys = append(keys, a)
		} else {
			vals = append(vals, a)
		}
	}
	kt, err := c.commonOf(keys, "keys")
	if err != nil {
		return nil, err
	}
	if kt.IsNested() {
		return nil, parser.Errorf(c.sc.pos(c.n.Args[0]), "a MAP's keys must be BIGINT, DOUBLE, VARCHAR, BOOLEAN or TIMESTAMP, got %s", kt)
	}
	vt, err := c.commonOf(vals, "values")
	if err != nil {
		return nil, err
	}
	for k := range c.args {
		if k%2 == 0 {
			c.args[k] = keys[k/2]
		} else {
			c.args[k] = vals[k/2]
		}
	}
	return c.sc.tableCall(c.n, functions.Lookup("MAP_VALUE_CONSTRUCTOR"), catalog.MapOf(kt, vt), c.args)
}

// ruleRowCtor is ROW(a, b, ...): a ROW whose fields are named EXPR$0,
// EXPR$1, ... (Flink's names) with the values' types.
func ruleRowCtor(c *funcCall) (*Expr, error) {
	if len(c.args) == 0 {
		return nil, parser.Errorf(c.sc.pos(c.n), "ROW() needs at least one value")
	}
	fields := make([]catalog.Field, len(c.args))
	for k, a := range c.args {
		if a.Type == catalog.Unknown {
			return nil, parser.Errorf(c.sc.pos(c.n.Args[k]), "a ROW field cannot be a bare NULL: give it a type, e.g. CAST(NULL AS BIGINT)")
		}
		fields[k] = catalog.Field{Name: "EXPR$" + strconv.Itoa(k), Type: a.Type}
	}
	return c.sc.tableCall(c.n, functions.Lookup("ROW_VALUE_CONSTRUCTOR"), catalog.RowOf(fields), c.args)
}
