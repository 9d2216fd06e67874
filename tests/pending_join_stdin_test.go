package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPendingJoinBranchReadOnceStream: a side branch whose FROM is an
// anonymous join (not one stream) stays pending past every query, since
// no later FROM can name that join, and runs as its own job at RUN; or at
// the script's end (SPEC 2.1). When a query before that reads one of the
// join's inputs that can be read only once (stdin, SPEC 1), the branch
// later gets only what the query left: the query gets a warning naming
// the branch and the stream, as a plain stream's branch that a query reads
// only inside a relation does (TestPendingBranchesReadInsideRelation). The
// warning is checked against the run: warned, the branch's job outputs no
// row; not warned, it outputs the joined rows of every input row. A join
// of re-readable inputs (a file), a query that reads only the join's other
// input, or RUN; before the query give no warning.
func TestPendingJoinBranchReadOnceStream(t *testing.T) {
	dir := t.TempDir()
	const stdinIn = "1,10\n2,20\n3,30\n"
	if err := os.WriteFile(filepath.Join(dir, "ev.csv"), []byte(stdinIn), 0o644); err != nil {
		t.Fatal(err)
	}
	ddl := func(conn string) string {
		return "CREATE STREAM ev (id BIGINT, v BIGINT) WITH (" + conn + ", 'format'='csv');\n" +
			"CREATE TABLE d (id BIGINT, name VARCHAR) WITH ('connector'='values');\n" +
			"INSERT INTO d VALUES (1, 'a'), (2, 'b');\n"
	}
	const stdin, file = "'connector'='stdin'", "'connector'='file', 'path'='ev.csv'"
	const branch = "SELECT ev.id AS id, d.name AS name INTO SIDE 'us' FROM ev LEFT JOIN d ON ev.id = d.id;\n"
	const subBranch = "SELECT e.id AS id, d.name AS name INTO SIDE 'us' FROM (SELECT id FROM ev WHERE v > 0) e LEFT JOIN d ON e.id = d.id;\n"
	for _, tc := range []struct {
		what, conn, branch, query string
		warned                    bool
	}{
		{"stdin read in FROM", stdin, branch, "SELECT id FROM ev;\n", true},
		{"stdin read in a subquery", stdin, branch, "SELECT id FROM (SELECT id FROM ev) q;\n", true},
		{"stdin read as a join input", stdin, branch, "SELECT ev.id AS id FROM ev JOIN d ON ev.id = d.id;\n", true},
		{"the branch's join reads stdin through a subquery", stdin, subBranch, "SELECT id FROM ev;\n", true},
		{"RUN; before the query", stdin, branch, "RUN;\nSELECT id FROM ev;\n", false},
		{"the query reads the join's other input only", stdin, branch, "SELECT id FROM d;\n", false},
		{"a file is read again", file, branch, "SELECT id FROM ev;\n", false},
	} {
		out, errs, code := runStdinCSV(t, dir, ddl(tc.conn)+tc.branch+tc.query, stdinIn)
		if code != 0 {
			t.Errorf("%s: exit %d, stderr:\n%s", tc.what, code, errs)
			continue
		}
		warned := strings.Contains(errs, "warning: the side branch 'us' pending on the join of ") &&
			strings.Contains(errs, "and ev can be read only once, so that job gets only the rows of ev this query leaves")
		if warned != tc.warned || strings.Count(errs, "warning:") != map[bool]int{true: 1}[tc.warned] {
			t.Errorf("%s: want warned %v (once); stderr:\n%s", tc.what, tc.warned, errs)
		}
		if warned && !strings.Contains(errs, "\n  "+strings.TrimSuffix(tc.query, "\n")+"\n  ^") {
			t.Errorf("%s: the warning's caret is not at the query; stderr:\n%s", tc.what, errs)
		}
		// the branch's rows, whenever its job ran
		took := strings.Count(out, "\nus,")
		if want := map[bool]int{false: 3}[warned]; took != want {
			t.Errorf("%s: the branch output %d rows, want %d (warned %v); stdout:\n%s", tc.what, took, want, warned, out)
		}
	}
}
