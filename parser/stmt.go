package parser

import "github.com/pingcap/tidb/pkg/parser/ast"

// Script is a whole parsed script (or one REPL entry, or one -e argument).
// Every offset in its statements is a byte offset into Source.
type Script struct {
	Name   string // file path as given, "-e", "stdin" or "repl"; used in error messages
	Source string // the full text as read
	// File resolves offsets of this script to its name, lines and columns; the
	// errors Parse returns carry it, and so may later errors (File.Attach).
	File  *File
	Stmts []Stmt
}

// Stmt is one statement of a script. Concrete types: *CreateStream, *DropStream,
// *Select, *Explain, *Insert, *Run, *ShowStreams, *ShowSides, *ShowFunctions, *DropSide,
// *Describe, *Set, *ShowSettings, *ShowCreate, *CreateFunction, *DropFunction.
type Stmt interface {
	// Span returns the statement's byte range [Start, End) in Script.Source,
	// without the terminating ';' and without leading comments or spaces.
	Span() (start, end int)
}

// Range is embedded in every statement; it records where the statement stands
// (byte offsets into Script.Source) and gives it its Span method.
type Range struct{ Start, End int }

// Span implements Stmt: it returns [Start, End).
func (r Range) Span() (int, int) { return r.Start, r.End }

// CreateStream is CREATE STREAM [IF NOT EXISTS] name (cols..., [WATERMARK FOR c AS e]) WITH (...).
type CreateStream struct {
	Range
	IfNotExists bool
	Name        string // as declared (back-quotes removed)
	NamePos     int
	Columns     []ColumnDef
	Watermark   *Watermark // nil when absent
	Options     []Option   // in the order written
	WithPos     int        // offset of WITH (or of the statement when absent)
	// Temporary is set for Flink's CREATE TEMPORARY TABLE (SPEC 3: the same
	// as CREATE STREAM; every stream lives as long as its session).
	Temporary bool
	// PrimaryKey holds the columns of PRIMARY KEY (k, ...) NOT ENFORCED (SPEC
	// 1, Flink's form), as written; nil when absent. PrimaryKeyPos is the
	// offset of PRIMARY.
	PrimaryKey    []string
	PrimaryKeyPos int
	// Infer is set when no column list was written (CREATE STREAM s WITH
	// (...)): the columns are inferred from the file (SPEC 1).
	Infer bool
}

// ColumnDef is one column of CREATE STREAM: a typed (physical) column, a
// computed column (name AS expr, Computed set, Type ""), or a Kafka metadata
// column (Metadata set), the forms of SPEC 1.
type ColumnDef struct {
	Name    string // as declared
	Type    string // the type as written, e.g. "VARCHAR(20)", "DECIMAL(10, 2)"; see catalog.ParseType
	Pos     int    // offset of the column name
	TypePos int    // offset of the type name (of the expression for a computed column)
	// Computed is the expression of a computed column (Flink's
	// ts AS TO_TIMESTAMP_LTZ(ms, 3)), nil for a typed column.
	Computed *Fragment
	// Metadata is the Kafka metadata key of col type METADATA [FROM 'key']
	// ('timestamp', 'partition', 'offset', 'headers' or 'key'; the column's
	// name when FROM is absent), "" for other columns; MetadataPos is the
	// offset of METADATA. Virtual records VIRTUAL (the column is not written
	// by a sink).
	Metadata    string
	MetadataPos int
	Virtual     bool
}

// Watermark is WATERMARK FOR Column AS Expr (SPEC 2.3). Expr is TiDB's AST of the
// expression; its positions are in script coordinates via Locate. File is the
// script that declared the stream: Pos, ColumnPos and Locate's offsets are
// into its text, which may be another script than the query's.
type Watermark struct {
	Column    string
	ColumnPos int
	Fragment
}

// Option is one 'key' = 'value' pair of WITH (...) or SET.
type Option struct {
	Key, Value       string // unquoted ('' already turned into ')
	KeyPos, ValuePos int
}

// JoinKind marks a join written with our extension syntax.
type JoinKind uint8

// The join kinds of SPEC 2.2 written as joins. IN / EXISTS subqueries keep TiDB's
// own AST (PatternInExpr / ExistsSubqueryExpr) and are lowered by the planner.
const (
	InnerJoin JoinKind = iota // no extension: a plain TiDB join
	SemiJoin                  // a SEMI JOIN b ON ...
	AntiJoin                  // a ANTI JOIN b ON ...
	FullJoin                  // a FULL [OUTER] JOIN b ON ... (SPEC 2.7; MySQL has no FULL JOIN)
)

// CastTypes maps each CAST in a statement to the SPEC type name that was written
// (e.g. "BIGINT", "VARCHAR(10)"), since the front-end hands TiDB a stand-in type.
type CastTypes map[*ast.FuncCastExpr]string

// Locator returns the script offset of a node of the statement's TiDB AST, best
// effort, for error carets:
//   - expressions: their first token, from TiDB's OriginTextPosition (a column
//     reference: its first identifier, s in s.a; a function call or CAST: the
//     function name; a binary operation: its left operand; a subquery: its '(');
//   - select fields: their first token (also * and s.*);
//   - table names: the name in FROM / JOIN / INSERT INTO; SELECT statements: their
//     SELECT keyword; LIMIT: the LIMIT keyword;
//   - joins: their JOIN keyword, SEMI/ANTI word, or comma;
//   - other nodes: the earliest position among their children, else their
//     parent's (a TimeUnitExpr points at its DATE_ADD/DATE_SUB, a count(*)'s
//     synthetic argument at count);
//   - a node not from this statement: the start of the statement.
type Locator func(n ast.Node) int

// Select is a SELECT statement: a main query, or a side branch when Side != "".
type Select struct {
	Range
	Side    string // INTO SIDE 'name' (before FROM or at the end); "" for a main query
	SidePos int    // offset of the side name's string literal
	// Stream is the sink stream of INTO STREAM name (SPEC 2.5: a side branch
	// whose rows go to that sink), StreamPos the name's offset; "" when none.
	Stream    string
	StreamPos int
	// Insert is the sink stream of INSERT INTO name SELECT ... (SPEC 2.5: a
	// main query whose rows go to that sink), InsertPos the name's offset; ""
	// when none.
	Insert    string
	InsertPos int
	// InsertColumns is the column list of INSERT INTO name (col, ...) SELECT
	// (the query's columns go to these sink columns, in order; the others get
	// NULL), InsertColumnPos each name's offset; nil when none was written.
	InsertColumns   []string
	InsertColumnPos []int
	Query           *ast.SelectStmt
	// Derived maps the placeholder table names TiDB's AST has where a
	// subquery stood in FROM (FROM (SELECT ...) AS q, SPEC 2.6) to the
	// subquery, parsed on its own; nil when none.
	Derived map[string]*Relation
	// With holds the query's WITH q AS (...) definitions in order (SPEC
	// 2.6), nil when none; a later one and the query may read earlier ones.
	With []*CTE
	// Files holds the files read by a quoted name in FROM (FROM
	// 'sensors.csv', SPEC 1), by that name: TiDB's AST has the name as a
	// back-quoted table name, a stream whose schema is inferred from the file.
	// FilePos holds each name's offset. nil when none.
	Files   []string
	FilePos []int
	// Window is the window TVF read in FROM (SPEC 2.4), nil when none; TiDB's
	// AST then has the stream's name in its place.
	Window *WindowTVF
	// Unnest is the query's CROSS JOIN UNNEST (SPEC 2.10), nil when none;
	// TiDB's AST does not have it (it is blanked).
	Unnest *Unnest
	// Late is the name of LATE INTO SIDE 'name' (SPEC 2.4), "" when the query
	// has none; LatePos is the offset of the name's string literal.
	Late    string
	LatePos int
	// Late2 is the second name of LATE INTO SIDE 'x', 'y' (the late output of
	// a join's right input, SPEC 2.7), "" when none; Late2Pos its offset.
	Late2    string
	Late2Pos int
	// Joins marks the TiDB join nodes that were written as SEMI JOIN or ANTI JOIN
	// (TiDB parses them as inner joins after the front-end blanks the keyword).
	Joins map[*ast.Join]JoinKind
	// Simplified holds, for each outer join the planner made INNER (or a
	// FULL one LEFT or RIGHT) because the WHERE rejects the NULLs it pads
	// (Flink's outer-join simplification; the planner's
	// rule_simplify_outer_join.go), what EXPLAIN says of it: "LEFT -> INNER
	// (WHERE t.rn <= 10 rejects NULL rows)". nil when none.
	Simplified map[*ast.Join]string
	// AsOf holds, for each table name written with FOR SYSTEM_TIME AS OF col
	// (a temporal join's right side, SPEC 2.7), that clause.
	AsOf  map[*ast.TableName]AsOf
	Casts CastTypes
	// FieldText holds, for each select field with an expression (subqueries' too),
	// the expression's source text as written (comments inside it kept), alias excluded:
	// SPEC 2 names an unaliased column by it ("temperature * 2"). TiDB's own
	// SelectField.Text() must not be used: it is the rewritten text.
	FieldText map[*ast.SelectField]string
	Locate    Locator
	// Filters are the aggregate FILTER (WHERE cond) clauses (SPEC 2.9), which
	// the front-end takes out of the text TiDB parses: each condition, by the
	// offset of its aggregate call (Locate's offset of the call node).
	Filters map[int]*Fragment
}

// Explain is EXPLAIN <select>, or EXPLAIN ANALYZE <select> (Analyze set:
// the job runs with its outputs discarded and the plan shows what each
// operator did, SPEC 3), or EXPLAIN (FORMAT JSON) <select> (JSON set: the
// plan as one JSON document, SPEC 4 "Finding out why").
type Explain struct {
	Range
	Query   *Select
	Analyze bool
	JSON    bool
}

// Insert is INSERT INTO stream [(cols)] VALUES (...), (...).
type Insert struct {
	Range
	Stream    string
	StreamPos int
	Columns   []string // empty: all columns in order
	ColumnPos []int    // offset of each name in Columns
	Rows      [][]ast.ExprNode
	Casts     CastTypes
	Locate    Locator
}

// Run is RUN: run pending side branches (SPEC 2.1).
type Run struct{ Range }

// ShowStreams is SHOW STREAMS.
type ShowStreams struct{ Range }

// ShowSides is SHOW SIDES.
type ShowSides struct{ Range }

// DropStream is DROP STREAM [IF EXISTS] name.
type DropStream struct {
	Range
	IfExists bool
	Name     string
	NamePos  int
}

// DropSide is DROP SIDE 'name'.
type DropSide struct {
	Range
	Name    string
	NamePos int
}

// Describe is DESCRIBE name (also DESC name), or DESCRIBE 'file' (File set,
// Name "": the schema inferred from the file, SPEC 1).
type Describe struct {
	Range
	Name    string
	NamePos int
	File    string
}

// Set is SET 'key' = 'value' (SPEC 3).
type Set struct {
	Range
	Option
}
