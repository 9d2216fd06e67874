package parser

import (
	"fmt"
	"strings"

	"github.com/pingcap/tidb/pkg/parser"

	"streamql/internal/termtext"
)

// supported lists the statements of the dialect, for error messages.
const supported = "streamql supports CREATE STREAM (or TABLE), DROP STREAM, SHOW STREAMS, SHOW CREATE STREAM, DESCRIBE, " +
	"CREATE [TEMPORARY] VIEW, DROP VIEW, SHOW VIEWS, CREATE [TEMPORARY] FUNCTION, DROP FUNCTION, SHOW FUNCTIONS, " +
	"SELECT (and WITH ... SELECT), EXPLAIN [ANALYZE] SELECT, INSERT INTO ... VALUES, INSERT INTO ... SELECT, SHOW SIDES, DROP SIDE, RUN and SET"

// Parse splits src (a script, a REPL entry or an -e argument) into statements at
// ';' (outside strings, quoted identifiers and comments) and parses every one of
// them before returning, so that a syntax error anywhere means nothing runs (SPEC 4).
// name is recorded as Script.Name for messages. Empty statements (";;") and
// comments produce no statement; a script of only spaces and comments parses to a
// Script without statements.
//
// The streaming extensions (CREATE STREAM with WATERMARK and WITH, INTO SIDE,
// SEMI/ANTI JOIN, SHOW SIDES, DROP SIDE, RUN, SET, ...) are parsed here; SELECT and
// INSERT ... VALUES go to the TiDB parser after the extension clauses have been
// blanked out with spaces (see Select, Insert, Watermark).
//
// On failure Parse returns nil and the first error in the script as an *Error whose
// Offset is the byte offset in src of the offending token (0 <= Offset <=
// len(src)); its message never shows the text handed to TiDB. Render it with
// FormatError.
func Parse(name, src string) (*Script, error) {
	f := NewFile(name, src)
	ps := &parseState{src: src, file: f}
	sc := &Script{Name: name, Source: src, File: f}
	for _, rs := range split(Tokens(src)) {
		st, err := ps.safeStmt(&rs)
		if err != nil {
			err.File = f
			return nil, err
		}
		sc.Stmts = append(sc.Stmts, st)
	}
	return sc, nil
}

// parseState is the state of one Parse call: the script and one TiDB parser, made
// when the first statement needs it (a *parser.Parser is not safe for concurrent
// use, so it is never shared between Parse calls).
type parseState struct {
	src  string
	file *File
	tidb *parser.Parser
}

// safeStmt parses one statement and turns a panic (in TiDB or here) into an error
// at the statement, so that no input crashes the REPL.
func (ps *parseState) safeStmt(rs *rawStmt) (st Stmt, err *Error) {
	defer func() {
		if r := recover(); r != nil {
			st, err = nil, Errorf(rs.start, "internal error while parsing this statement: %v", r)
		}
	}()
	return ps.stmt(rs)
}

func (ps *parseState) stmt(rs *rawStmt) (Stmt, *Error) {
	for _, t := range rs.all {
		if t.Kind == TokError {
			return nil, lexError(t)
		}
	}
	if err := checkNesting(rs.toks); err != nil {
		return nil, err
	}
	first := rs.toks[0]
	span := Range{Start: rs.start, End: rs.end}
	c := &cursor{toks: rs.toks, all: rs.all, end: rs.end}
	if first.isOp("(") {
		return ps.selectStmt(rs, 0)
	}
	if first.Kind != TokIdent {
		return nil, Errorf(first.Offset, "a statement cannot start with %s: %s", describe(first), supported)
	}
	kw := strings.ToUpper(first.Text)
	c.next()
	switch kw {
	case "SELECT":
		return ps.selectStmt(rs, 0)
	case "WITH":
		return ps.selectStmt(rs, 0)
	case "EXPLAIN":
		return ps.explain(rs, c, span)
	case "INSERT":
		if len(rs.toks) > 1 && rs.toks[1].is("OVERWRITE") {
			return nil, Errorf(rs.toks[1].Offset, "INSERT OVERWRITE is not supported: write INSERT INTO (a file sink's 'sink.mode' = 'truncate', the default, replaces the file when the job starts)")
		}
		if sel, ok, err := ps.insertSelect(rs, 0); ok {
			if err != nil {
				return nil, err
			}
			return sel, nil
		}
		return ps.insertStmt(rs)
	case "CREATE":
		return ps.create(c, span)
	case "DROP":
		return ps.drop(c, span)
	case "SHOW":
		return ps.show(c, span)
	case "DESCRIBE", "DESC":
		return ps.describe(c, span)
	case "RUN":
		if err := c.expectEnd("RUN"); err != nil {
			return nil, err
		}
		return &Run{span}, nil
	case "SET":
		return ps.set(c, span)
	case "UPDATE", "DELETE", "REPLACE", "TRUNCATE", "MERGE", "UPSERT":
		return nil, Errorf(first.Offset, "%s is not supported: streams are append-only (INSERT INTO s VALUES (...) adds rows to a values stream)", kw)
	case "ALTER":
		return nil, Errorf(first.Offset, "ALTER is not supported: DROP STREAM and CREATE STREAM it again")
	case "EXECUTE", "BEGIN", "END":
		// Flink's statement sets (EXECUTE STATEMENT SET BEGIN ... END; the SQL
		// client's BEGIN STATEMENT SET; ... END;) run INSERTs as one job that
		// gives each INSERT every row; streamql's one-scan form is first-match
		return nil, Errorf(first.Offset, "statement sets (EXECUTE STATEMENT SET BEGIN ... END, BEGIN STATEMENT SET) are not supported: write each INSERT INTO ... SELECT as a statement of its own (each runs as a job), or route one scan to several sinks with SELECT ... INTO STREAM s (first match, SPEC 2.5)")
	}
	msg := fmt.Sprintf("unknown statement %s: %s", termtext.Shorten(first.Text, 30), supported)
	if k := didYouMean(first.Text, statementWords); k != "" {
		msg = fmt.Sprintf("unknown statement %s (did you mean %s?): %s", termtext.Shorten(first.Text, 30), k, supported)
	}
	return nil, &Error{Offset: first.Offset, Msg: msg}
}

var statementWords = []string{"SELECT", "EXPLAIN", "INSERT", "CREATE", "DROP", "SHOW", "DESCRIBE", "RUN", "SET"}

// lexError is the error for a TokError token.
func lexError(t Token) *Error {
	switch {
	case strings.HasPrefix(t.Text, "'"):
		return Errorf(t.Offset, "unterminated string: this ' is never closed (inside a string write '' for a quote)")
	case strings.HasPrefix(t.Text, "`"):
		return Errorf(t.Offset, "unterminated quoted identifier: this ` is never closed")
	case strings.HasPrefix(t.Text, `"`):
		return Errorf(t.Offset, `unterminated quoted identifier: this " is never closed (strings use single quotes)`)
	}
	return Errorf(t.Offset, "unterminated comment: this /* is never closed by */")
}

// insertSelect parses INSERT INTO s SELECT ... starting at token index from
// of rs: a main query into the sink s (SPEC 2.5). It reports false when the
// tokens are not of that shape (INSERT INTO s VALUES).
func (ps *parseState) insertSelect(rs *rawStmt, from int) (*Select, bool, *Error) {
	t := rs.toks[from:]
	if len(t) <= 3 || !t[1].is("INTO") || t[2].Kind != TokIdent && t[2].Kind != TokQuotedIdent {
		return nil, false, nil
	}
	cols, pos, at := insertColumns(t)
	if at < 0 {
		return nil, false, nil
	}
	sel, err := ps.selectStmt(rs, from+at)
	if err != nil {
		return nil, true, err
	}
	if sel.Side != "" || sel.Stream != "" {
		return nil, true, Errorf(t[0].Offset, "INSERT INTO %s SELECT is a main query: it cannot also have INTO SIDE or INTO STREAM", termtext.Shorten(t[2].Value(), 30))
	}
	sel.Insert, sel.InsertPos, sel.Start = t[2].Value(), t[2].Offset, t[0].Offset
	sel.InsertColumns, sel.InsertColumnPos = cols, pos
	return sel, true, nil
}

func (ps *parseState) explain(rs *rawStmt, c *cursor, span Range) (Stmt, *Error) {
	analyze := c.word("ANALYZE") // EXPLAIN ANALYZE <query> (SPEC 3)
	what := "EXPLAIN"
	if analyze {
		what = "EXPLAIN ANALYZE"
	}
	format, err := explainFormat(c)
	if err != nil {
		return nil, err
	}
	if format == "JSON" && analyze {
		return nil, Errorf(span.Start, "EXPLAIN ANALYZE prints text only: write EXPLAIN ANALYZE <query> or EXPLAIN (FORMAT JSON) <query>")
	}
	t := c.peek()
	if t.is("INSERT") {
		if sel, ok, err := ps.insertSelect(rs, c.i); ok {
			if err != nil {
				return nil, err
			}
			return &Explain{Range: span, Query: sel, Analyze: analyze, JSON: format == "JSON"}, nil
		}
	}
	switch {
	case t.is("SELECT") || t.isOp("(") || t.is("WITH"):
		sel, err := ps.selectStmt(rs, c.i)
		if err != nil {
			return nil, err
		}
		return &Explain{Range: span, Query: sel, Analyze: analyze, JSON: format == "JSON"}, nil
	case c.atEnd():
		return nil, c.expected("a SELECT statement after " + what)
	case (t.Kind == TokIdent || t.Kind == TokQuotedIdent) && c.i+1 == len(c.toks):
		return nil, Errorf(t.Offset, "%s takes a SELECT statement; to see the columns of a stream write DESCRIBE %s", what, t.Text)
	}
	return nil, Errorf(t.Offset, "%s takes a SELECT statement: %s SELECT ...", what, what)
}

func (ps *parseState) create(c *cursor, span Range) (Stmt, *Error) {
	t := c.peek()
	switch {
	case c.word("STREAM"):
		return ps.createStream(c, span)
	case functionWord(c):
		return ps.createFunction(c, span)
	case c.word("TABLE"): // Flink's spelling (SPEC 3)
		return ps.createTable(c, span, false)
	case t.is("TEMPORARY") && c.peekAt(1).is("TABLE"):
		c.i += 2
		return ps.createTable(c, span, true)
	case c.word("VIEW"): // SPEC 2.6
		return ps.createView(c, span)
	case t.is("TEMPORARY") && c.peekAt(1).is("VIEW"):
		c.i += 2
		return ps.createView(c, span)
	case t.is("SOURCE"):
		return nil, Errorf(t.Offset, "CREATE %s is not supported: use CREATE STREAM name (col TYPE, ...) WITH ('connector' = ...)", strings.ToUpper(t.Text))
	case c.atEnd():
		return nil, c.expected("STREAM after CREATE")
	}
	return nil, Errorf(t.Offset, "CREATE %s is not supported: streamql has CREATE STREAM only", termtext.Shorten(t.Text, 30))
}

// createStream parses the rest of CREATE STREAM [IF NOT EXISTS] name (elements) [WITH (options)].
func (ps *parseState) createStream(c *cursor, span Range) (Stmt, *Error) {
	cs := &CreateStream{Range: span, WithPos: span.Start}
	if t := c.peek(); t.is("IF") && c.peekAt(1).isOp("(") {
		return nil, reservedError(t) // CREATE STREAM if (...)
	}
	if c.word("IF") {
		if !c.word("NOT") || !c.word("EXISTS") {
			return nil, c.expected("IF NOT EXISTS")
		}
		cs.IfNotExists = true
	}
	var err *Error
	if cs.Name, cs.NamePos, err = c.name("a stream name"); err != nil {
		return nil, err
	}
	if c.peek().isOp(".") {
		return nil, Errorf(c.peek().Offset, "stream names cannot be qualified: write one name, quoted as `a.b` if needed")
	}
	if c.peek().is("WITH") {
		cs.Infer = true // SPEC 1: the schema is inferred from the file
		return ps.withOptions(c, cs)
	}
	if !c.op("(") {
		return nil, c.expected("'(' and the column list after CREATE STREAM " + cs.Name)
	}
	if c.peek().isOp(")") {
		return nil, Errorf(c.peek().Offset, "a stream needs at least one column: CREATE STREAM %s (col TYPE, ...)", cs.Name)
	}
	for {
		if c.peek().is("WATERMARK") && c.peekAt(1).is("FOR") {
			wmPos := c.peek().Offset
			if cs.Watermark != nil {
				return nil, Errorf(wmPos, "a stream has at most one WATERMARK")
			}
			c.i += 2
			wm, err := ps.watermark(c)
			if err != nil {
				return nil, err
			}
			cs.Watermark = wm
		} else {
			col, isCol, err := ps.columnElement(c, cs)
			if err != nil {
				return nil, err
			}
			if isCol {
				cs.Columns = append(cs.Columns, col)
			}
		}
		if c.op(")") {
			break
		}
		if !c.op(",") {
			return nil, c.expected("',' or ')' in the column list")
		}
		if c.peek().isOp(")") {
			return nil, Errorf(c.peek().Offset, "expected a column after ',', found ')'")
		}
	}
	if len(cs.Columns) == 0 {
		return nil, Errorf(cs.NamePos, "a stream needs at least one column besides its WATERMARK")
	}
	skipComment(c) // (a table's COMMENT 'text', as Flink's DDL has it)
	if c.atEnd() {
		return cs, nil
	}
	if !c.peek().is("WITH") {
		return nil, c.expected("WITH (...) or the end of the statement after the column list")
	}
	return ps.withOptions(c, cs)
}

// withOptions parses WITH (options) into cs, at the end of its statement.
func (ps *parseState) withOptions(c *cursor, cs *CreateStream) (Stmt, *Error) {
	cs.WithPos = c.next().Offset
	if !c.op("(") {
		return nil, c.expected("'(' after WITH")
	}
	seen := map[string]bool{}
	for !c.op(")") {
		if len(cs.Options) > 0 && !c.op(",") {
			return nil, c.expected("',' or ')' in the WITH options")
		}
		o, err := option(c, "WITH options are written 'key' = 'value'")
		if err != nil {
			return nil, err
		}
		if seen[o.Key] {
			return nil, Errorf(o.KeyPos, "option '%s' is given twice", o.Key)
		}
		seen[o.Key] = true
		cs.Options = append(cs.Options, o)
	}
	if err := c.expectEnd("WITH (...)"); err != nil {
		return nil, err
	}
	return cs, nil
}

// option parses 'key' = 'value'.
func option(c *cursor, form string) (Option, *Error) {
	var o Option
	k := c.peek()
	if k.Kind != TokString {
		return o, c.expected("a quoted option name: " + form)
	}
	c.next()
	o.Key, o.KeyPos = k.Value(), k.Offset
	if !c.op("=") {
		return o, c.expected("'=' after '" + termtext.Shorten(o.Key, 30) + "': " + form)
	}
	v := c.peek()
	if v.Kind != TokString {
		if c.atEnd() {
			return o, c.expected("a quoted value: " + form)
		}
		return o, Errorf(v.Offset, "option values are quoted strings: write '%s' = '%s'", termtext.Shorten(o.Key, 30), termtext.Shorten(v.Value(), 30))
	}
	c.next()
	o.Value, o.ValuePos = v.Value(), v.Offset
	return o, nil
}

// columnDef parses name TYPE, the type running to the next ',' or ')' outside
// parentheses and the angle brackets of ARRAY<T>, MAP<K, V> and ROW<...>
// (SPEC 2.10).
func columnDef(src string, c *cursor) (ColumnDef, *Error) {
	var col ColumnDef
	var err *Error
	if col.Name, col.Pos, err = c.name("a column name"); err != nil {
		return col, err
	}
	t := c.peek()
	if c.atEnd() || t.Kind != TokIdent {
		return col, c.expected("the type of column " + col.Name + " (BIGINT, DOUBLE, VARCHAR, BOOLEAN or TIMESTAMP)")
	}
	col.TypePos = t.Offset
	var b strings.Builder
	depth := 0
	prevEnd := -1
	for !c.atEnd() {
		t := c.peek()
		if depth == 0 && (t.isOp(",") || t.isOp(")") || t.is("METADATA") || t.is("COMMENT") && c.peekAt(1).Kind == TokString) {
			break
		}
		if depth == 0 && t.is("NOT") && c.peekAt(1).is("NULL") {
			return col, Errorf(t.Offset, "NOT NULL is not supported: streamql's columns are nullable (an empty or missing value is NULL, SPEC 1); drop NOT NULL from column %s", col.Name)
		}
		if t.isOp("(") {
			depth++
		} else if t.isOp(")") {
			depth--
		} else if t.Kind == TokOp {
			depth += angleDepth(t.Text)
		}
		if prevEnd >= 0 && t.Offset > prevEnd {
			b.WriteByte(' ')
		}
		b.WriteString(t.Text)
		prevEnd = t.End()
		c.next()
	}
	col.Type = b.String()
	return col, nil
}

// skipComment consumes Flink DDL's COMMENT 'text' (of a column or a table)
// when it is next: streamql keeps no comments.
func skipComment(c *cursor) {
	if c.peek().is("COMMENT") && c.peekAt(1).Kind == TokString {
		c.i += 2
	}
}

// angleDepth returns the change of angle-bracket depth an operator token
// makes inside a type ('<' opens, '>' closes; the lexer may join them, as
// in ">>"), 0 for other operators.
func angleDepth(op string) int {
	d := 0
	for _, r := range op {
		switch r {
		case '<':
			d++
		case '>':
			d--
		default:
			return 0
		}
	}
	return d
}

// watermark parses col AS expr (after WATERMARK FOR).
func (ps *parseState) watermark(c *cursor) (*Watermark, *Error) {
	wm := &Watermark{}
	var err *Error
	if wm.Column, wm.ColumnPos, err = c.name("the event-time column after WATERMARK FOR"); err != nil {
		return nil, err
	}
	if !c.word("AS") {
		return nil, c.expected("AS and the watermark expression: WATERMARK FOR " + wm.Column + " AS " + wm.Column + " - INTERVAL '5' SECOND")
	}
	f, err := ps.fragment(c, "the watermark expression after AS, e.g. "+wm.Column+" - INTERVAL '5' SECOND")
	if err != nil {
		return nil, err
	}
	wm.Fragment = *f
	return wm, nil
}

func (ps *parseState) drop(c *cursor, span Range) (Stmt, *Error) {
	t := c.peek()
	switch {
	case c.word("STREAM") || c.word("TABLE"): // DROP TABLE: Flink's spelling (SPEC 3)
		ds := &DropStream{Range: span}
		if t := c.peek(); t.is("IF") && c.i+1 == len(c.toks) {
			return nil, reservedError(t) // DROP STREAM if
		}
		if c.word("IF") {
			if !c.word("EXISTS") {
				return nil, c.expected("EXISTS after DROP STREAM IF")
			}
			ds.IfExists = true
		}
		var err *Error
		if ds.Name, ds.NamePos, err = c.name("a stream name"); err != nil {
			return nil, err
		}
		return ds, c.expectEnd("DROP STREAM " + ds.Name)
	case functionWord(c):
		return ps.dropFunction(c, span)
	case c.word("SIDE"):
		n := c.peek()
		if n.Kind != TokString {
			if n.Kind == TokIdent || n.Kind == TokQuotedIdent {
				return nil, Errorf(n.Offset, "side names are quoted strings: DROP SIDE '%s'", termtext.Shorten(n.Value(), 30))
			}
			return nil, c.expected("the side name as a quoted string: DROP SIDE 'name'")
		}
		c.next()
		if err := checkSideName(n); err != nil {
			return nil, err
		}
		return &DropSide{Range: span, Name: n.Value(), NamePos: n.Offset}, c.expectEnd("DROP SIDE " + n.Text)
	case c.word("VIEW"): // SPEC 2.6
		return ps.dropView(c, span)
	case t.is("TEMPORARY") && c.peekAt(1).is("VIEW"):
		c.i += 2
		return ps.dropView(c, span)
	case c.atEnd():
		return nil, c.expected("STREAM, VIEW, FUNCTION or SIDE after DROP")
	}
	return nil, Errorf(t.Offset, "DROP %s is not supported: use DROP STREAM name, DROP VIEW name, DROP FUNCTION name or DROP SIDE 'name'", termtext.Shorten(t.Text, 30))
}

func (ps *parseState) show(c *cursor, span Range) (Stmt, *Error) {
	t := c.peek()
	switch {
	case c.word("STREAMS"):
		return &ShowStreams{span}, c.expectEnd("SHOW STREAMS")
	case c.word("SIDES"):
		return &ShowSides{span}, c.expectEnd("SHOW SIDES")
	case c.word("FUNCTIONS"):
		return &ShowFunctions{span}, c.expectEnd("SHOW FUNCTIONS")
	case c.word("VIEWS"): // SPEC 2.6
		return &ShowViews{span}, c.expectEnd("SHOW VIEWS")
	case c.word("TABLES"): // Flink's spelling (SPEC 3)
		return &ShowStreams{span}, c.expectEnd("SHOW TABLES")
	case t.is("CREATE"):
		return ps.showCreate(c, span)
	case c.atEnd():
		return nil, c.expected("STREAMS, VIEWS, SIDES or FUNCTIONS after SHOW")
	}
	return nil, Errorf(t.Offset, "SHOW %s is not supported: use SHOW STREAMS, SHOW VIEWS, SHOW SIDES or SHOW FUNCTIONS", termtext.Shorten(t.Text, 30))
}

func (ps *parseState) describe(c *cursor, span Range) (Stmt, *Error) {
	if c.peek().is("STREAM") && !c.atEnd() && c.i+1 < len(c.toks) {
		c.next() // DESCRIBE STREAM name
	}
	if t := c.peek(); t.is("SELECT") && c.i+1 < len(c.toks) {
		return nil, Errorf(t.Offset, "DESCRIBE takes a stream name; to see a query's plan write EXPLAIN SELECT ...")
	}
	d := &Describe{Range: span}
	if t := c.peek(); t.Kind == TokString {
		c.next() // DESCRIBE 'file.csv' (SPEC 1): the schema inferred from the file
		d.File, d.NamePos = t.Value(), t.Offset
		return d, c.expectEnd("DESCRIBE " + t.Text)
	}
	var err *Error
	if d.Name, d.NamePos, err = c.name("a stream name after DESCRIBE"); err != nil {
		return nil, err
	}
	return d, c.expectEnd("DESCRIBE " + d.Name)
}

func (ps *parseState) set(c *cursor, span Range) (Stmt, *Error) {
	const form = "SET 'key' = 'value' (key and value in single quotes)"
	if c.atEnd() {
		return &ShowSettings{span}, nil // Flink's SET; lists the settings (SPEC 3)
	}
	if k := c.peek(); k.Kind == TokIdent || k.Kind == TokQuotedIdent {
		v := c.peekAt(2)
		val := "value"
		if c.peekAt(1).isOp("=") && (v.Kind == TokIdent || v.Kind == TokString || v.Kind == TokNumber) {
			val = v.Value()
		}
		return nil, Errorf(k.Offset, "settings are quoted strings: write SET '%s' = '%s'", termtext.Shorten(k.Value(), 30), termtext.Shorten(val, 30))
	}
	o, err := option(c, form)
	if err != nil {
		return nil, err
	}
	return &Set{Range: span, Option: o}, c.expectEnd(form)
}

// didYouMean returns the word of words closest to w when it is a likely typo of it
// (and not w itself), else "".
func didYouMean(w string, words []string) string {
	u := strings.ToUpper(w)
	if len(u) < 3 || len(u) > 20 {
		return ""
	}
	best, bestD := "", 3
	for _, k := range words {
		if k == u {
			return ""
		}
		d := osaDistance(u, k)
		limit := 1
		if len(k) >= 5 {
			limit = 2
		}
		if d <= limit && d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// osaDistance is the optimal string alignment distance (Levenshtein plus
// transpositions of neighbours: FORM -> FROM is 1).
func osaDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// explainFormat consumes EXPLAIN's option list `(FORMAT JSON)` or `(FORMAT
// TEXT)` (SPEC 3 and 4, "Finding out why"; PostgreSQL's spelling) when it is
// next, and returns the format's name in upper case ("" when there is no
// list). A '(' that does not start FORMAT is left for a parenthesized
// SELECT. The error for another format names the two there are.
func explainFormat(c *cursor) (string, *Error) {
	if !c.peek().isOp("(") || !c.peekAt(1).is("FORMAT") {
		return "", nil
	}
	c.i += 2
	f := c.next()
	name := strings.ToUpper(f.Text)
	if (f.Kind != TokIdent && f.Kind != TokQuotedIdent) || (name != "JSON" && name != "TEXT") {
		return "", Errorf(f.Offset, "EXPLAIN (FORMAT ...) takes JSON or TEXT")
	}
	if !c.op(")") {
		return "", c.expected("')' after EXPLAIN (FORMAT " + name)
	}
	return name, nil
}
