package tests

import (
	"strings"
	"testing"
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
		!strings.HasPrefix(notices[0], "1 late row(s) of the query at line 3, column 1 (") ||
		!strings.HasPrefix(notices[1], "1 late row(s) of the query at line 4, column 3 (") {
		t.Errorf("exit %d, stderr\n%s\nwant two late-rows lines, of the queries at line 3, column 1 and line 4, column 3", code, errs)
	}
	for _, n := range notices {
		if !strings.HasSuffix(n, "...\") sent to 'late'") {
			t.Errorf("notice %q: want the shortened query text and the late output", n)
		}
	}
}
