package streamql_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"streamql"
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
			"main main: <nil>", "function ELEMENT: Array has more than one element"},
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
