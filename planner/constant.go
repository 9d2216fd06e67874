package planner

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"streamql/catalog"
	"streamql/catalog/functions"
	"streamql/catalog/textconv"
	"streamql/parser"
	"streamql/planner/plan"
)

// PlanInsert binds an INSERT INTO s [(cols)] VALUES (...), ... to its stream and
// evaluates its values: constant expressions, converted to their column's type
// by CAST's rules (a conversion that fails is an error, not NULL). Columns left
// out of a column list are NULL. The stream must be a 'values' stream, and its
// event-time column (WATERMARK FOR) cannot be NULL. Nothing is inserted when an
// error is found. Errors are *parser.Error at the offending token.
func (p *Planner) PlanInsert(ins *parser.Insert) (*Insert, error) {
	start, _ := ins.Span()
	pos := func(n ast.Node) int {
		if n == nil || ins.Locate == nil {
			return start
		}
		return ins.Locate(n)
	}
	st := p.Cat.Lookup(ins.Stream)
	if st == nil {
		return nil, parser.Errorf(ins.StreamPos, "unknown stream '%s'; %s", ins.Stream, p.streamList())
	}
	if !st.Connector.TakesInsert {
		return nil, parser.Errorf(ins.StreamPos, "INSERT INTO adds rows to a 'values' stream; %s reads connector '%s' (declare one WITH ('connector' = 'values'))", st.Name, st.Connector.Name)
	}
	out := &Insert{Stream: st}
	st = st.Physical()                      // (a computed column takes no value, as in Flink)
	cols := make([]int, 0, len(st.Columns)) // stream column of each value
	if len(ins.Columns) == 0 {
		for i := range st.Columns {
			cols = append(cols, i)
		}
	} else {
		for k, name := range ins.Columns {
			i := st.Column(name)
			if i < 0 {
				return nil, parser.Errorf(ins.ColumnPos[k], "unknown column '%s'; %s has %s", name, st.Name, strings.Join(st.Names(), ", "))
			}
			for _, j := range cols {
				if j == i {
					return nil, parser.Errorf(ins.ColumnPos[k], "column '%s' is listed twice", name)
				}
			}
			cols = append(cols, i)
		}
	}
	if et := st.EventTime; et >= 0 && st.Watermark != nil {
		listed := false
		for _, i := range cols {
			listed = listed || i == et
		}
		if !listed {
			return nil, parser.Errorf(ins.StreamPos, "column '%s' is the event time of %s (WATERMARK FOR) and needs a value", st.Columns[et].Name, st.Name)
		}
	}
	sc := &scope{locate: ins.Locate, casts: ins.Casts, src: p.Source, watermark: func(int) int { return -1 }}
	for r, exprs := range ins.Rows {
		if len(exprs) != len(cols) {
			at := ins.StreamPos
			if len(exprs) > 0 {
				at = pos(exprs[0])
			}
			return nil, parser.Errorf(at, "row %d has %d value(s) but %d column(s) are inserted (%s)", r+1, len(exprs), len(cols), columnNames(st, cols))
		}
		row := make([]Value, len(st.Columns))
		for i := range row {
			row[i].Null = true
		}
		for k, n := range exprs {
			c := st.Columns[cols[k]]
			v, err := sc.constant(n, c)
			if err != nil {
				return nil, err
			}
			if v.Null && cols[k] == st.EventTime && st.Watermark != nil {
				return nil, parser.Errorf(pos(n), "column '%s' is the event time of %s (WATERMARK FOR) and cannot be NULL", c.Name, st.Name)
			}
			row[cols[k]] = v
		}
		out.Rows = append(out.Rows, row)
	}
	return out, nil
}

func columnNames(st *catalog.Stream, cols []int) string {
	n := make([]string, len(cols))
	for k, i := range cols {
		n[k] = st.Columns[i].Name
	}
	return strings.Join(n, ", ")
}

// colRef finds the first column reference in an expression.
type colRef struct{ found *ast.ColumnNameExpr }

func (c *colRef) Enter(n ast.Node) (ast.Node, bool) {
	if x, ok := n.(*ast.ColumnNameExpr); ok && c.found == nil {
		c.found = x
	}
	return n, c.found != nil
}

func (c *colRef) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// constant compiles the constant expression n, converts it to column c's type and
// evaluates it.
func (sc *scope) constant(n ast.ExprNode, c catalog.Column) (Value, error) {
	var cr colRef
	n.Accept(&cr)
	if cr.found != nil {
		name, at := cr.found.Name.Name.O, sc.pos(cr.found)
		why := "a column name"
		if at >= 0 && at < len(sc.src) && sc.src[at] == '"' {
			why = "a name (double quotes quote names)"
		}
		return Value{}, parser.Errorf(at, "VALUES takes constants, and %s is %s; write text in single quotes: '%s'", name, why, strings.ReplaceAll(name, "'", "''"))
	}
	e, err := sc.compile(n)
	if err != nil {
		return Value{}, err
	}
	if !e.Const {
		return Value{}, parser.Errorf(sc.pos(n), "VALUES takes constants: %s is not one", e.Text)
	}
	if e.Type == catalog.Unknown { // NULL
		return Value{Null: true}, nil
	}
	if c.Type.IsNested() {
		return nestedConstant(sc, n, e, c)
	}
	if e.Type.IsNested() {
		return Value{}, parser.Errorf(sc.pos(n), "column '%s' is %s, and this value is %s", c.Name, c.Type, e.Type)
	}
	raw := plan.Constants().Fold(e)
	if raw.Null {
		return Value{Null: true}, nil
	}
	v := plan.Constants().Fold(castTo(e, c.Type))
	if v.Null {
		text := string(appendScalar(nil, e.Type, raw))
		return Value{}, parser.Errorf(sc.pos(n), "%s %s cannot be read as %s for column '%s'", e.Type, quoteIf(e.Type, text), c.Type, c.Name)
	}
	switch c.Type {
	case catalog.BigInt, catalog.Timestamp, catalog.Double, catalog.Boolean:
	case catalog.Varchar:
		if v.S == nil {
			v.S = []byte{}
		}
	default:
		return Value{}, fmt.Errorf("column %s: unexpected type %s", c.Name, c.Type)
	}
	return v, nil
}

// nestedConstant returns the value of e, the constant n, for column c of an
// ARRAY, MAP or ROW type (SPEC 2.10's types are columns of any stream, a
// values stream's too): e is cast to c's type as CAST does (Flink's
// ArrayToArray, MapToMap and RowToRow rules: a ROW by position) and held as
// its JSON text (JSON_STRING's), which the values stream reads as the json
// format reads a nested value (executor/connector's Table). A value of another
// type is an error that names both types.
func nestedConstant(sc *scope, n ast.ExprNode, e *Expr, c catalog.Column) (Value, error) {
	if !e.Type.IsNested() || !catalog.NestedCastable(e.Type, c.Type) {
		what := map[catalog.Kind]string{catalog.KindArray: "ARRAY[...]", catalog.KindMap: "MAP[key, value, ...]", catalog.KindRow: "ROW(...)"}[c.Type.Kind()]
		return Value{}, parser.Errorf(sc.pos(n), "column '%s' is %s, and this value is %s: write an %s of that type (or NULL)", c.Name, c.Type, e.Type, what)
	}
	jsonOf := func(x *Expr) (Value, error) {
		f := functions.Lookup("JSON_STRING")
		js, err := sc.tableCall(&ast.FuncCallExpr{FnName: ast.NewCIStr(f.Name), Args: []ast.ExprNode{n}}, f, catalog.Varchar, []*Expr{x})
		if err != nil {
			return Value{}, err
		}
		return plan.Constants().Fold(js), nil
	}
	v, err := jsonOf(castTo(e, c.Type))
	if err != nil || !v.Null {
		return Value{S: v.S}, err
	}
	// NULL: the value's, or a cast that failed (an error, as for a scalar)
	if raw, err := jsonOf(e); err != nil {
		return Value{}, err
	} else if !raw.Null {
		return Value{}, parser.Errorf(sc.pos(n), "%s %s cannot be read as %s for column '%s'", e.Type, raw.S, c.Type, c.Name)
	}
	return Value{Null: true}, nil
}

func quoteIf(t catalog.Type, s string) string {
	if t == catalog.Varchar {
		return "'" + strings.ReplaceAll(s, "'", "''") + "'"
	}
	return s
}

// noFromStream returns the stream a SELECT without FROM reads (SPEC 2): one row of
// no columns (connector NoFrom), a new one per query.
func noFromStream() *catalog.Stream {
	return &catalog.Stream{Name: "(no FROM)", EventTime: -1, Connector: NoFrom, Options: map[string]string{}}
}

// checkNoFrom checks a SELECT without FROM: its select list and WHERE may not name
// a column or use *, since no stream is read (a *parser.Error at the name).
func checkNoFrom(q *ast.SelectStmt, pos func(ast.Node) int) error {
	for _, f := range q.Fields.Fields {
		if f.WildCard != nil {
			return parser.Errorf(pos(f), "* needs FROM <stream>: a SELECT without FROM has no columns")
		}
	}
	var c colCollector
	q.Fields.Accept(&c)
	if q.Where != nil {
		q.Where.Accept(&c)
	}
	if len(c.cols) > 0 {
		return parser.Errorf(pos(c.cols[0]), "unknown column '%s': a SELECT without FROM reads no stream; add FROM <stream>", c.cols[0].Name.Name.O)
	}
	return nil
}

// appendScalar appends v, of the scalar type t, as it prints (SPEC 4, the
// rules of catalog/textconv that the executor's printers follow too).
func appendScalar(dst []byte, t catalog.Type, v Value) []byte {
	switch t {
	case catalog.BigInt:
		return strconv.AppendInt(dst, v.I, 10)
	case catalog.Double:
		return textconv.AppendDouble(dst, v.F)
	case catalog.Boolean:
		return strconv.AppendBool(dst, v.B)
	case catalog.Timestamp:
		return textconv.AppendTimestamp(dst, v.I)
	}
	return append(dst, v.S...)
}
