package tests

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const sensorsDDL = `CREATE STREAM sensors (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE)
  WITH ('connector' = 'file', 'path' = 's.csv', 'format' = 'csv'%s);
`

const sensorsCSV = "d1,1,5.5\nd2,2,80\nbad,x,1\nd3,3,40\n\"d,4\",4,\n"

// TestErrorsPolicy checks SPEC 1's errors option: side (default), skip and fail.
func TestErrorsPolicy(t *testing.T) {
	q := "SELECT deviceNo, temperature FROM sensors;"
	out, errs, code := runSQL(t, map[string]string{"s.csv": sensorsCSV}, strings.Replace(sensorsDDL, "%s", "", 1)+q, "--format", "csv")
	if code != 0 || out != "deviceNo,temperature\nd1,5.5\nd2,80.0\nd3,40.0\n\"d,4\",\n" {
		t.Errorf("side: exit %d out %q", code, out)
	}
	if !strings.Contains(errs, "errors> sensors,s.csv:3,\"bad,x,1\",") || !strings.Contains(errs, "stream sensors: 1 malformed row(s) sent to side output 'errors'") {
		t.Errorf("side: stderr %q", errs)
	}
	out, errs, code = runSQL(t, map[string]string{"s.csv": sensorsCSV}, strings.Replace(sensorsDDL, "%s", ", 'errors'='skip'", 1)+q, "--format", "csv")
	if code != 0 || strings.Count(out, "\n") != 5 || !strings.Contains(errs, "1 malformed row(s) skipped") || strings.Contains(errs, "errors>") {
		t.Errorf("skip: exit %d out %q stderr %q", code, out, errs)
	}
	out, errs, code = runSQL(t, map[string]string{"s.csv": sensorsCSV}, strings.Replace(sensorsDDL, "%s", ", 'errors'='fail'", 1)+q, "--format", "csv")
	if code != 1 || out != "deviceNo,temperature\nd1,5.5\nd2,80.0\n" || !strings.Contains(errs, "s.csv:3") || !strings.Contains(errs, "ts") {
		t.Errorf("fail: exit %d out %q stderr %q; want status 1, the rows before line 3, and an error naming s.csv:3 and the column", code, out, errs)
	}
}

// TestExitStatuses checks SPEC 4: 2 for errors before a job (and nothing runs
// when any statement has a syntax error), 1 for runtime failures.
func TestExitStatuses(t *testing.T) {
	ddl := strings.Replace(sensorsDDL, "%s", "", 1)
	files := map[string]string{"s.csv": "d1,1,5.5\n"}
	cases := []struct {
		sql, want string
		code      int
		stdout    string
	}{
		{ddl + "SELECT * FROM sensors;\nSELECT * FORM sensors;", "line 4, column 10", 2, ""},
		{ddl + "SELECT nosuch FROM sensors;", "unknown column 'nosuch'", 2, ""},
		{ddl + "SELECT * FROM nosuch;", "unknown stream 'nosuch'", 2, ""},
		{ddl + "SELECT * FROM sensors WHERE deviceNo > 1;", "CAST", 2, ""},
		{"CREATE STREAM s (a BIGINT) WITH ('connector'='file', 'pth'='x');", "valid options: connector, path", 2, ""},
		{"CREATE STREAM s (a BIGINT) WITH ('connector'='file', 'path'='missing.csv');\nSELECT * FROM s;", "cannot open 'path' = 'missing.csv'", 1, ""},
		{ddl + "SELECT * FROM sensors;\nSELECT nosuch FROM sensors;\nSELECT * FROM sensors;", "unknown column", 2, "deviceNo,ts,temperature\nd1,1,5.5\n"},
		{ddl + "SELECT * INTO SIDE 'errors' FROM sensors;", "errors side output", 2, ""},
		{ddl + "SELECT * INTO SIDE 'main' FROM sensors;", "main", 2, ""},
		{ddl + "SELECT * INTO SIDE 'x' FROM sensors LIMIT 1;", "LIMIT is allowed on the main query only", 2, ""},
	}
	for _, c := range cases {
		out, errs, code := runSQL(t, files, c.sql, "--format", "csv")
		if code != c.code || !strings.Contains(errs, c.want) || out != c.stdout {
			t.Errorf("%s\n: exit %d, stdout %q, stderr %q; want %d, stdout %q, stderr with %q", c.sql, code, out, errs, c.code, c.stdout, c.want)
		}
	}
}

// TestCaretUnderToken checks the error rendering of SPEC 4: message, line and
// column, the source line and a caret under the token (CJK is two columns wide).
func TestCaretUnderToken(t *testing.T) {
	sql := "CREATE STREAM s (设备 VARCHAR) WITH ('connector'='file', 'path'='s.csv');\nSELECT '设备', nosuch FROM s;"
	_, errs, code := runSQL(t, map[string]string{"s.csv": "a\n"}, sql)
	lines := strings.Split(strings.TrimRight(errs, "\n"), "\n")
	if code != 2 || len(lines) < 4 {
		t.Fatalf("exit %d stderr %q", code, errs)
	}
	src, caret := lines[len(lines)-2], lines[len(lines)-1]
	if !strings.Contains(lines[1], "line 2, column 14") {
		t.Errorf("position line %q, want line 2, column 14", lines[1])
	}
	// the caret sits under the 'n' of nosuch, counting display width
	prefix := src[:strings.Index(src, "nosuch")]
	width := 0
	for _, r := range prefix {
		if r >= 0x1100 {
			width += 2
		} else {
			width++
		}
	}
	if strings.Index(caret, "^") != width {
		t.Errorf("caret at %d, want %d:\n%s\n%s", strings.Index(caret, "^"), width, src, caret)
	}
}

// TestLimitAndSides checks LIMIT on the main query (SPEC 2.2) and that side outputs
// hold what was routed until the job ended.
func TestLimitAndSides(t *testing.T) {
	ddl := strings.Replace(sensorsDDL, "%s", "", 1)
	files := map[string]string{"s.csv": "d1,1,5\nd2,2,80\nd3,3,40\nd4,4,90\nd5,5,41\nd6,6,95\n"}
	out, errs, code := runSQL(t, files, ddl+"SELECT deviceNo INTO SIDE 'hot' FROM sensors WHERE temperature > 70;\nSELECT deviceNo FROM sensors LIMIT 2;", "--format", "csv")
	want := "output,deviceNo\nmain,d1\noutput,deviceNo\nhot,d2\nmain,d3\n"
	if code != 0 || out != want {
		t.Errorf("exit %d stderr %q\ngot\n%s\nwant\n%s", code, errs, out, want)
	}
	out, _, code = runSQL(t, files, ddl+"SELECT * FROM sensors LIMIT 0;", "--format", "csv")
	if code != 0 || out != "deviceNo,ts,temperature\n" {
		t.Errorf("LIMIT 0: exit %d out %q", code, out)
	}
}

// TestSideDirAppends checks SPEC 4: with --side-dir every side output gets its
// file with a header even without rows, and a later job of the same run appends.
func TestSideDirAppends(t *testing.T) {
	ddl := strings.Replace(sensorsDDL, "%s", "", 1)
	dir := t.TempDir()
	q := "SELECT deviceNo INTO SIDE 'hot' FROM sensors WHERE temperature > 70;\nSELECT deviceNo INTO SIDE 'none' FROM sensors WHERE temperature > 1000;\nSELECT * FROM sensors;\n"
	out, errs, code := runSQL(t, map[string]string{"s.csv": "d1,1,5\nd2,2,80\n"}, ddl+q+"SELECT deviceNo INTO SIDE 'hot' FROM sensors WHERE temperature > 1;\nRUN;", "--format", "csv", "--side-dir", dir)
	if code != 0 || out != "deviceNo,ts,temperature\nd1,1,5.0\n" {
		t.Fatalf("exit %d out %q err %q", code, out, errs)
	}
	hot, _ := os.ReadFile(filepath.Join(dir, "hot.csv"))
	none, _ := os.ReadFile(filepath.Join(dir, "none.csv"))
	if string(hot) != "deviceNo\nd2\nd1\nd2\n" || string(none) != "deviceNo\n" {
		t.Errorf("hot.csv %q, none.csv %q", hot, none)
	}
}

// TestBinaryPipes checks SQL from stdin, -e, and `| head` ending quietly with 0.
func TestBinaryPipes(t *testing.T) {
	dir := t.TempDir()
	var big strings.Builder
	for i := 0; i < 200000; i++ {
		big.WriteString("d,1,2.5\n")
	}
	os.WriteFile(filepath.Join(dir, "s.csv"), []byte(big.String()), 0o644)
	sql := strings.Replace(sensorsDDL, "%s", "", 1) + "SELECT * FROM sensors;"
	cmd := exec.Command("bash", "-c", binary+" --format csv | head -3; echo \"status ${PIPESTATUS[0]}\"")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(sql)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if out.String() != "deviceNo,ts,temperature\nd,1,2.5\nd,1,2.5\nstatus 0\n" || errb.Len() != 0 {
		t.Errorf("stdout %q stderr %q", out.String(), errb.String())
	}
}

// TestUserMistakes checks the errors and edge cases a newcomer met: each is
// either accepted as MySQL/Flink users expect or refused with a positioned
// message that says what to do.
func TestUserMistakes(t *testing.T) {
	ddl := strings.Replace(sensorsDDL, "%s", "", 1)
	files := map[string]string{"s.csv": "d1,1000,5.5\nd2,2000,80\n"}
	cases := []struct {
		name, sql, stdout, stderr string
		code                      int
	}{
		{"INTERVAL without quotes", ddl + "SELECT ts - INTERVAL 1 SECOND AS t FROM sensors;", "t\n0\n1000\n", "", 0},
		{"the smallest BIGINT literal", ddl + "SELECT -9223372036854775808 AS m FROM sensors LIMIT 1;", "m\n-9223372036854775808\n", "", 0},
		{"a global aggregate of a bounded stream", ddl + "SELECT COUNT(*) FROM sensors;", "COUNT(*)\n2\n", "", 0},
		{"an aggregate in WHERE", ddl + "SELECT deviceNo FROM sensors WHERE COUNT(*) > 1;", "", "aggregate COUNT is not allowed here", 2},
		{"duplicate output names", ddl + "SELECT ts AS a, temperature AS A FROM sensors;", "", "two columns named 'A'", 2},
		{"duplicate names from a wildcard", ddl + "SELECT *, ts FROM sensors;", "", "line 3, column 11", 2},
		{"quote equals delimiter", "CREATE STREAM q (a VARCHAR) WITH ('connector'='file', 'path'='s.csv', 'csv.delimiter'='\"');", "", "'csv.quote' and 'csv.delimiter' are both", 2},
		{"drop a stream with pending branches", ddl + "SELECT deviceNo INTO SIDE 'x' FROM sensors;\nDROP STREAM sensors;", "", "pending side branches ('x')", 2},
		{"IN subquery under OR", ddl + "SELECT * FROM sensors WHERE deviceNo IN (SELECT deviceNo FROM sensors) OR ts = 1;", "", "must be a term of WHERE joined by AND", 2},
		{"uncorrelated EXISTS", ddl + "SELECT deviceNo FROM sensors WHERE EXISTS (SELECT 1 FROM sensors WHERE temperature > 70);", "deviceNo\nd1\nd2\n", "", 0},
		{"uncorrelated NOT EXISTS", ddl + "SELECT deviceNo FROM sensors WHERE NOT EXISTS (SELECT 1 FROM sensors WHERE temperature > 100);", "deviceNo\nd1\nd2\n", "", 0},
		{"uncorrelated EXISTS over nothing", ddl + "SELECT deviceNo FROM sensors WHERE EXISTS (SELECT 1 FROM sensors WHERE temperature > 100);", "deviceNo\n", "", 0},
	}
	for _, c := range cases {
		out, errs, code := runSQL(t, files, c.sql, "--format", "csv")
		if code != c.code || out != c.stdout || !strings.Contains(errs, c.stderr) {
			t.Errorf("%s: exit %d (want %d), stdout %q (want %q), stderr %q (want %q)", c.name, code, c.code, out, c.stdout, errs, c.stderr)
		}
	}
}

// TestFlags checks --version, --help, --timer and a bad --format (SPEC 4).
func TestFlags(t *testing.T) {
	ddl := strings.Replace(sensorsDDL, "%s", "", 1)
	files := map[string]string{"s.csv": "d1,1,5.5\nd2,2,80\n"}
	out, _, code := runSQL(t, files, "", "--version")
	if code != 0 || !strings.HasPrefix(out, "streamql ") {
		t.Errorf("--version: exit %d out %q", code, out)
	}
	out, _, code = runSQL(t, files, "", "--help")
	if code != 0 || !strings.Contains(out, "--side-dir") || !strings.Contains(out, "streamql script.sql") {
		t.Errorf("--help: exit %d out %q", code, out)
	}
	_, errs, code := runSQL(t, files, ddl+"SELECT * FROM sensors;", "--timer", "--format", "csv")
	if code != 0 || !strings.Contains(errs, "2 rows in ") || !strings.Contains(errs, "rows/s") {
		t.Errorf("--timer: exit %d stderr %q", code, errs)
	}
	_, errs, code = runSQL(t, files, ddl, "--format", "xml")
	if code != 2 || !strings.Contains(errs, "unknown --format 'xml'") {
		t.Errorf("bad format: exit %d stderr %q", code, errs)
	}
	out, _, code = runSQL(t, files, ddl+"SET 'format' = 'json';\nSELECT deviceNo FROM sensors;")
	if code != 0 || out != "{\"deviceNo\":\"d1\"}\n{\"deviceNo\":\"d2\"}\n" {
		t.Errorf("SET format: exit %d out %q", code, out)
	}
}

// TestEmptyOutputsAndSetSideDir checks that a table-format job shows every
// declared output, header only when it got no rows (SPEC 4: one table per output),
// and that SET 'side-dir' creates its folder like --side-dir.
func TestEmptyOutputsAndSetSideDir(t *testing.T) {
	ddl := strings.Replace(sensorsDDL, "%s", "", 1)
	files := map[string]string{"s.csv": "d1,1,5.5\n"}
	out, errs, code := runSQL(t, files, ddl+"SELECT deviceNo INTO SIDE 'never' FROM sensors WHERE temperature > 1000;\nSELECT deviceNo FROM sensors;", "--format", "markdown")
	if code != 0 || !strings.Contains(out, "never\n| deviceNo |\n|---|\n\n") || !strings.Contains(out, "main\n| deviceNo |\n|---|\n| d1 |") {
		t.Errorf("exit %d stderr %q out:\n%s", code, errs, out)
	}
	dir := filepath.Join(t.TempDir(), "new", "sides")
	_, errs, code = runSQL(t, files, ddl+"SET 'side-dir' = '"+dir+"';\nSELECT deviceNo INTO SIDE 'x' FROM sensors;\nRUN;", "--format", "csv")
	b, err := os.ReadFile(filepath.Join(dir, "x.csv"))
	if code != 0 || err != nil || string(b) != "deviceNo\nd1\n" {
		t.Errorf("SET side-dir: exit %d stderr %q file %q err %v", code, errs, b, err)
	}
}
