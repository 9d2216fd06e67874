package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCSVByHeader: with 'csv.header'='true' a csv file's fields map by the
// header's names when every declared column is in it, else by position, and
// EXPLAIN says which (SPEC 1, issue 29 item 4); a stream whose every row is
// malformed gets one stderr line with the header and the declared columns.
func TestCSVByHeader(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "h.csv"), []byte("temperature,ts,deviceNo,extra\n10.5,1,d1,x\n80.25,2,d2,y\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "q.sql")
	sql := `CREATE STREAM s (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE) WITH ('connector'='file','path'='h.csv','format'='csv','csv.header'='true');
CREATE STREAM p (a VARCHAR, ts BIGINT) WITH ('connector'='file','path'='h.csv','format'='csv','csv.header'='true');
SELECT * FROM s;
EXPLAIN SELECT * FROM s;
EXPLAIN SELECT * FROM p;
SELECT * FROM p;
`
	if err := os.WriteFile(script, []byte(sql), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runArgs(t, "--format", "csv", script)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	for _, want := range []string{
		"deviceNo,ts,temperature\nd1,1,10.5\nd2,2,80.25\n",
		"stream s: csv fields by header names\n",
		"stream p: csv fields by position (not every column is in the header)\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	want := "stream p: every row (2) was malformed; columns declared: a VARCHAR, ts BIGINT; the file's header: temperature, ts, deviceNo, extra\n"
	if strings.Count(stderr, "every row") != 1 || !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q once:\n%s", want, stderr)
	}
}
