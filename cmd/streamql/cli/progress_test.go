package cli

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"streamql/catalog"
	"streamql/executor"
	"streamql/executor/vector"
	"streamql/parser"
	"streamql/planner"
)

// streamOf declares a stream in a fresh session and returns it.
func streamOf(t *testing.T, ddl string) *catalog.Stream {
	t.Helper()
	var out, errOut bytes.Buffer
	s := NewSession(&out, &errOut, nil)
	sc, err := parser.Parse("t", ddl)
	if err != nil {
		t.Fatal(err)
	}
	if code := s.ExecStmts(context.Background(), sc, t.TempDir()); code != 0 {
		t.Fatalf("%s: %s", ddl, errOut.String())
	}
	return s.Cat.Streams()[0]
}

func TestProgressWanted(t *testing.T) {
	file := &planner.Job{Stream: streamOf(t, "CREATE STREAM s (a BIGINT) WITH ('connector'='file', 'path'='x.csv', 'format'='csv');")}
	follow := &planner.Job{Stream: streamOf(t, "CREATE STREAM s (a BIGINT) WITH ('connector'='file', 'path'='x.csv', 'format'='csv', 'follow'='true');")}
	for _, tc := range []struct {
		name string
		job  *planner.Job
		tty  bool
		ci   string
		want bool
	}{
		{"bounded file on a terminal", file, true, "", true},
		{"stderr is a pipe", file, false, "", false},
		{"CI=true", file, true, "true", false},
		{"CI=1", file, true, "1", false},
		{"CI=false", file, true, "false", true},
		{"a followed file never ends", follow, true, "", false},
		{"no job", nil, true, "", false},
	} {
		if got := progressWanted(tc.job, tc.tty, tc.ci); got != tc.want {
			t.Errorf("%s: progressWanted = %v, want %v", tc.name, got, tc.want)
		}
	}
	if isTerminal(&bytes.Buffer{}) {
		t.Error("a buffer is a terminal")
	}
}

func TestProgressDue(t *testing.T) {
	for _, tc := range []struct {
		elapsed time.Duration
		want    bool
	}{
		{0, false},
		{999 * time.Millisecond, false},
		{time.Second, true},
		{5 * time.Second, true},
	} {
		if got := progressDue(tc.elapsed); got != tc.want {
			t.Errorf("progressDue(%v) = %v, want %v", tc.elapsed, got, tc.want)
		}
	}
}

// TestProgressBarDrawing drives a bar by hand on a buffer standing in for the
// terminal: nothing before a second, then the bar; output erases it first;
// stop erases it for good.
func TestProgressBarDrawing(t *testing.T) {
	st := streamOf(t, "CREATE STREAM big (a BIGINT) WITH ('connector'='file', 'path'='x.csv', 'format'='csv');")
	var term bytes.Buffer
	p := &progress{w: &term, stream: st, start: time.Now(), done: make(chan struct{})}
	p.rows.Store(5000)
	p.read.Store(250 << 20)
	p.total.Store(1000 << 20)
	p.bytes.Store(true)

	p.draw(500 * time.Millisecond)
	if term.Len() != 0 {
		t.Fatalf("the bar drew before a second: %q", term.String())
	}
	p.draw(2 * time.Second)
	bar := term.String()
	if !strings.Contains(bar, "25%") || !strings.Contains(bar, "big 2500 rows/s") || !strings.Contains(bar, "MB") {
		t.Fatalf("the bar reads %q", bar)
	}

	var stdout bytes.Buffer
	out := p.stdout(bufio.NewWriter(&stdout))
	out.WriteString("a table\n")
	out.Flush()
	if !strings.HasSuffix(term.String(), "\r\033[2K") || stdout.String() != "a table\n" {
		t.Fatalf("output did not erase the bar first: terminal %q, stdout %q", term.String(), stdout.String())
	}
	term.Reset()
	io.WriteString(p.stderr(&stdout), "errors> x\n")
	if term.Len() != 0 {
		t.Fatalf("an erased bar was erased again: %q", term.String())
	}

	p.draw(3 * time.Second) // back
	p.loop.Add(1)
	go func() { <-p.done; p.loop.Done() }()
	if err := p.stop(); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(term.String(), "\r\033[2K") {
		t.Fatalf("stop left the bar: %q", term.String())
	}
	term.Reset()
	p.draw(4 * time.Second)
	if term.Len() != 0 {
		t.Fatalf("the bar drew after stop: %q", term.String())
	}
	var nilBar *progress
	if err := nilBar.stop(); err != nil {
		t.Fatal(err)
	}
}

// TestProgressCounts checks the sink and source wrappers that feed the bar.
func TestProgressCounts(t *testing.T) {
	st := streamOf(t, "CREATE STREAM big (a BIGINT) WITH ('connector'='file', 'path'='x.csv', 'format'='csv');")
	p := &progress{stream: st}
	sink := p.sink(nopSink{})
	sink.Rows(&executor.Routed{N: 1000, Bad: make([]executor.ErrorRow, 24)})
	sink.Rows(&executor.Routed{N: 10})
	if got := p.rows.Load(); got != 1034 {
		t.Errorf("rows = %d, want 1034", got)
	}
	other := streamOf(t, "CREATE STREAM small (a BIGINT) WITH ('connector'='file', 'path'='y.csv', 'format'='csv');")
	src := &fakeSource{read: 10, total: 100}
	if p.wrapSource(other, src) != executor.Source(src) {
		t.Error("a build side's source was wrapped")
	}
	w := p.wrapSource(st, src)
	w.Next(nil, nil)
	if p.read.Load() != 10 || p.total.Load() != 100 || !p.bytes.Load() {
		t.Errorf("read %d of %d (known %v)", p.read.Load(), p.total.Load(), p.bytes.Load())
	}
}

type nopSink struct{}

func (nopSink) Rows(*executor.Routed) error              { return nil }
func (nopSink) Errors(string, []executor.ErrorRow) error { return nil }
func (nopSink) Flush() error                             { return nil }
func (nopSink) Close() error                             { return nil }

type fakeSource struct {
	executor.Source
	read, total int64
}

func (f *fakeSource) Next(*vector.Batch, *[]executor.BadRow) error { return io.EOF }
func (f *fakeSource) Progress() (int64, int64)                     { return f.read, f.total }
