package tests

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
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
// positions are not supported (finding 11); ORDER BY 1 reads the output's
// first column (SPEC 2.9), counted with a * expanded (Flink's sort by
// ordinal), so it also orders SELECT * and a UNION ALL's rows (it was
// refused there: the select list's * counted as one field), and a position
// past the output's end is refused at the number, saying how many it has.
func TestPositionalByErrors(t *testing.T) {
	decl := "CREATE STREAM s (k VARCHAR, ts BIGINT) WITH ('connector'='values');\n"
	checkPlanErrors(t, []planErrCase{
		{"group by 1", decl + "SELECT k FROM s GROUP BY 1;", "positional GROUP BY (GROUP BY 1) is not supported", "line 2, column 26"},
		{"group by k, 1", decl + "SELECT k, COUNT(*) AS n FROM s GROUP BY k, 1;", "positional GROUP BY", "line 2, column 44"},
		{"group by 2 in a window", decl + "SELECT window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE s, DESCRIPTOR(ts), INTERVAL '1' SECOND))\n  GROUP BY window_start, 2;", "positional GROUP BY (GROUP BY 2)", "line 3, column 26"},
		{"order by k, 2", decl + "SELECT k FROM s ORDER BY k DESC, 2;", "ORDER BY 2: the select list has no column 2 (it has 1)", "line 2, column 34"},
		{"order by 3 of *", decl + "SELECT * FROM s ORDER BY 3;", "ORDER BY 3: the select list has no column 3 (it has 2)", "line 2, column 26"},
		{"order by 0", decl + "SELECT * FROM s ORDER BY 0;", "ORDER BY 0: the select list has no column 0", "line 2, column 26"},
		{"order by 3 of a union", decl + "SELECT k, ts FROM s UNION ALL SELECT k, ts FROM s ORDER BY 3;", "ORDER BY 3: the select list has no column 3 (it has 2)", "line 2, column 60"},
	})
	insert := "INSERT INTO s VALUES ('b', 1), ('a', 2), ('a', 1);\n"
	for q, want := range map[string]string{
		"SELECT k, COUNT(*) FROM s GROUP BY k ORDER BY 1;":                                                 "k,COUNT(*)\na,2\nb,1\n",
		"SELECT k, ts FROM s ORDER BY 2, 1;":                                                               "k,ts\na,1\nb,1\na,2\n",
		"SELECT * FROM s ORDER BY 2, 1;":                                                                   "k,ts\na,1\nb,1\na,2\n",
		"SELECT *, ts * 10 AS t FROM s ORDER BY 3 DESC, 1;":                                                "k,ts,t\na,2,20\na,1,10\nb,1,10\n",
		"SELECT * FROM (SELECT k, ts FROM s) ORDER BY 2 DESC LIMIT 1;":                                     "k,ts\na,2\n",
		"SELECT k, ts FROM s UNION ALL SELECT k, ts + 10 FROM s WHERE k = 'a' ORDER BY 2 DESC, 1 LIMIT 3;": "k,ts\na,12\na,11\na,2\n",
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

// unquotedFileName finds a quoted file name of TestQuotedFileNameMessages
// written in a message as SQL cannot read it: qualifying a column bare
// (s.csv.dev, which parses as stream s), or bare after FROM or JOIN.
var unquotedFileName = regexp.MustCompile("(^|[^`'])[sd]\\.csv[.`]|(FROM|JOIN) [sd]\\.csv")

// TestQuotedFileNameMessages: a message that names a relation read by a
// quoted file name (FROM 's.csv', SPEC 1) writes it as a query can: `s.csv`
// to qualify a column, 's.csv' in FROM (found: "give each an alias (FROM
// s.csv a JOIN s.csv b ...)", "such as s.csv.k = d.csv.k" and "it is
// d.csv.dev and s.csv.dev", none of which parses), and an unknown qualifier
// says what to write instead. Every message that names the relations of a
// query or a join is run with file names, and the spellings they suggest run.
func TestQuotedFileNameMessages(t *testing.T) {
	data := map[string]string{"s.csv": "dev,temp\na,1.5\nb,2.5\n", "d.csv": "dev,lim\na,1\n"}
	cases := []planErrCase{
		{"ambiguous", "SELECT dev FROM 's.csv' JOIN 'd.csv' ON `s.csv`.dev = `d.csv`.dev;", "column 'dev' is ambiguous: it is `s.csv`.dev and `d.csv`.dev; qualify it", "line 1, column 8"},
		{"ambiguous with a subquery", "SELECT lim FROM (SELECT dev FROM 's.csv') JOIN 'd.csv' ON dev = `d.csv`.dev;", "it is `d.csv`.dev and a column of the subquery without an alias; give the subquery an alias, (SELECT …) AS s, and write `d.csv`.dev or s.dev", "line 1, column 59"},
		{"unknown column", "SELECT zz FROM 's.csv' JOIN 'd.csv' ON `s.csv`.dev = `d.csv`.dev;", "unknown column 'zz'; `s.csv` has dev, temp; `d.csv` has dev, lim", "line 1, column 8"},
		{"unknown qualifier", "SELECT s.dev FROM 's.csv';", "unknown stream or alias 's' in 's.dev'; the query reads `s.csv`; write `s.csv`.dev, or give it the alias: FROM 's.csv' AS s", "line 1, column 8"},
		{"unknown qualifier, aliased", "SELECT x.dev FROM 's.csv' y;", "the query reads y; write y.dev", "line 1, column 8"},
		{"unknown qualifier of *", "SELECT s.* FROM 's.csv';", "unknown stream or alias 's' in s.*; the query reads `s.csv`; write `s.csv`.*, or give it the alias: FROM 's.csv' AS s", "line 1, column 8"},
		{"unknown qualifier of * in a join", "SELECT x.* FROM 's.csv' JOIN 'd.csv' ON `s.csv`.dev = `d.csv`.dev;", "the query reads `s.csv`, `d.csv`", "line 1, column 8"},
		{"no equality", "SELECT * FROM 's.csv' JOIN 'd.csv' ON temp > lim;", "such as 's.csv' JOIN 'd.csv' ON `s.csv`.k = `d.csv`.k", "line 1, column 39"},
		{"the same file twice", "SELECT * FROM 's.csv' JOIN 's.csv' ON temp = temp;", "both sides of the join are named `s.csv`: give each an alias (FROM 's.csv' a JOIN 's.csv' b ON ...)", "line 1, column 23"},
		{"USING", "SELECT * FROM 's.csv' JOIN 'd.csv' USING (lim);", "USING column 'lim' is not a column of `s.csv`", "line 1, column 43"},
		{"build side's *", "SELECT `d.csv`.* FROM 's.csv' SEMI JOIN 'd.csv' ON `s.csv`.dev = `d.csv`.dev;", "`d.csv`.* selects the join's build side: a semi or anti join outputs left rows only; write `s.csv`.* instead", "line 1, column 8"},
		{"build side's column", "SELECT `d.csv`.lim FROM 's.csv' SEMI JOIN 'd.csv' ON `s.csv`.dev = `d.csv`.dev;", "`d.csv`.lim is a column of the join's build side `d.csv`", "line 1, column 8"},
	}
	for _, tc := range cases {
		out, errs, code := runSQL(t, data, tc.sql, "--format", "csv")
		msg, _, _ := strings.Cut(errs, "\n")
		if code != 2 || !strings.Contains(msg, tc.msg) || !strings.Contains(errs, "q.sql, "+tc.at+":") {
			t.Errorf("%s: exit %d, stdout %q, stderr\n%s\nwant exit 2, %q at %s", tc.name, code, out, errs, tc.msg, tc.at)
		}
		if m := unquotedFileName.FindString(msg); m != "" {
			t.Errorf("%s: the message writes a file name as SQL does not read it (%q):\n%s", tc.name, m, msg)
		}
	}
	// the spellings the messages suggest run
	for q, want := range map[string]string{
		"SELECT `s.csv`.dev, lim FROM 's.csv' JOIN 'd.csv' ON `s.csv`.dev = `d.csv`.dev;": "dev,lim\na,1\n",
		"SELECT s.dev FROM 's.csv' AS s WHERE temp > 2;":                                  "dev\nb\n",
		"SELECT `s.csv`.* FROM 's.csv' SEMI JOIN 'd.csv' ON `s.csv`.dev = `d.csv`.dev;":   "dev,temp\na,1.5\n",
		"SELECT a.dev, b.temp FROM 's.csv' a JOIN 's.csv' b ON a.dev = b.dev;":            "dev,temp\na,1.5\nb,2.5\n",
	} {
		if out, errs, code := runSQL(t, data, q, "--format", "csv"); code != 0 || out != want {
			t.Errorf("%s: exit %d, stdout %q, stderr %s; want %q", q, code, out, errs, want)
		}
	}
}

// TestMainOnlyInBranchSaysWhatToDo: an operator only a main query may end
// with (LIMIT, also after ORDER BY, SPEC 2.1) in a
// side branch or an INTO STREAM branch is refused with what to do: write it
// without the INTO clause, as a main query of its own (found: "ORDER BY is
// allowed in the main query only, not in side branch 'top'" said no more);
// the operators of SPEC 2.9 a branch may end with (a Top-N, a
// deduplication, an OVER aggregation, ORDER BY) run there. Every
// such operator is tried in both kinds of branch, and the query as the
// message says to write it runs.
func TestMainOnlyInBranchSaysWhatToDo(t *testing.T) {
	ddl := "CREATE STREAM s (k VARCHAR, x BIGINT, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='s.csv', 'format'='csv');\n" +
		"CREATE STREAM hot (k VARCHAR, x BIGINT) WITH ('connector'='file', 'path'='hot.csv', 'format'='csv');\n"
	files := map[string]string{"s.csv": "a,1,1\nb,5,2\na,3,3\n"}
	rank := func(fn, order string) string {
		return "FROM (SELECT k, x, " + fn + "() OVER (PARTITION BY k ORDER BY " + order + ") AS rn FROM s) WHERE rn <= 1"
	}
	for _, c := range []struct {
		what, sel, rest string
		refused         map[string]string // per INTO clause refused, what the message says to do
	}{
		{"a Top-N", "SELECT k, x", rank("ROW_NUMBER", "x DESC"), nil},
		{"a deduplication", "SELECT k, x", rank("ROW_NUMBER", "ts"), nil},
		{"an OVER aggregation", "SELECT k, SUM(x) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS x", "FROM s", nil},
		{"ORDER BY", "SELECT k, x", "FROM s ORDER BY x", nil},
		{"ORDER BY … LIMIT", "SELECT k, x", "FROM s ORDER BY x DESC LIMIT 1", map[string]string{"INTO SIDE 'top'": "", "INTO STREAM hot": ""}},
		{"LIMIT", "SELECT k, x", "FROM s LIMIT 1", map[string]string{"INTO SIDE 'top'": "", "INTO STREAM hot": ""}},
	} {
		for _, into := range []string{"INTO SIDE 'top'", "INTO STREAM hot"} {
			q := c.sel + " " + into + " " + c.rest + ";\nSELECT * FROM s;\n"
			out, errs, code := runSQL(t, files, ddl+q, "--format", "csv")
			do, refused := c.refused[into]
			if !refused {
				if code != 0 {
					t.Errorf("%s %s: exit %d, stdout %q, stderr\n%s\nwant it to run (SPEC 2.1 with 2.9)", c.what, into, code, out, errs)
				}
				continue
			}
			if do == "" {
				do = "write it without " + into + ", as a main query of its own"
			}
			msg, _, _ := strings.Cut(errs, "\n")
			if code != 2 || !strings.Contains(msg, "main query") || !strings.Contains(msg, do) || !strings.Contains(errs, "^") {
				t.Errorf("%s %s: exit %d, stdout %q, stderr\n%s\nwant exit 2 and a message that says to %s", c.what, into, code, out, errs, do)
			}
			if out, errs, code := runSQL(t, files, ddl+c.sel+" "+c.rest+";\n", "--format", "csv"); code != 0 || len(csvRows(out)) == 0 {
				t.Errorf("%s as a main query: exit %d, stdout %q, stderr %s; want its rows", c.what, code, out, errs)
			}
		}
	}
}

// TestLimitOffsetSaysWhatToDo: LIMIT with an offset, written either way and
// with or without ORDER BY, is refused at LIMIT with what to write instead
// (found: "LIMIT with an offset is not supported on a stream" said no more),
// and the rank range it suggests keeps the rows OFFSET 1 LIMIT 2 names.
func TestLimitOffsetSaysWhatToDo(t *testing.T) {
	ddl := "CREATE STREAM s (k VARCHAR, x BIGINT) WITH ('connector'='file', 'path'='s.csv', 'format'='csv');\n"
	files := map[string]string{"s.csv": "a,4\nb,9\nc,1\nd,7\n"}
	for _, q := range []string{"SELECT k FROM s LIMIT 2 OFFSET 1", "SELECT k FROM s LIMIT 1, 2", "SELECT k FROM s ORDER BY x DESC LIMIT 2 OFFSET 1", "SELECT k FROM s ORDER BY x DESC LIMIT 1, 2"} {
		out, errs, code := runSQL(t, files, ddl+q+";\n", "--format", "csv")
		if code != 2 || !strings.Contains(errs, "LIMIT with an offset is not supported on a stream: number the rows and keep a range of them instead, SELECT … FROM (SELECT …, ROW_NUMBER() OVER (ORDER BY …) AS rn FROM …) WHERE rn BETWEEN 2 AND 3") || !strings.Contains(errs, "line 2, column ") {
			t.Errorf("%s: exit %d, stdout %q, stderr %s; want exit 2 and the rank range to write", q, code, out, errs)
		}
	}
	q := "SELECT k FROM (SELECT k, ROW_NUMBER() OVER (ORDER BY x DESC) AS rn FROM s) WHERE rn BETWEEN 2 AND 3;\n"
	if out, errs, code := runSQL(t, files, ddl+q, "--format", "csv"); code != 0 || out != "k\nd\na\n" {
		t.Errorf("the rank range: exit %d, stdout %q, stderr %s; want d and a (x 7 and 4)", code, out, errs)
	}
}

// TestOverProcTimeErrors: an OVER ordered by a processing-time attribute
// takes ROWS frames and unbounded ones (Flink's proctime OVER); a bounded
// RANGE and DESC are refused with the caret under the frame and the order.
func TestOverProcTimeErrors(t *testing.T) {
	decl := "CREATE STREAM s (k VARCHAR, v BIGINT, pt AS PROCTIME()) WITH ('connector'='values');\n"
	checkPlanErrors(t, []planErrCase{
		{"bounded range", decl + "SELECT SUM(v) OVER (ORDER BY pt RANGE BETWEEN INTERVAL '1' SECOND PRECEDING AND CURRENT ROW) FROM s;",
			"RANGE BETWEEN INTERVAL … PRECEDING is not supported yet over processing time: use ROWS BETWEEN n PRECEDING AND CURRENT ROW", "line 2, column 8"},
		{"desc", decl + "SELECT SUM(v) OVER (ORDER BY PROCTIME() DESC) FROM s;", "an OVER window is ordered by its time ascending: drop DESC", "line 2, column 30"},
	})
}
