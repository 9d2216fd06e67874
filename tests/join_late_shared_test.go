package tests

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestJoinLateOutputsSharingAName: LATE INTO SIDE 'x', 'x' gives both inputs
// of a join one late output (SPEC 2.1: two outputs of a job may share a side
// name only with one schema; SPEC 2.4: LATE INTO SIDE likewise). With the
// same columns it is one output: one header, both inputs' late rows, in
// every format and with --side-dir, and the end-of-job notice counts them
// for 'x'. With other columns (a column named otherwise) it is a planning
// error (exit 2) at the name, naming both schemas. It was two outputs of
// one name: csv printed a second header for x, table a second table titled
// x, and with --side-dir the job failed at its first late row (exit 1,
// "side output file x.csv was written earlier in this run with columns
// ...") with its main output lost.
func TestJoinLateOutputsSharingAName(t *testing.T) {
	files := map[string]string{
		"l.csv": "1,a,1000\n2,b,2000\n1,d,5000\n1,e,500\n",
		"r.csv": "1,x,1200\n2,y,800\n1,z,4000\n2,w,100\n",
	}
	ddl := func(rcol string) string {
		return `CREATE STREAM l (k BIGINT, v VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector'='file', 'path'='l.csv', 'format'='csv');
CREATE STREAM r (k BIGINT, ` + rcol + ` VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector'='file', 'path'='r.csv', 'format'='csv');
SELECT l.v AS lv, r.` + rcol + ` AS rv FROM l JOIN r ON l.k = r.k AND r.ts BETWEEN l.ts - 1000 AND l.ts + 1000 LATE INTO SIDE 'x', 'x';
`
	}
	same := ddl("v")
	out, errs, code := runSQL(t, files, same, "--format", "csv")
	if code != 0 || strings.Count(out, "output,k,v,ts\n") != 1 || !strings.Contains(out, "x,1,e,500\n") || !strings.Contains(out, "x,2,w,100\n") || !strings.Contains(out, "main,a,x\n") {
		t.Fatalf("csv: exit %d\n%s%s", code, out, errs)
	}
	if strings.Count(errs, "sent to 'x'") != 2 {
		t.Errorf("csv: the notice does not count both inputs' late rows for 'x':\n%s", errs)
	}
	out, errs, code = runSQL(t, files, same, "--format", "table")
	if code != 0 || strings.Count(out, "\nx\n") != 1 || !strings.Contains(out, "│ 1 │ e │ 500 │") || !strings.Contains(out, "│ 2 │ w │ 100 │") {
		t.Fatalf("table: exit %d: one table titled x with both rows wanted\n%s%s", code, out, errs)
	}
	dir := t.TempDir()
	out, errs, code = runSQLIn(t, dir, files, same, "--format", "csv", "--side-dir", filepath.Join(dir, "side"))
	if x := readFile(t, filepath.Join(dir, "side", "x.csv")); code != 0 || x != "k,v,ts\n1,e,500\n2,w,100\n" || out != "lv,rv\na,x\nd,z\n" {
		t.Fatalf("--side-dir: exit %d, main %q, x.csv %q\n%s", code, out, x, errs)
	}
	_, errs, code = runSQL(t, files, ddl("w"), "--format", "csv")
	want := "error: late side output 'x' has the columns of r, (k BIGINT, w VARCHAR, ts BIGINT), but side output 'x' has (k BIGINT, v VARCHAR, ts BIGINT)"
	if code != 2 || !strings.HasPrefix(errs, want) || !strings.Contains(errs, "line 3, column 121") {
		t.Fatalf("other columns: exit %d, stderr:\n%s\nwant exit 2 and %q at the second name", code, errs, want)
	}
}

// TestJoinLateOutputSharedWithAPendingBranch (SPEC 2.1: one side name, one
// schema; 2.7's late outputs): a side branch pending on a join's input may
// take the name of that input's late output when its columns are the
// input's (SELECT *): the one output then holds the branch's rows and the
// late rows, each once, under one header. With other columns it is a
// planning error that names both and, when LATE INTO SIDE gave the name,
// does not tell the user to add one. Before, any shared name was refused,
// and the error told a query that named its late outputs to name them.
func TestJoinLateOutputSharedWithAPendingBranch(t *testing.T) {
	files := map[string]string{
		"o.csv": "1,alice,1000,10.5\n2,bob,2000,20.0\n3,,3000,5.0\n4,carol,9000,7.5\n5,dave,4000,1.0\n",
	}
	script := func(branch, late string) string {
		return `CREATE STREAM o (id BIGINT, cust VARCHAR, ts BIGINT, amt DOUBLE, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector'='file','path'='o.csv','format'='csv');
CREATE STREAM p (id BIGINT, cust VARCHAR, ts BIGINT, amt DOUBLE, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector'='file','path'='o.csv','format'='csv');
SELECT ` + branch + ` INTO SIDE 'lt' FROM o WHERE amt > 8;
SELECT o.id, p.id FROM o JOIN p ON o.id = p.id AND p.ts BETWEEN o.ts AND o.ts + 10` + late + `;
`
	}
	for _, late := range []string{" LATE INTO SIDE 'lt'", " LATE INTO SIDE 'lt', 'lp'"} {
		dir := t.TempDir()
		out, errs, code := runSQLIn(t, dir, files, script("*", late), "--format", "csv", "--side-dir", filepath.Join(dir, "side"))
		// the branch takes rows 1 and 2 (amt > 8), the join the rest; row
		// 5 (4000 after 9000: below the watermark 8000) is o's late row
		// and p's
		if lt := readFile(t, filepath.Join(dir, "side", "lt.csv")); code != 0 || lt != "id,cust,ts,amt\n1,alice,1000,10.5\n2,bob,2000,20.0\n5,dave,4000,1.0\n" || out != "id,id0\n3,3\n4,4\n" {
			t.Fatalf("%s: exit %d, main %q, lt.csv %q\n%s", late, code, out, lt, errs)
		}
		if !strings.Contains(errs, "1 late row(s) of the query") || !strings.Contains(errs, "sent to 'lt'") {
			t.Errorf("%s: the notice does not count o's late row in 'lt':\n%s", late, errs)
		}
	}
	_, errs, code := runSQL(t, files, script("id", " LATE INTO SIDE 'lt'"), "--format", "csv")
	if code != 2 || !strings.Contains(errs, "side branch 'lt' pending on o has the name of the join's late output of o but other columns") ||
		!strings.Contains(errs, "give the late output another name in LATE INTO SIDE") || strings.Contains(errs, "name the late outputs with") {
		t.Fatalf("other columns: exit %d, stderr:\n%s", code, errs)
	}
}
