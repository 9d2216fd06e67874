package tests

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"streamql/cmd/streamql/cli"
)

// planErrCase is a one-script run that must stop with exit status 2 and a
// message at a given line and column (SPEC 4: message first, then `line L,
// column C`, the source line and a caret under the token).
type planErrCase struct {
	name, sql string
	msg       string // a substring of the message
	at        string // "line L, column C"
}

func checkPlanErrors(t *testing.T, cases []planErrCase) {
	t.Helper()
	for _, tc := range cases {
		out, errs, code := runScripts(t, []string{"q.sql"}, map[string]string{"q.sql": tc.sql})
		if code != 2 || !strings.Contains(errs, tc.msg) || !strings.Contains(errs, "q.sql, "+tc.at+":") {
			t.Errorf("%s: exit %d, stdout %q, stderr\n%s\nwant exit 2, %q at %s", tc.name, code, out, errs, tc.msg, tc.at)
		}
	}
}

// TestPositionalByErrors: GROUP BY 1 is refused at the number, and says
// positions are not supported (finding 11); ORDER BY 1 reads the select
// list's first column (SPEC 2.9), and a position past its end is refused at
// the number.
func TestPositionalByErrors(t *testing.T) {
	decl := "CREATE STREAM s (k VARCHAR, ts BIGINT) WITH ('connector'='values');\n"
	checkPlanErrors(t, []planErrCase{
		{"group by 1", decl + "SELECT k FROM s GROUP BY 1;", "positional GROUP BY (GROUP BY 1) is not supported", "line 2, column 26"},
		{"group by k, 1", decl + "SELECT k, COUNT(*) AS n FROM s GROUP BY k, 1;", "positional GROUP BY", "line 2, column 44"},
		{"group by 2 in a window", decl + "SELECT window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE s, DESCRIPTOR(ts), INTERVAL '1' SECOND))\n  GROUP BY window_start, 2;", "positional GROUP BY (GROUP BY 2)", "line 3, column 26"},
		{"order by k, 2", decl + "SELECT k FROM s ORDER BY k DESC, 2;", "ORDER BY 2: the select list has no column 2", "line 2, column 34"},
	})
	insert := "INSERT INTO s VALUES ('b', 1), ('a', 2), ('a', 1);\n"
	for q, want := range map[string]string{
		"SELECT k, COUNT(*) FROM s GROUP BY k ORDER BY 1;": "k,COUNT(*)\na,2\nb,1\n",
		"SELECT k, ts FROM s ORDER BY 2, 1;":               "k,ts\na,1\nb,1\na,2\n",
	} {
		out, errs, code := runSQL(t, nil, decl+insert+q, "--format", "csv")
		if code != 0 || out != want {
			t.Errorf("%s: exit %d, stdout %q, stderr %s; want %q", q, code, out, errs, want)
		}
	}
}

// TestUnknownFunctionWrittenName: an unknown function is named as the script
// spells it, not by TiDB's internal name (CHAR is TiDB's char_func; finding 12a).
func TestUnknownFunctionWrittenName(t *testing.T) {
	checkPlanErrors(t, []planErrCase{
		{"char", "SELECT CHAR(65) AS c;", "unknown function CHAR;", "line 1, column 8"},
		{"char lower case", "SELECT 1 AS a,\n  char (65, 66) AS c;", "unknown function CHAR;", "line 2, column 3"},
		{"utc_date", "SELECT UTC_DATE() AS c;", "unknown function UTC_DATE;", "line 1, column 8"}, // (CURRENT_DATE is a function now: SPEC 2.10)
		{"schema", "SELECT SCHEMA() AS c;", "unknown function SCHEMA;", "line 1, column 8"},
	})
}

// TestSideFileColumnsOfALaterJob: a later job of the run that would append to
// a --side-dir file with other columns is a planning error (exit status 2) at
// its side name, before it reads anything, like the other same-name side
// errors (SPEC 4; finding 16); with the same columns it appends. The error
// names the file the sink wrote, and a side output named errors with the
// errors output's columns appends to the file of an earlier job's malformed
// rows: the CLI's check and the sink agree on the files' paths and on the
// errors output's columns (render.SideFilePath, render.ErrorColumns).
func TestSideFileColumnsOfALaterJob(t *testing.T) {
	dir := t.TempDir()
	side := filepath.Join(dir, "sides")
	decl := "CREATE STREAM s (k VARCHAR, x BIGINT) WITH ('connector'='values');\nINSERT INTO s VALUES ('a', 1), ('b', 2);\n"
	run := func(sql string) (string, string, int) {
		os.RemoveAll(side)
		p := filepath.Join(dir, "q.sql")
		if err := os.WriteFile(p, []byte(decl+sql), 0o644); err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		code := cli.Run(context.Background(), []string{"--format", "csv", "--side-dir", side, p}, strings.NewReader(""), &out, &errb)
		b, _ := os.ReadFile(filepath.Join(side, "sa.csv"))
		return out.String(), errb.String() + "|" + string(b), code
	}
	out, errs, code := run("SELECT k INTO SIDE 'sa' FROM s WHERE k = 'a';\nSELECT * FROM s;\nSELECT x INTO SIDE 'sa' FROM s WHERE k = 'b';\nSELECT * FROM s;\n")
	if code != 2 || out != "k,x\nb,2\n" || !strings.Contains(errs, "side output 'sa' has columns (x BIGINT) but an earlier job") ||
		!strings.Contains(errs, "q.sql, line 5, column 20:") || !strings.HasSuffix(errs, "|k\na\n") ||
		!strings.Contains(errs, " wrote its file "+filepath.Join(side, "sa.csv")+" with columns (k VARCHAR)") {
		t.Errorf("other columns: exit %d, stdout %q, stderr|sa.csv %q", code, out, errs)
	}
	out, errs, code = run("SELECT k INTO SIDE 'sa' FROM s WHERE k = 'a';\nSELECT * FROM s;\nSELECT k INTO SIDE 'sa' FROM s WHERE k = 'b';\nSELECT * FROM s;\n")
	if code != 0 || out != "k,x\nb,2\nk,x\na,1\n" || errs != "|k\na\nb\n" {
		t.Errorf("same columns: exit %d, stdout %q, stderr|sa.csv %q", code, out, errs)
	}
	// the files a job creates once a row reaches them: late rows, malformed rows
	decl = "CREATE STREAM w (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='values');\nINSERT INTO w VALUES ('a', 5000), ('b', 100);\n" +
		"CREATE STREAM s (k VARCHAR, x BIGINT) WITH ('connector'='values');\nINSERT INTO s VALUES ('a', 1);\n"
	for _, tc := range []struct{ name, first, side string }{
		{"late", "SELECT window_start, window_end, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE w, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY window_start, window_end;\n", "late"},
		{"errors", "CREATE STREAM b (n BIGINT) WITH ('connector'='file','path'='" + filepath.Join(dir, "bad.csv") + "','format'='csv');\nSELECT * FROM b;\n", "errors"},
	} {
		if err := os.WriteFile(filepath.Join(dir, "bad.csv"), []byte("1\nx\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, errs, code = run(tc.first + "SELECT x INTO SIDE '" + tc.side + "' FROM s;\nSELECT * FROM s;\n")
		path := filepath.Join(side, tc.side+".csv")
		if code != 2 || !strings.Contains(errs, "side output '"+tc.side+"' has columns (x BIGINT) but an earlier job") || !strings.Contains(errs, "^") ||
			!strings.Contains(errs, " wrote its file "+path+" with columns (") {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 at the side name, naming %s", tc.name, code, errs, path)
		}
		if _, err := os.Stat(path); err != nil {
			t.Errorf("%s: the file the error names: %v", tc.name, err)
		}
	}
	// the errors output's columns: the later job's side output appends
	_, _, code = run("CREATE STREAM b (n BIGINT) WITH ('connector'='file','path'='" + filepath.Join(dir, "bad.csv") + "','format'='csv');\nSELECT * FROM b;\n" +
		"SELECT k AS stream, k AS `position`, k AS raw, k AS `error` INTO SIDE 'errors' FROM s;\nSELECT * FROM s;\n")
	b, _ := os.ReadFile(filepath.Join(side, "errors.csv"))
	if lines := strings.Split(string(b), "\n"); code != 0 || len(lines) != 4 || lines[0] != "stream,position,raw,error" ||
		!strings.HasPrefix(lines[1], "b,"+filepath.Join(dir, "bad.csv")+":2,x,") || lines[2] != "a,a,a,a" {
		t.Errorf("a side output 'errors' of the errors output's columns: exit %d, errors.csv %q; want exit 0, the malformed row and the side row", code, b)
	}
}

// TestUnlocatedClauseErrors: DISTINCT and a WINDOW clause, which TiDB's AST
// does not locate, are refused with the caret under their keyword, not under
// SELECT (SPEC 4; the kind of finding 11).
func TestUnlocatedClauseErrors(t *testing.T) {
	decl := "CREATE STREAM s (k VARCHAR, ts BIGINT) WITH ('connector'='values');\n"
	checkPlanErrors(t, []planErrCase{
		// (DISTINCT with GROUP BY is allowed: an aggregate in its ORDER BY is not)
		{"distinct", decl + "SELECT DISTINCT k, COUNT(*) FROM s GROUP BY k ORDER BY COUNT(*);", "ORDER BY after SELECT DISTINCT with GROUP BY orders the distinct rows", "line 2, column 8"},
		{"distinct after a comment", decl + "SELECT /* c */ distinct k, x\n  FROM s CROSS JOIN UNNEST(ARRAY[1]) AS u (x);", "SELECT DISTINCT over a window function or UNNEST is not supported", "line 2, column 16"},
		{"window clause", decl + "SELECT k FROM s WHERE k IN ('a', 'b')\nWINDOW w AS (ORDER BY ts);", "WINDOW w AS (…) names an OVER window, and no OVER w reads it", "line 3, column 1"},
	})
}

// TestTimestampLiteralErrors: a text literal compared with a TIMESTAMP is read
// as a TIMESTAMP (SPEC 2); one that is none of SPEC 1's forms is a planning
// error naming it, not a NULL that silently drops every row; the forms SPEC 1
// lists still compare.
func TestTimestampLiteralErrors(t *testing.T) {
	decl := "CREATE STREAM s (k VARCHAR, t TIMESTAMP) WITH ('connector'='values');\n"
	checkPlanErrors(t, []planErrCase{
		{"garbage", decl + "SELECT k FROM s WHERE t > 'garbage';", "'garbage' is not a TIMESTAMP", "line 2, column 27"},
		{"a date alone", decl + "SELECT k FROM s WHERE t >= '2021-01-17';", "'2021-01-17' is not a TIMESTAMP", "line 2, column 28"},
		{"literal first", decl + "SELECT k FROM s WHERE '2021-13-01 00:00:00' < t;", "'2021-13-01 00:00:00' is not a TIMESTAMP", "line 2, column 23"},
		{"between", decl + "SELECT k FROM s WHERE t BETWEEN '2021-01-17 00:00:00' AND 'soon';", "'soon' is not a TIMESTAMP", "line 2, column 23"},
	})
	for _, lit := range []string{"'2021-01-17 12:48:29'", "'2021-01-17T12:48Z'", "'1610887709000'", "NULL"} {
		_, errs, code := runScripts(t, []string{"q.sql"}, map[string]string{"q.sql": decl + "SELECT k FROM s WHERE t > " + lit + ";"})
		if code != 0 {
			t.Errorf("t > %s: exit %d: %s", lit, code, errs)
		}
	}
}

// TestScalarSubqueryErrors: a SELECT standing for a value in an expression (a
// scalar subquery, in the select list, WHERE, HAVING or ON) is refused at the
// subquery with what to write instead (a join of it in FROM, IN or EXISTS),
// not only "not supported here" (house rule: errors say what to do).
func TestScalarSubqueryErrors(t *testing.T) {
	decl := "CREATE STREAM s (k BIGINT) WITH ('connector'='values');\nCREATE STREAM t (x BIGINT) WITH ('connector'='values');\n"
	msg := "a scalar subquery (a SELECT in an expression) is not supported: join it in FROM instead"
	checkPlanErrors(t, []planErrCase{
		{"select list", decl + "SELECT (SELECT 1);", msg, "line 3, column 8"},
		{"where", decl + "SELECT k FROM s WHERE k = (SELECT MAX(x) FROM t);", msg, "line 3, column 27"},
		{"having", decl + "SELECT k, COUNT(*) FROM s GROUP BY k HAVING COUNT(*) > (SELECT 1);", msg, "line 3, column 56"},
		{"case", decl + "SELECT CASE WHEN k > 0 THEN (SELECT 2) END FROM s;", msg, "line 3, column 29"},
	})
}

// TestDistinctNestedErrors: SELECT DISTINCT over an ARRAY, MAP or ROW column
// is refused in the words the query wrote (SELECT DISTINCT, not the GROUP BY
// it is planned as, which the query never wrote), at the column, with what to
// select instead; GROUP BY of one keeps its own message.
func TestDistinctNestedErrors(t *testing.T) {
	decl := "CREATE STREAM e (id BIGINT, tags ARRAY<VARCHAR>, m MAP<VARCHAR, BIGINT>, r ROW<n VARCHAR, v BIGINT>) WITH ('connector'='values');\n"
	checkPlanErrors(t, []planErrCase{
		{"map", decl + "SELECT DISTINCT m FROM e;", "SELECT DISTINCT over m (MAP<VARCHAR, BIGINT>) is not supported: select its parts", "line 2, column 17"},
		{"row after a column", decl + "SELECT DISTINCT id, r FROM e;", "SELECT DISTINCT over r (ROW<n VARCHAR, v BIGINT>)", "line 2, column 21"},
		{"array in a subquery", decl + "SELECT * FROM (SELECT DISTINCT tags FROM e) q;", "SELECT DISTINCT over tags (ARRAY<VARCHAR>)", "line 2, column 32"},
		{"group by", decl + "SELECT m FROM e GROUP BY m;", "GROUP BY m (MAP<VARCHAR, BIGINT>) is not supported: group by its parts", "line 2, column 26"},
	})
}

// TestUnaliasedSubqueryMessages: a message about a subquery in FROM written
// without an alias never suggests writing its internal name (subquery.k,
// which no other engine reads: Flink names it EXPR$n), but an alias:
// (SELECT …) AS s ... s.k (found: the ambiguous-column error said "qualify
// it", listing subquery.k). Every message that names the relations of a
// query or a join is run with one: an ambiguous column on either side, an
// unknown column, an unknown qualifier, a join without an equality, two
// subqueries without aliases, USING, NATURAL JOIN and a temporal join's
// time column and versioned side.
func TestUnaliasedSubqueryMessages(t *testing.T) {
	decl := "CREATE STREAM a (k VARCHAR, n BIGINT) WITH ('connector'='values');\n" +
		"CREATE STREAM b (k VARCHAR, ts BIGINT) WITH ('connector'='values');\n"
	const sub = "(SELECT k, ts FROM b)"
	timed := "CREATE STREAM o (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='values');\n" +
		"CREATE STREAM r (k VARCHAR, rate BIGINT, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='values');\n"
	cases := []planErrCase{
		{"ambiguous, the subquery right", decl + "SELECT k FROM a JOIN " + sub + " ON a.n = ts;", "column 'k' is ambiguous: it is a.k and a column of the subquery without an alias; give the subquery an alias, (SELECT …) AS s, and write a.k or s.k", "line 3, column 8"},
		{"ambiguous, the subquery left", decl + "SELECT k FROM " + sub + " JOIN a ON a.n = ts;", "give the subquery an alias, (SELECT …) AS s, and write a.k or s.k", "line 3, column 8"},
		{"ambiguous in ON", decl + "SELECT a.n FROM a JOIN " + sub + " ON a.k = k;", "and write a.k or s.k", "line 3, column 55"},
		{"ambiguous, a stream named s", strings.ReplaceAll(decl, "STREAM a ", "STREAM s ") + "SELECT k FROM s JOIN " + sub + " ON s.n = ts;", "(SELECT …) AS q, and write s.k or q.k", "line 3, column 8"},
		{"unknown column", decl + "SELECT zz FROM a JOIN " + sub + " ON a.n = ts;", "unknown column 'zz'; a has k, n; the subquery without an alias has k, ts", "line 3, column 8"},
		{"unknown qualifier", decl + "SELECT a.k FROM a JOIN " + sub + " ON a.n = q.ts;", "unknown stream or alias 'q' in 'q.ts'; the query reads a, the subquery without an alias; to read the subquery's ts as q.ts, give it the alias: (SELECT …) AS q", "line 3, column 55"},
		{"no equality", decl + "SELECT a.k FROM a JOIN " + sub + " ON a.n > ts;", "such as a JOIN (SELECT …) AS s ON a.k = s.k", "line 3, column 49"},
		{"two subqueries", decl + "SELECT 1 AS one FROM " + sub + " JOIN (SELECT k, n FROM a) ON n = ts;", "both sides of the join are subqueries without an alias: give each one (FROM (SELECT …) AS a JOIN (SELECT …) AS b ON a.k = b.k)", "line 3, column 49"},
		{"USING", decl + "SELECT a.k FROM a JOIN " + sub + " USING (n);", "USING column 'n' is not a column of the subquery without an alias (its columns: k, ts)", "line 3, column 53"},
		{"NATURAL JOIN", decl + "SELECT * FROM a NATURAL JOIN (SELECT ts FROM b);", "write the condition with ON (a JOIN (SELECT …) AS s ON a.k = s.k)", "line 3, column 30"},
		{"temporal join's time column", timed + "SELECT * FROM (SELECT k AS ok, ts FROM o) JOIN r FOR SYSTEM_TIME AS OF ok ON ok = r.k;", "FOR SYSTEM_TIME AS OF takes the left side's event-time column ts, not ok: give the subquery an alias, (SELECT …) AS s, and write s.ts", "line 3, column 72"},
		{"temporal join's versioned side", timed + "SELECT * FROM o JOIN (SELECT k, rate, ts FROM r) FOR SYSTEM_TIME AS OF o.ts ON o.k = subquery.k;", "a temporal join's versioned side the subquery without an alias needs a key", "line 3, column 50"},
	}
	checkPlanErrors(t, cases)
	for _, tc := range cases {
		_, errs, _ := runScripts(t, []string{"q.sql"}, map[string]string{"q.sql": tc.sql})
		if msg, _, _ := strings.Cut(errs, "\n"); strings.Contains(msg, "subquery.") {
			t.Errorf("%s: the message suggests the internal name subquery:\n%s", tc.name, errs)
		}
	}
}
