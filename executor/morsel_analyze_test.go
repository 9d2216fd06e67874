package executor

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"streamql/internal/sensorbench"
)

// TestMorselAnalyzeCounts: EXPLAIN ANALYZE of a job run on the morsel
// pipeline (GOMAXPROCS=2, chunks of 4 KiB) counts what the sequential path
// counts (SPEC 3): each operator's rows in and out and watermark events, each
// branch's and output's rows, the rows decoded and the malformed ones.
func TestMorselAnalyzeCounts(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	dir := parallelInput(t)
	var got [2]string
	for k, procs := range []int{1, 2} {
		runtime.GOMAXPROCS(procs)
		job := sensorbench.Plan(t, sensorbench.SplitScript, dir)
		runs := morselRuns.Load()
		stats, err := Analyze(context.Background(), job, &Env{ChunkSize: 4 << 10})
		if err != nil {
			t.Fatal(err)
		}
		if ran := morselRuns.Load() - runs; ran != int64(procs-1) {
			t.Fatalf("GOMAXPROCS=%d: %d jobs on the morsel pipeline", procs, ran)
		}
		a := stats.Analysis
		s := fmt.Sprintf("rows %d malformed %d branches %v outputs %v\n", stats.Rows, stats.Streams[0].Malformed, a.Branches, a.Outputs)
		for _, op := range a.Ops {
			s += fmt.Sprintf("%s in %d out %d watermarks %d\n", op.Name, op.RowsIn, op.RowsOut, op.Watermarks)
		}
		got[k] = s
	}
	if got[0] != got[1] {
		t.Fatalf("sequential:\n%s\nmorsel:\n%s", got[0], got[1])
	}
	if a := got[0]; len(a) < 100 {
		t.Fatalf("nothing counted: %s", a)
	}
	t.Log(got[0])
}
