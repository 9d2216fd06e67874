package tests

import (
	"strings"
	"testing"
)

// TestAnalyzeWhereRowsWent: EXPLAIN ANALYZE says where rows went (SPEC 4
// "Finding out why"): the late output's largest and median lateness and the
// stream whose watermark made the rows late, the rows each filter dropped or
// passed on, and the probe rows a join found no partner for.
func TestAnalyzeWhereRowsWent(t *testing.T) {
	files := map[string]string{
		// 70000 fires [0, 60000); then 5000, 20000, 59000 are 65 s, 50 s, 11 s late
		"ev.csv":   "a,0\nb,10000\nx,30000\nc,70000\na,5000\nb,20000\nc,59000\nz,80000\n",
		"keep.csv": "a\nb\nc\nx\n",
	}
	sql := `CREATE STREAM ev (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '0' SECOND) WITH ('connector'='file', 'path'='ev.csv');
CREATE STREAM keep (k VARCHAR) WITH ('connector'='file', 'path'='keep.csv');
EXPLAIN ANALYZE SELECT window_start, COUNT(*) AS n
  FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
  WHERE k <> 'x' AND k IN (SELECT k FROM keep)
  GROUP BY window_start, window_end;
`
	out, errs, code := runSQLIn(t, t.TempDir(), files, sql, "--format", "tsv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"probe 8 rows, 1 row without a partner", // z
		"7 rows in, dropped 1 row",              // x
		"3 rows late; lateness largest 1.1 min, median 50 s, by the watermark of stream ev",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}
