package executor_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"streamql/executor"
	"streamql/internal/sensorbench"
	"streamql/internal/session"
)

// The parallel window aggregate's property (paragg.go): on random files of
// event-time rows (out of order, late rows across chunk boundaries, rows
// exactly at window boundaries, NULL times, malformed rows) and random
// window scripts (TUMBLE, HOP, CUMULATE; GROUP BY keys, HAVING, several
// aggregates among them DOUBLE SUM, AVG and variance, LISTAGG, COUNT
// DISTINCT, FIRST_VALUE and LAST_VALUE; aggregating side branches, LATE INTO
// SIDE), a job run by 2 to 4 workers over chunks of a few hundred bytes (so
// that windows span many chunks) writes every output byte, stderr and its
// exit status as the sequential path (GOMAXPROCS=1) does.

// randomEventInput returns a csv (or json lines) file of rows k VARCHAR, ts BIGINT, x
// DOUBLE, n BIGINT, times mostly increasing (steps of 0 to 300 ms, some on
// whole seconds), some out of order by up to 6 s, and when bad some NULL and
// some malformed.
func randomEventInput(r *rand.Rand, rows, odd int, bad, json, header bool) string {
	var sb strings.Builder
	if header {
		sb.WriteString("k,ts,x,n\n")
	}
	if odd == 0 {
		odd = 25 + r.IntN(400) // one row in odd or so is out of order or NULL
	}
	keys := []string{"a", "b", "ab", "ζeta", "", "c"}
	t := int64(1_600_000_000_000) + r.Int64N(10_000)
	for range rows {
		switch r.IntN(8) {
		case 0:
			t = t / 1000 * 1000 // on a window boundary
		case 1:
			t += 1000 - t%1000
		default:
			t += r.Int64N(300)
		}
		ts := fmt.Sprint(t)
		switch r.IntN(odd) {
		case 0:
			ts = fmt.Sprint(t - r.Int64N(6000)) // out of order: late or not
		case 1:
			if bad {
				ts = "" // NULL: malformed with a WATERMARK (SPEC 2.3), else late
			}
		case 2:
			ts = fmt.Sprint((t - r.Int64N(6000)) / 1000 * 1000)
		}
		x := fmt.Sprintf("%.1f", r.Float64()*200-50)
		switch r.IntN(40) {
		case 0:
			x = ""
		case 1:
			x = "-0.0"
		case 2:
			x = "1e300"
		case 3:
			x = "NaN"
		}
		n := fmt.Sprint(r.IntN(100) - 20)
		if bad && r.IntN(3*odd) == 0 {
			n = "oops" // malformed
		}
		k := keys[r.IntN(len(keys))]
		if json {
			q := func(v string) string {
				if v == "" {
					return "null"
				}
				if v == "NaN" || v == "oops" {
					return `"` + v + `"`
				}
				return v
			}
			fmt.Fprintf(&sb, "{\"k\":%q,\"ts\":%s,\"x\":%s,\"n\":%s}\n", k, q(ts), q(x), q(n))
			continue
		}
		fmt.Fprintf(&sb, "%s,%s,%s,%s\n", k, ts, x, n)
	}
	return sb.String()
}

var (
	paraggWindows = []string{
		"TUMBLE(TABLE s, DESCRIPTOR(ts), INTERVAL '%d' SECOND)",
		"TUMBLE(TABLE s, DESCRIPTOR(ts), INTERVAL '%d' SECOND, INTERVAL '1' SECOND)",
		"HOP(TABLE s, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '%d' SECOND)",
		"HOP(TABLE s, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '%d' SECOND)",
		"CUMULATE(TABLE s, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '%d' SECOND)",
	}
	paraggCalls = []string{
		"COUNT(*) AS c", "SUM(x) AS sx", "AVG(x) AS ax", "VAR_POP(x) AS vx", "STDDEV_SAMP(x) AS dx", "MIN(x) AS mnx",
		"MAX(n) AS mxn", "SUM(n) AS sn", "AVG(n) AS an", "LISTAGG(n, '|') AS ln", "COUNT(DISTINCT n) AS cdn",
		"FIRST_VALUE(x) AS fx", "LAST_VALUE(n) AS lan", "COUNT(x) AS cx", "MAX(k) AS mk",
	}
	paraggWheres  = []string{"n > 30", "x < 0", "k = 'a'", "n % 3 = 0"}
	paraggHavings = []string{"COUNT(*) > 2", "SUM(n) > 40", "MIN(x) < 0"}
	paraggFormats = []string{"csv", "json", "plain", "table"}
)

// randomParaggCase returns the random windowed job of seed.
func randomParaggCase(seed uint64) morselCase {
	r := rand.New(rand.NewPCG(seed, 11))
	c := morselCase{seed: seed, format: paraggFormats[r.IntN(len(paraggFormats))], sideDir: r.IntN(2) == 0,
		chunk: int64(100 + r.IntN(1500)), files: map[string]string{}}
	json := r.IntN(4) == 0
	header := !json && r.IntN(4) == 0
	ext := "csv"
	if json {
		ext = "json"
	}
	rows, odd, big := 300+r.IntN(1500), 0, r.IntN(4) == 0
	if big { // chunks of several batches (vector.Cap rows each), late rows in each
		rows, odd = 3000+r.IntN(5000), 10+r.IntN(30)
	}
	c.files["in."+ext] = randomEventInput(r, rows, odd, !big && r.IntN(3) == 0, json, header) // (a malformed row gives its chunk back)
	if big {
		c.chunk = int64(len(c.files["in."+ext]) / (2 + r.IntN(3)))
	}
	opts := randomFileOpts(r, ext, header)
	wm := fmt.Sprintf(", WATERMARK FOR ts AS ts - INTERVAL '%d' SECOND", r.IntN(4))
	if r.IntN(10) == 0 {
		wm = "" // windows fire at the end
	}
	var sb strings.Builder
	switch r.IntN(10) {
	case 0: // the state passes 'state.max-bytes' somewhere, or nearly: the sequential path (paragg.go)
		fmt.Fprintf(&sb, "SET 'state.max-bytes' = '%d';\n", 2000+r.IntN(20000))
	case 1:
		sb.WriteString("SET 'state.max-bytes' = '3GiB';\n")
	}
	fmt.Fprintf(&sb, "CREATE STREAM s (k VARCHAR, ts BIGINT, x DOUBLE, n BIGINT%s) WITH (%s);\n", wm, opts)
	branches := 1 + r.IntN(3)
	for b := range branches {
		side := b < branches-1
		win := fmt.Sprintf(paraggWindows[r.IntN(len(paraggWindows))], 2*(1+r.IntN(5)))
		keys := []string{"", ", k", ", k", ", n", ", x", ", k, n % 4", ", UPPER(k)"}[r.IntN(7)] // VARCHAR, BIGINT, DOUBLE keys, several, an expression
		items := []string{"window_start", "window_end"}
		if keys == ", k" || keys == ", n" || keys == ", x" {
			items = append(items, keys[2:])
		}
		for range 1 + r.IntN(4) {
			items = append(items, strings.Replace(paraggCalls[r.IntN(len(paraggCalls))], " AS ", fmt.Sprintf(" AS b%d_", len(items)), 1))
		}
		fmt.Fprintf(&sb, "SELECT %s", strings.Join(items, ", "))
		if side {
			fmt.Fprintf(&sb, " INTO SIDE 'agg%d'", b)
		}
		fmt.Fprintf(&sb, " FROM TABLE(%s)", win)
		if side || r.IntN(3) == 0 {
			fmt.Fprintf(&sb, " WHERE %s", paraggWheres[r.IntN(len(paraggWheres))])
		}
		sb.WriteString(" GROUP BY window_start, window_end" + keys)
		if r.IntN(4) == 0 {
			fmt.Fprintf(&sb, " HAVING %s", paraggHavings[r.IntN(len(paraggHavings))])
		}
		if r.IntN(3) == 0 {
			fmt.Fprintf(&sb, " LATE INTO SIDE 'late%d'", b)
		}
		sb.WriteString(";\n")
	}
	c.script = sb.String()
	return c
}

// TestParallelAggregateMatchesSequential is the property above, on 80
// random jobs (the seed of a failing one is in its name: go test -run
// 'TestParallelAggregateMatchesSequential/seed=N'). It also checks that the
// jobs ran on the parallel aggregate, and that both kinds of chunks were
// met: used as the workers made them, and given back to the sequential path.
func TestParallelAggregateMatchesSequential(t *testing.T) {
	n := 80
	if testing.Short() {
		n = 20
	}
	jobs0, used0, redone0 := executor.ParaggRuns()
	for seed := range uint64(n) {
		c := randomParaggCase(seed)
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			j0, _, _ := executor.ParaggRuns()
			want, _ := runMorselCase(t, c, 1, 0)
			if j, _, _ := executor.ParaggRuns(); j != j0 {
				t.Fatal("the parallel aggregate ran with GOMAXPROCS=1")
			}
			procs := 2 + int(seed%3) // 2, 3 or 4 workers
			got, _ := runMorselCase(t, c, procs, c.chunk)
			ran := int64(1)
			if strings.Contains(c.script, "'state.max-bytes' = '") && !strings.Contains(c.script, "GiB") {
				ran = 0 // a lowered limit keeps the sequential path
			}
			if j, _, _ := executor.ParaggRuns(); j != j0+ran {
				t.Fatalf("%s\n%d jobs on the parallel aggregate, want %d", c.script, j-j0, ran)
			}
			if got != want {
				g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
				for k := range min(len(g), len(w)) {
					if g[k] != w[k] {
						t.Fatalf("%s\nformat %s, side-dir %v, chunks of %d bytes, GOMAXPROCS=%d: line %d differs:\nparallel   %q\nsequential %q",
							c.script, c.format, c.sideDir, c.chunk, procs, k+1, g[k], w[k])
					}
				}
				t.Fatalf("%s\nparallel wrote %d lines, sequential %d", c.script, len(g), len(w))
			}
		})
	}
	jobs, used, redone := executor.ParaggRuns()
	if jobs-jobs0 < int64(n)*3/4 {
		t.Fatalf("only %d of %d jobs on the parallel aggregate", jobs-jobs0, n)
	}
	t.Logf("%d jobs on the parallel aggregate: %d chunks used, %d given back", jobs-jobs0, used-used0, redone-redone0)
	if used-used0 < 20*int64(n) || redone-redone0 < int64(n)/2 {
		t.Fatalf("too few chunks of a kind: %d used, %d given back", used-used0, redone-redone0)
	}
}

// paraggAnalysis runs EXPLAIN ANALYZE of script over dir (chunks of 4 KiB)
// with procs CPUs and returns what it counted, and how many jobs the
// parallel aggregate ran.
func paraggAnalysis(t *testing.T, script, dir string, procs int) (string, int64) {
	t.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	job := sensorbench.Plan(t, script, dir)
	j0, _, _ := executor.ParaggRuns()
	stats, err := executor.Analyze(context.Background(), job, &executor.Env{ChunkSize: 4 << 10})
	if err != nil {
		t.Fatal(err)
	}
	j1, _, _ := executor.ParaggRuns()
	a := stats.Analysis
	s := fmt.Sprintf("rows %d malformed %d branches %v outputs %v windows %+v\n", stats.Rows, stats.Streams[0].Malformed, a.Branches, a.Outputs, a.Windows)
	for _, op := range a.Ops {
		s += fmt.Sprintf("%s in %d out %d\n", op.Name, op.RowsIn, op.RowsOut)
	}
	for _, l := range stats.Late {
		s += session.LateNotice(l) + "\n"
	}
	return s, j1 - j0
}

// TestParallelAggregateAnalyzeCounts: EXPLAIN ANALYZE of a windowed job run
// on the parallel aggregate (GOMAXPROCS=2, chunks of 4 KiB) counts what the
// sequential path counts (SPEC 3): each operator's rows in and out, each
// branch's and output's rows, the rows decoded and the malformed ones, and
// each aggregate's rows, most open windows, most groups and late rows; on
// the benchmark's TUMBLE job and on a HOP job with late and malformed rows.
func TestParallelAggregateAnalyzeCounts(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "sensors.csv"), sensorbench.CSV(60_000), 0o644); err != nil {
		t.Fatal(err)
	}
	// sensor rows (deviceNo, ts, temperature: sensorbench.Plan's columns)
	// out of order, late, NULL and malformed, from randomEventInput's
	r := rand.New(rand.NewPCG(5, 5))
	var events strings.Builder
	for _, line := range strings.Split(randomEventInput(r, 1000, 0, true, false, false)+randomEventInput(r, 1500, 0, true, false, false), "\n") {
		if f := strings.Split(line, ","); len(f) == 4 {
			if f[3] == "oops" {
				f[2] = "oops"
			}
			events.WriteString(strings.Join(f[:3], ",") + "\n")
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "events.csv"), []byte(events.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	hop := `CREATE STREAM s (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'file', 'path' = 'events.csv', 'format' = 'csv');
SELECT window_start, deviceNo, COUNT(*) AS c, SUM(temperature) AS st INTO SIDE 'hop' FROM TABLE(HOP(TABLE s, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '6' SECOND)) WHERE temperature > 50 GROUP BY window_start, window_end, deviceNo LATE INTO SIDE 'lt';
SELECT window_start, window_end, LISTAGG(deviceNo) AS ks FROM TABLE(TUMBLE(TABLE s, DESCRIPTOR(ts), INTERVAL '4' SECOND)) GROUP BY window_start, window_end HAVING COUNT(*) > 3;
`
	for _, script := range []string{sensorbench.TumbleScript, hop} {
		want, ran := paraggAnalysis(t, script, dir, 1)
		if ran != 0 {
			t.Fatal("the parallel aggregate ran with GOMAXPROCS=1")
		}
		got, ran := paraggAnalysis(t, script, dir, 2)
		if ran != 1 {
			t.Fatalf("%d jobs on the parallel aggregate", ran)
		}
		if got != want {
			t.Fatalf("sequential:\n%s\nparallel:\n%s", want, got)
		}
		t.Log(got)
	}
}

// TestParallelAggregateAnalyzeTimes: EXPLAIN ANALYZE times the operators on
// every path, the parallel aggregate's and the morsel pipeline's workers
// too (GOMAXPROCS=2), and a job that only runs times none (chainOpts.timed).
func TestParallelAggregateAnalyzeTimes(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "sensors.csv"), sensorbench.CSV(60_000), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, script := range []string{sensorbench.TumbleScript, sensorbench.SplitScript} {
		for _, analyze := range []bool{true, false} {
			job := sensorbench.Plan(t, script, dir)
			env := &executor.Env{ChunkSize: 4 << 10}
			var stats executor.Stats
			var err error
			if analyze {
				stats, err = executor.Analyze(context.Background(), job, env)
			} else {
				stats, err = executor.Run(context.Background(), job, env, func() (executor.Sink, error) { return discardSink{}, nil })
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, op := range stats.Analysis.Ops {
				// the router and the aggregate do work on every row: at
				// least a ns a row (the workers' time counted too)
				if analyze && (op.Name == "router" || op.Name == "aggregate") && op.Nanos < op.RowsIn {
					t.Errorf("EXPLAIN ANALYZE: %s took %d rows in %d ns", op.Name, op.RowsIn, op.Nanos)
				}
				if !analyze && op.Nanos != 0 {
					t.Errorf("a run that is not analyzed timed %s: %d ns", op.Name, op.Nanos)
				}
			}
		}
	}
}

// discardSink drops every output.
type discardSink struct{}

func (discardSink) Rows(*executor.Step) error                { return nil }
func (discardSink) Errors(string, []executor.ErrorRow) error { return nil }
func (discardSink) Flush() error                             { return nil }
func (discardSink) Close() error                             { return nil }

// paraggMallocs runs the TUMBLE job over rows sensor rows (sensorbench.CSV)
// on the parallel aggregate (GOMAXPROCS=2, chunks of 16 KiB) and returns the
// heap allocations of the run.
func paraggMallocs(t *testing.T, rows int) uint64 {
	t.Helper()
	j0, used0, redone0 := executor.ParaggRuns()
	m := scriptMallocs(t, sensorbench.TumbleScript, rows)
	if j, used, redone := executor.ParaggRuns(); j != j0+1 || redone != redone0 || used == used0 {
		t.Fatalf("the TUMBLE job: %d jobs on the parallel aggregate, %d chunks used, %d given back", j-j0, used-used0, redone-redone0)
	}
	return m
}

// TestParallelAggregateSteadyStateAllocs: the parallel aggregate allocates
// nothing per row, nor per chunk, in steady state (the hot path allocates
// nothing per row): 4 times the rows (and chunks, and windows fired) cost no
// more allocations than a small constant.
func TestParallelAggregateSteadyStateAllocs(t *testing.T) {
	small, big := paraggMallocs(t, 160_000), paraggMallocs(t, 640_000)
	t.Logf("allocations: %d for 160,000 rows, %d for 640,000", small, big)
	if big > small+50 {
		t.Fatalf("%d allocations for 160,000 rows, %d for 640,000: %.3f per extra row", small, big, float64(big-small)/480_000)
	}
}

// TestParallelAggregateNearStateLimit: once the job's state with a chunk's
// partials merged could pass half of 'state.max-bytes', that chunk and the
// rest of the file take the sequential path (paragg.go): the TUMBLE job
// under a limit its state nears (about 15 KiB of 16 groups at its peak,
// under a limit of 24 KiB), with the floor that keeps lowered limits on the
// sequential path lowered for the test, gives chunks back and writes what
// the sequential path writes.
func TestParallelAggregateNearStateLimit(t *testing.T) {
	defer executor.SetParaggStateFloor(executor.SetParaggStateFloor(0))
	c := morselCase{files: map[string]string{"sensors.csv": string(sensorbench.CSV(100_000))}, format: "csv",
		script: "SET 'state.max-bytes' = '24KiB';\n" + sensorbench.TumbleScript}
	want, _ := runMorselCase(t, c, 1, 0)
	j0, used0, redone0 := executor.ParaggRuns()
	got, _ := runMorselCase(t, c, 2, 16<<10)
	j, used, redone := executor.ParaggRuns()
	if j != j0+1 || redone == redone0 || used == used0 {
		t.Fatalf("%d jobs on the parallel aggregate, %d chunks used, %d given back", j-j0, used-used0, redone-redone0)
	}
	if got != want {
		t.Fatalf("parallel:\n%.2000s\nsequential:\n%.2000s", got, want)
	}
	if !strings.HasPrefix(want, "exit 0") {
		t.Fatalf("the job failed: %.500s", want)
	}
}

// TestParallelAggregateBoundsItsWork: the parallel window aggregate leaves
// out a HOP of more windows per row than plan.ParallelAggregateMaxWindowsPerRow (each chunk's
// partials would hold its rows times their windows, uncharged), and gives
// back to the sequential path the chunks whose merge would walk their many
// partial windows at many cuts (a TUMBLE far smaller than the time between
// rows: a window and a cut per row), with the same output as one CPU.
func TestParallelAggregateBoundsItsWork(t *testing.T) {
	var sb strings.Builder
	for i := range 20_000 {
		fmt.Fprintf(&sb, "d%d,%d,%d.5\n", i%3, 1_600_000_000_000+int64(i)*200, i%90)
	}
	ddl := "CREATE STREAM s (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE, WATERMARK FOR ts AS ts - INTERVAL '0.1' SECOND) WITH ('connector'='file', 'path'='sensors.csv', 'format'='csv');\n"
	for _, c := range []struct {
		name, query string
		onParagg    bool // the job runs on the parallel aggregate (else: not at all)
		redone      bool // and gives chunks back (else: not checked)
	}{
		{"HOP of 2000 windows per row", "SELECT window_start, COUNT(*) AS c FROM TABLE(HOP(TABLE s, DESCRIPTOR(ts), INTERVAL '0.01' SECOND, INTERVAL '20' SECOND)) GROUP BY window_start, window_end;", false, false},
		{"HOP of 16 windows per row", "SELECT window_start, COUNT(*) AS c FROM TABLE(HOP(TABLE s, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '16' SECOND)) GROUP BY window_start, window_end;", true, false},
		{"TUMBLE of 10 ms over rows 200 ms apart", "SELECT window_start, deviceNo, COUNT(*) AS c FROM TABLE(TUMBLE(TABLE s, DESCRIPTOR(ts), INTERVAL '0.01' SECOND)) GROUP BY window_start, window_end, deviceNo;", true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !c.onParagg && executor.RaceDetector {
				t.Skip("a job that never starts the parallel aggregate's goroutines: checked by the run without -race")
			}
			mc := morselCase{files: map[string]string{"sensors.csv": sb.String()}, format: "csv", script: ddl + c.query}
			want, _ := runMorselCase(t, mc, 1, 0)
			j0, _, redone0 := executor.ParaggRuns()
			got, _ := runMorselCase(t, mc, 2, 128<<10) // (chunks of some 4,700 rows: 4,700 cuts by 4,700 windows)
			j, _, redone := executor.ParaggRuns()
			if (j > j0) != c.onParagg || c.redone && redone == redone0 {
				t.Errorf("%d jobs on the parallel aggregate (want %v), %d chunks given back (want some: %v)", j-j0, c.onParagg, redone-redone0, c.redone)
			}
			if got != want || !strings.HasPrefix(want, "exit 0") {
				t.Fatalf("parallel:\n%.1000s\nsequential:\n%.1000s", got, want)
			}
		})
	}
}

// TestParallelAggregateLongQuotedRecords: a quoted field whose line breaks
// span several chunks makes the chunk reader drop the chunks that start
// inside it (their rows are not rows), valid or never closed; the workers'
// partials of those chunks must not reach a later chunk's merge: the output
// is one CPU's, over random places and lengths.
func TestParallelAggregateLongQuotedRecords(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for round := range 6 {
		n := 40_000 + r.IntN(40_000)
		rows := make([]string, n)
		for i := range rows {
			rows[i] = fmt.Sprintf("g%d,%d,1.0,t", i%8, 1_600_000_000_000+int64(i)*10)
		}
		from := 100 + r.IntN(n/2)
		to := from + 10_000 + r.IntN(n/3) // lines inside the field: 250 KB and more, longer than a chunk
		rows[from] = fmt.Sprintf("g0,%d,1.0,\"start", 1_600_000_000_000+int64(from)*10)
		if round%2 == 0 && to < n {
			rows[to] = "end\"" // closed: one long record; else never closed: malformed to the end
		}
		script := "CREATE STREAM s (g VARCHAR, ts BIGINT, v DOUBLE, tag VARCHAR, WATERMARK FOR ts AS ts) WITH ('connector'='file', 'path'='x.csv', 'format'='csv');\n" +
			"SELECT window_start, g, COUNT(*) AS c, MAX(CHAR_LENGTH(tag)) AS l FROM TABLE(TUMBLE(TABLE s, DESCRIPTOR(ts), INTERVAL '1' DAY)) GROUP BY window_start, window_end, g;\n"
		mc := morselCase{files: map[string]string{"x.csv": strings.Join(rows, "\n") + "\n"}, format: "csv", script: script}
		want, _ := runMorselCase(t, mc, 1, 0)
		j0, _, _ := executor.ParaggRuns()
		got, _ := runMorselCase(t, mc, 2, []int64{0, 64 << 10}[round/3])
		if j, _, _ := executor.ParaggRuns(); j == j0 {
			t.Fatalf("round %d: the job did not run on the parallel aggregate", round)
		}
		if got != want {
			t.Fatalf("round %d (field on lines %d-%d of %d): parallel:\n%.1500s\nsequential:\n%.1500s", round, from+1, to+1, n, got, want)
		}
	}
}
