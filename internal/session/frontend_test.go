package session

import (
	"context"
	"slices"
	"testing"

	"streamql/catalog"
	"streamql/parser"
)

// jobRecorder is a Frontend that records the jobs it is handed instead of
// running them.
type jobRecorder struct{ jobs []*Job }

func (r *jobRecorder) Set(*parser.Set) (bool, error)     { return true, nil }
func (r *jobRecorder) Result([]string, [][]string) error { return nil }
func (r *jobRecorder) RunJob(_ context.Context, j *Job, _ RunFunc) error {
	r.jobs = append(r.jobs, j)
	return nil
}

// jobsOf runs src's statements in a session whose frontend records the jobs.
func jobsOf(t *testing.T, src string) ([]*Job, *Session) {
	t.Helper()
	rec := &jobRecorder{}
	s := New(nil, rec)
	script, err := parser.Parse("t.sql", src)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range script.Stmts {
		if err := s.Exec(context.Background(), script, t.TempDir(), st); err != nil {
			t.Fatalf("%v", err)
		}
	}
	return rec.jobs, s
}

const frontendStreams = `
CREATE STREAM s (k VARCHAR, v BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector'='file', 'path'='s.csv');
CREATE STREAM b (k VARCHAR) WITH ('connector'='file', 'path'='b.csv');
CREATE STREAM u (k VARCHAR) WITH ('connector'='file', 'path'='u.csv', 'follow'='true');
`

// TestNewJob checks the frontend's view of a job (issue 22 item 6): its
// outputs in the plan's order with the offsets of their side names, and what
// the progress bar, `test --shuffle` and the renderers read of the plan,
// each against what the script says.
func TestNewJob(t *testing.T) {
	src := frontendStreams + `
SELECT k INTO SIDE 'low' FROM s WHERE v < 10;
SELECT k, v INTO SIDE 'mid' FROM s WHERE v < 20;
SELECT s.k, s.v FROM s SEMI JOIN b ON s.k = b.k;
SELECT k, v FROM s LIMIT 3;
SELECT LISTAGG(k) FROM s;
SELECT k, RAND() FROM s;
SELECT k FROM u;
`
	jobs, _ := jobsOf(t, src)
	if len(jobs) != 5 {
		t.Fatalf("%d jobs, want 5", len(jobs))
	}
	j := jobs[0] // the two pending side branches with the semi join
	var names []string
	for _, o := range j.Outputs {
		names = append(names, o.Name)
	}
	if !slices.Equal(names, []string{"main", "low", "mid"}) || !j.HasMain || !j.HasSides {
		t.Errorf("outputs %v, main %v, sides %v; want main, low, mid with both", names, j.HasMain, j.HasSides)
	}
	if low := j.Outputs[1]; low.SidePos != indexOf(t, src, "'low'") || j.SidePos != low.SidePos || j.SideNamePos("low") != low.SidePos {
		t.Errorf("side 'low' at %d (job %d, by name %d), want %d", low.SidePos, j.SidePos, j.SideNamePos("low"), indexOf(t, src, "'low'"))
	}
	if mid := j.Outputs[2]; mid.SidePos != indexOf(t, src, "'mid'") || mid.Schema() != "(k VARCHAR, v BIGINT)" || mid.Sink || mid.Late || mid.Updating {
		t.Errorf("side 'mid' = %+v (schema %q)", mid, mid.Schema())
	}
	if j.Outputs[0].SidePos != 0 || j.SideNamePos("none") != 0 {
		t.Errorf("the main output has a side name at %d, an unknown one at %d", j.Outputs[0].SidePos, j.SideNamePos("none"))
	}
	if streamNames(j.BuildSides) != "b" || streamNames(j.Reads) != "s b" || j.Stream.Name != "s" || !j.Bounded || !j.OrderBound || j.HeldJoin {
		t.Errorf("semi join: build %q, reads %q, bounded %v, order-bound %v, held %v", streamNames(j.BuildSides), streamNames(j.Reads), j.Bounded, j.OrderBound, j.HeldJoin)
	}
	if j.Plan() == nil || j.Plan().Main == nil {
		t.Error("Plan() lost the plan")
	}
	for i, c := range []struct {
		orderBound, bounded bool
		volatile            []string
	}{
		{true, true, nil},               // LIMIT
		{true, true, nil},               // LISTAGG: the arrival order
		{false, true, []string{"RAND"}}, // the clock and random functions
		{false, false, nil},             // a followed file
	} {
		j := jobs[i+1]
		if j.OrderBound != c.orderBound || j.Bounded != c.bounded || !slices.Equal(j.Volatile, c.volatile) || j.HasSides || len(j.BuildSides) != 0 || j.SidePos != 0 {
			t.Errorf("job %d: order-bound %v, bounded %v, volatile %v, sides %v, builds %d; want %v, %v, %v", i+1, j.OrderBound, j.Bounded, j.Volatile, j.HasSides, len(j.BuildSides), c.orderBound, c.bounded, c.volatile)
		}
	}
	if NewJob(nil) != nil || PendingNotice(nil, Stats{}) != "" {
		t.Error("a nil job has a view or a notice")
	}
}

// TestNewJobEventTimeJoin: a semi join on an unbounded build side decides
// by event time and holds rows (SPEC 2.2; the progress bar shows them).
func TestNewJobEventTimeJoin(t *testing.T) {
	jobs, _ := jobsOf(t, frontendStreams+`
CREATE STREAM w (k VARCHAR, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='w.csv', 'follow'='true');
SELECT s.k FROM s SEMI JOIN w ON s.k = w.k;
`)
	if len(jobs) != 1 {
		t.Fatalf("%d jobs, want 1", len(jobs))
	}
	if j := jobs[0]; !j.HeldJoin || streamNames(j.BuildSides) != "w" || streamNames(j.Reads) != "s w" {
		t.Errorf("held %v, build sides %q, reads %q; want true, w, s w", j.HeldJoin, streamNames(j.BuildSides), streamNames(j.Reads))
	}
}

func indexOf(t *testing.T, s, sub string) int {
	t.Helper()
	for i := range len(s) - len(sub) + 1 {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	t.Fatalf("%q not in the script", sub)
	return -1
}

func streamNames(sts []*catalog.Stream) string {
	var out string
	for i, st := range sts {
		if i > 0 {
			out += " "
		}
		out += st.Name
	}
	return out
}
