package planner_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"streamql/catalog"
	"streamql/internal/session"
	"streamql/parser"
	"streamql/planner/plan"
)

// viewShareDDL declares the relations the view-sharing tests read: a file
// stream with event time under a view of a subquery (its parts carry the
// stream's watermark, so a window over the view gives them ReaderWindows),
// a stdin stream under a view read twice by a self-join (its parts get the
// reading job's Tees), and a view of the first view (parts at depth two).
const viewShareDDL = `
CREATE STREAM s (k VARCHAR, n BIGINT, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='s.csv', 'format'='csv');
CREATE STREAM q (k VARCHAR, v INT) WITH ('connector'='stdin', 'format'='csv');
CREATE VIEW v AS SELECT k, n, ts FROM (SELECT k, n, ts FROM s WHERE n > 0) WHERE n < 100;
CREATE VIEW w AS SELECT k, n, ts FROM v WHERE n > 1;
CREATE VIEW sv AS SELECT k, v FROM q WHERE v > 0;
`

// viewShareReaders are statements reading the views in ways that give
// their parts per-reader data (a window's ReaderWindows, a fan-out's Tees)
// and ways that give none, so a reader planned after another would see or
// overwrite the other's.
var viewShareReaders = []string{
	"EXPLAIN SELECT window_start, COUNT(*) AS c FROM TABLE(HOP(TABLE v, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '2' SECOND)) GROUP BY window_start, window_end",
	"EXPLAIN SELECT k, n FROM v",
	"EXPLAIN SELECT window_start, SUM(n) AS s FROM TABLE(TUMBLE(TABLE w, DESCRIPTOR(ts), INTERVAL '3' SECOND)) GROUP BY window_start, window_end",
	"EXPLAIN SELECT a.k, b.v FROM sv a JOIN sv b ON a.k = b.k",
	"EXPLAIN SELECT k, v FROM sv",
	"EXPLAIN SELECT a.k, a.n FROM v a JOIN w b ON a.k = b.k AND a.ts BETWEEN b.ts - INTERVAL '1' SECOND AND b.ts",
}

// viewShareRun is a job run over the view (its parts' ReaderWindows are
// read by the executor while it runs).
const viewShareRun = "SELECT window_start, COUNT(*) AS c FROM TABLE(TUMBLE(TABLE v, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY window_start, window_end"

// viewShareFront is a frontend that keeps what EXPLAIN prints and runs jobs,
// counting the rows they output.
type viewShareFront struct {
	text strings.Builder
	rows int
}

func (f *viewShareFront) Set(*parser.Set) (bool, error) { return false, nil }

func (f *viewShareFront) Result(cols []string, rows [][]string) error {
	for _, r := range rows {
		f.text.WriteString(strings.Join(r, "\t") + "\n")
	}
	return nil
}

func (f *viewShareFront) RunJob(_ context.Context, _ *session.Job, run session.RunFunc) error {
	_, err := run(func() (session.Sink, error) { return &countSink{n: &f.rows}, nil })
	return err
}

// countSink counts the rows of a job's outputs.
type countSink struct {
	n *int
	m session.Merger
}

func (c *countSink) Rows(b *session.Batch) error {
	c.m.Reset(b)
	for s, ok := c.m.Next(); ok; s, ok = c.m.Next() {
		*c.n += s.To - s.From
	}
	return nil
}
func (c *countSink) Errors(string, []session.ErrorRow) error { return nil }
func (c *countSink) Flush() error                            { return nil }
func (c *countSink) Close() error                            { return nil }

// viewShareSessions returns n sessions over one catalog holding
// viewShareDDL's streams and views, with their files in a temporary
// directory, and that directory.
func viewShareSessions(t *testing.T, n int) ([]*session.Session, []*viewShareFront, string) {
	t.Helper()
	dir := t.TempDir()
	var csv strings.Builder
	for i := range 400 {
		fmt.Fprintf(&csv, "k%d,%d,%d\n", i%7, i%150, i*250)
	}
	if err := os.WriteFile(filepath.Join(dir, "s.csv"), []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var ss []*session.Session
	var fs []*viewShareFront
	for i := range n {
		f := &viewShareFront{}
		s := session.New(strings.NewReader(""), f)
		if i > 0 {
			s.Cat = ss[0].Cat
		}
		ss, fs = append(ss, s), append(fs, f)
	}
	if err := execSQL(ss[0], dir, viewShareDDL); err != nil {
		t.Fatal(err)
	}
	return ss, fs, dir
}

// execSQL runs the statements of sql in s.
func execSQL(s *session.Session, dir, sql string) error {
	script, err := parser.Parse("viewshare.sql", sql)
	if err != nil {
		return err
	}
	for _, st := range script.Stmts {
		if err := s.Exec(context.Background(), script, dir, st); err != nil {
			return err
		}
	}
	return nil
}

// viewParts returns a copy of each job of the relations st is made of, at
// every depth, by its address: what planning must leave as it is.
func viewParts(st *catalog.Stream, into map[*plan.Job]plan.Job) {
	d := plan.DerivedOf(st)
	if d == nil {
		return
	}
	for _, part := range d.Parts {
		if _, ok := into[part]; ok {
			continue
		}
		into[part] = *part
		for _, in := range part.Streams() {
			viewParts(in, into)
		}
	}
}

// TestPlanningLeavesViewsAlone: planning a query that reads a view writes
// nothing into the view's planned jobs, which every reader of the view
// shares (catalog.View.Stream): each reader plans over its own copy of what
// it changes (a window's ReaderWindows, a fan-out's Tees; planner/
// rule_readerwins.go, rule_tee.go). Every field of every part, at every
// depth, is as CREATE VIEW left it after each kind of reader.
func TestPlanningLeavesViewsAlone(t *testing.T) {
	ss, _, dir := viewShareSessions(t, 1)
	before := map[*plan.Job]plan.Job{}
	for _, v := range ss[0].Cat.Views() {
		viewParts(v.Stream, before)
	}
	if len(before) < 4 {
		t.Fatalf("the views have %d parts, want at least 4 (the test reads nothing)", len(before))
	}
	for _, q := range append(viewShareReaders, viewShareRun) {
		if err := execSQL(ss[0], dir, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		for part, was := range before {
			if !reflect.DeepEqual(*part, was) {
				t.Errorf("planning %q changed a part of a view (reading %s)", q, part.Stream.Name)
			}
		}
	}
}

// TestConcurrentPlanningOverOneView: sessions sharing one catalog (the
// catalog is safe for concurrent use; a Go program may plan and run
// queries in several at once) plan and run queries over the same views at
// the same time, many times: each EXPLAIN prints what it prints alone, each
// run outputs the rows it outputs alone, and under -race (.ci/run) no
// planning writes what another reads.
func TestConcurrentPlanningOverOneView(t *testing.T) {
	ss, fs, dir := viewShareSessions(t, 2)
	want := map[string]string{}
	for _, q := range viewShareReaders {
		fs[0].text.Reset()
		if err := execSQL(ss[0], dir, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		want[q] = fs[0].text.String()
	}
	fs[0].rows = 0
	if err := execSQL(ss[0], dir, viewShareRun); err != nil {
		t.Fatal(err)
	}
	wantRows := fs[0].rows
	if wantRows == 0 {
		t.Fatal("the run over the view output no rows: the test checks nothing")
	}
	rounds := 20
	if testing.Short() {
		rounds = 5
	}
	var wg sync.WaitGroup
	var failed atomic.Bool
	for g := range ss {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				for i := range viewShareReaders {
					q := viewShareReaders[(i+g*3+r)%len(viewShareReaders)]
					fs[g].text.Reset()
					if err := execSQL(ss[g], dir, q); err != nil {
						t.Errorf("session %d: %s: %v", g, q, err)
						failed.Store(true)
						return
					}
					if got := fs[g].text.String(); got != want[q] && !failed.Swap(true) {
						t.Errorf("session %d: %s printed, beside another session's planning:\n%s\nalone:\n%s", g, q, got, want[q])
					}
				}
				fs[g].rows = 0
				if err := execSQL(ss[g], dir, viewShareRun); err != nil && !errors.Is(err, context.Canceled) {
					t.Errorf("session %d: %v", g, err)
					failed.Store(true)
					return
				}
				if fs[g].rows != wantRows && !failed.Swap(true) {
					t.Errorf("session %d: the run output %d rows beside another session's planning, %d alone", g, fs[g].rows, wantRows)
				}
			}
		}()
	}
	wg.Wait()
}

// TestReplanViewsBesideAReader: a SET that replans the views (SPEC 2.6: a
// view is planned under the current settings) in one session, while
// another session sharing its catalog plans and runs queries over them,
// swaps each view's relation under the catalog's lock
// (catalog.Catalog.SetViewStream): under -race (.ci/run) no write to a
// View another session reads (internal/session replanViews wrote
// View.Stream in place). A View looked up before the SET keeps its
// relation; the catalog's view after it has the new one.
func TestReplanViewsBesideAReader(t *testing.T) {
	ss, _, dir := viewShareSessions(t, 2)
	old := ss[0].Cat.LookupView("v")
	oldStream := old.Stream
	if err := execSQL(ss[0], dir, "SET 'table.exec.state.ttl' = '1 h';"); err != nil {
		t.Fatal(err)
	}
	if old.Stream != oldStream {
		t.Error("the SET wrote the View another session had looked up")
	}
	if now := ss[0].Cat.LookupView("v"); now == nil || now.Stream == oldStream {
		t.Error("the SET left the catalog's view v with its old relation")
	}
	rounds := 10
	if testing.Short() {
		rounds = 3
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for r := range rounds {
			if err := execSQL(ss[0], dir, fmt.Sprintf("SET 'table.exec.state.ttl' = '%d h';", r+2)); err != nil {
				t.Errorf("SET: %v", err)
				return
			}
		}
	}()
	go func() {
		defer wg.Done()
		for r := range rounds {
			for _, q := range append(viewShareReaders, viewShareRun) {
				if err := execSQL(ss[1], dir, q); err != nil && !errors.Is(err, context.Canceled) {
					t.Errorf("round %d: %s: %v", r, q, err)
					return
				}
			}
		}
	}()
	wg.Wait()
}
