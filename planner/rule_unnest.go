package planner

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"streamql/catalog"
	"streamql/parser"
	"streamql/planner/plan"
)

// ruleUnnest plans FROM s CROSS JOIN UNNEST(x) AS t (c, ...) and FROM s
// LEFT JOIN UNNEST(x) AS t (c, ...) ON TRUE (SPEC 2.10): x, an ARRAY or MAP
// column of s (or a ROW's field, or any expression of s's columns), is
// compiled over s's batch (an ARRAY of ROW unnests into a column per field
// when t names as many, as Flink's, or into one ROW column); the query then reads s's columns and the new ones (t.c, or c
// alone), each row of s repeated per element (plan.Unnest, run by
// executor/unnest.go). The new columns stand after s's, so s's event-time
// column, watermark and errors stay as they are; each unnested row carries
// s's watermark before its input row, so a row that gives none moves the
// watermark too (executor's carriesWatermark).
func ruleUnnest(sp *selectPlan, u *parser.Unnest) error {
	sel := sp.sel
	if sp.join != nil && sp.join.Right != nil || sp.sel.Window != nil || sp.q.From == nil {
		return parser.Errorf(u.Pos, "CROSS JOIN UNNEST reads one stream: it cannot be combined with another join, a window function or a query without FROM")
	}
	inner := sp.st
	innerTypes, innerWM := batchLayout(inner)
	// x, a column reference or an expression over the inner stream
	var node ast.ExprNode
	locate, casts, text := sel.Locate, sel.Casts, strings.Join(u.Path, ".")
	if f := u.Expr; f != nil {
		node, text = f.Expr, f.Text
		locate, casts = f.Locate, parser.CastTypes{}
		for n, t := range sel.Casts {
			casts[n] = t
		}
		for n, t := range f.Casts {
			casts[n] = t
		}
	} else {
		name := &ast.ColumnName{}
		switch p := u.Path; len(p) {
		case 1:
			name.Name = ast.NewCIStr(p[0])
		case 2:
			name.Table, name.Name = ast.NewCIStr(p[0]), ast.NewCIStr(p[1])
		default:
			name.Schema, name.Table, name.Name = ast.NewCIStr(p[0]), ast.NewCIStr(p[1]), ast.NewCIStr(p[2])
		}
		node = &ast.ColumnNameExpr{Name: name}
	}
	outer := locate
	isc := &scope{
		rels: []relation{{stream: inner, name: sp.name}},
		locate: func(n ast.Node) int {
			if n == node {
				return u.PathPos
			}
			return outer(n)
		},
		casts: casts, src: sp.p.Source,
		watermark: func(int) int { return innerWM },
		uses:      make([]bool, len(innerTypes)),
		ticks:     sp.ticks,
		funcs:     sp.p.Funcs,
	}
	x, err := isc.compile(node)
	if err != nil {
		return err
	}
	if u.Expr != nil {
		x.Text = text // (as written, for EXPLAIN)
	}
	var types []catalog.Type
	rowFields := false
	cols := u.Columns
	if u.Ordinality { // (the position: the last column, BIGINT)
		if len(cols) < 2 {
			return parser.Errorf(u.ColumnPos[0], "UNNEST ... WITH ORDINALITY gives the element's columns and its position: AS t (e, pos), or AS t (k, v, pos) for a MAP")
		}
		u = &parser.Unnest{Columns: cols[:len(cols)-1], ColumnPos: u.ColumnPos, PathPos: u.PathPos, Path: u.Path, Expr: u.Expr, Left: u.Left, Alias: u.Alias, AliasPos: u.AliasPos, Pos: u.Pos, Ordinality: true}
	}
	switch x.Type.Kind() {
	case catalog.KindArray:
		fs := x.Type.Elem().Fields()
		switch {
		case len(u.Columns) > 1 && len(u.Columns) == len(fs): // (an ARRAY of ROW: a column per field, Flink's)
			for _, f := range fs {
				types = append(types, f.Type)
			}
			rowFields = true
		case len(u.Columns) != 1 && len(fs) > 1:
			return parser.Errorf(u.ColumnPos[0], "UNNEST of an ARRAY of ROW (%s is %s) gives a column per field, AS t (%s), or the whole ROW, AS t (%s)", text, x.Type, fieldNames(fs), u.Columns[0])
		case len(u.Columns) != 1:
			return parser.Errorf(u.ColumnPos[0], "UNNEST of an ARRAY (%s is %s) gives one column: AS t (%s)", text, x.Type, u.Columns[0])
		default:
			types = []catalog.Type{x.Type.Elem()}
		}
	case catalog.KindMap:
		if len(u.Columns) != 2 {
			return parser.Errorf(u.ColumnPos[0], "UNNEST of a MAP (%s is %s) gives two columns, key and value: AS t (k, v)", text, x.Type)
		}
		types = []catalog.Type{x.Type.Key(), x.Type.Elem()}
	default:
		return parser.Errorf(u.PathPos, "UNNEST needs an ARRAY or a MAP; %s is %s", text, x.Type)
	}
	alias := u.Alias
	if alias == "" {
		alias = "UNNEST"
	}
	if u.Ordinality {
		types = append(types, catalog.BigInt)
	}
	for k, c := range cols {
		for j := range k {
			if strings.EqualFold(cols[j], c) {
				return parser.Errorf(u.ColumnPos[k], "UNNEST's column %s is named twice", c)
			}
		}
	}
	clause := "CROSS JOIN UNNEST("
	if u.Left {
		clause = "LEFT JOIN UNNEST("
	}
	clause += text + ")"
	if u.Ordinality {
		clause += " WITH ORDINALITY"
	}
	clause += " AS " + alias + " (" + strings.Join(cols, ", ") + ")"
	if u.Left {
		clause += " ON TRUE"
	}
	sp.unnest = &plan.Unnest{Inner: inner, InnerTypes: innerTypes, Expr: x, Left: u.Left, Ordinality: u.Ordinality, RowFields: rowFields, Text: clause}
	sp.st = plan.UnnestedStream(inner, alias, cols, types)
	newCols := &catalog.Stream{Name: alias, EventTime: -1, Columns: sp.st.Columns[len(inner.Columns):]}
	batch, wm := batchLayout(sp.st)
	sp.wm = wm
	sp.sc = &scope{
		rels:   []relation{{stream: inner, name: sp.name}, {stream: newCols, name: alias, offset: len(inner.Columns)}},
		locate: sel.Locate, casts: sel.Casts, src: sp.p.Source,
		watermark: func(int) int { return wm },
		uses:      make([]bool, len(batch)),
		ticks:     sp.ticks,
		funcs:     sp.p.Funcs,
		prefer:    -1,
	}
	return nil
}

// ruleUnnestJob gives a job whose query unnests (SPEC 2.10) its Unnest.
func ruleUnnestJob(j *Job) {
	for _, b := range j.AllBranches() {
		if b.Unnest != nil {
			j.Unnest = b.Unnest
			return
		}
	}
}

// fieldNames lists a ROW's field names, as an UNNEST's columns would be
// written.
func fieldNames(fs []catalog.Field) string {
	names := make([]string, len(fs))
	for k, f := range fs {
		names[k] = f.Name
	}
	return strings.Join(names, ", ")
}
