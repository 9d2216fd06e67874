// Package parser turns streamql text into statements: a tokenizer and statement
// splitter of its own (with byte offsets, lines and columns), and a front-end that
// peels off the streaming clauses (CREATE STREAM, WATERMARK FOR, WITH, INTO SIDE,
// SEMI/ANTI JOIN, RUN, SHOW SIDES, DROP SIDE, ...) and hands the rest to
// github.com/pingcap/tidb/pkg/parser (DESIGN: parser). It also owns Error, the
// positioned error every later stage returns, and its rendering with a caret.
//
// Offsets: every offset in a Script (spans, name positions, Error.Offset, what a
// Locator returns) is a byte offset into Script.Source, the whole script, never
// into one statement or into the text given to TiDB. Position turns an offset into
// a line and a column; FormatError renders an Error with the source line (a
// window of about 80 columns of a long line, control characters as \xNN) and a
// caret. Each Script has a File (name and text, as go/token's File); an Error
// whose File is set is rendered against that script even when another one is
// running (a WATERMARK declared in a.sql, reported while b.sql runs).
//
// Limits: a statement nesting deeper than MaxNesting (1000) levels is refused by
// the front-end, before TiDB and the recursive walks over its AST see it. A bare
// reserved word (IsReserved) is not a stream or column name; back-quoted it is.
//
// Flink's spellings (flinkddl.go, groupwindow.go) are read here too: CREATE
// [TEMPORARY] TABLE, DROP TABLE, SHOW TABLES, SHOW CREATE TABLE, SET; with no
// key, computed, METADATA and PRIMARY KEY column forms, INSERT INTO t (cols)
// SELECT, and the legacy group windows GROUP BY k, TUMBLE(ts, ...) with their
// TUMBLE_START-like functions, which become the query's window TVF (TiDB sees
// window_start, window_end and window columns in their place); a quoted file
// name in FROM ('sensors.csv') becomes a back-quoted name (Select.Files).
//
// TiDB sees each SELECT and INSERT (and each WATERMARK expression, as SELECT
// <expr>) with comments and extension clauses blanked out by spaces of the same
// length (a replacement of another length keeps an offset map, so positions
// still map back), and with CAST types it does not know replaced by stand-ins; its AST is
// therefore valid, but TiDB's own texts (SelectField.Text is reset to the source
// text; other nodes' Text) and FuncCastExpr.Tp must not be trusted: use
// Select.FieldText, the Casts maps and the Locators. See tidb.go for the AST shapes
// the planner gets (INTERVAL arithmetic, CAST, SEMI/ANTI JOIN, IN and EXISTS
// subqueries, LIKE ... ESCAPE).
package parser
