package executor_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"streamql/executor"
	"streamql/internal/sensorbench"
)

// The lookup morsel pipeline's property (plan.LookupMorsel,
// lookupmorsel.go): on random files and random lookup joins whose left
// input has no event time, a job whose left file is cut into chunks of a
// few hundred bytes (dozens a file), each decoded, probed, routed and
// encoded by one of 2 to 4 workers, writes every output byte for byte as
// its fallback, the parallel join inputs' path, with the same CPUs and
// chunks: the joined rows in their order, each branch's side output, each
// input's errors output with the malformed rows' positions (csv rows
// quoted over lines make chunks whose start the merge decodes again, on
// the job's goroutine), the summary and the exit status; and, with each
// output in a file of its own (--side-dir), as the sequential path
// (GOMAXPROCS=1). The jobs the planner keeps off the pipeline (a function
// that may fail after the join, a pushed-down filter or computed key on
// the left input, 'errors' = 'fail') must not take it.

// lookupMorselQueries are the random cases' queries over o (the left
// input, no watermark) and u (the right one, read whole first): INNER,
// LEFT and comma joins, a WHERE over the joined rows, a side branch, and
// some that the pipeline must not take.
var lookupMorselQueries = []struct {
	sql      string
	pipeline bool // the lookup morsel pipeline runs it (but with 'errors' = 'fail')
}{
	{"SELECT o.id, o.k, u.id AS uid, u.ts FROM o JOIN u ON o.k = u.k", true},
	{"SELECT o.id, o.ts, u.id AS uid FROM o LEFT JOIN u ON o.k = u.k", true},
	{"SELECT * FROM o, u WHERE o.k = u.k", true},
	{"SELECT o.id, u.ts FROM o LEFT JOIN u ON o.k = u.k WHERE u.id IS NULL OR u.id > o.id", true},
	{"SELECT o.id, u.k INTO SIDE 'odd' FROM o JOIN u ON o.k = u.k WHERE u.id % 2 = 1;\nSELECT o.id, o.k, u.id AS uid FROM o LEFT JOIN u ON o.k = u.k", true},
	{"SELECT o.id, ELEMENT(ARRAY[u.k, o.k]) AS k FROM o JOIN u ON o.k = u.k", false},  // a function that may fail after the join
	{"SELECT o.id, u.id AS uid FROM o JOIN u ON o.k = u.k WHERE o.id % 3 = 0", false}, // pushed down to o
	{"SELECT o.id, u.id AS uid FROM o JOIN u ON UPPER(o.k) = UPPER(u.k)", false},      // computed keys
}

// randomLookupMorselCase returns the random lookup join job of seed.
func randomLookupMorselCase(seed uint64) (morselCase, bool) {
	r := rand.New(rand.NewPCG(seed, 2323))
	formats := morselFormats
	c := morselCase{seed: seed, format: formats[r.IntN(len(formats))], sideDir: r.IntN(3) > 0,
		chunk: int64(64 + r.IntN(1500)), files: map[string]string{}}
	var sb strings.Builder
	for _, name := range []string{"o", "u"} {
		opts := randomJoinInput(r, &c, name)
		fmt.Fprintf(&sb, "CREATE STREAM %s (id BIGINT, k VARCHAR, ts BIGINT) WITH (%s);\n", name, opts)
	}
	q := lookupMorselQueries[r.IntN(len(lookupMorselQueries))]
	sb.WriteString(q.sql + ";\n")
	c.script = sb.String()
	return c, q.pipeline && !strings.Contains(c.script, "'fail'")
}

// TestLookupMorselMatchesSequential is the property above, on 80 random
// jobs (the seed of a failing one is in its name: go test -run
// 'TestLookupMorselMatchesSequential/seed=N').
func TestLookupMorselMatchesSequential(t *testing.T) {
	n := 80
	if testing.Short() {
		n = 20
	}
	ran := 0
	for seed := range uint64(n) {
		c, pipeline := randomLookupMorselCase(seed)
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			before := executor.LookupMorselRuns()
			want, _ := runMorselCase(t, c, 1, 0)
			if executor.LookupMorselRuns() != before {
				t.Fatal("the lookup morsel pipeline ran with GOMAXPROCS=1")
			}
			procs := 2 + int(seed%3)
			restore := executor.SetLookupMorselOff(true)
			paths, _ := runMorselCase(t, c, procs, c.chunk) // the parallel join inputs' path
			restore()
			if executor.LookupMorselRuns() != before {
				t.Fatal("the lookup morsel pipeline ran while turned off")
			}
			got, _ := runMorselCase(t, c, procs, c.chunk)
			runs := executor.LookupMorselRuns() - before
			switch {
			case !pipeline && runs != 0:
				t.Fatalf("%s\nformat %s: the lookup morsel pipeline ran a job it must not take", c.script, c.format)
			case pipeline && runs == 0:
				t.Fatalf("%s\nformat %s: the lookup morsel pipeline did not run", c.script, c.format)
			}
			ran += int(runs)
			if got != paths {
				t.Fatalf("%s\nformat %s, side-dir %v, chunks of %d bytes, GOMAXPROCS=%d, against the parallel join inputs: %s\n%s", c.script, c.format, c.sideDir, c.chunk, procs, lineDiff(got, paths), tailOf(got))
			}
			// (with the outputs on one stream, where the lines of the malformed
			// rows fall among the joined rows follows the batches, and a job that
			// fails has read further on the parallel paths: joinparallel_test.go)
			if c.sideDir && pipeline && got != want {
				t.Fatalf("%s\nformat %s, side-dir %v, chunks of %d bytes, GOMAXPROCS=%d: %s\n%s", c.script, c.format, c.sideDir, c.chunk, procs, lineDiff(got, want), tailOf(got))
			}
			if !strings.Contains(want, "exit 0") && !strings.Contains(want, "exit 1") {
				t.Fatalf("%s\nexit status neither 0 nor 1 (an error before the job started?):\n%s", c.script, want)
			}
		})
	}
	if ran < n/4 {
		t.Fatalf("only %d of %d jobs ran on the lookup morsel pipeline", ran, n)
	}
}

// tailOf returns the last lines of out (a failing case's summary).
func tailOf(out string) string {
	lines := strings.Split(out, "\n")
	return strings.Join(lines[max(0, len(lines)-8):], "\n")
}

// lookupMorselMallocs runs a lookup join of sensor rows with the same file
// as its right side (on their time, which no two rows share) with procs
// CPUs (GOMAXPROCS) and chunks of 16 KiB, and returns the heap allocations
// of the run; it fails unless the lookup morsel pipeline ran it with 2
// CPUs, and not with 1.
func lookupMorselMallocs(t *testing.T, rows, procs int) uint64 {
	t.Helper()
	return sensorPathMallocs(t, `CREATE STREAM a (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE) WITH ('connector'='file', 'path'='sensors.csv', 'format'='csv');
CREATE STREAM b (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE) WITH ('connector'='file', 'path'='sensors.csv', 'format'='csv');
SELECT a.deviceNo, a.ts, b.temperature FROM a JOIN b ON a.ts = b.ts;
`, rows, procs, 16<<10, "the lookup morsel pipeline", executor.LookupMorselRuns)
}

// sensorPathMallocs runs script over sensors.csv, a file of rows sensor
// rows (sensorbench.CSV), with procs CPUs (GOMAXPROCS) and chunks of
// chunk bytes (0: the default), and returns the heap allocations of the
// run; it fails unless the path named path, whose runs runs counts, ran
// it with 2 CPUs, and not with 1.
func sensorPathMallocs(t *testing.T, script string, rows, procs int, chunk int64, path string, runs func() int64) uint64 {
	t.Helper()
	before := runs()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "sensors.csv"), sensorbench.CSV(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	m := dirMallocs(t, script, dir, procs, chunk)
	want := int64(procs - 1)
	if got := runs() - before; got != want {
		t.Fatalf("%s ran %d jobs with %d CPUs, want %d", path, got, procs, want)
	}
	return m
}

// steadyAllocs fails unless the path named path allocates nothing per
// row, nor per chunk or batch, in steady state (issue 23: zero
// allocations per row for append-only joins): from 40,000 rows to 160,000
// (mallocs(rows, procs): its allocations with 2 CPUs, and the sequential
// path's with 1), its allocations grow no more than the sequential path's
// (the join's state, grown by doubling) and a small constant.
func steadyAllocs(t *testing.T, path string, mallocs func(t *testing.T, rows, procs int) uint64) {
	t.Helper()
	seqSmall, seqBig := mallocs(t, 40_000, 1), mallocs(t, 160_000, 1)
	small, big := mallocs(t, 40_000, 2), mallocs(t, 160_000, 2)
	t.Logf("allocations: %s %d for 40,000 rows, %d for 160,000; sequential %d and %d", path, small, big, seqSmall, seqBig)
	grew, seqGrew := int64(big)-int64(small), int64(seqBig)-int64(seqSmall) // (signed: a run may allocate a few less than a smaller one)
	if grew > seqGrew+100 {
		t.Fatalf("%s: %d allocations for 40,000 rows, %d for 160,000; sequential %d and %d: %.4f more per extra row",
			path, small, big, seqSmall, seqBig, float64(grew-seqGrew)/120_000)
	}
}

// TestLookupMorselSteadyStateAllocs: probing, routing and encoding a
// lookup join's left rows on the morsel workers allocates nothing per row,
// nor per chunk, in steady state (steadyAllocs; the sequential path's
// allocations are the right side's table, grown by doubling).
func TestLookupMorselSteadyStateAllocs(t *testing.T) {
	steadyAllocs(t, "lookup morsel", lookupMorselMallocs)
}
