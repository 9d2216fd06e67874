package cli

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clipperhouse/displaywidth"

	"streamql/catalog"
	"streamql/executor"
	"streamql/executor/vector"
	"streamql/internal/session"
	"streamql/parser"
)

// streamOf declares a stream in a fresh session and returns it.
func streamOf(t testing.TB, ddl string) *catalog.Stream {
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
	file := &session.Job{Stream: streamOf(t, "CREATE STREAM s (a BIGINT) WITH ('connector'='file', 'path'='x.csv', 'format'='csv');")}
	follow := &session.Job{Stream: streamOf(t, "CREATE STREAM s (a BIGINT) WITH ('connector'='file', 'path'='x.csv', 'format'='csv', 'follow'='true');")}
	socket := &session.Job{Stream: streamOf(t, "CREATE STREAM s (a BIGINT) WITH ('connector'='socket', 'port'='1');")}
	for _, tc := range []struct {
		name      string
		job       *session.Job
		tty       bool
		ci        string
		want, bar bool
	}{
		{"bounded file on a terminal", file, true, "", true, true},
		{"stderr is a pipe", file, false, "", false, true},
		{"CI=true", file, true, "true", false, true},
		{"CI=1", file, true, "1", false, true},
		{"CI=false", file, true, "false", true, true},
		{"a followed file: a status, no bar", follow, true, "", true, false},
		{"a socket: a status, no bar", socket, true, "", true, false},
		{"a socket in CI", socket, true, "yes", false, false},
		{"no job", nil, true, "", false, false},
	} {
		if got := progressWanted(tc.job, tc.tty, tc.ci); got != tc.want {
			t.Errorf("%s: progressWanted = %v, want %v", tc.name, got, tc.want)
		}
		if tc.job != nil && barWanted(tc.job) != tc.bar {
			t.Errorf("%s: barWanted = %v, want %v", tc.name, !tc.bar, tc.bar)
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

// fakeTerminal stands in for a terminal: it keeps what is written, and
// screen() replays it on a grid (\r, \n, cursor up, clear to the end of the
// screen), so a test sees what the user sees.
type fakeTerminal struct{ bytes.Buffer }

func (f *fakeTerminal) screen() []string {
	lines := []string{""}
	row := 0
	b := f.String() // escapes are ASCII: walking bytes keeps UTF-8 sequences whole
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '\r':
			lines[row] = ""
		case c == '\n':
			row++
			if row == len(lines) {
				lines = append(lines, "")
			}
		case c == 0x1b:
			j := i + 2
			for j < len(b) && b[j] >= '0' && b[j] <= '9' {
				j++
			}
			n := 1
			if j > i+2 {
				n = 0
				for _, d := range b[i+2 : j] {
					n = n*10 + int(d-'0')
				}
			}
			switch b[j] {
			case 'A':
				row = max(row-n, 0)
				lines[row] = ""
			case 'J', 'K':
				lines = lines[:row+1]
				lines[row] = ""
			}
			i = j
		default:
			lines[row] += b[i : i+1]
		}
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// TestProgressBarDrawing drives a bounded file's status by hand on a fake
// terminal: nothing before a second, then the bar; output erases it first;
// stop erases it for good.
func TestProgressBarDrawing(t *testing.T) {
	st := streamOf(t, "CREATE STREAM big (a BIGINT) WITH ('connector'='file', 'path'='x.csv', 'format'='csv');")
	var term fakeTerminal
	p := newProgress(&session.Job{Stream: st, Outputs: []session.Output{{Name: "main"}}}, &term)
	p.cols = func() int { return 120 }
	p.streams[0].rows.Store(5000)
	p.read.Store(250 << 20)
	p.total.Store(1000 << 20)
	p.bytes.Store(true)

	p.draw(500 * time.Millisecond)
	if term.Len() != 0 {
		t.Fatalf("the bar drew before a second: %q", term.String())
	}
	p.draw(2 * time.Second)
	scr := term.screen()
	if len(scr) != 3 || !strings.Contains(scr[0], "25%") || !strings.Contains(scr[0], "big 2500 rows/s") || !strings.Contains(scr[0], "MB") {
		t.Fatalf("the status reads %q", scr)
	}
	p.draw(2100 * time.Millisecond) // redrawn in place: still 3 lines
	if scr := term.screen(); len(scr) != 3 {
		t.Fatalf("a redraw did not replace the status: %q", scr)
	}

	var stdout bytes.Buffer
	out := p.stdout(bufio.NewWriter(&stdout))
	out.WriteString("a table\n")
	out.Flush()
	if !strings.HasSuffix(term.String(), "\r\033[2A\033[J") || stdout.String() != "a table\n" || len(term.screen()) != 0 {
		t.Fatalf("output did not erase the status first: terminal %q, stdout %q", term.String(), stdout.String())
	}
	term.Reset()
	io.WriteString(p.stderr(&stdout), "errors> x\n")
	if term.Len() != 0 {
		t.Fatalf("an erased status was erased again: %q", term.String())
	}

	p.draw(3 * time.Second) // back
	p.loop.Add(1)
	go func() { <-p.done; p.loop.Done() }()
	if err := p.stop(); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(term.String(), "\r\033[2A\033[J") || len(term.screen()) != 0 {
		t.Fatalf("stop left the status: %q", term.String())
	}
	term.Reset()
	p.draw(4 * time.Second)
	if term.Len() != 0 {
		t.Fatalf("the status drew after stop: %q", term.String())
	}
	var nilBar *progress
	if err := nilBar.stop(); err != nil {
		t.Fatal(err)
	}
}

// TestLiveStatusText runs a real job (a late side output, a malformed row, a
// TIMESTAMP watermark) with stderr a fake terminal, then draws its status with
// the job's final counts, plus the held rows of an event-time join: the
// counts are those of the input (SPEC 4 Progress), names are escaped, lines are
// cut to the terminal's width.
func TestLiveStatusText(t *testing.T) {
	dir := t.TempDir()
	// the watermark after a row is its ts; the 3rd row (00:00:01) is below 00:00:05: late
	data := "2026-01-01 00:00:02,1\n2026-01-01 00:00:05,2\n2026-01-01 00:00:01,3\nnot a time,4\n2026-01-01 00:00:09,5\n"
	if err := os.WriteFile(filepath.Join(dir, "in.csv"), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	var captured *progress
	stderrTerminal = func(io.Writer) bool { return true }
	progressStarted = func(p *progress) { captured = p }
	defer func() { stderrTerminal, progressStarted = isTerminal, nil }()
	t.Setenv("CI", "")
	var out, errOut fakeTerminal
	s := NewSession(&out, &errOut, nil)
	sql := `CREATE STREAM "in\x1b" (ts TIMESTAMP, v BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='in.csv', 'format'='csv', 'errors'='side');
SELECT v INTO SIDE 'late' FROM "in\x1b" WHERE ts < CURRENT_WATERMARK(ts);
SELECT v FROM "in\x1b";`
	sc, err := parser.Parse("t", sql)
	if err != nil {
		t.Fatal(err)
	}
	if code := s.ExecStmts(context.Background(), sc, dir); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if captured == nil {
		t.Fatal("no status was started on a terminal")
	}
	if errOut.Len() != 0 && strings.Contains(errOut.String(), "watermark") {
		t.Fatalf("a job shorter than a second drew its status: %q", errOut.String())
	}
	p := captured
	var term fakeTerminal
	p.w, p.ended, p.cols = &term, false, func() int { return 200 }
	p.draw(2 * time.Second)
	scr := term.screen()
	if len(scr) != statusLines { // (the live table keeps them free: render.Config.Reserve)
		t.Fatalf("status %q, want %d lines", scr, statusLines)
	}
	for _, want := range []string{`in\x1b 2.5 rows/s`, "B/"} {
		if !strings.Contains(scr[0], want) {
			t.Errorf("bar line %q lacks %q", scr[0], want)
		}
	}
	if want := "out: main 3 (1.5 rows/s) · late 1 (0.5 rows/s)"; scr[1] != want {
		t.Errorf("outputs line %q, want %q", scr[1], want)
	}
	if want := `malformed in\x1b 1 · watermark in\x1b 2026-01-01 00:00:09.000`; scr[2] != want {
		t.Errorf("info line %q, want %q", scr[2], want)
	}

	// an event-time join's held rows and state, a second watermark, late rows
	p.held = true
	p.snap = func() session.LiveSnapshot {
		return session.LiveSnapshot{HeldRows: 1200, HeldBytes: 3 << 20, StateBytes: 4 << 20, Late: 7,
			Watermarks: []executor.LiveWatermark{{Stream: "l", Set: true, Text: "1500"}, {Stream: "r", Text: "unset"}}}
	}
	p.cols = func() int { return 60 }
	p.draw(3 * time.Second)
	scr = term.screen()
	if len(scr) != statusLines { // (the live table keeps them free: render.Config.Reserve)
		t.Fatalf("status %q, want %d lines", scr, statusLines)
	}
	for _, l := range scr {
		if w := displaywidth.String(l); w > 59 {
			t.Errorf("line %q is %d columns wide on a 60-column terminal", l, w)
		}
	}
	p.cols = func() int { return 0 }
	p.draw(4 * time.Second)
	scr = term.screen()
	if want := `malformed in\x1b 1 · late 7 · held 1200 rows 3MiB · state 4MiB · watermark l 1500, r unset`; len(scr) != 3 || scr[2] != want {
		t.Errorf("info line %q, want %q", scr, want)
	}
}

// TestNoStatusOffTerminal runs a job with stderr not a terminal, and on a
// terminal under CI: no status is started.
func TestNoStatusOffTerminal(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "in.csv"), []byte("v\n1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	started := 0
	progressStarted = func(*progress) { started++ }
	defer func() { stderrTerminal, progressStarted = isTerminal, nil }()
	for _, tc := range []struct {
		tty bool
		ci  string
	}{{false, ""}, {true, "true"}} {
		stderrTerminal = func(io.Writer) bool { return tc.tty }
		t.Setenv("CI", tc.ci)
		var out, errOut bytes.Buffer
		s := NewSession(&out, &errOut, nil)
		sc, err := parser.Parse("t", "CREATE STREAM s (v BIGINT) WITH ('connector'='file', 'path'='in.csv', 'format'='csv'); SELECT v FROM s;")
		if err != nil {
			t.Fatal(err)
		}
		if code := s.ExecStmts(context.Background(), sc, dir); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut.String())
		}
		if started != 0 || strings.Contains(errOut.String(), "\033") {
			t.Fatalf("terminal %v, CI %q: a status was started (stderr %q)", tc.tty, tc.ci, errOut.String())
		}
	}
}

// TestProgressCounts checks the sink and source wrappers that feed the status.
func TestProgressCounts(t *testing.T) {
	st := streamOf(t, "CREATE STREAM big (a BIGINT) WITH ('connector'='file', 'path'='x.csv', 'format'='csv');")
	p := newProgress(&session.Job{Stream: st, Outputs: []session.Output{{Name: "main"}, {Name: "side"}}}, io.Discard)
	sink := p.sink(nopSink{})
	sink.Rows(&session.Batch{N: 1000, Parts: []session.Part{{Output: 1, Sel: make([]int32, 10)}, {Output: 0, Sel: make([]int32, 990)}}})
	sink.Rows(&session.Batch{N: 10, Parts: []session.Part{{Output: 1}, {Output: 0, Sel: make([]int32, 10)}}})
	if m, s := p.outs[0].rows.Load(), p.outs[1].rows.Load(); m != 1000 || s != 10 {
		t.Errorf("main %d, side %d, want 1000 and 10", m, s)
	}
	other := streamOf(t, "CREATE STREAM small (a BIGINT) WITH ('connector'='file', 'path'='y.csv', 'format'='csv');")
	src := &fakeSource{read: 10, total: 100}
	parts := &partitioned{&reshuffled{}} // (a stream's declared partitions, kept by the wrapper)
	h := session.SourceHandles{Partitions: parts}
	if got, gh := p.wrapSource(other, src, h); got != executor.Source(src) || gh != h {
		t.Error("a stream the job does not read was wrapped")
	}
	w, wh := p.wrapSource(st, src, h)
	if wh.Partitions != parts {
		t.Error("the wrapper dropped the partitions its stream declares")
	}
	b := vector.NewBatch([]catalog.Type{catalog.BigInt})
	b.N = 7
	bad := []session.BadRow{{}, {}}
	w.Next(b, &bad)
	src.err = executor.ErrWaiting
	w.Next(b, &bad) // a waiting source's batch is not counted again
	if p.read.Load() != 10 || p.total.Load() != 100 || !p.bytes.Load() {
		t.Errorf("read %d of %d (known %v)", p.read.Load(), p.total.Load(), p.bytes.Load())
	}
	if r, m := p.streams[0].rows.Load(), p.streams[0].malformed.Load(); r != 9 || m != 2 {
		t.Errorf("stream rows %d, malformed %d, want 9 and 2", r, m)
	}
}

type nopSink struct{}

func (nopSink) Rows(*session.Batch) error               { return nil }
func (nopSink) Errors(string, []session.ErrorRow) error { return nil }
func (nopSink) Flush() error                            { return nil }
func (nopSink) Close() error                            { return nil }

type fakeSource struct {
	executor.Source
	read, total int64
	err         error
}

func (f *fakeSource) Next(*session.Columns, *[]session.BadRow) error { return f.err }
func (f *fakeSource) Progress() (int64, int64)                       { return f.read, f.total }

// TestProgressCountsJoinInputs: the status of a join of two streams (SPEC
// 2.7) counts the rows and malformed rows of each input, whose sources are
// the ones read (the job's stream is the joined rows, which no source
// reads): it said "a JOIN b: 0 rows read" and "malformed a JOIN b 0"
// however many rows the inputs gave. A self-join's stream counts both reads.
func TestProgressCountsJoinInputs(t *testing.T) {
	a := streamOf(t, "CREATE STREAM a (x BIGINT) WITH ('connector'='file', 'path'='a.csv', 'format'='csv');")
	b := streamOf(t, "CREATE STREAM b (x BIGINT) WITH ('connector'='file', 'path'='b.csv', 'format'='csv');")
	joined := &catalog.Stream{Name: "a JOIN b"}
	for _, tc := range []struct {
		inputs    []*catalog.Stream
		rows, bad string
	}{
		{[]*catalog.Stream{a, b}, "a JOIN b: 11 rows read", "malformed a 1, b 2"},
		{[]*catalog.Stream{a, a}, "a JOIN b: 11 rows read", "malformed a 3"},
	} {
		p := newProgress(&session.Job{Stream: joined, Reads: append([]*catalog.Stream{joined}, tc.inputs...), Outputs: []session.Output{{Name: "main"}}}, io.Discard)
		p.snap = func() session.LiveSnapshot { return session.LiveSnapshot{} }
		for i, st := range tc.inputs {
			w, _ := p.wrapSource(st, &fakeSource{}, session.SourceHandles{})
			cols := vector.NewBatch([]catalog.Type{catalog.BigInt})
			cols.N = 5 - 2*i
			bad := make([]session.BadRow, 1+i)
			w.Next(cols, &bad)
		}
		lines := strings.Join(p.lines(time.Second), "\n")
		if !strings.Contains(lines, tc.rows) || !strings.Contains(lines, tc.bad+" ·") && !strings.HasSuffix(lines, tc.bad) {
			t.Errorf("inputs %s, %s: status\n%s\nwant %q and %q", tc.inputs[0].Name, tc.inputs[1].Name, lines, tc.rows, tc.bad)
		}
	}
}
