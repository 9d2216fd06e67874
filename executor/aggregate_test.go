package executor

import (
	"strings"
	"testing"

	"streamql/internal/sensorbench"
)

// TestAggregateAllocatesNothingPerRow: once its windows and groups exist, the
// aggregate operator's per-row path (window assignment, key, accumulators)
// allocates nothing (the hot path rule): a job of 300 batches allocates what a
// job of 100 does, within the noise of setup.
func TestAggregateAllocatesNothingPerRow(t *testing.T) {
	// one day per window: no window fires before the end (all the rows of the
	// endless source fall into one or two of them)
	script := strings.Replace(sensorbench.TumbleScript, "INTERVAL '1' MINUTE", "INTERVAL '1' DAY", 1)
	job := sensorbench.Plan(t, script, "")
	allocs := func(batches int) float64 {
		return testing.AllocsPerRun(3, func() {
			src := &limitSource{Source: newEndlessSource(job), n: batches}
			var stats Stats
			if err := run(t.Context(), job, src, &discardCounting{}, &stats, nil); err != nil {
				t.Fatal(err)
			}
		})
	}
	few, many := allocs(100), allocs(300)
	if perBatch := (many - few) / 200; perBatch > 0.05 {
		t.Errorf("%.2f allocations per batch of 1024 rows (100 batches: %.0f, 300: %.0f)", perBatch, few, many)
	}
}
