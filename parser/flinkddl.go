package parser

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"streamql/internal/termtext"
)

// This file holds Flink's DDL spellings (SPEC 1 and SPEC 3: "Where this SPEC
// names a Flink SQL statement or option, its Flink spelling works"): CREATE
// [TEMPORARY] TABLE, DROP TABLE, SHOW TABLES, SHOW CREATE TABLE, SET; and the
// column forms of a Flink table (computed columns, PRIMARY KEY ... NOT
// ENFORCED, Kafka METADATA columns).

// Fragment is one expression written inside a DDL statement (a computed
// column's), parsed by TiDB in script coordinates like Watermark.Expr.
type Fragment struct {
	Expr   ast.ExprNode
	Text   string // the expression's source text
	Pos    int    // offset of the expression
	Casts  CastTypes
	Locate Locator
	// File is the script that declared it: Pos and Locate's offsets are into
	// its text.
	File *File
}

// ShowSettings is SET without a key (Flink's SET;): it lists the session's
// settings with their values (SPEC 3).
type ShowSettings struct{ Range }

// ShowCreate is SHOW CREATE TABLE name (also SHOW CREATE STREAM name): the
// CREATE statement that declares the stream as streamql would write it.
type ShowCreate struct {
	Range
	Name    string
	NamePos int
}

// MetadataKeys are the Kafka metadata keys of Flink's Kafka connector that a
// METADATA column may read (SPEC 1).
var MetadataKeys = []string{"timestamp", "partition", "offset", "headers", "key"}

// createTable parses the rest of CREATE [TEMPORARY] TABLE as CREATE STREAM
// (Flink's spelling, SPEC 3); c stands after TABLE.
func (ps *parseState) createTable(c *cursor, span Range, temporary bool) (Stmt, *Error) {
	st, err := ps.createStream(c, span)
	if err != nil {
		return nil, err
	}
	st.(*CreateStream).Temporary = temporary
	return st, nil
}

// columnElement parses one element of a CREATE STREAM column list that is
// not WATERMARK FOR: PRIMARY KEY (k, ...) NOT ENFORCED (into cs), a computed
// column name AS expr, or a typed column with an optional METADATA clause.
// It reports col false for a PRIMARY KEY.
func (ps *parseState) columnElement(c *cursor, cs *CreateStream) (ColumnDef, bool, *Error) {
	t := c.peek()
	if t.is("CONSTRAINT") && c.peekAt(2).is("PRIMARY") {
		c.i += 2 // CONSTRAINT name PRIMARY KEY ...
		t = c.peek()
	}
	if t.is("PRIMARY") && c.peekAt(1).is("KEY") {
		return ColumnDef{}, false, ps.primaryKey(c, cs)
	}
	if (t.Kind == TokIdent || t.Kind == TokQuotedIdent) && c.peekAt(1).is("AS") {
		col, err := ps.computedColumn(c)
		skipComment(c)
		return col, true, err
	}
	col, err := columnDef(ps.src, c)
	if err != nil {
		return col, true, err
	}
	if c.peek().is("METADATA") {
		err = metadata(c, &col)
	}
	skipComment(c)
	return col, true, err
}

// primaryKey parses PRIMARY KEY (k, ...) NOT ENFORCED into cs. Flink refuses
// an enforced key on its tables; so does streamql, saying how to write it.
func (ps *parseState) primaryKey(c *cursor, cs *CreateStream) *Error {
	pos := c.next().Offset
	c.next() // KEY
	if cs.PrimaryKey != nil {
		return Errorf(pos, "a stream has at most one PRIMARY KEY")
	}
	if !c.op("(") {
		return c.expected("'(' and the key columns: PRIMARY KEY (k) NOT ENFORCED")
	}
	var keys []string
	for {
		k, _, err := c.name("a key column in PRIMARY KEY (...)")
		if err != nil {
			return err
		}
		keys = append(keys, k)
		if c.op(")") {
			break
		}
		if !c.op(",") {
			return c.expected("',' or ')' in PRIMARY KEY (...)")
		}
	}
	if !c.word("NOT") || !c.word("ENFORCED") {
		return Errorf(pos, "streamql does not enforce keys, as Flink does not: write PRIMARY KEY (%s) NOT ENFORCED", strings.Join(keys, ", "))
	}
	cs.PrimaryKey, cs.PrimaryKeyPos = keys, pos
	return nil
}

// computedColumn parses name AS expr (the expression runs to the next ',' or
// ')' outside parentheses).
func (ps *parseState) computedColumn(c *cursor) (ColumnDef, *Error) {
	var col ColumnDef
	var err *Error
	if col.Name, col.Pos, err = c.name("a column name"); err != nil {
		return col, err
	}
	c.next() // AS
	f, err := ps.fragment(c, "the expression of computed column "+col.Name+" after AS, e.g. "+col.Name+" AS TO_TIMESTAMP_LTZ(ms, 3)")
	if err != nil {
		return col, err
	}
	col.Computed, col.TypePos = f, f.Pos
	return col, nil
}

// fragment parses the expression that runs from c to the next ',' or ')'
// outside parentheses, or a COMMENT 'text' (a WATERMARK's or a computed
// column's); what is the
// message for a missing one ("expected " + what).
func (ps *parseState) fragment(c *cursor, what string) (*Fragment, *Error) {
	from, depth := c.i, 0
	for !c.atEnd() {
		t := c.peek()
		if depth == 0 && (t.isOp(",") || t.isOp(")") || t.is("COMMENT") && c.peekAt(1).Kind == TokString) {
			break
		}
		if t.isOp("(") {
			depth++
		} else if t.isOp(")") {
			depth--
		}
		c.next()
	}
	if c.i == from {
		return nil, c.expected(what)
	}
	toks := c.toks[from:c.i]
	f := &Fragment{Pos: toks[0].Offset, File: ps.file}
	end := toks[len(toks)-1].End()
	f.Text = ps.src[f.Pos:end]
	expr, info, err := ps.parseFragment(c.all, toks, f.Pos, end)
	if err != nil {
		return nil, err
	}
	f.Expr, f.Casts, f.Locate = expr, info.casts, info.locate
	return f, nil
}

// metadata parses METADATA [FROM 'key'] [VIRTUAL] after a column's type
// into col (SPEC 1: Flink's Kafka connector's metadata columns).
func metadata(c *cursor, col *ColumnDef) *Error {
	col.MetadataPos = c.next().Offset
	col.Metadata = strings.ToLower(col.Name)
	if c.word("FROM") {
		k := c.peek()
		if k.Kind != TokString {
			return c.expected("the metadata key as a quoted string: METADATA FROM 'timestamp'")
		}
		c.next()
		col.Metadata = k.Value()
		col.MetadataPos = k.Offset
	}
	ok := false
	for _, k := range MetadataKeys {
		ok = ok || k == col.Metadata
	}
	if !ok {
		return Errorf(col.MetadataPos, "unknown Kafka metadata key '%s'; keys: %s (write METADATA FROM 'timestamp')", termtext.Shorten(col.Metadata, 30), strings.Join(MetadataKeys, ", "))
	}
	col.Virtual = c.word("VIRTUAL")
	return nil
}

// showCreate parses SHOW CREATE TABLE|STREAM name; c stands at CREATE.
func (ps *parseState) showCreate(c *cursor, span Range) (Stmt, *Error) {
	c.next() // CREATE
	if !c.word("TABLE") && !c.word("STREAM") {
		return nil, c.expected("TABLE or STREAM after SHOW CREATE: SHOW CREATE TABLE name")
	}
	sc := &ShowCreate{Range: span}
	var err *Error
	if sc.Name, sc.NamePos, err = c.name("a stream name"); err != nil {
		return nil, err
	}
	return sc, c.expectEnd("SHOW CREATE TABLE " + sc.Name)
}

// insertColumns reads the optional column list of INSERT INTO name (a, b)
// SELECT (t starts at INSERT): the names, their offsets, and the index in t
// of SELECT; at is -1 when t is not of that shape (INSERT ... VALUES).
func insertColumns(t []Token) (cols []string, pos []int, at int) {
	if t[3].is("SELECT") {
		return nil, nil, 3
	}
	if !t[3].isOp("(") {
		return nil, nil, -1
	}
	i := 4
	for ; i+1 < len(t); i += 2 {
		if t[i].Kind != TokIdent && t[i].Kind != TokQuotedIdent {
			return nil, nil, -1
		}
		cols, pos = append(cols, t[i].Value()), append(pos, t[i].Offset)
		if t[i+1].isOp(")") {
			if i+2 < len(t) && t[i+2].is("SELECT") {
				return cols, pos, i + 2
			}
			return nil, nil, -1
		}
		if !t[i+1].isOp(",") {
			return nil, nil, -1
		}
	}
	return nil, nil, -1
}
