package executor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"streamql/executor/chunked"
	"streamql/executor/strategy"
	"streamql/internal/sensorbench"
)

// parallelInput writes a sensor csv of about 4 chunks with quoted device
// names spanning lines (some across chunk ends), a CRLF now and then and
// malformed rows, and returns its folder.
func parallelInput(t *testing.T) string {
	dir := t.TempDir()
	var sb strings.Builder
	for k := 0; sb.Len() < 4*chunked.DefaultChunkSize; k++ {
		switch {
		case k%997 == 5:
			fmt.Fprintf(&sb, "\"dev\n%d\n%s\",%d,%d\n", k, strings.Repeat("x\n", k%3000), k, k%101)
		case k%499 == 7 && k > 40000: // (the first in the third chunk or so: errors=fail stops there)
			fmt.Fprintf(&sb, "dev%d,not a number,%d\n", k, k%101)
		case k%13 == 0:
			fmt.Fprintf(&sb, "dev%d,%d,%d\r\n", k%7, k, k%101)
		default:
			fmt.Fprintf(&sb, "dev%d,%d,%d\n", k%7, k, k%101)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "sensors.csv"), []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestParallelMatchesSequential runs the split job over a file decoded in
// chunks on 2 workers (GOMAXPROCS=3), ahead on one goroutine (GOMAXPROCS=2)
// and on the job's goroutine (GOMAXPROCS=1):
// the outputs, the malformed rows with their positions, the counts, and the
// failure of 'errors'='fail' and a LIMIT's cut are the same.
func TestParallelMatchesSequential(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	dir := parallelInput(t)
	for _, tc := range []struct{ name, sql, errors string }{
		{"split", sensorbench.SplitScript, ""},
		{"errors fail", sensorbench.SplitScript, "fail"},
		{"limit", strings.Replace(sensorbench.SplitScript, "FROM sensors;", "FROM sensors LIMIT 70000;", 1), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var outs [3]string
			for i, procs := range []int{1, 2, 3} {
				runtime.GOMAXPROCS(procs)
				job := sensorbench.Plan(t, tc.sql, dir)
				if tc.errors != "" {
					setOption(t, job.Stream, "errors", tc.errors)
				}
				env := &Env{}
				src, _, err := env.Open(context.Background(), job.Stream)
				if err != nil {
					t.Fatal(err)
				}
				if probe, h, err := env.Open(context.Background(), job.Stream); err != nil {
					t.Fatal(err)
				} else {
					if par := job.Prefetchable(procs) && strategy.ParallelReader(job.BatchTypes, job.OnlyAggregates(), h.Parallel) != nil; par != (procs > 2) {
						t.Fatalf("GOMAXPROCS=%d: decoded in parallel = %v", procs, par)
					}
					probe.Close()
				}
				sink := &textSink{names: []string{"main", "low-tmp", "high-tmp"}}
				var stats Stats
				err = run(context.Background(), job, src, sink, &stats, nil)
				src.Close()
				var re *RowError
				if err != nil && !errors.As(err, &re) {
					t.Fatal(err)
				}
				outs[i] = fmt.Sprintf("%s\nerror %v\nmalformed %d", strings.Join(sink.out, "\n"), err, stats.Streams[0].Malformed)
				if err == nil { // (a failing job counts the rows decoded with the failing one: its batch's)
					outs[i] += fmt.Sprintf(" rows %d", stats.Rows)
				}
				if len(sink.out) < 1000 {
					t.Fatalf("GOMAXPROCS=%d: only %d rows out", procs, len(sink.out))
				}
			}
			if outs[0] != outs[2] || outs[1] != outs[2] {
				a, b := strings.Split(outs[0], "\n"), strings.Split(outs[2], "\n")
				for k := range min(len(a), len(b)) {
					if a[k] != b[k] {
						t.Fatalf("line %d: parallel %q, sequential %q", k, b[k], a[k])
					}
				}
				t.Fatalf("parallel %d lines, sequential %d", len(b), len(a))
			}
		})
	}
}
