package tests

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
