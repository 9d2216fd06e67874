package tests

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"streamql/executor/textenc"
)

// End-to-end tests of SPEC 1's input formats: 'format'='json' and 'encoding'.

func encodeIn(t *testing.T, enc, text string) string {
	t.Helper()
	e, err := textenc.Lookup(enc)
	if err != nil {
		t.Fatal(err)
	}
	b, err := e.Encode([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// errorLines returns the "errors> " lines of stderr (csv output format).
func errorLines(errs string) []string {
	var out []string
	for _, l := range strings.Split(errs, "\n") {
		if strings.HasPrefix(l, "errors> ") {
			out = append(out, strings.TrimPrefix(l, "errors> "))
		}
	}
	return out
}

// invalidShown is s as the errors> lines on stderr show it (SPEC 4): each
// byte that is not valid UTF-8 as \xNN.
func invalidShown(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			fmt.Fprintf(&b, `\x%02x`, s[i])
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func checkRun(t *testing.T, files map[string]string, sql, wantOut string, wantErrors []string) {
	t.Helper()
	for k := range wantErrors {
		wantErrors[k] = invalidShown(wantErrors[k])
	}
	out, errs, code := runSQL(t, files, sql, "--format", "csv")
	if code != 0 || out != wantOut {
		t.Errorf("exit %d\ngot\n%s\nwant\n%s\nstderr:\n%s", code, out, wantOut, errs)
	}
	if got := errorLines(errs); strings.Join(got, "\n") != strings.Join(wantErrors, "\n") {
		t.Errorf("errors side output\ngot\n%q\nwant\n%q", got, wantErrors)
	}
}

// TestJSONInput covers SPEC 1's json rules through a whole job.
func TestJSONInput(t *testing.T) {
	data := "\xEF\xBB\xBF" +
		`{"deviceNo":"设备1","ts":1610035543127,"temperature":75.5}` + "\r\n" +
		"\n" +
		`{"temperature":"12.5","ts":"1610035543128","deviceNo":"d\u00e9v\"2\"","extra":{"a":[1,2]}}` + "\n" +
		`{"deviceNo":"a","ts":12.5,"temperature":1}` + "\n" +
		`{"deviceNo":"b","ts":1e3,"temperature":1}` + "\n" +
		`{"DeviceNo":"ignored","deviceNo":"first","deviceNo":"last","ts":null}` + "\n" +
		`{"deviceNo":{"k": [1, true]},"ts":9223372036854775807}` + "\n" +
		`{"deviceNo":12.50,"temperature":"abc"}` + "\n" +
		`[1,2,3]` + "\n" +
		`{"deviceNo":"x",}` + "\n" +
		"{\"deviceNo\":\"\xff\"}\n" +
		`{"deviceNo":"\ud83d\ude00","temperature":-0}`
	sql := `CREATE STREAM s (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE) WITH ('connector'='file', 'path'='s.json', 'format'='json');
SELECT * FROM s;`
	checkRun(t, map[string]string{"s.json": data}, sql,
		"deviceNo,ts,temperature\n"+
			"设备1,1610035543127,75.5\n"+
			"\"dév\"\"2\"\"\",1610035543128,12.5\n"+
			"last,,\n"+
			"\"{\"\"k\"\":[1,true]}\",9223372036854775807,\n"+
			"😀,,-0.0\n",
		[]string{
			`s,s.json:4,"{""deviceNo"":""a"",""ts"":12.5,""temperature"":1}",column ts: 12.5 is not a valid BIGINT`,
			`s,s.json:5,"{""deviceNo"":""b"",""ts"":1e3,""temperature"":1}",column ts: 1e3 is not a valid BIGINT`,
			`s,s.json:8,"{""deviceNo"":12.50,""temperature"":""abc""}","column temperature: ""abc"" is not a valid DOUBLE"`,
			`s,s.json:9,"[1,2,3]",not a JSON object`,
			`s,s.json:10,"{""deviceNo"":""x"",}",invalid JSON at byte 17: expected a field name`,
			"s,s.json:11,\"{\"\"deviceNo\"\":\"\"\xff\"\"}\",invalid UTF-8 at byte 14",
		})
}

// TestJSONEventTime checks that a missing or null event time in a json stream is
// a malformed row (SPEC 2.3) and that json feeds the watermark.
func TestJSONEventTime(t *testing.T) {
	data := `{"w":"a","ts":1000}` + "\n" + `{"w":"b"}` + "\n" + `{"w":"c","ts":"500"}` + "\n"
	sql := `CREATE STREAM s (w VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '0' SECOND) WITH ('connector'='file', 'path'='s.json', 'format'='json');
SELECT w, ts < CURRENT_WATERMARK(ts) AS late FROM s;`
	checkRun(t, map[string]string{"s.json": data}, sql, "w,late\na,\nc,true\n",
		[]string{`s,s.json:2,"{""w"":""b""}",column ts: the event-time column is NULL`})
}

// TestGBKInput reads a GBK CSV file with CJK text: an invalid byte makes its row
// malformed with the input bytes as raw text, and a quoted record spanning lines
// with an invalid line is malformed at its first line.
func TestGBKInput(t *testing.T) {
	data := encodeIn(t, "gbk", "设备1,1610035543127,75.5\n\"温度,计\",2,3.5\n") +
		"x\x81 y,3,4\n" +
		encodeIn(t, "gbk", "\"多\n") + "\xff\n" + encodeIn(t, "gbk", "行\",5,6\r\n设备2,abc,1\n设备3,7,8")
	sql := `CREATE STREAM g (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE) WITH ('connector'='file', 'path'='g.csv', 'encoding'='GBK');
SELECT * FROM g;`
	out, errs, code := runSQL(t, map[string]string{"g.csv": data}, sql, "--format", "csv")
	want := "deviceNo,ts,temperature\n设备1,1610035543127,75.5\n\"温度,计\",2,3.5\n设备3,7,8.0\n"
	if code != 0 || out != want {
		t.Errorf("exit %d\ngot\n%s\nwant\n%s\nstderr:\n%s", code, out, want, errs)
	}
	// The errors rows on stderr; the second one's raw text spans three lines,
	// its line feeds and the bytes that are not UTF-8 shown as \xNN on stderr
	// (SPEC 4).
	wantErrs := "errors> g,g.csv:3,\"x\x81 y,3,4\",invalid gbk input at byte 2: 81\n" +
		"errors> g,g.csv:4,\"\"\"" + encodeIn(t, "gbk", "多") + "\\x0a\xff\\x0a" + encodeIn(t, "gbk", "行") + "\"\",5,6\",line 5: invalid gbk input at byte 1: ff\n" +
		"errors> g,g.csv:7,\"设备2,abc,1\",\"column ts: \"\"abc\"\" is not a valid BIGINT\"\n"
	wantErrs = invalidShown(wantErrs)
	if !strings.Contains(errs, wantErrs) {
		t.Errorf("stderr\n%q\nwant it to hold\n%q", errs, wantErrs)
	}
}

// TestGB18030JSON reads json lines in gb18030.
func TestGB18030JSON(t *testing.T) {
	data := encodeIn(t, "gb18030", `{"名":"设备😀","n":1}`+"\n") + "{\"\x81\x30\":1}\n" + encodeIn(t, "gb18030", `{"n":"2"}`)
	sql := `CREATE STREAM j (名 VARCHAR, n BIGINT) WITH ('connector'='file', 'path'='j.json', 'format'='json', 'encoding'='gb18030');
SELECT * FROM j;`
	checkRun(t, map[string]string{"j.json": data}, sql, "名,n\n设备😀,1\n,2\n",
		[]string{"j,j.json:2,\"{\"\"\x81\x30\"\":1}\",invalid gb18030 input at byte 3: 81"})
}

// TestUTF16LEInput reads UTF-16LE files with a BOM and CRLF line ends (a
// spreadsheet's "Unicode text" export), as CSV and as json.
func TestUTF16LEInput(t *testing.T) {
	bom := "\xFF\xFE"
	csv := bom + encodeIn(t, "utf-16le", "设备1\t1\t75.5\r\n设备2\t2\t80.25\r\n\r\n温度\tx\t1\r\n")
	json := bom + encodeIn(t, "utf-16le", `{"deviceNo":"设备1","ts":1}`+"\r\n") + "{\x00\x00\xd8}\x00\r\x00\n\x00"
	sql := `CREATE STREAM c (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE) WITH ('connector'='file', 'path'='c.tsv', 'csv.delimiter'='\t', 'encoding'='utf-16le');
CREATE STREAM j (deviceNo VARCHAR, ts BIGINT) WITH ('connector'='file', 'path'='j.json', 'format'='json', 'encoding'='UTF-16LE');
SELECT * FROM c;
SELECT * FROM j;`
	out, errs, code := runSQL(t, map[string]string{"c.tsv": csv, "j.json": json}, sql, "--format", "csv")
	want := "deviceNo,ts,temperature\n设备1,1,75.5\n设备2,2,80.25\n" + "deviceNo,ts\n设备1,1\n"
	if code != 0 || out != want {
		t.Errorf("exit %d\ngot\n%s\nwant\n%s\nstderr:\n%s", code, out, want, errs)
	}
	wantErrs := []string{
		"c,c.tsv:4,温度\tx\t1,\"column ts: \"\"x\"\" is not a valid BIGINT\"",
		// control characters show as \xNN on stderr (SPEC 4)
		"j,j.json:2,\"{\\x00\\x00\xd8}\\x00\\x0d\\x00\",invalid utf-16le input at byte 3: 00 d8",
	}
	for k := range wantErrs {
		wantErrs[k] = invalidShown(wantErrs[k])
	}
	if got := errorLines(errs); strings.Join(got, "\n") != strings.Join(wantErrs, "\n") {
		t.Errorf("errors side output\ngot\n%q\nwant\n%q", got, wantErrs)
	}
}

// TestLatin1Input reads a Latin-1 file (every byte is a character).
func TestLatin1Input(t *testing.T) {
	data := "caf\xe9,1\nna\xefve \xa35,2\n\xff,3\n"
	sql := `CREATE STREAM l (word VARCHAR, n BIGINT) WITH ('connector'='file', 'path'='l.csv', 'encoding'='ISO-8859-1');
SELECT * FROM l WHERE n < 3;`
	checkRun(t, map[string]string{"l.csv": data}, sql, "word,n\ncafé,1\nnaïve £5,2\n", nil)
}

// TestUTF8Default checks that without 'encoding' invalid UTF-8 in a VARCHAR field
// is a malformed row with the bytes as raw text (no transcoding).
func TestUTF8Default(t *testing.T) {
	data := "设备1,1\nx\xff,2\n"
	sql := `CREATE STREAM u (w VARCHAR, n BIGINT) WITH ('connector'='file', 'path'='u.csv', 'encoding'='utf8');
SELECT * FROM u;`
	checkRun(t, map[string]string{"u.csv": data}, sql, "w,n\n设备1,1\n",
		[]string{"u,u.csv:2,\"x\xff,2\",column w: invalid UTF-8"})
}

// TestUnknownEncoding checks that an unknown encoding is reported at CREATE
// STREAM with the valid names, before any job runs.
func TestUnknownEncoding(t *testing.T) {
	sql := `CREATE STREAM s (w VARCHAR) WITH ('connector'='file', 'path'='s.csv', 'encoding'='klingon');
SELECT * FROM s;`
	out, errs, code := runSQL(t, map[string]string{"s.csv": "a\n"}, sql, "--format", "csv")
	if code != 2 || out != "" || !strings.Contains(errs, "unknown encoding 'klingon'") || !strings.Contains(errs, "utf-16le") {
		t.Errorf("exit %d, stdout %q, stderr:\n%s", code, out, errs)
	}
}

// TestEncodingErrorsSideDir checks that the raw input bytes reach the errors file
// under --side-dir unchanged.
func TestEncodingErrorsSideDir(t *testing.T) {
	dir := t.TempDir()
	data := encodeIn(t, "gbk", "设备1,1\n") + "\xb6\xff,2\n"
	sql := `CREATE STREAM g (w VARCHAR, n BIGINT) WITH ('connector'='file', 'path'='g.csv', 'encoding'='cp936');
SELECT * FROM g;`
	out, errs, code := runSQL(t, map[string]string{"g.csv": data}, sql, "--format", "csv", "--side-dir", dir)
	if code != 0 || out != "w,n\n设备1,1\n" {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, out, errs)
	}
	b, err := os.ReadFile(filepath.Join(dir, "errors.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "g,g.csv:2,\"\xb6\xff,2\",invalid gbk input at byte 1: b6\n") {
		t.Errorf("errors.csv:\n%q", b)
	}
}
