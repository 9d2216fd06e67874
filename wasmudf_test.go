package streamql_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"streamql"
	"streamql/internal/session"
)

// collectLines returns an OnRows callback that appends "output: v1, v2" lines to *got.
func collectLines(got *[]string) func(streamql.Output, *streamql.Rows) error {
	return func(out streamql.Output, rows *streamql.Rows) error {
		for r := 0; r < rows.Len(); r++ {
			var vals []string
			for c := range out.Columns {
				vals = append(vals, fmt.Sprint(rows.Value(c, r)))
			}
			*got = append(*got, out.Name+": "+strings.Join(vals, ", "))
		}
		return nil
	}
}

// TestWasmCountChar runs Nexmark q14's count_char, the Go UDF compiled to
// WebAssembly by scripts/build-udf-wasm, through SQL (SPEC 2.10); SHOW
// FUNCTIONS lists it, DROP FUNCTION removes it.
func TestWasmCountChar(t *testing.T) {
	var got []string
	s, err := streamql.Open(streamql.Options{BaseDir: "queries/udf", OnRows: collectLines(&got)})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	err = s.Exec(ctx, `
CREATE FUNCTION count_char AS 'count_char/count_char.wasm' LANGUAGE WASM;
CREATE STREAM bids (extra VARCHAR, n BIGINT) WITH ('connector' = 'values');
INSERT INTO bids VALUES ('abcacbc', 1), ('', 2), (NULL, 3), ('ççç', 4), ('cc', 5);
SELECT extra, count_char(extra, 'c') AS c_counts, COUNT_CHAR(extra, 'ç') FROM bids;`)
	if err != nil {
		t.Fatal(err)
	}
	want := "main: abcacbc, 3, 0\nmain: , 0, 0\nmain: <nil>, <nil>, <nil>\nmain: ççç, 0, 3\nmain: cc, 2, 0"
	if g := strings.Join(got, "\n"); g != want {
		t.Errorf("got\n%s\nwant\n%s", g, want)
	}
	got = nil
	if err := s.Exec(ctx, "SHOW FUNCTIONS"); err != nil {
		t.Fatal(err)
	}
	if last := got[len(got)-1]; !strings.HasPrefix(last, "result: COUNT_CHAR, COUNT_CHAR(VARCHAR, VARCHAR) → BIGINT") || !strings.Contains(last, "count_char/count_char.wasm") {
		t.Errorf("SHOW FUNCTIONS' last row is %q", last)
	}
	if err := s.Exec(ctx, "DROP FUNCTION count_char; DROP FUNCTION IF EXISTS count_char"); err != nil {
		t.Fatal(err)
	}
	err = s.Exec(ctx, "SELECT count_char(extra, 'c') FROM bids")
	if err == nil || !strings.Contains(err.Error(), "unknown function COUNT_CHAR") {
		t.Errorf("after DROP FUNCTION: %v", err)
	}
}

// trapWasm is a hand-written module exporting boom (i64) -> i64, which
// traps (unreachable), spin (i64) -> i64, which loops for ever, and inc (i64)
// -> i64, which adds one.
var trapWasm = []byte{0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x06, 0x01, 0x60, 0x01, 0x7e, 0x01, 0x7e, 0x03, 0x04, 0x03, 0x00, 0x00, 0x00, 0x07, 0x15, 0x03, 0x04, 0x62, 0x6f, 0x6f, 0x6d, 0x00, 0x00, 0x04, 0x73, 0x70, 0x69, 0x6e, 0x00, 0x01, 0x03, 0x69, 0x6e, 0x63, 0x00, 0x02, 0x0a, 0x17, 0x03, 0x03, 0x00, 0x00, 0x0b, 0x09, 0x00, 0x03, 0x40, 0x0c, 0x00, 0x0b, 0x42, 0x00, 0x0b, 0x07, 0x00, 0x20, 0x00, 0x42, 0x01, 0x7c, 0x0b}

// TestWasmTrapAndTimeout: a trapping call and a call past the time cap give
// NULL and send their row to errors with the function's name and the reason;
// the job goes on (the next rows are computed by a fresh instance).
func TestWasmTrapAndTimeout(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "trap.wasm"), trapWasm, 0o644); err != nil {
		t.Fatal(err)
	}
	old := session.WasmLimits
	session.WasmLimits.CallTimeout = 50 * time.Millisecond
	defer func() { session.WasmLimits = old }()
	var got []string
	s, err := streamql.Open(streamql.Options{BaseDir: dir, OnRows: collectLines(&got)})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	err = s.Exec(ctx, `
CREATE FUNCTION boom AS 'trap.wasm';
CREATE FUNCTION spin AS 'trap.wasm';
CREATE FUNCTION inc AS 'trap.wasm';
CREATE STREAM n (x BIGINT) WITH ('connector' = 'values');
INSERT INTO n VALUES (1), (2), (3);
SELECT x, inc(x), boom(x) FROM n WHERE x >= 2;`)
	if err != nil {
		t.Fatal(err)
	}
	want := "main: 2, 3, <nil>\nmain: 3, 4, <nil>\nerrors: n, 2, 2, function BOOM: trap: wasm error: unreachable\nerrors: n, 3, 3, function BOOM: trap: wasm error: unreachable"
	if g := strings.Join(got, "\n"); g != want {
		t.Errorf("trap: got\n%s\nwant\n%s", g, want)
	}
	got = nil
	start := time.Now()
	if err := s.Exec(ctx, `SELECT x, spin(x), inc(x) FROM n WHERE x <> 2;`); err != nil {
		t.Fatal(err)
	}
	stopped := "the call ran longer than 50ms (the time cap per call) and was stopped"
	want = "main: 1, <nil>, 2\nmain: 3, <nil>, 4\nerrors: n, 1, 1, function SPIN: " + stopped + "\nerrors: n, 3, 3, function SPIN: " + stopped
	if g := strings.Join(got, "\n"); g != want {
		t.Errorf("timeout: got\n%s\nwant\n%s", g, want)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the timed-out job took %v", d)
	}
}

// TestWasmFunctionErrors: CREATE FUNCTION's errors name the function and
// what the module lacks, with a caret in the statement.
func TestWasmFunctionErrors(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "trap.wasm"), trapWasm, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "junk.wasm"), []byte("not wasm"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ sql, msg string }{
		{"CREATE FUNCTION nope AS 'trap.wasm'", "trap.wasm exports no function nope (it exports boom, inc, spin)"},
		{"CREATE FUNCTION f AS 'missing.wasm'", "cannot read the module of function f"},
		{"CREATE FUNCTION f AS 'junk.wasm'", "junk.wasm is not a WebAssembly module"},
		{"CREATE FUNCTION upper AS 'trap.wasm'", "upper is a built-in function"},
		{"CREATE FUNCTION inc AS 'trap.wasm' LANGUAGE JAVA", "LANGUAGE JAVA is not supported"},
		{"DROP FUNCTION inc", "unknown function inc"},
		{"CREATE FUNCTION inc AS 'trap.wasm';\nCREATE STREAM n (s VARCHAR) WITH ('connector' = 'values');\nSELECT inc(s) FROM n", "INC does not take s (VARCHAR) as argument 1; it takes INC(BIGINT) → BIGINT"},
	} {
		s, err := streamql.Open(streamql.Options{BaseDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		err = s.Exec(context.Background(), c.sql)
		var se *streamql.Error
		if !errors.As(err, &se) || se.Pos.Line == 0 || !strings.Contains(se.Msg, c.msg) {
			t.Errorf("%s: got %v, want %q with a position", c.sql, err, c.msg)
		}
	}
}

// oddWasm is a hand-written module with the batch ABI: odd (i64) -> i64
// traps for an odd x and returns an even one, odd_batch always traps, alloc
// returns 1024, dealloc does nothing; one page of memory.
var oddWasm = []byte{0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x16, 0x04, 0x60, 0x01, 0x7e, 0x01, 0x7e, 0x60, 0x01, 0x7f, 0x01, 0x7f, 0x60, 0x02, 0x7f, 0x7f, 0x00, 0x60, 0x03, 0x7f, 0x7f, 0x7f, 0x00, 0x03, 0x05, 0x04, 0x00, 0x01, 0x02, 0x03, 0x05, 0x03, 0x01, 0x00, 0x01, 0x07, 0x2e, 0x05, 0x03, 0x6f, 0x64, 0x64, 0x00, 0x00, 0x05, 0x61, 0x6c, 0x6c, 0x6f, 0x63, 0x00, 0x01, 0x07, 0x64, 0x65, 0x61, 0x6c, 0x6c, 0x6f, 0x63, 0x00, 0x02, 0x09, 0x6f, 0x64, 0x64, 0x5f, 0x62, 0x61, 0x74, 0x63, 0x68, 0x00, 0x03, 0x06, 0x6d, 0x65, 0x6d, 0x6f, 0x72, 0x79, 0x02, 0x00, 0x0a, 0x1d, 0x04, 0x0e, 0x00, 0x20, 0x00, 0x42, 0x01, 0x83, 0xa7, 0x04, 0x40, 0x00, 0x0b, 0x20, 0x00, 0x0b, 0x05, 0x00, 0x41, 0x80, 0x08, 0x0b, 0x02, 0x00, 0x0b, 0x03, 0x00, 0x00, 0x0b}

// TestWasmBatchTrap: when a batch call traps, its rows are called one by
// one, so that only the rows that fail go to errors, each with its reason.
func TestWasmBatchTrap(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "odd.wasm"), oddWasm, 0o644); err != nil {
		t.Fatal(err)
	}
	var got []string
	s, err := streamql.Open(streamql.Options{BaseDir: dir, OnRows: collectLines(&got)})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Exec(context.Background(), `
CREATE FUNCTION odd AS 'odd.wasm';
CREATE STREAM n (x BIGINT) WITH ('connector' = 'values');
INSERT INTO n VALUES (1), (2), (NULL), (4), (5);
SELECT x, odd(x) FROM n;`)
	if err != nil {
		t.Fatal(err)
	}
	trap := "function ODD: trap: wasm error: unreachable"
	want := "main: 1, <nil>\nmain: 2, 2\nmain: <nil>, <nil>\nmain: 4, 4\nmain: 5, <nil>\nerrors: n, 1, 1, " + trap + "\nerrors: n, 5, 5, " + trap
	if g := strings.Join(got, "\n"); g != want {
		t.Errorf("got\n%s\nwant\n%s", g, want)
	}
}
