package executor_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"streamql/executor"
)

// The pipelined join's property (plan.PipelinedJoin, joinpipe.go): on
// random files and random interval joins of two streams, a job whose
// inputs are decoded ahead on goroutines of their own and whose join runs
// on another, ahead of the job's goroutine that routes and encodes, writes
// every output byte for byte as the sequential path (GOMAXPROCS=1): the
// joined rows in their order, each late output, each input's errors output
// with the malformed rows' positions, the summary and the exit status;
// also with every output on the one stdout, where the lines of the
// malformed and late rows fall among the joined rows as they do on the
// sequential path (the inputs' batches are the sequential decoder's, and
// the join's sink calls are replayed before the joined batch they came
// before). The jobs the planner keeps off the pipeline (a function that may
// fail in the join's keys or after it, an outer join's residual terms,
// 'errors' = 'fail', 'watermark.max-future', a lookup join) must not take
// it.

// joinPipeQueries are the random cases' queries over o and p (both with a
// watermark: randomJoinCase's streams), and whether the pipeline runs them.
var joinPipeQueries = []struct {
	sql      string
	pipeline bool // the pipelined join runs it (but with 'errors' = 'fail' or 'watermark.max-future')
}{
	{"SELECT o.id, o.k, p.id AS pid, p.ts FROM o JOIN p ON o.k = p.k AND p.ts BETWEEN o.ts - INTERVAL '1' SECOND AND o.ts + INTERVAL '2' SECOND", true},
	{"SELECT o.id, p.id AS pid FROM o LEFT JOIN p ON o.k = p.k AND p.ts BETWEEN o.ts AND o.ts + 1500", true},
	{"SELECT o.id, p.id AS pid, p.k FROM o RIGHT JOIN p ON o.k = p.k AND o.ts BETWEEN p.ts - 800 AND p.ts + 300", true},
	{"SELECT o.id, o.ts, p.id AS pid, p.k FROM o FULL JOIN p ON o.k = p.k AND p.ts BETWEEN o.ts - 500 AND o.ts + 500", true},
	{"SELECT o.id, p.id AS pid FROM o JOIN p ON o.k = p.k AND p.ts BETWEEN o.ts - 700 AND o.ts + 700 WHERE p.id > o.id", true},
	{"SELECT o.id, p.k INTO SIDE 'odd' FROM o JOIN p ON o.k = p.k AND p.ts BETWEEN o.ts - 900 AND o.ts + 900 WHERE p.id % 2 = 1;\nSELECT o.id, o.k, p.id AS pid FROM o JOIN p ON o.k = p.k AND p.ts BETWEEN o.ts - 900 AND o.ts + 900", true},
	{"SELECT o.id, p.id AS pid FROM o FULL JOIN p ON UPPER(o.k) = UPPER(p.k) AND p.ts BETWEEN o.ts - 500 AND o.ts + 500", false},                // computed keys
	{"SELECT o.id, p.id AS pid FROM o LEFT JOIN p ON o.k = p.k AND p.ts BETWEEN o.ts - 500 AND o.ts + 500 AND p.id > o.id", false},              // residual
	{"SELECT o.id, ELEMENT(ARRAY[p.k, o.k]) AS k FROM o JOIN p ON o.k = p.k AND p.ts BETWEEN o.ts - 500 AND o.ts + 500", false},                 // a function after the join
	{"SELECT o.id, o.k, p.id AS pid FROM o JOIN p ON o.k = p.k AND p.ts BETWEEN o.ts - 500 AND o.ts + 500 WHERE o.id % 3 = 0", false},           // pushed down to o
	{"SELECT o.id, p.id AS pid FROM o JOIN (SELECT * FROM p WHERE id > 3) AS p ON o.k = p.k AND p.ts BETWEEN o.ts - 500 AND o.ts + 500", false}, // a derived input
}

// randomJoinPipeCase returns the random interval join job of seed: the
// streams and files of randomJoinCase, a query of joinPipeQueries, its
// late outputs named or not, every output in a file of its own or all on
// stdout; and whether the pipeline must run it.
func randomJoinPipeCase(seed uint64) (morselCase, bool) {
	c := randomJoinCase(seed)
	r := rand.New(rand.NewPCG(seed, 2315))
	c.sideDir = r.IntN(2) == 0
	q := joinPipeQueries[r.IntN(len(joinPipeQueries))]
	script := c.script[:strings.Index(c.script, "SELECT")]
	if r.IntN(4) > 0 { // (most without 'watermark.max-future', which keeps the job off the pipeline)
		script = strings.ReplaceAll(script, ", 'watermark.max-future'='20 s'", "")
	}
	sql := q.sql
	if r.IntN(2) == 0 && !strings.Contains(sql, "INTO SIDE") {
		sql += " LATE INTO SIDE 'late-o', 'late-other'"
	}
	c.script = script + sql + ";\n"
	return c, q.pipeline && !strings.Contains(c.script, "'fail'") && !strings.Contains(c.script, "max-future")
}

// TestPipelinedJoinMatchesSequential is the property above, on 200 random
// jobs (the seed of a failing one is in its name: go test -run
// 'TestPipelinedJoinMatchesSequential/seed=N').
func TestPipelinedJoinMatchesSequential(t *testing.T) {
	n := 200
	if testing.Short() {
		n = 40
	}
	ran := 0
	for seed := range uint64(n) {
		c, pipeline := randomJoinPipeCase(seed)
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			before := executor.JoinPipeRuns()
			want, _ := runMorselCase(t, c, 1, 0)
			if executor.JoinPipeRuns() != before {
				t.Fatal("the pipelined join ran with GOMAXPROCS=1")
			}
			procs := 2 + int(seed%3)
			got, _ := runMorselCase(t, c, procs, 0)
			runs := executor.JoinPipeRuns() - before
			switch {
			case !pipeline && runs != 0:
				t.Fatalf("%s\nformat %s: the pipelined join ran a job it must not take", c.script, c.format)
			case pipeline && runs == 0:
				t.Fatalf("%s\nformat %s: the pipelined join did not run", c.script, c.format)
			}
			ran += int(runs)
			if got != want {
				t.Fatalf("%s\nformat %s, side-dir %v, GOMAXPROCS=%d: %s\n%s", c.script, c.format, c.sideDir, procs, lineDiff(got, want), tailOf(got))
			}
			if !strings.Contains(want, "exit 0") && !strings.Contains(want, "exit 1") {
				t.Fatalf("%s\nexit status neither 0 nor 1 (an error before the job started?):\n%s", c.script, want)
			}
		})
	}
	if ran < n/4 {
		t.Fatalf("only %d of %d jobs ran as a pipelined join", ran, n)
	}
}

// joinPipeMallocs runs an interval join of two streams of rows sensor rows
// each (sensorbench.CSV, the file read twice, joined on its time, which
// no two rows share) with procs CPUs (GOMAXPROCS), and returns the heap
// allocations of the run; it fails unless the pipelined join ran it with
// 2 CPUs, and not with 1.
func joinPipeMallocs(t *testing.T, rows, procs int) uint64 {
	t.Helper()
	return sensorPathMallocs(t, `CREATE STREAM a (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE, WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector'='file', 'path'='sensors.csv', 'format'='csv');
CREATE STREAM b (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE, WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector'='file', 'path'='sensors.csv', 'format'='csv');
SELECT a.deviceNo, a.ts, b.temperature FROM a JOIN b ON a.ts = b.ts AND b.ts BETWEEN a.ts - INTERVAL '1' SECOND AND a.ts + INTERVAL '1' SECOND;
`, rows, procs, 0, "the pipelined join", executor.JoinPipeRuns)
}

// TestPipelinedJoinSteadyStateAllocs: reading an interval join's inputs
// ahead and running the join on a goroutine of its own allocates nothing
// per row, nor per batch, in steady state (steadyAllocs; the sequential
// path's allocations are the join's state, grown by doubling).
func TestPipelinedJoinSteadyStateAllocs(t *testing.T) {
	steadyAllocs(t, "pipelined join", joinPipeMallocs)
}

// TestPipelinedJoinAnalyzeSequential: EXPLAIN ANALYZE of a job the planner
// pipelines (plan.PipelinedJoin) runs it on the sequential path, whose
// join it measures on the job's goroutine (runJoinPipe's fallback), and
// ends well; the same job without ANALYZE is pipelined.
func TestPipelinedJoinAnalyzeSequential(t *testing.T) {
	for seed := uint64(0); ; seed++ {
		c, pipeline := randomJoinPipeCase(seed)
		if !pipeline {
			continue
		}
		before := executor.JoinPipeRuns()
		if out, _ := runMorselCase(t, c, 2, 0); !strings.Contains(out, "exit 0") || executor.JoinPipeRuns() != before+1 {
			t.Fatalf("%s\nthe job did not run pipelined, or failed:\n%s", c.script, tailOf(out))
		}
		i := strings.LastIndex(c.script, "SELECT")
		c.script = c.script[:i] + "EXPLAIN ANALYZE " + c.script[i:]
		out, _ := runMorselCase(t, c, 2, 0)
		if executor.JoinPipeRuns() != before+1 {
			t.Fatalf("%s\nEXPLAIN ANALYZE ran the pipelined join", c.script)
		}
		if !strings.Contains(out, "exit 0") || !strings.Contains(out, "pipelined join") {
			t.Fatalf("%s\nEXPLAIN ANALYZE failed or did not name the strategy:\n%s", c.script, tailOf(out))
		}
		return
	}
}
