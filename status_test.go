package streamql_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"streamql"
)

// TestExecLeavesBranchesPending: a lone side branch over a Go-fed stream
// returns at once (SPEC 2.1: the library's Exec leaves branches pending, issue
// 29 item 1); the next main query over the stream runs it, Log names it with
// its rows, and while that job waits for rows Running reports it and Cancel
// ends it with ErrCanceled.
func TestExecLeavesBranchesPending(t *testing.T) {
	var lines []string
	var log bytes.Buffer
	both := make(chan struct{}) // closed once the two pushed rows reached an output
	var mu sync.Mutex
	rows := 0
	record := collect(&lines)
	s := open(t, streamql.Options{OnRows: func(out streamql.Output, r *streamql.Rows) error {
		mu.Lock()
		defer mu.Unlock()
		if rows += r.Len(); rows == 2 {
			close(both)
		}
		return record(out, r)
	}, Log: &log})
	ctx := context.Background()
	if err := s.Exec(ctx, "CREATE STREAM clicks (url VARCHAR, ms BIGINT) WITH ('connector'='go')"); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Exec(ctx, "SELECT url, ms INTO SIDE 'slow' FROM clicks WHERE ms > 500") }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Exec of a side branch did not return: it ran as a job")
	}
	if _, ok := s.Running(); ok {
		t.Fatal("Running reports a statement after Exec returned")
	}
	go func() { done <- s.Exec(ctx, "SELECT url FROM clicks") }()
	for _, r := range []struct {
		url string
		ms  int64
	}{{"/a", 10}, {"/b", 900}} {
		if err := s.Push(ctx, "clicks", r.url, r.ms); err != nil {
			t.Fatal(err)
		}
	}
	var st streamql.JobStatus
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		var ok bool
		if st, ok = s.Running(); ok && len(st.GoStreams) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Running: %+v, %v", st, ok)
		}
	}
	if st.Statement != "SELECT url FROM clicks" || st.GoStreams[0] != (streamql.GoStreamStatus{Name: "clicks", Pushed: 2}) || time.Since(st.Started) > time.Minute {
		t.Errorf("Running = %+v", st)
	}
	select { // pushed is not yet routed: cancel once both rows are out
	case <-both:
	case <-time.After(10 * time.Second):
		t.Fatal("the pushed rows did not reach an output")
	}
	s.Cancel()
	select {
	case err := <-done:
		if !errors.Is(err, streamql.ErrCanceled) {
			t.Fatalf("Exec after Cancel = %v, want ErrCanceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Cancel did not end the job")
	}
	if got := strings.Join(lines, "\n"); !strings.Contains(got, "side slow: /b, 900") || !strings.Contains(got, "main main: /a") {
		t.Errorf("rows:\n%s", got)
	}
	if want := "1 pending side branch ran with this query: 'slow' took 1 row\n"; !strings.Contains(log.String(), want) {
		t.Errorf("Log %q, want %q", log.String(), want)
	}
}

// TestDecimalNoticeLog: the library says at CREATE, on Options.Log, that a
// DECIMAL column is read as DOUBLE (SPEC 1, issue 29 item 7).
func TestDecimalNoticeLog(t *testing.T) {
	var log bytes.Buffer
	s := open(t, streamql.Options{Log: &log})
	if err := s.Exec(context.Background(), "CREATE STREAM o (price DECIMAL(10,2)) WITH ('connector'='values')"); err != nil {
		t.Fatal(err)
	}
	if want := "stream o: column price DECIMAL(10,2) is read as DOUBLE (SPEC 1: streamql has no exact DECIMAL)\n"; log.String() != want {
		t.Errorf("Log %q, want %q", log.String(), want)
	}
}
