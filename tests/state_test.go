package tests

import (
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
)

// TestSelectWithoutFrom: SPEC 2, a SELECT without FROM gives one row, in every
// output format; its WHERE and LIMIT apply to that row; it reads no stream, so a
// column name or * is a planning error.
func TestSelectWithoutFrom(t *testing.T) {
	q := "SELECT 1 + 1 AS two, 'a' || 'b' AS s;\n"
	want := map[string]string{
		"csv":      "two,s\n2,ab\n",
		"tsv":      "two\ts\n2\tab\n",
		"json":     "{\"two\":2,\"s\":\"ab\"}\n",
		"plain":    "(2,ab)\n",
		"table":    "┌─────┬────┐\n│ two │ s  │\n├─────┼────┤\n│   2 │ ab │\n└─────┴────┘\n",
		"markdown": "| two | s |\n|---:|---|\n| 2 | ab |\n\n",
	}
	for format, w := range want {
		out, errs, code := runSQL(t, nil, q, "--format", format)
		if code != 0 || out != w {
			t.Errorf("%s: exit %d, stderr %q\ngot\n%q\nwant\n%q", format, code, errs, out, w)
		}
	}
	for _, c := range []struct{ sql, want string }{
		{"SELECT 1 AS x WHERE 1 = 0;", "x\n"},
		{"SELECT 1 AS x LIMIT 0;", "x\n"},
		{"SELECT 1 AS x LIMIT 3;", "x\n1\n"},
		{"SELECT 1 AS x; SELECT 2 AS y;", "x\n1\ny\n2\n"},
	} {
		out, errs, code := runSQL(t, nil, c.sql, "--format", "csv")
		if code != 0 || out != c.want {
			t.Errorf("%s: exit %d, stderr %q\ngot %q, want %q", c.sql, code, errs, out, c.want)
		}
	}
	for sql, want := range map[string]string{
		"SELECT *;":     "* needs FROM",
		"SELECT a + 1;": "unknown column 'a'",
	} {
		_, errs, code := runSQL(t, nil, sql)
		if code != 2 || !strings.Contains(errs, want) || !strings.Contains(errs, "line 1, column") {
			t.Errorf("%s: exit %d, stderr %q; want status 2 and %q with a position", sql, code, errs, want)
		}
	}
}

// TestSideNamedLikeErrorsOutput: SPEC 1, a user side output cannot be named like
// the errors side output of any stream the job reads (probe or build side,
// default or custom 'errors.side'): a planning error (exit 2) before any output.
func TestSideNamedLikeErrorsOutput(t *testing.T) {
	ddl := `CREATE STREAM l (k VARCHAR, v BIGINT) WITH ('connector'='file', 'path'='l.csv'%s);
CREATE STREAM r (k VARCHAR) WITH ('connector'='file', 'path'='r.csv'%s);
CREATE STREAM q (k VARCHAR) WITH ('connector'='file', 'path'='r.csv');
`
	files := map[string]string{"l.csv": "a,1\nbad\n", "r.csv": "a\nb,c\n"}
	cases := []struct{ lopt, ropt, sql, stream string }{
		{"", "", "SELECT v INTO SIDE 'errors' FROM l;\nSELECT v FROM l;", "l"},
		{", 'errors.side'='lbad'", "", "SELECT v INTO SIDE 'lbad' FROM l;\nSELECT v FROM l;", "l"},
		{", 'errors.side'='lbad'", "", "SELECT v INTO SIDE 'errors' FROM l;\nSELECT v FROM l WHERE k IN (SELECT k FROM r);", "r"},
		{"", ", 'errors.side'='rbad'", "SELECT v INTO SIDE 'rbad' FROM l;\nSELECT v FROM l SEMI JOIN r ON l.k = r.k;", "r"},
		{"", ", 'errors.side'='rbad'", "SELECT v INTO SIDE 'rbad' FROM l WHERE k IN (SELECT k FROM r);", "r"},
		{"", ", 'errors.side'='rbad'", "SELECT v INTO SIDE 'x' FROM l WHERE k IN (SELECT k FROM q);\nSELECT v INTO SIDE 'rbad' FROM l WHERE NOT EXISTS (SELECT 1 FROM r WHERE r.k = l.k);", "r"},
		// a stream read at any depth of a relation (SPEC 2.6): a subquery,
		// a view, a join, a UNION ALL, a view of a join
		{", 'errors.side'='lbad'", "", "SELECT v INTO SIDE 'lbad' FROM (SELECT k, v FROM l) s WHERE v > 0;\nSELECT v FROM (SELECT k, v FROM l) s;", "l"},
		{", 'errors.side'='lbad'", "", "CREATE VIEW w AS SELECT k, v FROM l;\nSELECT v INTO SIDE 'lbad' FROM w WHERE v > 0;\nSELECT v FROM w;", "l"},
		{"", ", 'errors.side'='rbad'", "SELECT v INTO SIDE 'rbad' FROM l JOIN r ON l.k = r.k WHERE v > 0;", "r"},
		{"", ", 'errors.side'='rbad'", "SELECT k INTO SIDE 'rbad' FROM (SELECT k FROM l UNION ALL SELECT k FROM r) u WHERE k > '';", "r"},
		{"", ", 'errors.side'='rbad'", "CREATE VIEW w AS SELECT l.k, v FROM l JOIN r ON l.k = r.k;\nSELECT v INTO SIDE 'rbad' FROM w WHERE v > 0;\nSELECT * FROM w;", "r"},
		{"", "", "CREATE VIEW w AS SELECT l.k, v FROM l JOIN r ON l.k = r.k;\nCREATE VIEW w2 AS SELECT k, v FROM w;\nSELECT v INTO SIDE 'errors' FROM w2 WHERE v > 0;\nSELECT * FROM w2;", "l"},
	}
	for _, c := range cases {
		sql := strings.Replace(strings.Replace(ddl, "%s", c.lopt, 1), "%s", c.ropt, 1) + c.sql + "\n"
		out, errs, code := runSQL(t, files, sql, "--format", "csv")
		want := "errors side output of stream " + c.stream
		if code != 2 || out != "" || !strings.Contains(errs, want) || !strings.Contains(errs, "column") {
			t.Errorf("%s\nexit %d, stdout %q, stderr %q; want status 2, no output, and %q", c.sql, code, out, errs, want)
		}
	}
	// a side named like the errors output of a stream the job does not read is fine
	out, errs, code := runSQL(t, files, strings.Replace(strings.Replace(ddl, "%s", "", 1), "%s", ", 'errors.side'='rbad'", 1)+
		"SELECT v INTO SIDE 'rbad' FROM l;\nSELECT v FROM l;\n", "--format", "csv")
	if code != 0 || !strings.Contains(out, "rbad,1") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestLateNamedLikeErrorsOutput: SPEC 1 and 2.7, a late output named by LATE
// INTO SIDE is a user side output: it cannot be named like the errors side
// output of a stream the job reads (a join's input, or a stream under the view
// a window reads), and a join's two late outputs may share a name only when
// they have the same columns (2.1's rule, SPEC 2.4). Each is a planning error
// (exit 2, with a position) before any output, not a failure when the first row
// reaches the side output's file.
func TestLateNamedLikeErrorsOutput(t *testing.T) {
	ddl := `CREATE STREAM a (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='a.csv', 'errors.side'='abad');
CREATE STREAM b (k VARCHAR, ts BIGINT, n BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='b.csv', 'errors.side'='bbad');
`
	files := map[string]string{"a.csv": "x,1000\nbad\nx,500\n", "b.csv": "x,1000,1\nbad\nx,400,2\n"}
	join := "SELECT a.k FROM a JOIN b ON a.k = b.k AND b.ts BETWEEN a.ts - 100 AND a.ts + 100 "
	cases := []struct{ sql, want string }{
		{join + "LATE INTO SIDE 'x', 'bbad';", "errors side output of stream b"},
		{join + "LATE INTO SIDE 'abad';", "errors side output of stream a"},
		{join + "LATE INTO SIDE 'bbad', 'y';", "errors side output of stream b"},
		{"CREATE VIEW w AS SELECT k, ts FROM b;\nSELECT window_start, COUNT(*) AS c FROM TABLE(TUMBLE(TABLE w, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY window_start, window_end LATE INTO SIDE 'bbad';", "errors side output of stream b"},
		{join + "LATE INTO SIDE 'x', 'x';", "late side output 'x'"},
	}
	for _, c := range cases {
		for _, flags := range [][]string{{"--format", "csv"}, {"--format", "csv", "--side-dir", t.TempDir()}} {
			out, errs, code := runSQL(t, files, ddl+c.sql+"\n", flags...)
			if code != 2 || out != "" || !strings.Contains(errs, c.want) || !strings.Contains(errs, "column") {
				t.Errorf("%s %v\nexit %d, stdout %q, stderr %q; want status 2, no output, and %q", c.sql, flags, code, out, errs, c.want)
			}
		}
	}
	// a self-join's two late outputs have the same columns: they may share a name
	out, errs, code := runSQL(t, files, ddl+"SELECT a.k FROM a JOIN a AS a2 ON a.k = a2.k AND a2.ts BETWEEN a.ts - 100 AND a.ts + 100 LATE INTO SIDE 'x', 'x';\n", "--format", "csv")
	if code != 0 || strings.Count(out, "x,x,500") != 2 {
		t.Errorf("exit %d, stdout %q, stderr %q; want both inputs' late row in side output x", code, out, errs)
	}
}

// TestStalledJoinStops is the repro: an unbounded datagen probe stream
// joined by event time to a socket that sends one row and then nothing. The
// held rows pass 'state.max-bytes' and the job stops with exit 1 and a message
// naming the operator, what grew, the stalled stream and what to do (SPEC 1).
func TestStalledJoinStops(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		fmt.Fprint(c, "a,100\n")
		<-stop
	}()
	sql := fmt.Sprintf(`SET 'state.max-bytes' = '4MiB';
CREATE STREAM l (k VARCHAR, pad VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='datagen', 'fields.k.values'='a,b', 'fields.ts.kind'='sequence', 'fields.ts.start'='1000', 'fields.ts.end'='100000000000', 'fields.pad.length'='200');
CREATE STREAM r (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='socket', 'hostname'='127.0.0.1', 'port'='%d');
SELECT l.k, l.ts FROM l SEMI JOIN r ON l.k = r.k;
`, ln.Addr().(*net.TCPAddr).Port)
	out, errs, code := runSQL(t, nil, sql, "--format", "csv")
	if code != 1 || out != "k,ts\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q; want exit 1 and no rows", code, out, errs)
	}
	for _, want := range []string{"'state.max-bytes' (4MiB)", "l SEMI JOIN r", "held rows of stream l", "watermark of stream r", "did not advance", "SET 'state.max-bytes'"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q: %s", want, errs)
		}
	}
}

// TestStateMaxBytesSetting: SET 'state.max-bytes' takes bytes, KiB/MiB/GiB
// sizes and Flink's memory sizes (64mb, 64kb, 1g: powers of 1024); anything
// else is an error at the value (exit 2).
func TestStateMaxBytesSetting(t *testing.T) {
	for _, v := range []string{"64MiB", "1GiB", "1048576", "64MB", "64kb", "1g", "2 gibibytes"} {
		if _, errs, code := runSQL(t, nil, "SET 'state.max-bytes' = '"+v+"';\nSELECT 1 AS x;"); code != 0 {
			t.Errorf("%s: exit %d, %s", v, code, errs)
		}
	}
	for _, v := range []string{"lots", "0", "64XB", "-5", "1.5g"} {
		_, errs, code := runSQL(t, nil, "SET 'state.max-bytes' = '"+v+"';")
		if code != 2 || !strings.Contains(errs, "'state.max-bytes'") || !strings.Contains(errs, "64MiB") || !strings.Contains(errs, "column 25") {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 naming the setting and the forms, at the value", v, code, errs)
		}
	}
}

// TestEventTimeJoinLimitCounts: with an event-time join plus LIMIT, stderr's
// count of malformed rows equals the rows written to the errors output: the
// malformed rows after the LIMIT's last row are not read (issue 9 item 8).
func TestEventTimeJoinLimitCounts(t *testing.T) {
	for _, c := range []struct {
		limit, out, stderr, errors string
	}{
		{" LIMIT 1", "k,ts\na,150\n", "", ""},
		{"", "k,ts\na,150\nc,3500\n", "stream l: 2 malformed row(s) sent to side output 'errors'", "errors.csv"},
	} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			fmt.Fprint(conn, "a,100\nc,3000\nz,9000\n")
			conn.Close()
		}()
		sql := fmt.Sprintf(`CREATE STREAM l (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='l.csv');
CREATE STREAM r (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='socket', 'hostname'='127.0.0.1', 'port'='%d');
SELECT l.k, l.ts FROM l SEMI JOIN r ON l.k = r.k%s;
`, ln.Addr().(*net.TCPAddr).Port, c.limit)
		side := t.TempDir()
		out, errs, code := runSQL(t, map[string]string{"l.csv": "a,150\nbad\nc,3500\nworse,x\n"}, sql, "--format", "csv", "--side-dir", side)
		ln.Close()
		if code != 0 || out != c.out || (c.stderr == "" && errs != "") || !strings.Contains(errs, c.stderr) {
			t.Errorf("%q: exit %d, stdout %q (want %q), stderr %q (want %q)", c.limit, code, out, c.out, errs, c.stderr)
		}
		files, _ := filepath.Glob(filepath.Join(side, "errors.csv"))
		if (len(files) > 0) != (c.errors != "") {
			t.Errorf("%q: errors output %v, want %q", c.limit, files, c.errors)
		}
	}
}

// TestLateSecondNameNeedsJoin: LATE INTO SIDE 'x', 'y' names a join's two
// inputs' late outputs (SPEC 2.7); on a window aggregate without a join in its
// FROM (over a stream, or over a subquery that joins) the second name named
// nothing and was dropped without a word: a planning error at it.
func TestLateSecondNameNeedsJoin(t *testing.T) {
	ddl := `CREATE STREAM a (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='a.csv');
CREATE STREAM b (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='b.csv');
`
	files := map[string]string{"a.csv": "x,1000\nx,500\n", "b.csv": "x,1000\n"}
	win := "SELECT window_start, COUNT(*) AS c FROM TABLE(TUMBLE(TABLE %s, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY window_start, window_end LATE INTO SIDE 'x', 'y';\n"
	for _, from := range []string{"a", "(SELECT a.k, a.ts FROM a JOIN b ON a.k = b.k AND b.ts BETWEEN a.ts AND a.ts + 100)"} {
		sql := strings.Replace(win, "%s", from, 1)
		out, errs, code := runSQL(t, files, ddl+sql, "--format", "csv")
		if code != 2 || out != "" || !strings.Contains(errs, "remove 'y'") || !strings.Contains(errs, "column") {
			t.Errorf("%s\nexit %d, stdout %q, stderr %q; want status 2 and an error at 'y'", sql, code, out, errs)
		}
	}
	// a join's two names still name its inputs' late outputs
	out, errs, code := runSQL(t, files, ddl+"SELECT a.k FROM a JOIN b ON a.k = b.k AND b.ts BETWEEN a.ts AND a.ts + 100 LATE INTO SIDE 'x', 'y';\n", "--format", "csv")
	if code != 0 || !strings.Contains(out, "x,x,500") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestLateNameOnRankingRefused: a Top-N, window Top-N, deduplication or Top-N
// over a join planned its query without LATE INTO SIDE, so the names were
// dropped without a word and the late rows went to the default outputs: until
// the names are supported, the clause there is a planning error at it.
func TestLateNameOnRankingRefused(t *testing.T) {
	ddl := `CREATE STREAM a (k VARCHAR, v BIGINT, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='a.csv');
CREATE STREAM b (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='b.csv');
`
	files := map[string]string{"a.csv": "x,1,1000\nx,2,3000\nx,3,500\n", "b.csv": "x,1000\n"}
	for _, sql := range []string{
		"SELECT k, v FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts ASC) AS rn FROM a) WHERE rn = 1 LATE INTO SIDE 'x';",
		"SELECT window_start, v FROM (SELECT window_start, window_end, v, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY v DESC) AS rn FROM TABLE(TUMBLE(TABLE a, DESCRIPTOR(ts), INTERVAL '1' SECOND))) WHERE rn <= 1 LATE INTO SIDE 'x';",
		"SELECT k, v FROM (SELECT a.k, a.v, ROW_NUMBER() OVER (PARTITION BY a.k ORDER BY a.v DESC) AS rn FROM a JOIN b ON a.k = b.k AND b.ts BETWEEN a.ts AND a.ts + 100) WHERE rn <= 1 LATE INTO SIDE 'x', 'y';",
	} {
		out, errs, code := runSQL(t, files, ddl+sql+"\n", "--format", "csv")
		if code != 2 || out != "" || !strings.Contains(errs, "LATE INTO SIDE does not name") || !strings.Contains(errs, "column") {
			t.Errorf("%s\nexit %d, stdout %q, stderr %q; want status 2 and the refusal at the clause", sql, code, out, errs)
		}
	}
}
