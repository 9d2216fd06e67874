package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFlinkDDL runs Flink's DDL spellings through the command line (issue 29
// item 3, SPEC 1 and 3): CREATE TEMPORARY TABLE with PRIMARY KEY ... NOT
// ENFORCED, SHOW TABLES, DESCRIBE and SHOW CREATE TABLE showing the key,
// INSERT INTO t (cols) SELECT, SET; and DROP TABLE.
func TestFlinkDDL(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "hot.csv")
	sql := `CREATE TEMPORARY TABLE t (x BIGINT, s VARCHAR, PRIMARY KEY (s) NOT ENFORCED) WITH ('connector' = 'values');
INSERT INTO t VALUES (1, 'a'), (2, 'b');
CREATE TABLE hot (name VARCHAR, n BIGINT, note VARCHAR) WITH ('connector' = 'file', 'path' = '` + out + `', 'format' = 'csv');
SHOW TABLES;
DESCRIBE t;
SHOW CREATE TABLE t;
INSERT INTO hot (n, name) SELECT x, s FROM t;
SET 'timer' = 'off';
SET;
DROP TABLE t;
SHOW TABLES;
`
	stdout, stderr, code := runArgs(t, "--format", "csv", "-e", sql)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	for _, want := range []string{
		"name,connector,bounded,columns\nhot,file,true,\"name VARCHAR, n BIGINT, note VARCHAR\"\nt,values,true,\"x BIGINT, s VARCHAR\"\n",
		"column,type,watermark,key\nx,BIGINT,\"\",\"\"\ns,VARCHAR,\"\",PRI\n",
		"statement\n\"CREATE STREAM `t` (\n  `x` BIGINT,\n  `s` VARCHAR,\n  PRIMARY KEY (`s`) NOT ENFORCED\n) WITH (\n  'connector' = 'values'\n)\"\n",
		"key,value\nexecution.runtime-mode,batch\nformat,csv\nplanner.prune-columns,true\nplanner.push-filters,true\nside-dir,\"\"\nsql-client.execution.result-mode,auto\nstate.max-bytes,2GiB\ntable.exec.mini-batch.enabled,false\ntable.exec.state.ttl,0 ms\ntimer,off\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks\n%s\ngot\n%s", want, stdout)
		}
	}
	if !strings.HasSuffix(stdout, "name,connector,bounded,columns\nhot,file,true,\"name VARCHAR, n BIGINT, note VARCHAR\"\n") {
		t.Errorf("DROP TABLE t left it in SHOW TABLES:\n%s", stdout)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), "name,n,note\na,1,\nb,2,\n"; got != want {
		t.Errorf("INSERT INTO hot (n, name): file\n%s\nwant\n%s", got, want)
	}
}

// TestFlinkDDLErrors: the Flink forms streamql refuses say how to write them,
// at the offending token (issue 29 item 3).
func TestFlinkDDLErrors(t *testing.T) {
	for _, tc := range []struct{ sql, want string }{
		{"CREATE TABLE c (ms BIGINT, ts AS CAST(ms AS TIMESTAMP), t2 AS ts) WITH ('connector'='values');",
			"unknown column 'ts'"}, // a computed column reads the input's columns only (Flink)
		{"CREATE TABLE c (ms BIGINT, ts AS CAST(nope AS TIMESTAMP)) WITH ('connector'='values');",
			"unknown column 'nope'"},
		{"CREATE TABLE c (ts AS CAST(1 AS TIMESTAMP)) WITH ('connector'='values');",
			"needs at least one column read from its input"},
		{"CREATE TABLE c (ms BIGINT, ms AS ms + 1) WITH ('connector'='values');",
			"column 'ms' is declared twice"},
		{"CREATE TABLE c (s VARCHAR, ts AS UPPER(s), WATERMARK FOR ts AS ts) WITH ('connector'='values');",
			"the event-time column must be BIGINT (epoch ms) or TIMESTAMP, not VARCHAR"},
		{"CREATE TABLE c (ms BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector'='values');",
			"PRIMARY KEY (id): no column 'id'; columns: ms"},
		{"CREATE TABLE c (ms BIGINT) WITH ('connector'='values'); CREATE TABLE d (a VARCHAR, b VARCHAR) WITH ('connector'='file','path'='/tmp/x','format'='csv'); INSERT INTO d (a, zz) SELECT 'x', 'y' FROM c;",
			"INSERT INTO d: no column 'zz'; columns: a, b"},
		{"SHOW CREATE TABLE nope;", "unknown stream 'nope'"},
	} {
		_, stderr, code := runArgs(t, "-e", tc.sql)
		if code != exitPlanning || !strings.Contains(stderr, tc.want) || !strings.Contains(stderr, "^") {
			t.Errorf("%s: exit %d, stderr\n%s\nwant status 2 and %q with a caret", tc.sql, code, stderr, tc.want)
		}
	}
}

// TestLegacyGroupWindows: Flink's GROUP BY k, TUMBLE(ts, ...) / HOP / SESSION
// with their _START, _END and _ROWTIME functions are the window TVF
// aggregation of SPEC 2.4 (issue 29 item 3; Nexmark q11 uses SESSION).
func TestLegacyGroupWindows(t *testing.T) {
	sql := `CREATE TABLE bids (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector'='values');
INSERT INTO bids VALUES ('a', 1000), ('a', 2000), ('b', 61000), ('a', 65000), ('a', 200000);
SELECT k, TUMBLE_START(ts, INTERVAL '1' MINUTE) AS ws, TUMBLE_END(ts, INTERVAL '1' MINUTE) AS we, TUMBLE_ROWTIME(ts, INTERVAL '1' MINUTE) AS rt, COUNT(*) AS n FROM bids GROUP BY k, TUMBLE(ts, INTERVAL '1' MINUTE);
SELECT k, SESSION_START(ts, INTERVAL '10' SECOND) AS s, SESSION_END(ts, INTERVAL '10' SECOND) AS e, COUNT(*) AS n FROM bids GROUP BY k, SESSION(ts, INTERVAL '10' SECOND);
SELECT HOP_START(ts, INTERVAL '30' SECOND, INTERVAL '1' MINUTE) AS s, HOP_END(ts, INTERVAL '30' SECOND, INTERVAL '1' MINUTE) AS e, COUNT(*) AS n FROM bids GROUP BY HOP(ts, INTERVAL '30' SECOND, INTERVAL '1' MINUTE);
`
	stdout, stderr, code := runArgs(t, "--format", "csv", "-e", sql)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	want := `k,ws,we,rt,n
a,0,60000,59999,2
b,60000,120000,119999,1
a,60000,120000,119999,1
a,180000,240000,239999,1
k,s,e,n
a,1000,12000,2
b,61000,71000,1
a,65000,75000,1
a,200000,210000,1
s,e,n
-30000,30000,2
0,60000,2
30000,90000,2
60000,120000,2
150000,210000,1
180000,240000,1
`
	if stdout != want {
		t.Errorf("stdout\n%s\nwant\n%s", stdout, want)
	}
	// errors show the spelling
	_, stderr, code = runArgs(t, "-e", "CREATE TABLE b (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='values'); SELECT COUNT(*) FROM b GROUP BY TUMBLE(ts);")
	if code != exitPlanning || !strings.Contains(stderr, "TUMBLE's first argument is the time column: TUMBLE(ts, size) with INTERVALs, e.g. TUMBLE(ts, INTERVAL '1' MINUTE)") {
		t.Errorf("TUMBLE(ts): exit %d, stderr\n%s", code, stderr)
	}
	_, stderr, code = runArgs(t, "-e", "CREATE TABLE b (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='values'); SELECT COUNT(*) FROM b GROUP BY SESSION(ts, INTERVAL '1' SECOND);")
	if code != exitPlanning || !strings.Contains(stderr, "GROUP BY k, SESSION(ts, INTERVAL '1' SECOND)") {
		t.Errorf("SESSION without a key: exit %d, stderr\n%s", code, stderr)
	}
}

// TestToTimestampLTZ: Flink's TO_TIMESTAMP_LTZ(epoch, 3|0), the spelling the
// computed-column error points to (issue 29 item 3), from the function table
// (catalog/functions/table.go).
func TestToTimestampLTZ(t *testing.T) {
	stdout, stderr, code := runArgs(t, "--format", "csv", "-e",
		"SELECT TO_TIMESTAMP_LTZ(1610035289736, 3) AS a, TO_TIMESTAMP_LTZ(1610035289, 0) AS b, TO_TIMESTAMP_LTZ(1610035289736.9, 3) AS c, TO_TIMESTAMP_LTZ(CAST(NULL AS BIGINT), 3) AS d;")
	if want := "a,b,c,d\n2021-01-07 16:01:29.736,2021-01-07 16:01:29.000,2021-01-07 16:01:29.736,\n"; code != 0 || stdout != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want %q", code, stdout, stderr, want)
	}
	for _, tc := range []struct{ sql, want string }{
		{"SELECT TO_TIMESTAMP_LTZ('x', 3);", "it takes TO_TIMESTAMP_LTZ(BIGINT, BIGINT)"},
		{"SELECT TO_TIMESTAMP_LTZ(1, 6);", "precision must be 0 (seconds) or 3 (milliseconds)"},
	} {
		if _, stderr, code := runArgs(t, "-e", tc.sql); code != exitPlanning || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr %q", tc.sql, code, stderr)
		}
	}
}

// TestComputedColumns: Flink's computed columns (issue 29 item 3, SPEC 1):
// name AS expr is computed on read over the columns the input holds, in every
// place a column can be read (SELECT *, WHERE, a window's DESCRIPTOR, the
// WATERMARK FOR column, CURRENT_WATERMARK), for csv by position and by
// header, json and values; a row whose computed event time is NULL is
// malformed; DESCRIBE and SHOW CREATE TABLE show the expression. Each result
// is checked against the same query with the expression written in it over a
// stream without computed columns.
func TestComputedColumns(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		writeFile(t, filepath.Join(dir, name), text)
		return filepath.Join(dir, name)
	}
	csvPos := write("pos.csv", "1000,a\n500,b\n3500,c\nx,d\n2100,e\n9000,f\n")
	csvHdr := write("hdr.csv", "name,ms\na,1000\nb,500\nc,3500\nd,x\ne,2100\nf,9000\n")
	js := write("s.json", `{"ms":1000,"name":"a"}`+"\n"+`{"ms":500,"name":"b"}`+"\n"+`{"ms":3500,"name":"c"}`+"\n"+`{"name":"d"}`+"\n"+`{"ms":2100,"name":"e"}`+"\n"+`{"ms":9000,"name":"f"}`+"\n")
	queries := []string{
		"SELECT * FROM s;",
		"SELECT name, up, ts, CURRENT_WATERMARK(ts) AS wm FROM s WHERE ts > TIMESTAMP '1970-01-01 00:00:00.600';",
		"SELECT window_start, window_end, COUNT(*) AS n, MAX(up) AS m FROM TABLE(TUMBLE(TABLE s, DESCRIPTOR(ts), INTERVAL '2' SECOND)) GROUP BY window_start, window_end;",
	}
	// the reference: the same columns computed in the query, over a stream
	// whose event time is the BIGINT it is computed from
	refQueries := []string{
		"SELECT ms, TO_TIMESTAMP_LTZ(ms, 3) AS ts, name, UPPER(name) AS up FROM s;",
		"SELECT name, UPPER(name) AS up, TO_TIMESTAMP_LTZ(ms, 3) AS ts, TO_TIMESTAMP_LTZ(CURRENT_WATERMARK(ms), 3) AS wm FROM s WHERE ms > 600;",
		"SELECT TO_TIMESTAMP_LTZ(window_start, 3) AS window_start, TO_TIMESTAMP_LTZ(window_end, 3) AS window_end, COUNT(*) AS n, MAX(UPPER(name)) AS m FROM TABLE(TUMBLE(TABLE s, DESCRIPTOR(ms), INTERVAL '2' SECOND)) GROUP BY window_start, window_end;",
	}
	cols := "(ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3), name VARCHAR, up AS UPPER(name), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)"
	refCols := "(ms BIGINT, name VARCHAR, WATERMARK FOR ms AS ms - INTERVAL '1' SECOND)"
	for _, src := range []struct{ name, with, order string }{
		{"csv by position", "'connector'='file', 'path'='" + csvPos + "'", ""},
		{"csv by header", "'connector'='file', 'path'='" + csvHdr + "', 'csv.header'='true'", ""},
		{"json", "'connector'='file', 'path'='" + js + "', 'format'='json'", ""},
		{"values", "'connector'='values'", "INSERT INTO s VALUES (1000, 'a'), (500, 'b'), (3500, 'c'), (2100, 'e'), (9000, 'f');\n"},
	} {
		for k, q := range queries {
			got, stderr, code := runArgs(t, "--format", "csv", "-e", "CREATE STREAM s "+cols+" WITH ("+src.with+");\n"+src.order+q)
			want, refErr, refCode := runArgs(t, "--format", "csv", "-e", "CREATE STREAM s "+refCols+" WITH ("+src.with+");\n"+src.order+refQueries[k])
			if code != 0 || refCode != 0 {
				t.Fatalf("%s, %s: exit %d %s / reference exit %d %s", src.name, q, code, stderr, refCode, refErr)
			}
			if got != want {
				t.Errorf("%s, %s:\n%s\nwant (the expression in the query)\n%s", src.name, q, got, want)
			}
			if src.name != "values" && strings.Count(stderr, "errors> ") != 1 {
				t.Errorf("%s, %s: want the one malformed row on stderr, got\n%s", src.name, q, stderr)
			}
		}
	}
	// a sink with a computed column writes the columns its file holds, and
	// reading it back computes the other (as in Flink)
	sink := filepath.Join(dir, "sink.csv")
	stdout, stderr, code := runArgs(t, "--format", "csv", "-e", "CREATE STREAM v (a BIGINT) WITH ('connector'='values');\nINSERT INTO v VALUES (1), (2);\n"+
		"CREATE STREAM o (a BIGINT, b AS a * 2) WITH ('connector'='file', 'path'='"+sink+"', 'csv.header'='true');\nINSERT INTO o SELECT a FROM v;\nSELECT * FROM o;")
	if b, _ := os.ReadFile(sink); code != 0 || string(b) != "a\n1\n2\n" || stdout != "a,b\n1,2\n2,4\n" {
		t.Errorf("sink with a computed column: exit %d, file %q, read back %q, stderr %s", code, b, stdout, stderr)
	}
	// a NULL computed event time makes the row malformed, a NULL elsewhere does not
	_, stderr, code = runArgs(t, "--format", "csv", "-e", "CREATE STREAM s (name VARCHAR, ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3), WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='"+js+"', 'format'='json');\nSELECT * FROM s;")
	if code != 0 || !strings.Contains(stderr, "the event time (TO_TIMESTAMP_LTZ(ms, 3)) is NULL") || !strings.Contains(stderr, "1 malformed row(s)") {
		t.Errorf("NULL computed event time: exit %d, stderr\n%s", code, stderr)
	}
	stdout, stderr, code = runArgs(t, "--format", "csv", "-e", "CREATE STREAM s "+cols+" WITH ('connector'='values');\nDESCRIBE s;\nSHOW CREATE TABLE s;")
	if code != 0 {
		t.Fatalf("exit %d %s", code, stderr)
	}
	for _, want := range []string{
		"column,type,watermark,extras\nms,BIGINT,\"\",\"\"\nts,TIMESTAMP(3),ts - INTERVAL '1' SECOND,\"AS TO_TIMESTAMP_LTZ(ms, 3)\"\nname,VARCHAR,\"\",\"\"\nup,VARCHAR,\"\",AS UPPER(name)\n",
		"  `ts` AS TO_TIMESTAMP_LTZ(ms, 3),\n  `name` VARCHAR,\n  `up` AS UPPER(name),\n  WATERMARK FOR `ts` AS ts - INTERVAL '1' SECOND\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks\n%s\ngot\n%s", want, stdout)
		}
	}
}

// TestMetadataColumnErrors: a METADATA column needs the kafka connector and
// a type its key gives (issue 29 item 3, SPEC 1), said at the column.
func TestMetadataColumnErrors(t *testing.T) {
	for _, tc := range []struct{ sql, want string }{
		{"CREATE TABLE c (id BIGINT, ts TIMESTAMP(3) METADATA FROM 'timestamp') WITH ('connector'='values');", "METADATA columns need 'connector'='kafka'"},
		{"CREATE TABLE c (id BIGINT, p VARCHAR METADATA FROM 'partition') WITH ('connector'='kafka', 'topic'='t', 'properties.bootstrap.servers'='127.0.0.1:9');", "column p METADATA FROM 'partition' is VARCHAR; declare it BIGINT"},
		{"CREATE TABLE c (id BIGINT, x BIGINT METADATA FROM 'nope') WITH ('connector'='kafka', 'topic'='t', 'properties.bootstrap.servers'='127.0.0.1:9');", "unknown Kafka metadata key 'nope'"},
		{"CREATE TABLE c (ts TIMESTAMP(3) METADATA FROM 'timestamp') WITH ('connector'='kafka', 'topic'='t', 'properties.bootstrap.servers'='127.0.0.1:9');", "needs at least one column read from its input"},
	} {
		_, stderr, code := runArgs(t, "-e", tc.sql)
		if code != exitPlanning || !strings.Contains(stderr, tc.want) || !strings.Contains(stderr, "^") {
			t.Errorf("%s: exit %d, stderr\n%s\nwant status 2 and %q with a caret", tc.sql, code, stderr, tc.want)
		}
	}
}
