package executor

import (
	"testing"

	"streamql/internal/sensorbench"
	"streamql/planner"
)

// TestAggregateAllocatesNothingPerRow: once its windows and groups exist, the
// aggregate operator's per-row path (window assignment, key, accumulators)
// allocates nothing (the hot path rule): a job of 300 batches allocates what a
// job of 100 does, within the noise of setup.
func TestAggregateAllocatesNothingPerRow(t *testing.T) {
	// windows of a minute open and fire all along (about 3,000 rows each): once
	// the first have fired, their state is reused
	job := sensorbench.Plan(t, sensorbench.TumbleScript, "")
	perBatch, few, many := allocsPerBatch(t, job, func(sink *discardCounting, _ int) {
		if sink.rows > 0 {
			t.Fatalf("%d late rows", sink.rows)
		}
	})
	if perBatch > maxSteadyAllocsPerBatch {
		t.Errorf("%.3f allocations per batch of 1024 rows (100 batches: %.0f, 400: %.0f)", perBatch, few, many)
	}
}

// maxSteadyAllocsPerBatch is the most allocations per batch allocsPerBatch
// may find in a job that allocates nothing per batch: the job's goroutines
// (its readers, the sink's) allocate a few more or fewer while it starts
// and stops as they happen to be scheduled (up to 4 either way over 300
// batches under the race detector), while one allocation a batch gives 1
// and one a row 1024.
const maxSteadyAllocsPerBatch = 0.05

// allocsPerBatch runs job over 100 and then 400 batches of rising sensor
// rows (risingSource) into a counting sink, check looking at each run's
// sink and number of batches, and returns the allocations per batch
// between the two (the steady state's, setup left out) and each run's.
func allocsPerBatch(t *testing.T, job *planner.Job, check func(sink *discardCounting, batches int)) (perBatch, few, many float64) {
	allocs := func(batches int) float64 {
		return testing.AllocsPerRun(3, func() {
			src := &limitSource{Source: newRisingSource(job), n: batches}
			var stats Stats
			sink := &discardCounting{}
			if err := run(t.Context(), job, src, sink, &stats, nil); err != nil {
				t.Fatal(err)
			}
			check(sink, batches)
		})
	}
	few, many = allocs(100), allocs(400)
	return (many - few) / 300, few, many
}
