package tests

import (
	"fmt"
	"strings"
	"testing"
)

// TestDerivedRelationsShareTheJobsStateBudget: 'state.max-bytes' bounds a
// statement's state once (SPEC 1), whatever derived relations (SPEC 2.6:
// subqueries, views, UNION ALL parts) it reads: their jobs charge the reading
// job's budget. The test finds the smallest budget S (a power of two) under
// which one GROUP BY subquery over n keys runs; two such subqueries under a
// UNION ALL need more than S together and must stop at S with the limit's
// error, and run at 4 S. (Each derived relation's job opened a budget of
// its own: the UNION ALL ran at S.)
func TestDerivedRelationsShareTheJobsStateBudget(t *testing.T) {
	const n = 20_000
	var rows strings.Builder
	for i := range n {
		fmt.Fprintf(&rows, "k%d,%d\n", i, i)
	}
	files := map[string]string{"s.csv": rows.String(), "s2.csv": rows.String()}
	run := func(budgetKiB int, q string) (string, string, int) {
		sql := fmt.Sprintf("SET 'state.max-bytes' = '%dKiB';\n", budgetKiB) +
			"CREATE STREAM s (k VARCHAR, v BIGINT) WITH ('connector'='file', 'path'='s.csv', 'format'='csv');\n" +
			"CREATE STREAM s2 (k VARCHAR, v BIGINT) WITH ('connector'='file', 'path'='s2.csv', 'format'='csv');\n" + q + "\n"
		return runSQL(t, files, sql, "--format", "csv")
	}
	one := "SELECT COUNT(*) AS n FROM (SELECT k, COUNT(*) AS c FROM s GROUP BY k) a;"
	two := "SELECT COUNT(*) AS n FROM (SELECT k, COUNT(*) AS c FROM s GROUP BY k UNION ALL SELECT k, COUNT(*) AS c FROM s2 GROUP BY k) a;"
	s := 0
	for kib := 64; kib <= 1<<20; kib *= 2 {
		if out, _, code := run(kib, one); code == 0 && out == fmt.Sprintf("n\n%d\n", n) {
			s = kib
			break
		}
	}
	if s == 0 {
		t.Fatalf("one GROUP BY over %d keys did not run under any budget up to 1 GiB", n)
	}
	out, errs, code := run(s, two)
	if code != 1 || !strings.Contains(errs, "'state.max-bytes'") {
		t.Errorf("two GROUP BY subqueries under %d KiB (one needs more than %d KiB): exit %d, stdout %q, stderr %s; want exit 1 and the state limit's error", s, s/2, code, out, errs)
	}
	if out, errs, code := run(4*s, two); code != 0 || out != fmt.Sprintf("n\n%d\n", 2*n) {
		t.Errorf("two GROUP BY subqueries under %d KiB: exit %d, stdout %q, stderr %s", 4*s, code, out, errs)
	}
}
