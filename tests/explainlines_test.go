package tests

import (
	"strings"
	"testing"

	_ "streamql/executor/connector"       // the file connector
	_ "streamql/executor/connector/kafka" // registers kafka and upsert-kafka
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
			if strings.HasPrefix(strings.TrimLeft(l.Text, " :|+-"), prefix) {
				return kb{l.Kind, l.Branch, l.Output}
			}
		}
		t.Fatalf("no line %q in\n%s", prefix, job.Explain())
		return kb{}
	}
	for prefix, want := range map[string]kb{
		"Scan sensors":            {plan.LineSource, -1, -1},
		"strategy: ":              {plan.LineOther, -1, -1},
		"Decode csv":              {plan.LineDecode, -1, -1},
		"[errors] Sink errors":    {plan.LineOther, -1, -1},
		"AssignWatermark ts":      {plan.LineWatermark, -1, -1},
		"Route first match":       {plan.LineProcess, -1, -1},
		"port 1 'seen'":           {plan.LineBranch, 0, -1},
		"Join Semi":               {plan.LineJoin, 0, -1},
		"Scan known":              {plan.LineBuild, 0, -1},
		"keys: ":                  {plan.LineDetail, 0, -1},
		"port 2 'cold'":           {plan.LineBranch, 1, -1},
		"Filter temperature < 10": {plan.LineFilter, 1, -1},
		"port main":               {plan.LineBranch, 2, -1},
		"Aggregate TUMBLE":        {plan.LineAggregate, 2, -1},
		"late rows -> ":           {plan.LineLate, 2, -1},
		"Sink main ":              {plan.LineSink, -1, 0},
		"Sink seen ":              {plan.LineSink, -1, 1},
		"Sink cold ":              {plan.LineSink, -1, 2},
		"[late] Sink late-rows ":  {plan.LineSink, -1, 3},
		"[build] -> #":            {plan.LineOther, -1, -1},
	} {
		if got := find(prefix); got != want {
			t.Errorf("%q: %+v, want %+v", prefix, got, want)
		}
	}
}
