package tests

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"streamql/cmd/streamql/cli"
)

// runSQLIn is runSQL in the folder dir (kept between calls, so a sink file
// written by one run can be read or appended to by the next).
func runSQLIn(t *testing.T, dir string, files map[string]string, sql string, flags ...string) (string, string, int) {
	t.Helper()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script := filepath.Join(dir, "q.sql")
	if err := os.WriteFile(script, []byte(sql), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := cli.Run(context.Background(), append(flags, "-f", script), strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

const sinkSensors = "d1,1,5.5\nd2,2,80\n\"x,\"\"y\",3,75.25\nd3,3,40\nd4,4,\n"

// TestInsertIntoFileSink checks SPEC 2.5: INSERT INTO a file sink in csv (a
// header, PostgreSQL quoting, NULL empty) and json lines; nothing of main on
// stdout; truncate replaces the file, append adds rows without a second header.
func TestInsertIntoFileSink(t *testing.T) {
	ddl := strings.Replace(sensorsDDL, "%s", "", 1)
	dir := t.TempDir()
	sink := func(format, mode string) string {
		return "CREATE STREAM hot (deviceNo VARCHAR, temperature DOUBLE) WITH ('connector'='file', 'path'='out/hot." + format + "', 'format'='" + format + "'" + mode + ");\n"
	}
	if err := os.Mkdir(filepath.Join(dir, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	q := "INSERT INTO hot SELECT deviceNo, temperature FROM sensors WHERE temperature > 70 OR temperature IS NULL;\n"
	files := map[string]string{"s.csv": sinkSensors}
	out, errs, code := runSQLIn(t, dir, files, ddl+sink("csv", "")+q, "--format", "csv")
	if code != 0 || out != "" {
		t.Fatalf("csv: exit %d stdout %q stderr %q; want 0 and nothing on stdout", code, out, errs)
	}
	wantCSV := "deviceNo,temperature\nd2,80.0\n\"x,\"\"y\",75.25\nd4,\n"
	if got := readFile(t, filepath.Join(dir, "out/hot.csv")); got != wantCSV {
		t.Errorf("csv sink file %q, want %q", got, wantCSV)
	}
	// truncate (the default): a second job replaces the file
	if _, errs, code := runSQLIn(t, dir, files, ddl+sink("csv", "")+q); code != 0 {
		t.Fatalf("truncate: exit %d %s", code, errs)
	}
	if got := readFile(t, filepath.Join(dir, "out/hot.csv")); got != wantCSV {
		t.Errorf("after a second truncating job: %q, want %q", got, wantCSV)
	}
	// append: the rows again, no second header
	if _, errs, code := runSQLIn(t, dir, files, ddl+sink("csv", ", 'sink.mode'='append'")+q); code != 0 {
		t.Fatalf("append: exit %d %s", code, errs)
	}
	if got, want := readFile(t, filepath.Join(dir, "out/hot.csv")), wantCSV+strings.TrimPrefix(wantCSV, "deviceNo,temperature\n"); got != want {
		t.Errorf("append: %q, want %q", got, want)
	}
	// append to a file that does not exist yet starts with the header
	os.Remove(filepath.Join(dir, "out/hot.csv"))
	if _, errs, code := runSQLIn(t, dir, files, ddl+sink("csv", ", 'sink.mode'='append'")+q); code != 0 || readFile(t, filepath.Join(dir, "out/hot.csv")) != wantCSV {
		t.Errorf("append to a new file: exit %d %s %q", code, errs, readFile(t, filepath.Join(dir, "out/hot.csv")))
	}
	// json lines
	if out, errs, code := runSQLIn(t, dir, files, ddl+sink("json", "")+q); code != 0 || out != "" {
		t.Fatalf("json: exit %d stdout %q stderr %q", code, out, errs)
	}
	wantJSON := "{\"deviceNo\":\"d2\",\"temperature\":80.0}\n{\"deviceNo\":\"x,\\\"y\",\"temperature\":75.25}\n{\"deviceNo\":\"d4\",\"temperature\":null}\n"
	if got := readFile(t, filepath.Join(dir, "out/hot.json")); got != wantJSON {
		t.Errorf("json sink file %q, want %q", got, wantJSON)
	}
	// a BIGINT goes to a DOUBLE column, as a DOUBLE
	bq := "CREATE STREAM ts (t DOUBLE) WITH ('connector'='file', 'path'='out/ts.csv');\nINSERT INTO ts SELECT ts FROM sensors WHERE ts < 3;\n"
	if _, errs, code := runSQLIn(t, dir, files, ddl+bq); code != 0 || readFile(t, filepath.Join(dir, "out/ts.csv")) != "t\n1.0\n2.0\n" {
		t.Errorf("BIGINT into DOUBLE: exit %d %s %q", code, errs, readFile(t, filepath.Join(dir, "out/ts.csv")))
	}
}

// TestIntoStreamFirstMatch checks SPEC 2.5 INTO STREAM: a side branch in
// first-match order whose rows go to a sink, with the other sides printed as
// before and the main query on stdout (no output column for a sink branch).
func TestIntoStreamFirstMatch(t *testing.T) {
	ddl := strings.Replace(sensorsDDL, "%s", "", 1) +
		"CREATE STREAM hot (deviceNo VARCHAR, temperature DOUBLE) WITH ('connector'='file', 'path'='hot.csv');\n"
	dir := t.TempDir()
	files := map[string]string{"s.csv": sinkSensors}
	// the first branch takes temperature > 78, so hot gets only 75.25
	sql := ddl + "SELECT deviceNo INTO SIDE 'very' FROM sensors WHERE temperature > 78;\n" +
		"SELECT deviceNo, temperature FROM sensors WHERE temperature > 70 INTO STREAM hot;\n" +
		"SELECT deviceNo FROM sensors;\n"
	out, errs, code := runSQLIn(t, dir, files, sql, "--format", "csv")
	if code != 0 {
		t.Fatalf("exit %d %s", code, errs)
	}
	if want := "output,deviceNo\nmain,d1\noutput,deviceNo\nvery,d2\nmain,d3\nmain,d4\n"; out != want {
		t.Errorf("stdout %q, want %q", out, want)
	}
	if got, want := readFile(t, filepath.Join(dir, "hot.csv")), "deviceNo,temperature\n\"x,\"\"y\",75.25\n"; got != want {
		t.Errorf("hot.csv %q, want %q", got, want)
	}
	// a job of sink branches only (RUN at the end of the script) prints nothing
	sql = ddl + "SELECT deviceNo, temperature INTO STREAM hot FROM sensors WHERE temperature > 70;\n"
	if out, errs, code := runSQLIn(t, dir, files, sql, "--format", "csv"); code != 0 || out != "" || readFile(t, filepath.Join(dir, "hot.csv")) != "deviceNo,temperature\nd2,80.0\n\"x,\"\"y\",75.25\n" {
		t.Errorf("RUN into a sink: exit %d stdout %q stderr %q file %q", code, out, errs, readFile(t, filepath.Join(dir, "hot.csv")))
	}
}

// TestSinkPlanningErrors checks the planning errors of SPEC 2.5 (exit 2, a
// caret under the offending name or column): column count and types (with a
// CAST hint), a connector that cannot write, a sink that is also a source, a
// bad dead-letter stream.
func TestSinkPlanningErrors(t *testing.T) {
	ddl := strings.Replace(sensorsDDL, "%s", "", 1) +
		"CREATE STREAM hot (deviceNo VARCHAR, temperature DOUBLE) WITH ('connector'='file', 'path'='hot.csv');\n" +
		"CREATE STREAM gen (n BIGINT) WITH ('connector'='datagen', 'number-of-rows'='1');\n"
	cases := []struct{ sql, want, caretAt string }{
		{"INSERT INTO hot SELECT deviceNo FROM sensors;", "the query gives 1 column(s) (deviceNo VARCHAR) but hot has 2", "hot SELECT"},
		{"INSERT INTO hot SELECT temperature, deviceNo FROM sensors;", "column 1 (temperature) is DOUBLE but hot.deviceNo is VARCHAR; write CAST(temperature AS VARCHAR)", "temperature, deviceNo"},
		{"SELECT deviceNo, deviceNo INTO STREAM hot FROM sensors;", "column 2 (deviceNo) is VARCHAR but hot.temperature is DOUBLE; write CAST(deviceNo AS DOUBLE)", "deviceNo INTO"},
		{"INSERT INTO gen SELECT ts FROM sensors;", "stream gen cannot be a sink: its connector 'datagen' only reads; connectors that can write: file", "gen SELECT"},
		{"INSERT INTO nosuch SELECT ts FROM sensors;", "unknown sink stream 'nosuch'", "nosuch"},
		{"INSERT INTO hot SELECT deviceNo, temperature FROM hot;", "cannot be both a sink and a source of one job", "hot SELECT"},
		{"SELECT deviceNo, temperature INTO STREAM sensors FROM sensors;", "cannot be both a sink and a source of one job", "sensors FROM"},
		{"SELECT deviceNo, temperature INTO STREAM hot FROM sensors LIMIT 1;", "LIMIT is allowed on the main query only", "LIMIT"},
	}
	for _, c := range cases {
		_, errs, code := runSQL(t, map[string]string{"s.csv": sinkSensors}, ddl+c.sql)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%s\n: exit %d stderr %q; want 2 and %q", c.sql, code, errs, c.want)
			continue
		}
		lines := strings.Split(strings.TrimRight(errs, "\n"), "\n")
		src, caret := lines[len(lines)-2], lines[len(lines)-1]
		if at := strings.Index(caret, "^"); at < 0 || !strings.HasPrefix(src[at:], c.caretAt) {
			t.Errorf("%s\n: caret under %q, want under %q:\n%s", c.sql, src[max(at, 0):], c.caretAt, errs)
		}
	}
}

// TestDeadLetterFileSink checks 'errors.stream' (SPEC 2.5): the malformed rows
// of a stream go to a file dead-letter stream as csv rows of stream, position,
// raw (bytes kept) and error, not to the errors side output; a dead-letter
// stream without those columns is a planning error.
func TestDeadLetterFileSink(t *testing.T) {
	dir := t.TempDir()
	dlq := "CREATE STREAM dlq (stream VARCHAR, position VARCHAR, raw VARCHAR, error VARCHAR) WITH ('connector'='file', 'path'='dlq.csv');\n"
	ddl := dlq + strings.Replace(sensorsDDL, "%s", ", 'errors.stream'='dlq'", 1)
	files := map[string]string{"s.csv": "d1,1,5.5\nbad,x,\xff1\nd2,2,80\n"}
	out, errs, code := runSQLIn(t, dir, files, ddl+"SELECT deviceNo FROM sensors;\n", "--format", "csv")
	if code != 0 || out != "deviceNo\nd1\nd2\n" || strings.Contains(errs, "errors>") || !strings.Contains(errs, "1 malformed row(s) sent to dead-letter stream dlq") {
		t.Fatalf("exit %d stdout %q stderr %q", code, out, errs)
	}
	got := readFile(t, filepath.Join(dir, "dlq.csv"))
	if !strings.HasPrefix(got, "stream,position,raw,error\nsensors,s.csv:2,\"bad,x,\xff1\",") || strings.Count(got, "\n") != 2 {
		t.Errorf("dlq.csv %q", got)
	}
	_, errs, code = runSQL(t, files, strings.Replace(sensorsDDL, "%s", ", 'errors.stream'='hot'", 1)+
		"CREATE STREAM hot (deviceNo VARCHAR) WITH ('connector'='file', 'path'='hot.csv');\nSELECT * FROM sensors;")
	if code != 2 || !strings.Contains(errs, "a dead-letter stream has the columns (stream VARCHAR, position VARCHAR, raw VARCHAR, error VARCHAR)") {
		t.Errorf("bad dead-letter stream: exit %d stderr %q", code, errs)
	}
}

// TestSinkSignalWholeRows checks that a job writing a file sink, stopped by a
// signal mid-stream (SPEC 4), exits with the signal's status and leaves the
// sink file ending on a whole row, every line with all its fields.
func TestSinkSignalWholeRows(t *testing.T) {
	for _, s := range stopSignals {
		dir := t.TempDir()
		script := filepath.Join(dir, "q.sql")
		sql := "CREATE STREAM g (n BIGINT, s VARCHAR) WITH ('connector'='datagen', 'rows-per-second'='20000', 'fields.s.length'='40');\n" +
			"CREATE STREAM sunk (n BIGINT, s VARCHAR) WITH ('connector'='file', 'path'='out.csv');\n" +
			"INSERT INTO sunk SELECT n, s FROM g;\n"
		if err := os.WriteFile(script, []byte(sql), 0o644); err != nil {
			t.Fatal(err)
		}
		p := start(t, dir, nil, script)
		p.waitFor(t, "rows in out.csv", func() bool {
			fi, err := os.Stat(filepath.Join(dir, "out.csv"))
			return err == nil && fi.Size() > 64<<10
		})
		p.stop(t, s.sig)
		if p.code != s.code {
			t.Errorf("%v: exit %d, want %d\nstderr: %s", s.sig, p.code, s.code, p.stderr.String())
		}
		got := readFile(t, filepath.Join(dir, "out.csv"))
		wholeRows(t, s.sig.String()+": out.csv", got)
		lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
		if lines[0] != "n,s" || len(lines) < 100 {
			t.Fatalf("%v: out.csv starts %q with %d lines", s.sig, lines[0], len(lines))
		}
		for _, l := range lines[1:] {
			if f := strings.SplitN(l, ",", 2); len(f) != 2 || len(f[1]) != 40 {
				t.Fatalf("%v: a broken row %q", s.sig, l)
			}
		}
	}
}

// splitToFileGolden is the committed sink file of queries/split_to_file.sql,
// read before any test runs (TestQueries runs the script in place and
// rewrites the file).
var splitToFileGolden, splitToFileErr = os.ReadFile(filepath.Join("..", "queries", "split_to_file.high-tmp.csv"))

// runQueriesCopy copies the files of queries/ named to a new folder and runs
// the script, the first of them, there (the binary); it fails the test when
// the script does not exit 0, and returns the folder.
func runQueriesCopy(t *testing.T, files ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range files {
		b, err := os.ReadFile(filepath.Join("..", "queries", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if r := viaBinary(t, dir, []string{filepath.Join(dir, files[0])}); r.code != 0 {
		t.Fatalf("%s: exit %d: %s", files[0], r.code, r.stderr)
	}
	return dir
}

// TestQueriesSinkFile runs queries/split_to_file.sql in a copy of queries/
// and compares the file sink it writes with the committed one, which holds
// the high-tmp rows of split_sensors.out (temperature > 70, in input order).
func TestQueriesSinkFile(t *testing.T) {
	if splitToFileErr != nil {
		t.Fatal(splitToFileErr)
	}
	dir := runQueriesCopy(t, "split_to_file.sql", "sensors.csv")
	if got := readFile(t, filepath.Join(dir, "split_to_file.high-tmp.csv")); got != string(splitToFileGolden) {
		t.Errorf("the sink file:\n%s\nwant\n%s", got, splitToFileGolden)
	}
	// the committed file holds the rows of sensors.csv above 70 degrees, in
	// input order (each temperature there is written as DOUBLE prints it)
	want := "deviceNo,temperature\n"
	for _, l := range strings.Split(strings.TrimSpace(readFile(t, filepath.Join("..", "queries", "sensors.csv"))), "\n") {
		f := strings.Split(l, ",")
		if v, err := strconv.ParseFloat(f[2], 64); err == nil && v > 70 {
			want += f[0] + "," + f[2] + "\n"
		}
	}
	if string(splitToFileGolden) != want {
		t.Errorf("committed sink file:\n%s\nwant the rows above 70:\n%s", splitToFileGolden, want)
	}
}

// TestFileSinkAppendAndLinks checks issue 30 items 11 and 12 as kinds: rows
// appended to a file start on a line of their own whatever the file ends in
// (csv or json, empty, with or without a final newline), and a sink never
// writes through a symbolic link (to a file, or dangling) unless the stream
// says 'sink.follow-symlinks' = 'true'.
func TestFileSinkAppendAndLinks(t *testing.T) {
	ddl := strings.Replace(sensorsDDL, "%s", "", 1)
	files := map[string]string{"s.csv": sinkSensors}
	q := "INSERT INTO hot SELECT deviceNo, temperature FROM sensors WHERE temperature > 78;\n"
	sink := func(format, extra string) string {
		return "CREATE STREAM hot (deviceNo VARCHAR, temperature DOUBLE) WITH ('connector'='file', 'path'='hot." + format + "', 'format'='" + format + "'" + extra + ");\n"
	}
	for _, tc := range []struct{ format, old, want string }{
		{"csv", "a,1", "a,1\nd2,80.0\n"},
		{"csv", "a,1\n", "a,1\nd2,80.0\n"},
		{"csv", "h\r", "h\r\nd2,80.0\n"},
		{"csv", "", "deviceNo,temperature\nd2,80.0\n"},
		{"json", `{"a":1}`, `{"a":1}` + "\n" + `{"deviceNo":"d2","temperature":80.0}` + "\n"},
		{"json", "x\n\n", "x\n\n" + `{"deviceNo":"d2","temperature":80.0}` + "\n"},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "hot."+tc.format), []byte(tc.old), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, errs, code := runSQLIn(t, dir, files, ddl+sink(tc.format, ", 'sink.mode'='append'")+q); code != 0 {
			t.Fatalf("%s append to %q: exit %d %s", tc.format, tc.old, code, errs)
		}
		if got := readFile(t, filepath.Join(dir, "hot."+tc.format)); got != tc.want {
			t.Errorf("%s append to %q: %q, want %q", tc.format, tc.old, got, tc.want)
		}
	}
	for _, mode := range []string{"", ", 'sink.mode'='append'"} {
		for _, dangling := range []bool{false, true} {
			dir := t.TempDir()
			target := filepath.Join(dir, "target.csv")
			if !dangling {
				if err := os.WriteFile(target, []byte("keep\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Symlink(target, filepath.Join(dir, "hot.csv")); err != nil {
				t.Fatal(err)
			}
			_, errs, code := runSQLIn(t, dir, files, ddl+sink("csv", mode)+q)
			if code == 0 || !strings.Contains(errs, "symbolic link") || !strings.Contains(errs, "sink.follow-symlinks") || !strings.Contains(errs, "hot") {
				t.Errorf("mode %q dangling %v: exit %d %q; want a failure naming the link and 'sink.follow-symlinks'", mode, dangling, code, errs)
			}
			b, err := os.ReadFile(target)
			if dangling && !os.IsNotExist(err) || !dangling && string(b) != "keep\n" {
				t.Errorf("mode %q dangling %v: the link's target became %q (%v)", mode, dangling, b, err)
			}
			// the stream may ask to follow it
			if _, errs, code := runSQLIn(t, dir, files, ddl+sink("csv", mode+", 'sink.follow-symlinks'='true'")+q); code != 0 {
				t.Fatalf("mode %q dangling %v, following: exit %d %s", mode, dangling, code, errs)
			}
			want := "deviceNo,temperature\nd2,80.0\n"
			if mode != "" && !dangling {
				want = "keep\nd2,80.0\n"
			}
			if got := readFile(t, target); got != want {
				t.Errorf("mode %q dangling %v, following: target %q, want %q", mode, dangling, got, want)
			}
		}
	}
}

// TestOneFileOneWriter (issue 30 item 10): a job never writes a file it
// reads or writes elsewhere, whatever the spelling (another path to it, a
// symbolic or hard link, a file yet to be created): a sink (truncating or
// appending), a dead-letter stream or a --side-dir file over a source, a
// join's build side, or another sink is a planning error (exit 2) that
// names both, and nothing is read or written. Reading a file twice, one
// sink stream written by two branches and two sinks on /dev/null are fine.
func TestOneFileOneWriter(t *testing.T) {
	const input = "d1,1,75\nd2,2,80\n"
	src := "CREATE STREAM s (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE) WITH ('connector'='file', 'path'='s.csv'%s);\n"
	sink := func(name, path, extra string) string {
		return "CREATE STREAM " + name + " (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE) WITH ('connector'='file', 'path'='" + path + "'" + extra + ");\n"
	}
	dlq := "CREATE STREAM dlq (stream VARCHAR, position VARCHAR, raw VARCHAR, error VARCHAR) WITH ('connector'='file', 'path'='%s');\n"
	cases := []struct {
		name, sql string
		sideDir   bool
		names     []string // in the message; nil: the job runs
	}{
		{"append onto the input", fmt.Sprintf(src, "") + sink("o", "s.csv", ", 'sink.mode'='append'") + "INSERT INTO o SELECT * FROM s;", false, []string{"sink stream o", "stream s"}},
		{"truncate the input by another path", fmt.Sprintf(src, "") + sink("o", "sub/../s.csv", "") + "INSERT INTO o SELECT * FROM s;", false, []string{"sink stream o", "stream s"}},
		{"through a symbolic link", fmt.Sprintf(src, "") + sink("o", "link.csv", ", 'sink.follow-symlinks'='true'") + "INSERT INTO o SELECT * FROM s;", false, []string{"sink stream o", "stream s"}},
		{"through a hard link", fmt.Sprintf(src, "") + sink("o", "hard.csv", "") + "INSERT INTO o SELECT * FROM s;", false, []string{"sink stream o", "stream s"}},
		{"two sinks on one new file", fmt.Sprintf(src, "") + sink("o", "new.csv", "") + sink("p", "./new.csv", "") + "SELECT * INTO STREAM p FROM s WHERE ts > 1;\nINSERT INTO o SELECT * FROM s;", false, []string{"sink stream o", "sink stream p"}},
		{"a dead-letter stream over the input", fmt.Sprintf(dlq, "s.csv") + fmt.Sprintf(src, ", 'errors.stream'='dlq'") + "SELECT * FROM s;", false, []string{"dead-letter stream dlq", "stream s"}},
		{"a sink over a join's build side", fmt.Sprintf(src, "") + "CREATE STREAM b (deviceNo VARCHAR) WITH ('connector'='file', 'path'='b.csv');\n" + sink("o", "b.csv", "") + "INSERT INTO o SELECT s.deviceNo, s.ts, s.temperature FROM s SEMI JOIN b ON s.deviceNo = b.deviceNo;", false, []string{"sink stream o", "stream b"}},
		{"a side file over the input", "CREATE STREAM s (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE) WITH ('connector'='file', 'path'='side/hot.csv');\nSELECT deviceNo INTO SIDE 'hot' FROM s WHERE temperature > 78;\nSELECT * FROM s;", true, []string{"side output 'hot'", "stream s"}},
		{"the errors side file over the input", "CREATE STREAM s (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE) WITH ('connector'='file', 'path'='side/errors.csv');\nSELECT * FROM s;", true, []string{"side output 'errors'", "stream s"}},
		{"a side file over a sink", fmt.Sprintf(src, "") + sink("o", "side/hot.csv", "") + "SELECT * INTO SIDE 'hot' FROM s WHERE ts > 1;\nINSERT INTO o SELECT * FROM s;", true, []string{"side output 'hot'", "sink stream o"}},
		{"reading a file twice", fmt.Sprintf(src, "") + "CREATE STREAM b (deviceNo VARCHAR) WITH ('connector'='file', 'path'='./s.csv');\nSELECT s.deviceNo FROM s SEMI JOIN b ON s.deviceNo = b.deviceNo;", false, nil},
		{"one sink stream from two branches", fmt.Sprintf(src, "") + sink("o", "out.csv", "") + "SELECT * INTO STREAM o FROM s WHERE ts > 1;\nINSERT INTO o SELECT * FROM s;", false, nil},
		{"two sinks on /dev/null", fmt.Sprintf(src, "") + sink("o", "/dev/null", "") + sink("p", "/dev/null", "") + "SELECT * INTO STREAM p FROM s WHERE ts > 1;\nINSERT INTO o SELECT * FROM s;", false, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, d := range []string{"sub", "side"} {
				if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			for _, f := range []string{"s.csv", "b.csv", "side/hot.csv", "side/errors.csv"} {
				if err := os.WriteFile(filepath.Join(dir, f), []byte(input), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Symlink("s.csv", filepath.Join(dir, "link.csv")); err != nil {
				t.Fatal(err)
			}
			if err := os.Link(filepath.Join(dir, "s.csv"), filepath.Join(dir, "hard.csv")); err != nil {
				t.Fatal(err)
			}
			var flags []string
			if c.sideDir {
				flags = []string{"--side-dir", filepath.Join(dir, "side"), "--format", "csv"}
			}
			out, errs, code := runSQLIn(t, dir, nil, c.sql, flags...)
			if c.names == nil {
				if code != 0 {
					t.Fatalf("exit %d %s", code, errs)
				}
				return
			}
			if code != 2 {
				t.Fatalf("exit %d, want 2 (planning); stdout %q stderr %q", code, out, errs)
			}
			for _, n := range c.names {
				if !strings.Contains(errs, n) {
					t.Errorf("the error does not name %s: %s", n, errs)
				}
			}
			for _, f := range []string{"s.csv", "b.csv", "side/hot.csv", "side/errors.csv"} {
				if got := readFile(t, filepath.Join(dir, f)); got != input {
					t.Errorf("%s changed to %q", f, got)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "new.csv")); err == nil {
				t.Errorf("new.csv was created")
			}
		})
	}
}

// TestDeadLetterJoinInputs: the malformed rows of a two-sided join's input
// with 'errors.stream' go to its dead-letter stream (SPEC 2.5, 2.7), as a
// semi join's build side's and a FROM stream's do, on either side of every
// join kind (interval, regular, lookup, temporal, window), INNER and outer:
// before, they went to the errors side output while the end-of-job notice
// named the dead-letter stream, which was never opened. The other input's
// malformed rows, without 'errors.stream', still go to errors.
func TestDeadLetterJoinInputs(t *testing.T) {
	dlq := "CREATE STREAM dlq (stream VARCHAR, position VARCHAR, raw VARCHAR, error VARCHAR) WITH ('connector'='file', 'path'='dlq.csv');\n"
	ddl := dlq + `CREATE STREAM l (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='l.csv');
CREATE STREAM r (k VARCHAR, ts BIGINT, PRIMARY KEY (k) NOT ENFORCED, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='r.csv', 'errors.stream'='dlq');
`
	files := map[string]string{"l.csv": "a,10\nlbad\nb,20\n", "r.csv": "a,5\nrbad,x\nb,15\n"}
	for _, q := range []string{
		"SELECT l.k FROM l JOIN r ON l.k = r.k AND r.ts BETWEEN l.ts - 10 AND l.ts",
		"SELECT l.k FROM l FULL JOIN r ON l.k = r.k AND r.ts BETWEEN l.ts - 10 AND l.ts",
		"SELECT l.k FROM l LEFT JOIN r ON l.k = r.k",
		"SELECT r.k FROM r LEFT JOIN l ON l.k = r.k",
		"SELECT l.k, r.ts AS rt FROM l LEFT JOIN r FOR SYSTEM_TIME AS OF l.ts ON l.k = r.k",
		"SELECT a.k FROM (SELECT * FROM TABLE(TUMBLE(TABLE l, DESCRIPTOR(ts), INTERVAL '1' SECOND))) a JOIN (SELECT * FROM TABLE(TUMBLE(TABLE r, DESCRIPTOR(ts), INTERVAL '1' SECOND))) b ON a.k = b.k AND a.window_start = b.window_start AND a.window_end = b.window_end",
	} {
		dir := t.TempDir()
		_, errs, code := runSQLIn(t, dir, files, ddl+q+";\n", "--format", "csv")
		if code != 0 || !strings.Contains(errs, "stream r: 1 malformed row(s) sent to dead-letter stream dlq") ||
			!strings.Contains(errs, "errors> l,l.csv:2,lbad,") || strings.Contains(errs, "errors> r,") {
			t.Errorf("%s: exit %d, stderr %q", q, code, errs)
			continue
		}
		if got := readFile(t, filepath.Join(dir, "dlq.csv")); got != "stream,position,raw,error\nr,r.csv:2,\"rbad,x\",\"column ts: \"\"x\"\" is not a valid BIGINT\"\n" {
			t.Errorf("%s: dlq.csv %q", q, got)
		}
	}
}
