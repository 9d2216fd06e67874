package executor

import (
	"testing"

	"streamql/internal/sensorbench"
)

// TestTopNJobAllocatesNothingPerBatch: a job ending in a Top-10 per device
// over an unbounded stream (its changelog to the sink) allocates nothing per
// batch in steady state (issue 24: the hot path rule), both when every row
// enters its device's top (ORDER BY ts DESC over rising times: each row
// ranks first, the tenth leaves: -D and +I per row) and when none does
// (ORDER BY ts ASC: the first ten of each device stay).
func TestTopNJobAllocatesNothingPerBatch(t *testing.T) {
	for _, dir := range []string{"DESC", "ASC"} {
		script := `CREATE STREAM sensors (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE)
  WITH ('connector' = 'file', 'path' = 'sensors.csv', 'format' = 'csv', 'follow' = 'true');
SELECT deviceNo, ts, temperature
  FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY deviceNo ORDER BY ts ` + dir + `) AS rn FROM sensors)
 WHERE rn <= 10;
`
		job := sensorbench.Plan(t, script, "")
		perBatch, few, many := allocsPerBatch(t, job, func(sink *discardCounting, batches int) {
			if enters := dir == "DESC"; enters && sink.chunkRows < int64(batches)*1024 || !enters && sink.chunkRows > int64(batches)*1024/10 {
				t.Fatalf("ORDER BY ts %s: %d changes for %d batches", dir, sink.chunkRows, batches)
			}
		})
		if perBatch > 0.01 {
			t.Errorf("ORDER BY ts %s: %.3f allocations per batch of 1024 rows (100 batches: %.0f, 400: %.0f)", dir, perBatch, few, many)
		}
	}
}
