package streamql_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"streamql"
	"streamql/catalog/functions"
)

// The failed calls of a job (a user function's error, which sends the row to
// the errors output, and ELEMENT of more than one element, which stops the
// job as Flink's) are the job's own: the tests below cover every way one
// could be lost, reach another job, or be outrun by the job's output.

// failingUDFs opens a session whose user function fail(x) fails on x = bad
// (any x when bad < 0), and whose hold(x) first closes started (once) then
// blocks until release is closed; it returns x.
func failingUDFs(t *testing.T, lines *[]string, bad int64, started, release chan struct{}) *streamql.Session {
	t.Helper()
	s := open(t, streamql.Options{OnRows: collect(lines)})
	fail := func(x int64) (int64, error) {
		if bad < 0 || x == bad {
			return 0, fmt.Errorf("no %d", x)
		}
		return x, nil
	}
	var once sync.Once
	hold := func(x int64) int64 {
		if started != nil {
			once.Do(func() { close(started) })
			<-release
		}
		return x
	}
	if err := s.RegisterFunc("fail", fail); err != nil {
		t.Fatal(err)
	}
	if err := s.RegisterFunc("hold", hold); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestFailedCallsStayInTheirJob: two library jobs run at once in one
// process; one has a failed call recorded and not yet taken (a user
// function's error, or ELEMENT's) while the other runs a whole job: the
// other sees none of it, and the failing job gets its own failure.
func TestFailedCallsStayInTheirJob(t *testing.T) {
	for _, c := range []struct{ name, query, want string }{
		{"user function", "SELECT fail(x) AS f, hold(x) AS w FROM a;", "errors errors: a, 1, 1, function FAIL: no 1"},
		{"ELEMENT", "SELECT ELEMENT(ARRAY[x, x]) AS e, hold(x) AS w FROM a;", "function ELEMENT: Array has more than one element"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var la, lb []string
			started, release := make(chan struct{}), make(chan struct{})
			a := failingUDFs(t, &la, -1, started, release)
			b := failingUDFs(t, &lb, -1, nil, nil)
			done := make(chan error, 1)
			go func() {
				done <- a.Exec(context.Background(), "CREATE STREAM a (x BIGINT) WITH ('connector'='values');\nINSERT INTO a VALUES (1);\n"+c.query)
			}()
			select {
			case <-started: // a's call failed, its batch is not done
			case err := <-done:
				t.Fatalf("the failing job ended before its call: %v", err)
			}
			errB := b.Exec(context.Background(), "CREATE STREAM b (x BIGINT) WITH ('connector'='values');\nINSERT INTO b VALUES (1), (2);\nSELECT x FROM b;")
			close(release)
			errA := <-done
			if errB != nil || strings.Join(lb, "|") != "main main: 1|main main: 2" {
				t.Errorf("the other job: %v, %q; want no error and its two rows", errB, lb)
			}
			got := strings.Join(la, "|")
			if errA != nil {
				got += "|" + errA.Error()
			}
			if !strings.Contains(got, c.want) {
				t.Errorf("the failing job gave %q, want its own failure %q", got, c.want)
			}
		})
	}
}

// TestFailedCallsAtTheEnd: a failed call in what only the stream's end
// computes (a window fired at the end, its output projection calling the
// function) reaches this job's errors output, or stops this job, and never
// the next job of the session.
func TestFailedCallsAtTheEnd(t *testing.T) {
	const w = "CREATE STREAM w (x BIGINT, ts TIMESTAMP, WATERMARK FOR ts AS ts) WITH ('connector'='values');\nINSERT INTO w VALUES (1, TIMESTAMP '2021-01-01 00:00:01'), (1, TIMESTAMP '2021-01-01 00:00:02');\n"
	const next = "CREATE STREAM n (x BIGINT) WITH ('connector'='values');\nINSERT INTO n VALUES (5);\nSELECT x FROM n;"
	for _, c := range []struct{ name, query, want, err string }{
		{"user function", "SELECT fail(COUNT(*)) AS f FROM TABLE(TUMBLE(TABLE w, DESCRIPTOR(ts), INTERVAL '1' HOUR)) GROUP BY window_start, window_end;",
			"main main: <nil>|errors errors: w, , , function FAIL: no 2", ""},
		{"ELEMENT", "SELECT ELEMENT(ARRAY[COUNT(*), 1]) AS e FROM TABLE(TUMBLE(TABLE w, DESCRIPTOR(ts), INTERVAL '1' HOUR)) GROUP BY window_start, window_end;",
			"", "function ELEMENT: Array has more than one element"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var lines []string
			s := failingUDFs(t, &lines, 2, nil, nil)
			err := s.Exec(context.Background(), w+c.query)
			if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
				t.Fatalf("%v, want %q", err, c.err)
			}
			if got := strings.Join(lines, "|"); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
			lines = lines[:0]
			if err := s.Exec(context.Background(), next); err != nil || strings.Join(lines, "|") != "main main: 5" {
				t.Errorf("the next job: %v, %q; want its one row", err, lines)
			}
		})
	}
}

// TestFailingBatchNotWritten: a call that stops the job (ELEMENT of more
// than one element, Flink's "Array has more than one element") stops it
// before the sink sees its batch (Flink's job fails before its sink gets the
// row): what earlier batches routed stays, as SPEC 1's 'errors'='fail'
// keeps what was routed before the row, and nothing of the failing batch is
// written, in no output (main, side, errors).
func TestFailingBatchNotWritten(t *testing.T) {
	const n = 20000
	gen := "CREATE STREAM g (id BIGINT) WITH ('connector'='datagen', 'number-of-rows'='" + strconv.Itoa(n) + "', 'fields.id.kind'='sequence', 'fields.id.start'='1', 'fields.id.end'='" + strconv.Itoa(n) + "');\n"
	file := filepath.Join(t.TempDir(), "ids.csv")
	var text strings.Builder
	for i := 1; i <= 10*n; i++ {
		text.WriteString(strconv.Itoa(i) + "\n")
	}
	if err := os.WriteFile(file, []byte(text.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	// a file read in parallel chunks (the plan's morsel and parallel
	// aggregate strategies): the failing chunk is not written either
	gen += "CREATE STREAM f (id BIGINT) WITH ('connector'='file', 'path'='" + file + "', 'format'='csv');\n"
	for _, c := range []struct{ name, query string }{
		{"file", "SELECT id, ELEMENT(IF(id = " + strconv.Itoa(5*n) + ", ARRAY[id, id], ARRAY[id])) AS e FROM f;"},
		{"file aggregate", "SELECT MAX(id) AS id, MAX(ELEMENT(IF(id = " + strconv.Itoa(5*n) + ", ARRAY[id, id], ARRAY[id]))) AS e FROM f GROUP BY id % 3;"},
		{"projection", "SELECT id, ELEMENT(IF(id = " + strconv.Itoa(n) + ", ARRAY[id, id], ARRAY[id])) AS e FROM g;"},
		{"filter", "SELECT id, id AS e FROM g WHERE ELEMENT(IF(id = " + strconv.Itoa(n) + ", ARRAY[id, id], ARRAY[id])) > 0;"},
		{"side output", "SELECT id, ELEMENT(IF(id = " + strconv.Itoa(n) + ", ARRAY[id, id], ARRAY[id])) AS e INTO SIDE 's' FROM g WHERE id % 2 = 0;\nSELECT id, id AS e FROM g;"},
		{"one batch", "SELECT id, ELEMENT(IF(id = 2, ARRAY[id, id], ARRAY[id])) AS e FROM g WHERE id < 3;"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var lines []string
			s := open(t, streamql.Options{OnRows: collect(&lines)})
			err := s.Exec(context.Background(), gen+c.query)
			var se *streamql.Error
			if err == nil || !strings.Contains(err.Error(), "function ELEMENT: Array has more than one element") || !errors.As(err, &se) || se.Kind != streamql.KindRuntime {
				t.Fatalf("%v, want the job stopped by ELEMENT", err)
			}
			last := int64(0)
			for _, l := range lines {
				_, vals, _ := strings.Cut(l, ": ")
				id, e, _ := strings.Cut(vals, ", ")
				if e != id {
					t.Fatalf("%q: a row of the failing batch was written (%q)", l, lines[len(lines)-1])
				}
				x, _ := strconv.ParseInt(id, 10, 64)
				last = max(last, x)
			}
			if last >= n && !strings.HasPrefix(c.name, "file") || last >= 5*n || c.name == "one batch" && len(lines) > 0 {
				t.Errorf("rows up to %d written (%d lines), want only those of batches before the failing one", last, len(lines))
			}
		})
	}
}

// TestFailsJobSaysWhatToDo: every built-in function that stops the job as
// Flink's does (functions.Function.FailsJob: today ELEMENT of an ARRAY of
// more than one element) says, besides Flink's words and the function's
// name, what to write instead, naming the argument as the query wrote it
// (or "arr" for one too long to quote); and what it says runs: each
// rewrite it suggests, put in the query, gives the rows a separately
// computed list says, with no failure.
func TestFailsJobSaysWhatToDo(t *testing.T) {
	const values = "CREATE STREAM m (id BIGINT) WITH ('connector'='values');\nINSERT INTO m VALUES (1), (2), (3), (4);\n"
	cases := map[string][]struct {
		call, flink string // the call that fails (on id = 3 and 4), Flink's words
		arg         string // the argument's text the message quotes
		first       string // the rows with the call written as the message's first suggestion
		filtered    string // the rows with the message's WHERE added
	}{
		"ELEMENT": {
			{"ELEMENT(IF(id >= 3, ARRAY[id * 10, id], ARRAY[id]))", "Array has more than one element", "IF(id >= 3, ARRAY[id * 10, id], ARRAY[id])",
				"main main: 1, 1|main main: 2, 2|main main: 3, 30|main main: 4, 40", "main main: 1, 1|main main: 2, 2"},
			// an argument too long to quote is called arr
			{"ELEMENT(IF(id >= 3, ARRAY[id * 100000, id, id, id, id, id, id], ARRAY[id]))", "Array has more than one element", "arr",
				"", ""},
		},
	}
	hint := regexp.MustCompile(`write (.+)\[1\] for its first element.*, or keep only the rows where it has at most one with WHERE (CARDINALITY\(.+\) <= 1)$`)
	for _, f := range functions.Functions {
		if !f.FailsJob {
			continue
		}
		cs := cases[f.Name]
		if len(cs) == 0 {
			t.Errorf("%s stops the job (FailsJob): add a case that makes it fail, and check its message says what to do", f.Name)
		}
		for _, c := range cs {
			query := "SELECT id, " + c.call + " AS e FROM m;"
			s := open(t, streamql.Options{OnRows: collect(new([]string))})
			err := s.Exec(t.Context(), values+query)
			if err == nil {
				t.Errorf("%s: no error, want the job stopped", query)
				continue
			}
			msg := err.Error()
			m := hint.FindStringSubmatch(msg)
			if !strings.Contains(msg, "function "+f.Name+": "+c.flink) || m == nil || m[1] != c.arg {
				t.Errorf("%s: %q, want %s's error with Flink's %q, then what to write instead, naming %s", query, msg, f.Name, c.flink, c.arg)
				continue
			}
			if c.arg == "arr" {
				if !strings.Contains(msg, "(arr: "+f.Name+"'s argument)") {
					t.Errorf("%s: %q, want it to say what arr stands for", query, msg)
				}
				continue
			}
			// the first suggestion: the call written as arg[1]
			var lines []string
			s = open(t, streamql.Options{OnRows: collect(&lines)})
			if err := s.Exec(t.Context(), values+"SELECT id, "+m[1]+"[1] AS e FROM m;"); err != nil || strings.Join(lines, "|") != c.first {
				t.Errorf("%s written as %s[1]: %v, rows %q, want %q", c.call, m[1], err, lines, c.first)
			}
			// the second: the rows whose array has more are filtered out
			lines = nil
			s = open(t, streamql.Options{OnRows: collect(&lines)})
			if err := s.Exec(t.Context(), values+"SELECT id, "+c.call+" AS e FROM m WHERE "+m[2]+";"); err != nil || strings.Join(lines, "|") != c.filtered {
				t.Errorf("%s with WHERE %s: %v, rows %q, want %q", c.call, m[2], err, lines, c.filtered)
			}
		}
	}
}
