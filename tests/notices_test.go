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

// TestLateNoticesTellQueriesApart: two windowed queries of one job whose texts
// agree in their first 57 characters get late-rows lines that differ, by the
// query's line and column in the script (SPEC 2.4: one line per query with
// late rows; finding 12f).
func TestLateNoticesTellQueriesApart(t *testing.T) {
	sql := "CREATE STREAM s (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='values');\n" +
		"INSERT INTO s VALUES ('a', 5000), ('a', 100), ('b', 200);\n" +
		"SELECT window_start, window_end, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE s, DESCRIPTOR(ts), INTERVAL '1' SECOND)) WHERE k = 'a' GROUP BY window_start, window_end INTO SIDE 'w1';\n" +
		"  SELECT window_start, window_end, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE s, DESCRIPTOR(ts), INTERVAL '2' SECOND)) GROUP BY window_start, window_end;\n"
	_, errs, code := runScripts(t, []string{"q.sql"}, map[string]string{"q.sql": sql})
	var notices []string
	for _, l := range strings.Split(errs, "\n") {
		if strings.Contains(l, "late row(s) of the query") {
			notices = append(notices, l)
		}
	}
	if code != 0 || len(notices) != 2 || notices[0] == notices[1] ||
		!strings.HasPrefix(notices[0], "1 late row(s) of the query at q.sql, line 3, column 1 (") ||
		!strings.HasPrefix(notices[1], "1 late row(s) of the query at q.sql, line 4, column 3 (") {
		t.Errorf("exit %d, stderr\n%s\nwant two late-rows lines, of the queries at line 3, column 1 and line 4, column 3", code, errs)
	}
	for _, n := range notices {
		if !strings.HasSuffix(n, "...\") sent to 'late'") {
			t.Errorf("notice %q: want the shortened query text and the late output", n)
		}
	}
}

// TestErrorTextsEscapeControls: every error text that carries user data shows
// its control characters as \xNN on stderr (SPEC 4: data never drives the
// terminal; finding 12c): a 'path' in the open error, a flag value, a script
// file name, a socket host; and the notices.
func TestErrorTextsEscapeControls(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.csv")
	if err := os.WriteFile(bad, []byte("1\nx\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-e", "CREATE STREAM s (k VARCHAR) WITH ('connector'='file','path'='no\x1b[31mpe.csv','format'='csv'); SELECT * FROM s;"}, `'no\x1b[31mpe.csv'`},
		{[]string{"--format", "c\x1bsv", "-e", "SELECT 1;"}, `'c\x1bsv'`},
		{[]string{filepath.Join(dir, "no\asuch.sql")}, `no\x07such.sql`},
		{[]string{"--side-dir", filepath.Join(dir, "f\x9bx", "\x00")}, `f\x9bx`},
		{[]string{"-e", "CREATE STREAM s (k VARCHAR) WITH ('connector'='socket','hostname'='h\rx.invalid','port'='1','format'='csv'); SELECT * FROM s;"}, `h\x0dx.invalid`},
		{[]string{"--format", "csv", "-e", "CREATE STREAM `s\x1b` (k BIGINT) WITH ('connector'='file','path'='" + bad + "','format'='csv'); SELECT * FROM `s\x1b`;"}, `stream s\x1b: 1 malformed row(s)`},
	} {
		var out, errb bytes.Buffer
		code := cli.Run(context.Background(), tc.args, strings.NewReader(""), &out, &errb)
		errs := errb.String()
		if strings.ContainsAny(errs, "\x1b\a\r\x00") || strings.Contains(errs, "\u009b") || !strings.Contains(errs, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want %s and no raw control character", tc.args, code, errs, tc.want)
		}
	}
}

// TestLateNoticesAcrossScripts: a side branch declared in one script and the
// main query of another, both at line 2, column 1, read apart by the script's
// name (finding 12f).
func TestLateNoticesAcrossScripts(t *testing.T) {
	q := "SELECT window_start, window_end, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE s, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY window_start, window_end"
	a := "CREATE STREAM s (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='values'); INSERT INTO s VALUES ('a', 5000), ('a', 100);\n" + q + " INTO SIDE 'w1';\n"
	b := "-- the main query\n" + q + ";\n"
	_, errs, code := runScripts(t, []string{"a.sql", "b.sql"}, map[string]string{"a.sql": a, "b.sql": b})
	if code != 0 || !strings.Contains(errs, "1 late row(s) of the query at a.sql, line 2, column 1 (") {
		t.Errorf("exit %d, stderr\n%s\nwant the late-rows line of a.sql's query", code, errs)
	}
}

// TestLateNoticesNameScriptOfInnerQueries: a late-rows line of a query planned
// inside another (a subquery, a WITH name, a view declared in another script,
// the first join of a FROM of three relations) names the script that query
// stands in, with its line and column, as the outermost query's line does
// (SPEC 4: positions as an error's). Before, these lines said "at line 2,
// column 1" without the script.
func TestLateNoticesNameScriptOfInnerQueries(t *testing.T) {
	ddl := "CREATE STREAM s (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='values');\n" +
		"INSERT INTO s VALUES ('a', 5000), ('a', 100), ('b', 6000);\n" +
		"CREATE STREAM t (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='values');\n" +
		"INSERT INTO t VALUES ('a', 5000), ('b', 6000);\n" +
		"CREATE STREAM u (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='values');\n" +
		"INSERT INTO u VALUES ('a', 5000), ('b', 6000);\n"
	win := "SELECT window_start, window_end, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE s, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY window_start, window_end"
	for _, tc := range []struct {
		name    string
		scripts map[string]string
		order   []string
		want    string
	}{
		{"subquery", map[string]string{"d.sql": ddl, "q.sql": "-- a window in a subquery\nSELECT * FROM (" + win + ") w;\n"},
			[]string{"d.sql", "q.sql"}, "at q.sql, line 2, column 16 ("},
		{"WITH", map[string]string{"d.sql": ddl, "q.sql": "WITH w AS (" + win + ")\nSELECT * FROM w;\n"},
			[]string{"d.sql", "q.sql"}, "at q.sql, line 1, column 12 ("},
		{"view", map[string]string{"d.sql": ddl, "v.sql": "\nCREATE VIEW w AS " + win + ";\n", "q.sql": "SELECT * FROM w;\n"},
			[]string{"d.sql", "v.sql", "q.sql"}, "at v.sql, line 2, column 18 ("},
		{"three joins", map[string]string{"d.sql": ddl, "q.sql": "\nSELECT s.k, t.k, u.k FROM s JOIN t ON s.k = t.k JOIN u ON s.k = u.k;\n"},
			[]string{"d.sql", "q.sql"}, "at q.sql, line 2, column 1 ("},
	} {
		_, errs, code := runScripts(t, tc.order, tc.scripts)
		if code != 0 || !strings.Contains(errs, "1 late row(s) of the query "+tc.want) {
			t.Errorf("%s: exit %d, stderr\n%s\nwant a late-rows line %q", tc.name, code, errs, tc.want)
		}
	}
}
