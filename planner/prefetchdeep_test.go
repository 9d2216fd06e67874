package planner_test

import (
	"context"
	"runtime"
	"testing"

	"streamql/internal/session"
	"streamql/parser"
	"streamql/planner"
)

// planFront is a frontend that keeps the plan of the job a statement would
// run, and runs nothing.
type planFront struct{ job *planner.Job }

func (f *planFront) Set(*parser.Set) (bool, error)     { return false, nil }
func (f *planFront) Result([]string, [][]string) error { return nil }
func (f *planFront) RunJob(_ context.Context, j *session.Job, _ session.RunFunc) error {
	f.job = j.Plan()
	return nil
}

// TestPrefetchDeep: the producer that decodes a file ahead keeps its deep
// queue (plan.Job.PrefetchDeep) only for an updating GROUP BY whose
// changelog the encoder goroutine writes (a third busy goroutine), not for
// a Top-N (issue 22: its peak RSS), an append-only job, a GROUP BY into a
// sink stream, or on one CPU.
func TestPrefetchDeep(t *testing.T) {
	const ddl = "SET 'execution.runtime-mode' = 'streaming';\n" +
		"CREATE STREAM s (k VARCHAR, n BIGINT, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='s.csv', 'format'='csv');\n" +
		"CREATE STREAM o (k VARCHAR, c BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector'='upsert-kafka', 'topic'='o', 'properties.bootstrap.servers'='127.0.0.1:1', 'key.format'='csv', 'value.format'='csv');\n"
	for _, c := range []struct {
		procs int
		sql   string
		deep  bool
	}{
		{2, "SELECT k, COUNT(*) AS c FROM s GROUP BY k", true},
		{4, "SELECT k, SUM(n) AS t, MAX(ts) AS m FROM s GROUP BY k", true},
		{1, "SELECT k, COUNT(*) AS c FROM s GROUP BY k", false},
		{2, "SELECT k, n FROM (SELECT k, n, ROW_NUMBER() OVER (PARTITION BY k ORDER BY n DESC) AS rn FROM s) WHERE rn <= 10", false},
		{2, "SELECT k, c FROM (SELECT k, c, ROW_NUMBER() OVER (ORDER BY c DESC) AS rn FROM (SELECT k, COUNT(*) AS c FROM s GROUP BY k)) WHERE rn <= 10", false},
		{2, "SELECT window_start, COUNT(*) AS c FROM TABLE(TUMBLE(TABLE s, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY window_start, window_end", false},
		{2, "SELECT k, n FROM s WHERE n > 1", false},
		{2, "INSERT INTO o SELECT k, COUNT(*) AS c FROM s GROUP BY k", false},
	} {
		func() {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(c.procs))
			f := &planFront{}
			s := session.New(nil, f)
			script, err := parser.Parse("deep.sql", ddl+c.sql+";")
			if err != nil {
				t.Fatal(err)
			}
			for _, st := range script.Stmts {
				if err := s.Exec(context.Background(), script, t.TempDir(), st); err != nil {
					t.Fatalf("%s: %v", c.sql, err)
				}
			}
			if f.job == nil {
				t.Fatalf("%s: no job", c.sql)
			}
			if got := f.job.PrefetchDeep(); got != c.deep {
				t.Errorf("%d CPUs, %s: PrefetchDeep %v, want %v", c.procs, c.sql, got, c.deep)
			}
		}()
	}
}
