package parser

import (
	"strings"
	"testing"
)

func TestParseErrors(t *testing.T) {
	long := strings.Repeat("x", 65)
	tests := []struct {
		src string
		msg string // a substring of the message
		at  string // the error is at the first occurrence of at ("$": at the end of the statement)
		n   int    // ... or at its n-th occurrence
	}{
		{"SELECT * FORM sensors", "syntax error near 'FORM sensors': did you mean FROM", "FORM", 0},
		// a LIMIT or OFFSET count that is not digits: what to write, at the count
		{"SELECT a FROM t LIMIT -1", "near '-1': LIMIT takes a whole number of rows written as digits, 0 or more (LIMIT 10); leave LIMIT out", "-1", 0},
		{"SELECT a FROM t LIMIT - 1", "LIMIT takes a whole number of rows", "- 1", 0},
		{"SELECT a FROM t LIMIT 1.5", "LIMIT takes a whole number of rows", "1.5", 0},
		{"SELECT a FROM t LIMIT 'a'", "LIMIT takes a whole number of rows", "'a'", 0},
		{"SELECT a FROM t LIMIT n", "LIMIT takes a whole number of rows", "n", 0},
		{"SELECT a FROM t LIMIT 1+1", "LIMIT takes a whole number of rows", "+1", 0},
		{"SELECT a FROM t LIMIT 99999999999999999999", "LIMIT's count is at most 9223372036854775807", "999", 0},
		{"SELECT a FROM t LIMIT 2 OFFSET -1", "OFFSET takes a whole number of rows written as digits, 0 or more", "-1", 0},
		// a time unit that is not one: the units that fit, at the unit
		{"SELECT TIMESTAMPADD(FOO, 1, ts) FROM t", "TIMESTAMPADD's first argument is a time unit, one of SECOND, MINUTE, HOUR, DAY, WEEK, MONTH, QUARTER or YEAR, not FOO", "FOO", 0},
		{"SELECT TIMESTAMPADD(MILLISECOND, 1, ts) FROM t", "not MILLISECOND", "MILLISECOND", 0},
		{"SELECT TIMESTAMPDIFF(FOO, ts, ts) FROM t", "TIMESTAMPDIFF's first argument is a time unit", "FOO", 0},
		{"SELECT EXTRACT(FOO FROM ts) FROM t", "EXTRACT takes a time unit before FROM", "FOO", 0},
		{"SELECT ts + INTERVAL '1' FOO FROM t", "an INTERVAL ends with a time unit", "FOO", 0},
		{"SELECT a FROM t WHERE", "ends too early", "$", 0},
		// a ',' ending a list with nothing: the comma is the cause, not the word after it
		{"SELECT a, FROM t", "a ',' stands before FROM with nothing after it: remove it", "FROM", 0},
		{"SELECT a FROM t GROUP BY a, ORDER BY a", "a ',' stands before ORDER with nothing after it", "ORDER", 0},
		{"SELECT a, COUNT(*) FROM t GROUP BY a, HAVING COUNT(*) > 1", "a ',' stands before HAVING", "HAVING", 0},
		{"SELECT CONCAT(a, ) FROM t", "a ',' stands before ) with nothing after it", ")", 0},
		{"SELECT a FROM t WHERE a IN (1, )", "a ',' stands before )", ")", 0},
		{"SELECT a FROM t GROUP BY a,", "a ',' ends the statement with nothing after it", "$", 0},
		// ... but a reserved word written as a name after a ',' is one
		{"SELECT a, order FROM t", "ORDER is a reserved word: write `order`", "order", 0},
		{"SELECT a, from FROM t", "FROM is a reserved word: write `from`", "from", 0},
		{"SELECT a, where, b FROM t", "WHERE is a reserved word", "where", 0},
		{"CREATE TABLE t (a INT, from INT)", "FROM is a reserved word: write `from`", "from", 0},
		{"CREATE TABLE t (a INT, order INT)", "ORDER is a reserved word", "order", 0},
		{"SELECT a FROM t WHERE f(a", "a ')' is missing", "$", 0},
		{"SELECT a FROM t WHERE key = 1", "KEY is a reserved word: write `key`", "key", 0},
		{"SELECT f(INTERVAL '5' SECOND) FROM t", "bare INTERVAL", ")", 0},
		{"SELECT INTERVAL '5' MINUTES AS x FROM t", "near 'AS x FROM t': a bare INTERVAL", "AS x", 0},
		{"SELECT a, INTERVAL '5' SECONDS AS x FROM t", "near 'AS x FROM t': a bare INTERVAL", "AS x", 0},
		{"SELECT 'abc", "unterminated string", "'abc", 0},
		{"SELECT 1; SELECT `abc", "unterminated quoted identifier", "`abc", 0},
		{"SELECT 1 /* abc", "unterminated comment", "/*", 0},
		{"CREATE TABLE t (a INT, PRIMARY KEY (a))", "write PRIMARY KEY (a) NOT ENFORCED", "PRIMARY", 0},
		{"CREATE TABLE t (a INT METADATA FROM 'topic')", "unknown Kafka metadata key 'topic'", "'topic'", 0},
		{"CREATE TABLE t (a INT, b AS )", "expected the expression of computed column b", ")", 0},
		{"CREATE VIEW v (a) AS SELECT 1", "a view's columns are named by its query", "(", 0},
		{"CREATE VIEW v", "expected AS after the view's name", "$", 0},
		{"SELECT * FROM (SELECT a FROM t INTO SIDE 'x') AS q", "INTO SIDE and INTO STREAM stand in the outermost query only", "'x'", 0},
		{"SELECT a FROM t UNION ALL SELECT b FROM u INTO SIDE 'x'", "not in a UNION ALL part: a side branch takes the rows of the one relation it reads; write the branch over the union, SELECT * INTO SIDE 'x' FROM (SELECT … UNION ALL SELECT …) AS u", "'x'", 0},
		{"SELECT a INTO STREAM s FROM t UNION ALL SELECT b FROM u", "or one branch per part, each INTO STREAM s", "s", 0},
		{"SELECT a FROM t EXCEPT SELECT b FROM u", "EXCEPT is not supported", "EXCEPT", 0},
		// LATE INTO SIDE names one or two late outputs: the name too many, or
		// an unquoted second one, is the cause, not the clause's place
		{"SELECT a.x FROM a JOIN b ON a.k = b.k LATE INTO SIDE 'x', 'y', 'z'", "names at most two late outputs, one per input of a join", ", 'z'", 0},
		{"SELECT a.x FROM a JOIN b ON a.k = b.k LATE INTO SIDE 'x', y", "two quoted names", ", y", 0},
		{"SELECT a.x FROM a JOIN b ON a.k = b.k LATE INTO SIDE 'x' LIMIT 3", "is the query's last clause: move it to the end", "LATE", 0},
		// WITH RECURSIVE: not supported, at RECURSIVE (it was taken for the
		// WITH name: "expected AS ( after RECURSIVE")
		{"WITH RECURSIVE r AS (SELECT 1 AS n) SELECT * FROM r", "WITH RECURSIVE is not supported", "RECURSIVE", 0},
		// two window TVFs in one FROM: how to write a window join
		{"SELECT * FROM TABLE(TUMBLE(TABLE a, DESCRIPTOR(t), INTERVAL '1' SECOND)) l JOIN TABLE(TUMBLE(TABLE b, DESCRIPTOR(t), INTERVAL '1' SECOND)) r ON l.k = r.k", "read each in a subquery", "TABLE(TUMBLE(TABLE b", 0},
		{"CREATE", "expected STREAM", "$", 0},
		{"UPDATE t SET a = 1", "append-only", "UPDATE", 0},
		{"DELETE FROM t", "append-only", "DELETE", 0},
		{"ALTER STREAM s ADD x INT", "ALTER is not supported", "ALTER", 0},
		{"SELECT CAST(s AS TIMESTAMP_LTZ(3)) FROM t", "unknown type TIMESTAMP_LTZ in CAST: streamql's TIMESTAMP(3) has no time zone", "TIMESTAMP_LTZ", 0},
		{"CREATE TABLE t (a STRING NOT NULL, b INT) WITH ('connector' = 'values')", "NOT NULL is not supported: streamql's columns are nullable (an empty or missing value is NULL, SPEC 1); drop NOT NULL from column a", "NOT", 0},
		{"INSERT OVERWRITE t SELECT * FROM s", "INSERT OVERWRITE is not supported: write INSERT INTO", "OVERWRITE", 0},
		{"SELECT * FROM s /*+ OPTIONS('path'='x.csv') */ WHERE a > 1", "dynamic table options (/*+ OPTIONS(...) */) are not supported: declare a stream", "/*+", 0},
		{"SELECT * FROM s a JOIN t /*+ options ('k'='v') */ ON a.k = t.k", "dynamic table options", "/*+", 0},
		{"EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT * FROM b", "statement sets (EXECUTE STATEMENT SET BEGIN ... END, BEGIN STATEMENT SET) are not supported: write each INSERT", "EXECUTE", 0},
		{"BEGIN STATEMENT SET", "statement sets", "BEGIN", 0},
		{"END", "statement sets", "END", 0},
		{"SELECT a FROM t UNION", "UNION stands between two queries", "UNION", 0},
		{"SELECT a FROM t ORDER BY 1 DESC NULLS LAST", "NULLS FIRST / NULLS LAST follows an ORDER BY expression", "NULLS", 0},
		{"WITH x (a) AS (SELECT 1) SELECT * FROM x", "column lists after the name are not supported", "(", 0},
		{"WITH x AS (SELECT 1), x AS (SELECT 2) SELECT * FROM x", "WITH defines x twice", "x AS (SELECT 2)", 0},
		{"SELEC * FROM t", "did you mean SELECT", "SELEC", 0},
		{"FOO bar", "unknown statement FOO", "FOO", 0},
		{"42", "cannot start with", "42", 0},
		{"SHOW CREATE VIEW v", "expected TABLE or STREAM after SHOW CREATE", "VIEW", 0},
		{"SHOW", "expected STREAMS, VIEWS, SIDES or FUNCTIONS", "$", 0},
		{"RUN now", "unexpected 'now' after RUN", "now", 0},
		{"DESCRIBE", "expected a stream name", "$", 0},
		{"DESCRIBE SELECT 1", "EXPLAIN", "SELECT", 0},
		{"EXPLAIN sensors", "DESCRIBE sensors", "sensors", 0},
		{"EXPLAIN", "expected a SELECT", "$", 0},
		{"EXPLAIN ANALYZE", "expected a SELECT statement after EXPLAIN ANALYZE", "$", 0},
		{"EXPLAIN ANALYZE sensors", "EXPLAIN ANALYZE takes a SELECT statement; to see the columns of a stream write DESCRIBE sensors", "sensors", 0},
		{"EXPLAIN ANALYZE 42", "EXPLAIN ANALYZE takes a SELECT statement: EXPLAIN ANALYZE SELECT", "42", 0},
		{"EXPLAIN SELECT * FORM t", "near 'FORM t'", "FORM", 0},
		{"DROP SIDE late", "side names are quoted strings: DROP SIDE 'late'", "late", 0},
		{"DROP SIDE 'main'", "'main'", "'main'", 0},
		{"SET format = 'csv'", "SET 'format' = 'csv'", "format", 0},
		{"SET 'format' = csv", "quoted strings: write 'format' = 'csv'", "csv", 0},
		{"SET 'format'", "expected '='", "$", 0},
		{"SET 'a'", "expected '=' after 'a'", "$", 0},
		// INTO SIDE
		{"SELECT a INTO OUTFILE 'x' FROM t", "INTO OUTFILE is not supported", "INTO", 0},
		{"SELECT a FROM t INTO OUTFILE 'x'", "INTO OUTFILE is not supported", "INTO", 0},
		{"SELECT a FROM t INTO SIDE 'main'", "main output", "'main'", 0},
		{"SELECT a FROM t INTO SIDE 'a/b'", "cannot contain '/'", "'a/b'", 0},
		{"SELECT a FROM t INTO SIDE ''", "cannot be empty", "''", 0},
		{"SELECT a FROM t INTO SIDE '" + long + "'", "at most 64 characters", "'x", 0},
		{"SELECT a FROM t INTO SIDE x", "quoted string", "x", 0},
		{"SELECT a FROM t INTO SIDE", "quoted string", "$", 0},
		{"SELECT a INTO SIDE 'x' FROM t INTO SIDE 'y'", "at most one INTO SIDE", "INTO", 1},
		{"SELECT a FROM t INTO SIDE 'x' WHERE b", "right after the select list", "INTO", 0},
		{"SELECT a FROM t WHERE b IN (SELECT c INTO SIDE 'x' FROM u)", "inside parentheses", "INTO", 0},
		// SEMI / ANTI
		{"SELECT * FROM a LEFT SEMI JOIN b ON a.k = b.k", "cannot be combined with LEFT", "LEFT", 0},
		{"SELECT * FROM a NATURAL ANTI JOIN b", "cannot be combined with NATURAL", "NATURAL", 0},
		{"SELECT * FROM a SEMI JOIN b", "SEMI JOIN needs a condition", "SEMI", 0},
		{"INSERT INTO s VALUES ((SELECT 1 FROM a SEMI JOIN b ON a.k = b.k))", "SELECT only", "SEMI", 0},
		// CAST, LIKE
		{"SELECT CAST(a AS FOO) FROM t", "unknown type FOO in CAST", "FOO", 0},
		{"SELECT a FROM t WHERE a LIKE 'x' ESCAPE 'ab'", "ESCAPE takes one", "'ab'", 0},
		// INSERT
		{"INSERT INTO s (a, 1) SELECT 1", "syntax error near", "1)", 0},
		{"INSERT INTO s SELECT 1 INTO SIDE 'x'", "cannot also have INTO SIDE", "INSERT", 0},
		{"SELECT 1 INTO STREAM FROM s", "INTO STREAM takes the name", "FROM", 0},
		{"SELECT 1 INTO STREAM a FROM s INTO SIDE 'b'", "at most one INTO SIDE or INTO STREAM", "INTO", 1},
		{"INSERT INTO s SET a = 1", "INSERT ... SET", "SET", 0},
		{"INSERT INTO s VALUES (1", "')' is missing", "$", 0},
		{"REPLACE INTO s VALUES (1)", "append-only", "REPLACE", 0},
		// CREATE STREAM
		{"CREATE STREAM s", "expected '('", "$", 0},
		{"CREATE STREAM s.t (a BIGINT)", "cannot be qualified", ".", 0},
		{"CREATE STREAM IF EXISTS s (a BIGINT)", "expected IF NOT EXISTS", "EXISTS", 0},
		{"CREATE STREAM s ()", "at least one column", ")", 0},
		{"CREATE STREAM s (a BIGINT,)", "expected a column after ','", ")", 0},
		{"CREATE STREAM s (a)", "the type of column a", ")", 0},
		{"CREATE STREAM s (a BIGINT", "expected ',' or ')'", "$", 0},
		{"CREATE STREAM s ('a' BIGINT)", "expected a column name", "'a'", 0},
		{"CREATE STREAM s (WATERMARK FOR a AS a)", "besides its WATERMARK", "s", 0},
		{"CREATE STREAM s (a BIGINT, WATERMARK FOR a AS)", "the watermark expression after AS", ")", 0},
		{"CREATE STREAM s (a BIGINT, WATERMARK FOR a a)", "expected AS", "a)", 0},
		{"CREATE STREAM s (a BIGINT, WATERMARK FOR a AS a -)", "ends too early", ")", 0},
		{"CREATE STREAM s (a BIGINT, WATERMARK FOR a AS a FORM b)", "near 'b': did you mean FROM instead of FORM?", "b)", 0},
		{"CREATE STREAM s (a BIGINT, WATERMARK FOR a AS a FROM t)", "one expression", "a FROM", 0},
		{"CREATE STREAM s (a BIGINT, WATERMARK FOR a AS a, WATERMARK FOR a AS a)", "at most one WATERMARK", "WATERMARK", 1},
		{"CREATE STREAM s (a BIGINT, WATERMARK FOR a AS CAST(a AS FOO))", "unknown type FOO", "FOO", 0},
		{"CREATE STREAM s (a BIGINT) WITH ('k' = 1)", "option values are quoted strings: write 'k' = '1'", "1", 0},
		{"CREATE STREAM s (a BIGINT) WITH (k = 'v')", "quoted option name", "k", 0},
		{"CREATE STREAM s (a BIGINT) WITH ('k' = 'v', 'k' = 'w')", "given twice", "'k'", 1},
		{"CREATE STREAM s (a BIGINT) WITH ('k' = 'v' 'l' = 'w')", "expected ',' or ')'", "'l'", 0},
		{"CREATE STREAM s (a BIGINT) WITH ('k' = 'v') extra", "unexpected 'extra'", "extra", 0},
		{"CREATE STREAM s (a BIGINT) OPTIONS ('k' = 'v')", "expected WITH", "OPTIONS", 0},
		{"DROP STREAM", "expected a stream name", "$", 0},
		{"DROP STREAM IF s", "expected EXISTS", "s", 0},
		{"DROP STREAM s t", "unexpected 't'", "t", 0},
		{"SELECT 1 AS ``", "a column alias cannot be empty", "``", 0},
		{"SELECT a ``, b FROM t", "a column alias cannot be empty", "``", 0},
		{"SELECT a FROM t WHERE a IN (SELECT b AS `` FROM u)", "a column alias cannot be empty", "``", 0},
		{"SELECT a FROM t AS ``", "an alias cannot be empty", "``", 0},
		{"SELECT t.a FROM t SEMI JOIN u AS `` ON t.a = u.a", "an alias cannot be empty", "``", 0},
	}
	for _, tc := range tests {
		sc, err := Parse("t.sql", tc.src)
		if err == nil || sc != nil {
			t.Errorf("Parse(%q) = %v, nil; want an error", tc.src, sc)
			continue
		}
		e, ok := err.(*Error)
		if !ok {
			t.Errorf("Parse(%q): %T is not *Error", tc.src, err)
			continue
		}
		want := len(strings.TrimRight(tc.src, "; \n"))
		if tc.at != "$" {
			want = at(t, tc.src, tc.at, tc.n)
		}
		if !strings.Contains(e.Msg, tc.msg) || e.Offset != want {
			t.Errorf("Parse(%q):\n%s\nwant %q at offset %d", tc.src, FormatError("t.sql", tc.src, e), tc.msg, want)
		}
		if strings.Contains(e.Msg, "SIGNED") || strings.Contains(e.Msg, "line 1 column") {
			t.Errorf("Parse(%q): message shows TiDB's text: %s", tc.src, e.Msg)
		}
	}
}

// TestLongStatementError covers TiDB's "(total length N)" form of long near texts.
func TestLongStatementError(t *testing.T) {
	src := "SELECT 1;\nSELECT a FORM t WHERE x = " + strings.Repeat("1 + ", 1000) + "1;"
	_, err := Parse("t.sql", src)
	if err == nil {
		t.Fatal("no error")
	}
	e := err.(*Error)
	if e.Offset != at(t, src, "t WHERE", 0) || !strings.HasPrefix(e.Msg, "syntax error near 't WHERE x = 1 + 1 + 1 + 1 + 1 + 1 + 1 + ...': did you mean FROM") {
		t.Errorf("got %d %q", e.Offset, e.Msg)
	}
	src = "SELECT a FROM t WHERE x = " + strings.Repeat("1 + ", 1000) + "1 1 + " + strings.Repeat("1 + ", 1000) + "1"
	_, err = Parse("t.sql", src)
	if err == nil || err.(*Error).Offset != at(t, src, "1 1 +", 0)+2 {
		t.Errorf("got %v", err)
	}
}

func TestFormatErrorCJK(t *testing.T) {
	src := "CREATE STREAM 传感器 (设备 VARCHAR, ts BIGINT)\n" +
		"  WITH ('connector' = 'file', 'path' = '数据.csv');\n" +
		"-- 注释：设备\n" +
		"SELECT 设备, '温度' FROM 传感器 WHERE 设备 = = 'x';\n" +
		"SELECT 1;\n"
	_, err := Parse("demo.sql", src)
	if err == nil {
		t.Fatal("no error")
	}
	got := FormatError("demo.sql", src, err.(*Error))
	want := "syntax error near '= 'x''\n" +
		"demo.sql, line 4, column 37:\n" +
		"  SELECT 设备, '温度' FROM 传感器 WHERE 设备 = = 'x';\n" +
		"  " + strings.Repeat(" ", 36+9) + "^"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestFormatErrorTab(t *testing.T) {
	src := "SHOW STREAMS;\r\n\tSELECT * FORM t;\r\n"
	_, err := Parse("tab.sql", src)
	if err == nil {
		t.Fatal("no error")
	}
	got := FormatError("tab.sql", src, err.(*Error))
	want := "syntax error near 'FORM t': did you mean FROM instead of FORM?\n" +
		"tab.sql, line 2, column 11:\n" +
		"  \tSELECT * FORM t;\n" +
		"  \t         ^"
	if got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}

func TestFormatErrorEdges(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		off       int
		want      string
	}{
		{"x", "", 0, "m\nx, line 1, column 1:\n  \n  ^"},
		{"", "ab\ncd", 5, "m\nline 2, column 3:\n  cd\n    ^"},
		{"x", "ab\ncd", 99, "m\nx, line 2, column 3:\n  cd\n    ^"},
		{"x", "ab\ncd", -3, "m\nx, line 1, column 1:\n  ab\n  ^"},
		{"x", "ab\n", 2, "m\nx, line 1, column 3:\n  ab\n    ^"},
		{"x", "设备x", 3, "m\nx, line 1, column 2:\n  设备x\n    ^"},
		{"x", "设备x", 4, "m\nx, line 1, column 2:\n  设备x\n    ^"}, // inside a character
	} {
		got := FormatError(tc.name, tc.src, &Error{Offset: tc.off, Msg: "m"})
		if got != tc.want {
			t.Errorf("FormatError(%q, %q, %d) =\n%q\nwant\n%q", tc.name, tc.src, tc.off, got, tc.want)
		}
	}
	if l, c := Position("a\n设备x", 8); l != 2 || c != 3 {
		t.Errorf("Position = %d, %d", l, c)
	}
}

// TestSupportedFormsParse: every statement form the unknown-statement
// message lists (supported, parse.go) is one the parser takes, so the
// message never sends a user to a form that is refused, and each form the
// dispatch takes is named there.
func TestSupportedFormsParse(t *testing.T) {
	for _, c := range []struct{ named, stmt string }{
		{"CREATE STREAM (or TABLE)", "CREATE TABLE s (a BIGINT) WITH ('connector'='values')"},
		{"DROP STREAM", "DROP STREAM s"},
		{"SHOW STREAMS", "SHOW STREAMS"},
		{"SHOW CREATE STREAM", "SHOW CREATE STREAM s"},
		{"DESCRIBE", "DESCRIBE s"},
		{"CREATE [TEMPORARY] VIEW", "CREATE TEMPORARY VIEW v AS SELECT a FROM s"},
		{"DROP VIEW", "DROP VIEW v"},
		{"SHOW VIEWS", "SHOW VIEWS"},
		{"CREATE [TEMPORARY] FUNCTION", "CREATE TEMPORARY FUNCTION f AS 'f.wasm'"},
		{"DROP FUNCTION", "DROP FUNCTION f"},
		{"SHOW FUNCTIONS", "SHOW FUNCTIONS"},
		{"SELECT (and WITH ... SELECT)", "WITH x AS (SELECT a FROM s) SELECT a FROM x"},
		{"EXPLAIN [ANALYZE] SELECT", "EXPLAIN ANALYZE SELECT a FROM s"},
		{"INSERT INTO ... VALUES", "INSERT INTO s VALUES (1)"},
		{"INSERT INTO ... SELECT", "INSERT INTO s SELECT a FROM s"},
		{"SHOW SIDES", "SHOW SIDES"},
		{"DROP SIDE", "DROP SIDE 'x'"},
		{"RUN", "RUN"},
		{"SET", "SET 'format' = 'csv'"},
	} {
		if !strings.Contains(supported, c.named) {
			t.Errorf("the message does not name %s: %s", c.named, supported)
		}
		if _, err := Parse("t.sql", c.stmt+";"); err != nil {
			t.Errorf("%s (%s): %v", c.named, c.stmt, err)
		}
	}
}
