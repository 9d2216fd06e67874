package tests

import (
	"strings"
	"testing"
)

// TestMalformedRowBeforeARowOfManyWindows: a malformed row comes out between
// the rows of the input rows around it (SPEC 1, SPEC 4's one output order),
// also when the next row has more windows than a batch of the window
// operator holds (a HOP of 1 ms over 9 s: 9,000 rows, pushed on in parts,
// SPEC 2.4). The errors row was once written among the next row's windows.
func TestMalformedRowBeforeARowOfManyWindows(t *testing.T) {
	files := map[string]string{"in.csv": "a,1000\nx,abc\nb,1500\n"}
	sql := `CREATE STREAM s (k VARCHAR, ts BIGINT) WITH ('connector'='file', 'path'='in.csv');
SELECT k, window_start FROM TABLE(HOP(TABLE s, DESCRIPTOR(ts), INTERVAL '1' MILLISECOND, INTERVAL '9' SECOND));
`
	out, errs, code := runSQL(t, files, sql, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 18001 {
		t.Fatalf("%d lines, want 9,000 windows of each row and the errors row", len(lines))
	}
	for i, l := range lines {
		var want string
		switch {
		case i < 9000:
			want = `{"k":"a",`
		case i == 9000:
			want = `{"output":"errors","stream":"s","position":"in.csv:2"`
		default:
			want = `{"k":"b",`
		}
		if !strings.HasPrefix(l, want) {
			t.Fatalf("line %d is %s, want it to start with %s", i+1, l, want)
		}
	}
}
