package streamql_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"streamql"
)

// collect returns an OnRows that appends "output: v1, v2" lines to *lines.
func collect(lines *[]string) func(streamql.Output, *streamql.Rows) error {
	return func(out streamql.Output, rows *streamql.Rows) error {
		for r := 0; r < rows.Len(); r++ {
			vals := make([]string, len(out.Columns))
			for c := range out.Columns {
				vals[c] = fmt.Sprint(rows.Value(c, r))
			}
			*lines = append(*lines, out.Kind.String()+" "+out.Name+": "+strings.Join(vals, ", "))
		}
		return nil
	}
}

func open(t *testing.T, opts streamql.Options) *streamql.Session {
	t.Helper()
	s, err := streamql.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestErrorKinds: a syntax error runs nothing; a planning error stops at its
// statement, after the ones before ran; both carry the statement's position
// and render like the command line (SPEC 4); a job's failure is Runtime.
func TestErrorKinds(t *testing.T) {
	var lines []string
	s := open(t, streamql.Options{BaseDir: "testdata", OnRows: collect(&lines)})
	ctx := context.Background()

	err := s.Exec(ctx, "CREATE STREAM a (x BIGINT) WITH ('connector'='values');\nSELECT FROM WHERE;")
	var e *streamql.Error
	if !errors.As(err, &e) || e.Kind != streamql.KindSyntax || e.Kind.ExitStatus() != 2 {
		t.Fatalf("syntax: %#v", err)
	}
	if e.Pos.File != "-e" || e.Pos.Line != 2 {
		t.Fatalf("syntax error at %+v, want -e line 2", e.Pos)
	}
	if err := s.Exec(ctx, "SHOW STREAMS"); err != nil || len(lines) != 0 {
		t.Fatalf("the syntax error ran a statement: %v %q", err, lines)
	}

	err = s.ExecScript(ctx, "q.sql", "CREATE STREAM a (x BIGINT) WITH ('connector'='values');\nSELECT nope FROM a;\nSHOW STREAMS;", "testdata")
	if !errors.As(err, &e) || e.Kind != streamql.KindPlanning {
		t.Fatalf("planning: %#v", err)
	}
	if e.Pos != (streamql.Pos{File: "q.sql", Line: 2, Column: 8}) {
		t.Fatalf("planning error at %+v, want q.sql line 2 column 8", e.Pos)
	}
	want := e.Msg + "\nq.sql, line 2, column 8:\n  SELECT nope FROM a;\n         ^"
	if got := e.Format(); got != want {
		t.Fatalf("Format:\n%s\nwant:\n%s", got, want)
	}
	if !strings.HasPrefix(e.Error(), "q.sql, line 2, column 8: ") {
		t.Fatalf("Error() = %q", e.Error())
	}
	if len(lines) != 0 { // SHOW STREAMS after the error did not run
		t.Fatalf("ran after the error: %q", lines)
	}
	if err := s.Exec(ctx, "DESCRIBE a"); err != nil || len(lines) != 1 || lines[0] != "result result: x, BIGINT, " {
		t.Fatalf("the CREATE before the error did not run: %v %q", err, lines)
	}

	// a file that vanished between CREATE and the job: a runtime error
	dir := t.TempDir()
	path := filepath.Join(dir, "gone.csv")
	if err := os.WriteFile(path, []byte("1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.ExecScript(ctx, "r.sql", "CREATE STREAM g (x BIGINT) WITH ('connector'='file', 'path'='gone.csv');", dir); err != nil {
		t.Fatal(err)
	}
	os.Remove(path)
	err = s.Exec(ctx, "SELECT * FROM g")
	if !errors.As(err, &e) || e.Kind != streamql.KindRuntime || e.Kind.ExitStatus() != 1 || e.Pos.Line != 0 {
		t.Fatalf("runtime: %#v", err)
	}
	if !strings.Contains(e.Format(), "gone.csv") {
		t.Fatalf("runtime error does not name the file: %s", e.Format())
	}
}

// TestFormatMatchesCLI: Error.Format prints what the command line prints
// after "error: " for the same script.
func TestFormatMatchesCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "streamql")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/streamql").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	sql := "CREATE STREAM a (x BIGINT) WITH ('connector'='values');\nSELECT x FROM a WHERE x = 'é' AND y > 1;"
	out, _ := exec.Command(bin, "-e", sql).CombinedOutput()
	s := open(t, streamql.Options{})
	var e *streamql.Error
	if err := s.Exec(context.Background(), sql); !errors.As(err, &e) {
		t.Fatalf("no *Error: %v", err)
	}
	if got := "error: " + e.Format() + "\n"; got != string(out) {
		t.Fatalf("Format:\n%s\nthe command line:\n%s", got, out)
	}
}

// TestRunTwice: the same statements run twice in one session give the same
// outputs, in the same order.
func TestRunTwice(t *testing.T) {
	var first, second []string
	s := open(t, streamql.Options{BaseDir: "testdata"})
	if err := s.Exec(context.Background(), "CREATE STREAM sensors (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE) WITH ('connector' = 'file', 'path' = 'sensors.csv')"); err != nil {
		t.Fatal(err)
	}
	split := "SELECT deviceNo INTO SIDE 'cold' FROM sensors WHERE temperature < 10; SELECT deviceNo, CAST(ts AS TIMESTAMP) AS t, temperature > 50 AS hot FROM sensors;"
	for _, out := range []*[]string{&first, &second} {
		s2 := open(t, streamql.Options{BaseDir: "testdata", OnRows: collect(out)})
		if err := s2.Exec(context.Background(), "CREATE STREAM sensors (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE) WITH ('connector' = 'file', 'path' = 'sensors.csv'); "+split+split); err != nil {
			t.Fatal(err)
		}
	}
	if len(first) != 12 || strings.Join(first, "\n") != strings.Join(second, "\n") {
		t.Fatalf("runs differ or miss rows:\n%s\n--\n%s", strings.Join(first, "\n"), strings.Join(second, "\n"))
	}
	if first[0] != "main main: s8, 2021-01-07 16:01:29.736 +0000 UTC, true" || first[2] != "side cold: s7" {
		t.Fatalf("typed values: %q", first[:3])
	}
	if first[6] != first[0] { // the second job of one Exec repeats the first
		t.Fatalf("second job: %q, first: %q", first[6], first[0])
	}
}

// TestPushCancel: Push blocks while no job reads the stream, and returns the
// context's error when it ends; the rows pushed before are read by the next
// job, the refused row is not.
func TestPushCancel(t *testing.T) {
	var lines []string
	s := open(t, streamql.Options{OnRows: func(out streamql.Output, rows *streamql.Rows) error {
		lines = append(lines, fmt.Sprint(rows.Len()))
		return nil
	}})
	ctx := context.Background()
	if err := s.Exec(ctx, "CREATE STREAM n (x BIGINT) WITH ('connector'='go')"); err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	pushed := 0
	var err error
	for ; pushed < 1_000_000; pushed++ {
		if err = s.Push(cctx, "n", pushed); err != nil {
			break
		}
	}
	if !errors.Is(err, context.DeadlineExceeded) || pushed == 1_000_000 {
		t.Fatalf("Push = %v after %d rows: no backpressure", err, pushed)
	}
	if err := s.CloseStream("n"); err != nil {
		t.Fatal(err)
	}
	lines = nil
	if err := s.Exec(ctx, "SELECT x FROM n"); err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, l := range lines {
		var n int
		fmt.Sscan(l, &n)
		total += n
	}
	if total != pushed {
		t.Fatalf("the job read %d rows, %d were pushed", total, pushed)
	}
	if err := s.Push(ctx, "n", 1); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Fatalf("Push after CloseStream = %v", err)
	}
}

// TestPushCancelsJob: cancelling Exec's context ends a job over a Go-fed
// stream that is never closed, with a Runtime error wrapping the cancel.
func TestPushCancelsJob(t *testing.T) {
	s := open(t, streamql.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	if err := s.Exec(ctx, "CREATE STREAM n (x BIGINT) WITH ('connector'='go')"); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Exec(ctx, "SELECT x FROM n") }()
	if err := s.Push(ctx, "n", 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case err := <-done:
		var e *streamql.Error
		if !errors.As(err, &e) || e.Kind != streamql.KindRuntime || !errors.Is(err, context.Canceled) {
			t.Fatalf("Exec = %#v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the job did not end after the cancel")
	}
}

// TestPushErrors: Push names the stream, the column and what to do.
func TestPushErrors(t *testing.T) {
	s := open(t, streamql.Options{})
	ctx := context.Background()
	if err := s.Exec(ctx, "CREATE STREAM v (x BIGINT) WITH ('connector'='values'); CREATE STREAM g (x BIGINT, t TIMESTAMP) WITH ('connector'='go')"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		stream string
		row    []any
		want   string
	}{
		{"nope", []any{1}, "unknown stream 'nope'; declare it first"},
		{"v", []any{1}, "stream v reads connector 'values'; Push needs a stream declared WITH ('connector'='go')"},
		{"g", []any{1}, "stream g: a row has 1 values, the stream has 2 columns (x BIGINT, t TIMESTAMP(3))"},
		{"g", []any{"1", nil}, "stream g, column x BIGINT: cannot take a Go string"},
		{"g", []any{1, 2.5}, "stream g, column t TIMESTAMP(3): cannot take a Go float64"},
	} {
		if err := s.Push(ctx, c.stream, c.row...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Push(%s, %v) = %v, want %q", c.stream, c.row, err, c.want)
		}
	}
}

// TestSettings: Options.Settings apply like SET; an unknown one is a
// planning error of Open.
func TestSettings(t *testing.T) {
	s := open(t, streamql.Options{Settings: map[string]string{"state.max-bytes": "1MiB", "format": "json"}})
	if v, ok := s.Setting("format"); !ok || v != "json" {
		t.Fatalf("Setting(format) = %q, %v", v, ok)
	}
	_, err := streamql.Open(streamql.Options{Settings: map[string]string{"colour": "red"}})
	var e *streamql.Error
	if !errors.As(err, &e) || e.Kind != streamql.KindPlanning || !strings.Contains(e.Msg, "unknown setting 'colour'") {
		t.Fatalf("Open = %v", err)
	}
	// Every key's bad value is the same positioned error as at the prompt,
	// and the setting keeps its old value.
	for _, c := range []struct{ key, value, msg string }{
		{"state.max-bytes", "lots", "'state.max-bytes'"},
		{"format", "yaml", "unknown format 'yaml'; use one of table, csv"},
		{"timer", "maybe", "'timer' takes on or off"},
		{"side-dir", filepath.Join(t.TempDir(), "f", "x"), "cannot create the side output directory"},
	} {
		if c.key == "side-dir" {
			if err := os.WriteFile(filepath.Dir(c.value), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		_, err = streamql.Open(streamql.Options{Settings: map[string]string{c.key: c.value}})
		if !errors.As(err, &e) || e.Kind != streamql.KindPlanning || !strings.Contains(e.Msg, c.msg) {
			t.Errorf("Open(%s=%s) = %v, want a planning error with %q", c.key, c.value, err, c.msg)
		}
		if err := s.Exec(context.Background(), "SET '"+c.key+"' = '"+c.value+"';"); err == nil {
			t.Errorf("SET %s = %s: no error", c.key, c.value)
		}
	}
	if v, _ := s.Setting("format"); v != "json" {
		t.Errorf("a bad SET 'format' changed it to %q", v)
	}
}

// TestErrorsOutput: malformed rows of a stream with 'errors'='side' come as
// an OutputErrors output, in input order among the main rows; Log gets the
// notice.
func TestErrorsOutput(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bad.csv"), []byte("1\nx\n3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var lines []string
	var log strings.Builder
	s := open(t, streamql.Options{BaseDir: dir, OnRows: collect(&lines), Log: &log})
	if err := s.Exec(context.Background(), "CREATE STREAM b (x BIGINT) WITH ('connector'='file', 'path'='bad.csv'); SELECT x FROM b;"); err != nil {
		t.Fatal(err)
	}
	if len(lines) != 3 || lines[0] != "main main: 1" || !strings.HasPrefix(lines[1], "errors errors: b, bad.csv:2, x, ") || lines[2] != "main main: 3" {
		t.Fatalf("rows: %q", lines)
	}
	if log.String() != "stream b: 1 malformed row(s) sent to side output 'errors'\n" {
		t.Fatalf("log: %q", log.String())
	}
}

// TestPushLimit: a job with LIMIT takes only the rows it uses; the next job
// over the stream reads on from there (as stdin does, SPEC 1).
func TestPushLimit(t *testing.T) {
	var lines []string
	s := open(t, streamql.Options{OnRows: collect(&lines)})
	ctx := context.Background()
	if err := s.Exec(ctx, "CREATE STREAM n (x BIGINT, s VARCHAR) WITH ('connector'='go')"); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 5; i++ {
		if err := s.Push(ctx, "n", i, fmt.Sprint("r", i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Exec(ctx, "SELECT x FROM n LIMIT 2"); err != nil {
		t.Fatal(err)
	}
	if err := s.CloseStream("n"); err != nil {
		t.Fatal(err)
	}
	if err := s.Exec(ctx, "SELECT * FROM n"); err != nil {
		t.Fatal(err)
	}
	want := "main main: 1|main main: 2|main main: 3, r3|main main: 4, r4|main main: 5, r5"
	if got := strings.Join(lines, "|"); got != want {
		t.Fatalf("rows %s, want %s", got, want)
	}
}

// TestExplainAnalyzeResult: through the Go API, EXPLAIN ANALYZE (SPEC 3) gives
// one OutputResult table, plan and analyze, and no row of the job's outputs,
// whose counts it holds: two values rows, one above 1 to the side 'big'.
func TestExplainAnalyzeResult(t *testing.T) {
	var lines []string
	s := open(t, streamql.Options{OnRows: collect(&lines)})
	err := s.Exec(context.Background(), `CREATE STREAM v (x BIGINT) WITH ('connector'='values');
INSERT INTO v VALUES (1), (5);
SELECT x INTO SIDE 'big' FROM v WHERE x > 1;
EXPLAIN ANALYZE SELECT x FROM v;`)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(lines, "\n") + "\n"
	for _, want := range []string{
		"result result:    :- port 1 'big', took 1 row",
		"result result:    :        +- Sink big (x BIGINT) -> side output 'big'  (#5, append-only), 1 row",
		"result result:          +- Sink main (x BIGINT) -> stdout  (#7, append-only), 1 row",
	} {
		if !strings.Contains(text, want+"\n") {
			t.Errorf("no %q in\n%s", want, text)
		}
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "result result: ") {
			t.Errorf("a row that is not the plan's: %q", l)
		}
	}
}

// TestPushBoundedByBytes: rows pushed with no job reading queue up to a bound
// in bytes, whatever their size (issue 30: 1 MiB rows ran out of memory at the
// 5 × 1024 rows the queue held); a job then reads every one of them.
func TestPushBoundedByBytes(t *testing.T) {
	const bound = 64 << 20 // the queue's 32 MiB, and a row over it
	for _, size := range []int{1 << 10, 64 << 10, 1 << 20, 48 << 20} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			rows := 0
			s := open(t, streamql.Options{OnRows: func(out streamql.Output, r *streamql.Rows) error {
				for i := 0; i < r.Len(); i++ {
					if v, _ := r.Value(1, i).(string); len(v) != size {
						return fmt.Errorf("row of %d bytes, want %d", len(v), size)
					}
				}
				rows += r.Len()
				return nil
			}})
			ctx := context.Background()
			if err := s.Exec(ctx, "CREATE STREAM n (x BIGINT, s VARCHAR) WITH ('connector'='go')"); err != nil {
				t.Fatal(err)
			}
			row := strings.Repeat("r", size)
			cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
			defer cancel()
			pushed := 0
			for ; pushed*size <= 4*bound; pushed++ {
				if err := s.Push(cctx, "n", pushed, row); err != nil {
					if !errors.Is(err, context.DeadlineExceeded) {
						t.Fatal(err)
					}
					break
				}
			}
			if pushed == 0 || pushed*size > bound && pushed > 1 {
				t.Fatalf("%d rows of %d bytes queued (%d MiB) with no job reading, want at least one and at most %d MiB", pushed, size, pushed*size>>20, bound>>20)
			}
			s.CloseStream("n")
			if err := s.Exec(ctx, "SELECT * FROM n"); err != nil {
				t.Fatal(err)
			}
			if rows != pushed {
				t.Fatalf("the job read %d rows, %d were pushed", rows, pushed)
			}
		})
	}
}

// TestReentrantExec: Exec, and a Push that would wait, called from inside
// OnRows return ErrReentrant instead of deadlocking (issue 30); another
// goroutine's Exec waits for its turn and runs.
func TestReentrantExec(t *testing.T) {
	var inner []error
	var s *streamql.Session
	s = open(t, streamql.Options{OnRows: func(out streamql.Output, r *streamql.Rows) error {
		if out.Kind != streamql.OutputMain {
			return nil
		}
		inner = append(inner, s.Exec(context.Background(), "SHOW STREAMS"))
		// the queue takes some rows, then Push would wait for this job
		var err error
		for i := 0; i < 100000 && err == nil; i++ {
			err = s.Push(context.Background(), "g", i)
		}
		inner = append(inner, err)
		return nil
	}})
	ctx := context.Background()
	if err := s.Exec(ctx, "CREATE STREAM g (x BIGINT) WITH ('connector'='go'); CREATE STREAM v (x BIGINT) WITH ('connector'='values'); INSERT INTO v VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Exec(ctx, "SELECT x FROM v") }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Exec from inside OnRows deadlocked")
	}
	if len(inner) != 2 {
		t.Fatalf("OnRows ran %d times, want once", len(inner)/2)
	}
	for i, err := range inner {
		if !errors.Is(err, streamql.ErrReentrant) || !strings.Contains(err.Error(), "OnRows") {
			t.Errorf("call %d from OnRows = %v, want ErrReentrant", i, err)
		}
	}
	// not reentrant: two goroutines' Execs take turns
	errs := make(chan error, 2)
	for i := 0; i < 2; i++ {
		go func() { errs <- s.Exec(ctx, "SHOW STREAMS") }()
	}
	for i := 0; i < 2; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// TestTypedGettersOverPaddedNulls (SPEC 2.4, 2.7; replay11's report): a
// SESSION or TUMBLE window's MAX, MIN, SUM and AVG over a view that is a
// LEFT temporal join, where every row of a window is padded, read through
// the typed getters, are NULL and zero (Int64 0, Float64 0), not the value
// of another key's earlier window that the output slot holds behind the
// NULL flag; so are the join's padded cells.
func TestTypedGettersOverPaddedNulls(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"l.csv": "a,1000\nb,1500\na,2000\nb,4700\nc,5000\nc,5500\na,9000\nb,9500\n",
		"r.csv": "a,900\nb,4621\na,8000\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var lines []string
	s := open(t, streamql.Options{BaseDir: dir, OnRows: func(out streamql.Output, rows *streamql.Rows) error {
		for r := 0; r < rows.Len(); r++ {
			vals := make([]string, len(out.Columns))
			for c := range out.Columns {
				if rows.IsNull(c, r) && (rows.Int64(c, r) != 0 || rows.Float64(c, r) != 0 || rows.Bytes(c, r) != nil) {
					t.Errorf("%s row %d, column %s: NULL, but Int64 %d, Float64 %v, Bytes %q", out.Name, r, out.Columns[c].Name, rows.Int64(c, r), rows.Float64(c, r), rows.Bytes(c, r))
				}
				vals[c] = fmt.Sprint(rows.Value(c, r))
			}
			lines = append(lines, strings.Join(vals, ","))
		}
		return nil
	}})
	err := s.Exec(context.Background(), `CREATE STREAM l (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector'='file', 'path'='l.csv', 'format'='csv');
CREATE STREAM r (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '2' SECOND, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector'='file', 'path'='r.csv', 'format'='csv');
CREATE VIEW j AS SELECT l.k, l.ts, r.ts AS rts FROM l LEFT JOIN r FOR SYSTEM_TIME AS OF l.ts ON l.k = r.k;
SELECT window_start, k, COUNT(*) AS n, MAX(rts) AS mx, MIN(rts) AS mn, SUM(rts) AS s, AVG(rts) AS av FROM TABLE(SESSION(TABLE j PARTITION BY k, DESCRIPTOR(ts), INTERVAL '2' SECOND)) GROUP BY window_start, window_end, k;
SELECT window_start, k, MAX(rts) AS mx, AVG(rts) AS av FROM TABLE(TUMBLE(TABLE j, DESCRIPTOR(ts), INTERVAL '2' SECOND)) GROUP BY window_start, window_end, k;
SELECT * FROM j;`)
	if err != nil {
		t.Fatal(err)
	}
	want := `1500,b,1,<nil>,<nil>,<nil>,<nil>
1000,a,2,900,900,1800,900
4700,b,1,4621,4621,4621,4621
5000,c,2,<nil>,<nil>,<nil>,<nil>
9000,a,1,8000,8000,8000,8000
9500,b,1,4621,4621,4621,4621
0,a,900,900
0,b,<nil>,<nil>
2000,a,900,900
4000,b,4621,4621
4000,c,<nil>,<nil>
8000,a,8000,8000
8000,b,4621,4621
a,1000,900
b,1500,<nil>
a,2000,900
b,4700,4621
c,5000,<nil>
c,5500,<nil>
a,9000,8000
b,9500,4621`
	if got := strings.Join(lines, "\n"); got != want {
		t.Errorf("rows:\n%s\nwant:\n%s", got, want)
	}
}

// TestPendingSidesOverAView: side branches over a view declared by earlier
// statements, and one declared after a SET that plans the view again, run
// with the main query that reads the view (SPEC 2.1, 2.6), though each
// statement reads its own copy of the view's relation (plan.CopyRelation:
// planning never writes into the catalog's view); one left pending runs at
// the script's end.
func TestPendingSidesOverAView(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.csv"), []byte("a,1\nb,60\nc,70\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var lines []string
	s := open(t, streamql.Options{BaseDir: dir, OnRows: collect(&lines)})
	err := s.ExecScript(context.Background(), "sides.sql", `CREATE STREAM s (k VARCHAR, n BIGINT) WITH ('connector'='file', 'path'='s.csv', 'format'='csv');
CREATE VIEW v AS SELECT k, n FROM s WHERE n > 0;
SELECT k INTO SIDE 'big' FROM v WHERE n > 50;
SET 'table.exec.state.ttl' = '1 h';
SELECT k INTO SIDE 'bigger' FROM v WHERE n > 65;
SELECT k FROM v;
SELECT k INTO SIDE 'lone' FROM v WHERE n > 65;`, dir)
	if err != nil {
		t.Fatal(err)
	}
	want := "main main: a|side big: b|side big: c|side lone: c"
	if got := strings.Join(lines, "|"); got != want {
		t.Fatalf("rows %s, want %s", got, want)
	}
}
