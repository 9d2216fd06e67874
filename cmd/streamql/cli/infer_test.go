package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInferSchema: a csv or json file read without a column list gets its
// schema inferred (SPEC 1, issue 29 item 4): DESCRIBE 'file', SELECT ... FROM
// 'file' and CREATE STREAM s WITH (...) without columns; names from the
// header or the json keys, types BIGINT, DOUBLE, BOOLEAN, TIMESTAMP, else
// VARCHAR (a column with no value is VARCHAR).
func TestInferSchema(t *testing.T) {
	files := map[string]string{
		"i.csv":  "id,name,score,ok,at,empty\n1,a,1.5,true,2021-01-17 12:48:29,\n2,b,2,false,2021-01-17T12:48:30Z,\n",
		"i.json": `{"id":1,"name":"a","x":1.5,"o":{"a":1}}` + "\n" + `{"id":2,"name":"b","t":"2021-01-17 12:48:29"}` + "\n",
	}
	sql := `DESCRIBE 'i.csv';
DESCRIBE 'i.json';
SELECT * FROM 'i.csv';
SELECT id, name FROM 'i.json' WHERE id > 1;
CREATE STREAM s WITH ('connector'='file','path'='i.csv','format'='csv');
SELECT COUNT(*) AS n, MAX(score) AS m FROM s;
SELECT 'i.csv' AS f FROM s LIMIT 1;
SHOW STREAMS;
`
	stdout := runInCSV(t, files, sql)
	want := `column,type,watermark
id,BIGINT,""
name,VARCHAR,""
score,DOUBLE,""
ok,BOOLEAN,""
at,TIMESTAMP(3),""
empty,VARCHAR,""
column,type,watermark
id,BIGINT,""
name,VARCHAR,""
x,DOUBLE,""
o,VARCHAR,""
t,TIMESTAMP(3),""
id,name,score,ok,at,empty
1,a,1.5,true,2021-01-17 12:48:29.000,""
2,b,2.0,false,2021-01-17 12:48:30.000,""
id,name
2,b
n,m
2,2.0
f
i.csv
name,connector,bounded,columns
s,file,true,"id BIGINT, name VARCHAR, score DOUBLE, ok BOOLEAN, at TIMESTAMP(3), empty VARCHAR"
`
	if stdout != want {
		t.Errorf("stdout\n%s\nwant\n%s", stdout, want)
	}
	_, stderr, code := runArgs(t, "-e", "SELECT * FROM '/nonexistent/x.csv';")
	if code != exitPlanning || !strings.Contains(stderr, "cannot infer the columns of '/nonexistent/x.csv'") || !strings.Contains(stderr, "^") {
		t.Errorf("missing file: exit %d, stderr\n%s", code, stderr)
	}
	_, stderr, code = runArgs(t, "-e", "CREATE STREAM v WITH ('connector'='values');")
	if code != exitPlanning || !strings.Contains(stderr, "declare them: CREATE STREAM v (col TYPE, ...)") {
		t.Errorf("values without columns: exit %d, stderr\n%s", code, stderr)
	}
}

// TestInferHeaderlessCSV: a csv file without a header line (the shape of
// queries/sensors.csv) read by name or declared without columns keeps its
// first row as a row, its columns named column1, column2, … (SPEC 1;
// codec.CSVHasHeader), in DESCRIBE 'file', FROM 'file' and CREATE STREAM
// without a column list; a header over the same rows still names them.
func TestInferHeaderlessCSV(t *testing.T) {
	files := map[string]string{
		"r.csv": "设备8,1610035289736,84.3\n设备5,1610035371758,38.8\n",
		"h.csv": "deviceNo,ts,temperature\n设备8,1610035289736,84.3\n设备5,1610035371758,38.8\n",
	}
	sql := `DESCRIBE 'r.csv';
SELECT * FROM 'r.csv';
CREATE STREAM s WITH ('connector'='file','path'='r.csv','format'='csv');
SELECT COUNT(*) AS n, MAX(column3) AS m FROM s;
SELECT * FROM 'h.csv';
`
	stdout := runInCSV(t, files, sql)
	want := `column,type,watermark
column1,VARCHAR,""
column2,BIGINT,""
column3,DOUBLE,""
column1,column2,column3
设备8,1610035289736,84.3
设备5,1610035371758,38.8
n,m
2,84.3
deviceNo,ts,temperature
设备8,1610035289736,84.3
设备5,1610035371758,38.8
`
	if stdout != want {
		t.Errorf("stdout\n%s\nwant\n%s", stdout, want)
	}
}

// runInCSV writes files and a script of sql into a new folder, runs the
// script with --format csv, and returns its stdout (a failure fails t).
func runInCSV(t *testing.T, files map[string]string, sql string) string {
	t.Helper()
	dir := t.TempDir()
	files["q.sql"] = sql
	for n, text := range files {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stdout, stderr, code := runArgs(t, "--format", "csv", filepath.Join(dir, "q.sql"))
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	return stdout
}
