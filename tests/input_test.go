package tests

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf16"

	"golang.org/x/text/encoding/simplifiedchinese"

	"streamql/cmd/streamql/cli"
)

// TestStdinTwoJobs: two jobs of one script read stdin; the second continues
// exactly where the first (LIMIT 2) stopped, byte for byte (SPEC 1, stdin),
// whether stdin is a pipe or a regular file.
func TestStdinTwoJobs(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "q.sql")
	os.WriteFile(script, []byte(`CREATE STREAM kv (k VARCHAR, v BIGINT) WITH ('connector'='stdin');
SELECT k, v FROM kv LIMIT 2;
SELECT k, v FROM kv;
`), 0o644)
	input := "a,1\nb,2\n  c ,3\r\nd,4\n\"e\nf\",5\ng,6"
	want := "k,v\na,1\nb,2\nk,v\n  c ,3\nd,4\n\"e\nf\",5\ng,6\n"
	file := filepath.Join(dir, "in.csv")
	os.WriteFile(file, []byte(input), 0o644)
	for name, stdin := range map[string]func() io.Reader{
		"pipe": func() io.Reader { return strings.NewReader(input) },
		"file": func() io.Reader {
			f, err := os.Open(file)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			return f
		},
	} {
		var out, errb bytes.Buffer
		code := cli.Run(context.Background(), []string{"--format", "csv", "-f", script}, stdin(), &out, &errb)
		if code != 0 || out.String() != want {
			t.Errorf("%s: exit %d\nstdout %q\nwant   %q\nstderr %s", name, code, out.String(), want, errb.String())
		}
	}
}

// TestStdinTwoJobsEncoding: the same through 'encoding' (the transcoder reads
// ahead): gbk and utf-16le, with and without a byte order mark, from a pipe
// (all at once, and one byte a read) or a regular file. The second job gets
// the source bytes after the first job's last row exactly: a line that
// starts with what looks like a BOM is data there (a BOM is only at the very
// start of stdin).
func TestStdinTwoJobsEncoding(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		enc    string
		bom    []byte
		encode func(string) []byte
	}{
		{"gbk", nil, func(s string) []byte {
			b, err := simplifiedchinese.GBK.NewEncoder().Bytes([]byte(s))
			if err != nil {
				t.Fatal(err)
			}
			return b
		}},
		{"utf-16le", nil, utf16le},
		{"utf-16le", []byte{0xFF, 0xFE}, utf16le},
	} {
		script := filepath.Join(dir, "q.sql")
		os.WriteFile(script, []byte(`CREATE STREAM kv (k VARCHAR, v BIGINT) WITH ('connector'='stdin', 'encoding'='`+c.enc+`');
SELECT k, v FROM kv LIMIT 2;
SELECT k, v FROM kv;
`), 0o644)
		// With a BOM, the second job's first line starts with U+FEFF: data there.
		input := append(append([]byte{}, c.bom...), c.encode("甲,1\n乙,2\n")...)
		input = append(append(input, c.bom...), c.encode("  丙 ,3\r\n\"丁\n戊\",4\n己,5\n庚,6")...)
		want := "k,v\n甲,1\n乙,2\nk,v\n  丙 ,3\n\"丁\n戊\",4\n己,5\n庚,6\n"
		if c.bom != nil {
			want = strings.Replace(want, "  丙", "\uFEFF  丙", 1)
		}
		for name, stdin := range stdinKinds(t, filepath.Join(dir, "in.txt"), input) {
			var out, errb bytes.Buffer
			code := cli.Run(context.Background(), []string{"--format", "csv", "-f", script}, stdin(), &out, &errb)
			if code != 0 || out.String() != want {
				t.Errorf("%s bom %x, %s: exit %d\nstdout %q\nwant   %q\nstderr %s", c.enc, c.bom, name, code, out.String(), want, errb.String())
			}
		}
	}
}

// TestStdinTwoJobsStartOnly: a BOM and the csv header line are only at the
// very start of stdin: a second job whose first line starts with U+FEFF, or
// a 'csv.header' stream read on by a second job, reads that line as data.
func TestStdinTwoJobsStartOnly(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ with, sel, input, want, errs string }{
		{"'csv.header'='true'", "k, v", "\uFEFFk,v\na,1\nb,2\nc,3\n", "k,v\na,1\nk,v\nb,2\nc,3\n", ""},
		{"'csv.header'='true'", "k, v", "k,v\na,1\n\uFEFFb,2\nc,3\n", "k,v\na,1\nk,v\n\uFEFFb,2\nc,3\n", ""},
		// not a BOM, so not an object: malformed
		{"'format'='json'", "k, v", "\uFEFF{\"k\":\"a\",\"v\":1}\n\uFEFF{\"k\":\"b\",\"v\":2}\n", "k,v\na,1\nk,v\n", "stdin:"},
	} {
		script := filepath.Join(dir, "q.sql")
		os.WriteFile(script, []byte(`CREATE STREAM kv (k VARCHAR, v BIGINT) WITH ('connector'='stdin', `+c.with+`);
SELECT `+c.sel+` FROM kv LIMIT 1;
SELECT `+c.sel+` FROM kv;
`), 0o644)
		var out, errb bytes.Buffer
		code := cli.Run(context.Background(), []string{"--format", "csv", "-f", script}, strings.NewReader(c.input), &out, &errb)
		if out.String() != c.want || !strings.Contains(errb.String(), c.errs) {
			t.Errorf("%s %q: exit %d\nstdout %q\nwant   %q\nstderr %s", c.with, c.input, code, out.String(), c.want, errb.String())
		}
	}
}

// TestStdinTwoJobsLines: the positions of stdin rows are lines of the whole
// stdin (SPEC 1, stdin:line): each job's malformed rows are named with the
// line they have in stdin, after the lines earlier jobs consumed (LIMIT
// inside a batch, a quoted record over two lines, blank lines), for csv and
// json, through 'encoding', from a pipe (all at once, one byte a read) or a
// regular file.
func TestStdinTwoJobsLines(t *testing.T) {
	dir := t.TempDir()
	csvIn := "1\nx\n2\n\"3\n4\"\n5\n6\ny\n"
	jsonIn := "{\"n\":1}\nx\n{\"n\":2}\n\n{\"n\":3}\ny\n{\"n\":4}\n{\"n\":5}\nz\n"
	for _, c := range []struct {
		with  string
		input []byte
		out   string
		lines []int
	}{
		{"", []byte(csvIn), "n\n1\n2\nn\n5\n6\nn\n", []int{2, 4, 8}},
		{", 'encoding'='utf-16le'", append([]byte{0xFF, 0xFE}, utf16le(csvIn)...), "n\n1\n2\nn\n5\n6\nn\n", []int{2, 4, 8}},
		{", 'format'='json'", []byte(jsonIn), "n\n1\n2\nn\n3\n4\nn\n5\n", []int{2, 6, 9}},
	} {
		script := filepath.Join(dir, "q.sql")
		os.WriteFile(script, []byte(`CREATE STREAM s (n BIGINT) WITH ('connector'='stdin'`+c.with+`);
SELECT n FROM s LIMIT 2; SELECT n FROM s LIMIT 2; SELECT n FROM s;
`), 0o644)
		for name, stdin := range stdinKinds(t, filepath.Join(dir, "in.txt"), c.input) {
			var out, errb bytes.Buffer
			code := cli.Run(context.Background(), []string{"--format", "csv", "-f", script}, stdin(), &out, &errb)
			var lines []int
			for _, l := range strings.Split(errb.String(), "\n") {
				var n int
				if _, err := fmt.Sscanf(l, "errors> s,stdin:%d,", &n); err == nil {
					lines = append(lines, n)
				}
			}
			if code != 0 || out.String() != c.out || fmt.Sprint(lines) != fmt.Sprint(c.lines) {
				t.Errorf("%s, %s: exit %d, error lines %v, want %v\nstdout %q\nwant   %q\nstderr %s", c.with, name, code, lines, c.lines, out.String(), c.out, errb.String())
			}
		}
	}
	// 'errors'='fail': the second job's error names the row's line in stdin
	script := filepath.Join(dir, "q.sql")
	os.WriteFile(script, []byte(`CREATE STREAM s (n BIGINT) WITH ('connector'='stdin', 'errors'='fail');
SELECT n FROM s LIMIT 1; SELECT n FROM s;
`), 0o644)
	for name, stdin := range stdinKinds(t, filepath.Join(dir, "in.txt"), []byte("1\n2\nx\n")) {
		var out, errb bytes.Buffer
		code := cli.Run(context.Background(), []string{"--format", "csv", "-f", script}, stdin(), &out, &errb)
		if code == 0 || out.String() != "n\n1\nn\n2\n" || !strings.Contains(errb.String(), "error: stdin:3: malformed row in stream s") {
			t.Errorf("errors=fail, %s: exit %d stdout %q stderr %s", name, code, out.String(), errb.String())
		}
	}
}

// stdinKinds returns input as a test's stdin three ways, by name: a pipe
// (all at once), a pipe giving one byte a read, and the regular file file,
// which it writes and which is closed at the test's end.
func stdinKinds(t *testing.T, file string, input []byte) map[string]func() io.Reader {
	os.WriteFile(file, input, 0o644)
	return map[string]func() io.Reader{
		"pipe":        func() io.Reader { return bytes.NewReader(input) },
		"pipe 1 byte": func() io.Reader { return iotest.OneByteReader(bytes.NewReader(input)) },
		"file": func() io.Reader {
			f, err := os.Open(file)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			return f
		},
	}
}

func utf16le(s string) []byte {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return b
}

// TestMaxRecordSizeCLI: a record longer than 'max-record-size' goes to the
// errors side output with the option named, and the rows after it are read;
// a directory as 'path' fails before any output.
func TestMaxRecordSizeCLI(t *testing.T) {
	long := strings.Repeat("x", 5000)
	out, errs, code := runSQL(t, map[string]string{"s.csv": "a,1\n" + long + ",2\nb,3\n"},
		`CREATE STREAM s (k VARCHAR, v BIGINT) WITH ('connector'='file', 'path'='s.csv', 'max-record-size'='1KiB');
SELECT k, v FROM s;`, "--format", "csv")
	if code != 0 || out != "k,v\na,1\nb,3\n" || !strings.Contains(errs, "s.csv:2") || !strings.Contains(errs, "'max-record-size' (1KiB") {
		t.Errorf("exit %d stdout %q stderr %.300q", code, out, errs)
	}
	out, errs, code = runSQL(t, nil,
		`CREATE STREAM s (k VARCHAR) WITH ('connector'='file', 'path'='.');
SELECT k FROM s;`, "--format", "csv")
	if code == 0 || out != "" || !strings.Contains(errs, "'path' = '.'") || !strings.Contains(errs, "is a directory") {
		t.Errorf("directory: exit %d stdout %q stderr %q", code, out, errs)
	}
}

// TestStdinTwoJobsEventTimeJoin: a job on the event-time join path (the probe
// stream read from stdin is held until the build watermark passes) that its
// LIMIT ends over several batches: the next job reads stdin on from the row
// after the LIMIT's last one, whether stdin is a pipe or a regular file, and
// names its malformed row by its line in the whole stdin.
func TestStdinTwoJobsEventTimeJoin(t *testing.T) {
	dir := t.TempDir()
	var in, first, rest strings.Builder
	for i := range 3000 {
		k := "a"
		if i%3 == 1 {
			k = "b" // not in the build side
		}
		line := fmt.Sprintf("%s,%d\n", k, 1000+i)
		in.WriteString(line)
		switch {
		case i >= 2400:
			rest.WriteString(line)
		case k == "a":
			first.WriteString(line)
		}
	}
	in.WriteString("a,x\n") // malformed: the second job names it by its line in stdin
	want := "k,ts\n" + first.String() + "k,ts\n" + rest.String()
	file := filepath.Join(dir, "in.csv")
	os.WriteFile(file, []byte(in.String()), 0o644)
	for name, stdin := range map[string]func() io.Reader{
		"pipe": func() io.Reader { return strings.NewReader(in.String()) },
		"file": func() io.Reader {
			f, err := os.Open(file)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			return f
		},
	} {
		port := serveText(t, "a,100\n")
		script := filepath.Join(dir, "q.sql")
		// 1600 rows of key a are in the first 2400 rows, the LIMIT's last is row 2400
		os.WriteFile(script, []byte(fmt.Sprintf(`CREATE STREAM l (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='stdin');
CREATE STREAM r (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='socket', 'hostname'='127.0.0.1', 'port'='%d');
SELECT l.k, l.ts FROM l SEMI JOIN r ON l.k = r.k LIMIT 1600;
SELECT k, ts FROM l;
`, port)), 0o644)
		var out, errb bytes.Buffer
		code := cli.Run(context.Background(), []string{"--format", "csv", "-f", script}, stdin(), &out, &errb)
		if code != 0 || out.String() != want || !strings.Contains(errb.String(), "errors> l,stdin:3001,") {
			t.Errorf("%s: exit %d, stdout %d bytes, want %d; first difference at %d\nstderr %s", name, code, out.Len(), len(want), firstDiff(out.String(), want), errb.String())
		}
	}
}

// firstDiff returns the offset of the first byte where a and b differ.
func firstDiff(a, b string) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}
