package tests

import (
	"strings"
	"testing"

	_ "streamql/executor/connector" // the file connector
	"streamql/internal/sensorbench"
	"streamql/planner/plan"
)

// TestExplainLines: every line of Explain gets what it describes (for EXPLAIN
// ANALYZE): a join under a side branch and an aggregate under main belong to
// their branches (index in side-then-main order), the build source line to
// its join, and Sink lines count the outputs in Job.Outputs' order.
func TestExplainLines(t *testing.T) {
	job := sensorbench.Plan(t, `CREATE STREAM sensors (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE, WATERMARK FOR ts AS ts)
  WITH ('connector' = 'file', 'path' = 'sensors.csv', 'format' = 'csv');
CREATE STREAM known (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE) WITH ('connector' = 'file', 'path' = 'known.csv');
SELECT deviceNo INTO SIDE 'seen' FROM sensors WHERE deviceNo IN (SELECT deviceNo FROM known);
SELECT deviceNo INTO SIDE 'cold' FROM sensors WHERE temperature < 10;
SELECT window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE sensors, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
  GROUP BY window_start, window_end LATE INTO SIDE 'late-rows';
`, t.TempDir())
	lines := job.ExplainLines()
	if got, want := len(lines), strings.Count(job.Explain(), "\n"); got != want {
		t.Fatalf("%d lines, Explain has %d", got, want)
	}
	type kb struct {
		kind           plan.LineKind
		branch, output int
	}
	find := func(prefix string) kb {
		for _, l := range lines {
			if strings.HasPrefix(strings.TrimSpace(l.Text), prefix) {
				return kb{l.Kind, l.Branch, l.Output}
			}
		}
		t.Fatalf("no line %q in\n%s", prefix, job.Explain())
		return kb{}
	}
	for prefix, want := range map[string]kb{
		"Source: sensors":      {plan.LineSource, -1, -1},
		"Decode: csv":          {plan.LineDecode, -1, -1},
		"Watermark: ts":        {plan.LineWatermark, -1, -1},
		"Process: first match": {plan.LineProcess, -1, -1},
		"1. side 'seen'":       {plan.LineBranch, 0, -1},
		"Semi hash join":       {plan.LineJoin, 0, -1},
		"build source: known":  {plan.LineBuild, 0, -1},
		"keys: ":               {plan.LineDetail, 0, -1},
		"2. side 'cold'":       {plan.LineBranch, 1, -1},
		"main: ":               {plan.LineBranch, 2, -1},
		"Window aggregate: ":   {plan.LineAggregate, 2, -1},
		"late rows -> ":        {plan.LineLate, 2, -1},
		"Sink: main ":          {plan.LineSink, -1, 0},
		"Sink: seen ":          {plan.LineSink, -1, 1},
		"Sink: cold ":          {plan.LineSink, -1, 2},
		"Sink: late-rows ":     {plan.LineSink, -1, 3},
	} {
		if got := find(prefix); got != want {
			t.Errorf("%q: %+v, want %+v", prefix, got, want)
		}
	}
}
