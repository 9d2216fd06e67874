package executor

import (
	"slices"
	"testing"

	"streamql/executor/rank"
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
		if perBatch > maxSteadyAllocsPerBatch {
			t.Errorf("ORDER BY ts %s: %.3f allocations per batch of 1024 rows (100 batches: %.0f, 400: %.0f)", dir, perBatch, few, many)
		}
	}
}

// TestFusedRankCalcAllocatesNothingPerBatch: a Top-10 per device with a
// condition beside its bound and an expression in its select list, over a
// Kafka stream in a consumer group (the query over it fused into the job:
// executor/stateless's RankCalc after the rank) allocates nothing per batch
// in steady state (issue 24: the hot path rule).
func TestFusedRankCalcAllocatesNothingPerBatch(t *testing.T) {
	script := `CREATE STREAM sensors (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE)
  WITH ('connector' = 'kafka', 'topic' = 't', 'properties.bootstrap.servers' = '127.0.0.1:9', 'properties.group.id' = 'g', 'format' = 'csv');
SELECT deviceNo, ts * 2 AS t2
  FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY deviceNo ORDER BY ts DESC) AS rn FROM sensors)
 WHERE rn <= 10 AND ts % 3 <> 0;
`
	job := sensorbench.Plan(t, script, "")
	if !job.Main.Rank.Fused() {
		t.Fatal("the query over the Top-N is not fused into its job")
	}
	perBatch, few, many := allocsPerBatch(t, job, func(sink *discardCounting, batches int) {
		if sink.chunkRows == 0 {
			t.Fatal("no change reached the sink")
		}
	})
	if perBatch > maxSteadyAllocsPerBatch {
		t.Errorf("%.3f allocations per batch of 1024 rows (100 batches: %.0f, 400: %.0f)", perBatch, few, many)
	}
}

// TestTopNStoresAColumnOnce: the planner's hidden PARTITION BY and ORDER BY
// columns ($rankN) that compute a column the query shows again are not
// stored twice by the Top-N (its input is narrowed to the distinct
// columns), while one computing something else, or drawing a random
// number, is.
func TestTopNStoresAColumnOnce(t *testing.T) {
	for _, c := range []struct {
		query string
		want  []int // the input columns the Top-N takes (all: nil)
	}{
		{"SELECT k, ts, temperature FROM (SELECT ts % 100 AS k, ts, temperature, ROW_NUMBER() OVER (PARTITION BY ts % 100 ORDER BY temperature DESC) AS rn FROM sensors) WHERE rn <= 3", []int{0, 1, 2}},
		{"SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY deviceNo ORDER BY ts DESC) AS rn FROM sensors) WHERE rn <= 1", []int{0, 1, 2}},
		{"SELECT deviceNo, ts FROM (SELECT deviceNo, ts, ROW_NUMBER() OVER (PARTITION BY ts % 7 ORDER BY temperature) AS rn FROM sensors) WHERE rn <= 2", nil},
		{"SELECT r, ts FROM (SELECT RAND() AS r, ts, ROW_NUMBER() OVER (PARTITION BY ts ORDER BY RAND()) AS rn FROM sensors) WHERE rn <= 2", []int{0, 1, 3}}, // (ts once; RAND() drawn twice: two values)
	} {
		script := "CREATE STREAM sensors (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE)\n  WITH ('connector' = 'file', 'path' = 'sensors.csv', 'format' = 'csv', 'follow' = 'true');\n" + c.query + ";\n"
		job := sensorbench.Plan(t, script, "")
		o, err := rank.New(job, nil, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(o.Narrow(), c.want) {
			t.Errorf("%s: the Top-N takes the columns %v of %d, want %v", c.query, o.Narrow(), len(job.Main.Rank.Types), c.want)
		}
	}
}
