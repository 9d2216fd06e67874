package executor

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"streamql/catalog"
	"streamql/executor/csvdec"
	"streamql/executor/vector"
	"streamql/internal/sensorbench"
	"streamql/planner"
)

// batchesSource gives one batch per csv text, then io.EOF.
type batchesSource struct {
	endlessSource
	texts []string
	names []string
	types []catalog.Type
}

func (s *batchesSource) Next(b *vector.Batch, bad *[]BadRow) error {
	if len(s.texts) == 0 {
		b.Reset()
		return io.EOF
	}
	dec := csvdec.NewDecoder(strings.NewReader(s.texts[0]), s.names, s.types, csvdec.Options{})
	s.texts = s.texts[1:]
	return dec.Decode(b, bad) // (the text is one batch)
}

// kindSink keeps the chunks' rows as "kind key count".
type kindSink struct {
	nopSink
	got []string
}

func (s *kindSink) Rows(r *Step) error {
	for _, c := range r.Chunks {
		for _, i := range c.Sel {
			s.got = append(s.got, fmt.Sprintf("%s %d %d", c.KindAt(int(i)), c.Cols[0].I[i], c.Cols[1].I[i]))
		}
	}
	return nil
}

// TestGroupByStateTTLProcessingTime: 'table.exec.state.ttl' on an unbounded
// GROUP BY over a stream without event time (SPEC 2.8) counts processing
// time, read once per input batch: a group unchanged for the TTL is dropped
// without a change, and its key's next row starts it anew with +I (Flink's
// state TTL); a group changed within the TTL goes on (-U/+U).
func TestGroupByStateTTLProcessingTime(t *testing.T) {
	procTimeTTL(t, `CREATE STREAM sensors (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE)
  WITH ('connector' = 'file', 'path' = 'sensors.csv', 'format' = 'csv', 'follow' = 'true');
SELECT ts AS k, COUNT(*) AS n FROM sensors GROUP BY ts;
`, nil)
}

// TestGroupByOverViewStateTTLProcessingTime (issue 24 item 5): an unbounded
// GROUP BY over a subquery that drops the event time of a Kafka stream in a
// consumer group is planned over the stream (the planner's ruleInlineView),
// whose WATERMARK then runs in the job; its 'table.exec.state.ttl' still
// counts processing time, as over the subquery (plan.Aggregate.ProcTimeTTL):
// the changes are TestGroupByStateTTLProcessingTime's, which the
// watermark's clock (1, 2: never 10 ms past a group's) would not give.
func TestGroupByOverViewStateTTLProcessingTime(t *testing.T) {
	procTimeTTL(t, `CREATE STREAM sensors (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE, WATERMARK FOR ts AS ts)
  WITH (`+kafkaGroup+`);
SELECT k, COUNT(*) AS n FROM (SELECT ts + 0 AS k FROM sensors WHERE temperature > 0) GROUP BY k;
`, func(job *planner.Job) {
		if job.Stream.Kafka() == nil || !job.Main.Agg.ProcTimeTTL || job.WatermarkCol < 0 {
			t.Fatalf("not planned over the stream with a processing-time TTL: stream %s, ProcTimeTTL %v, watermark column %d", job.Stream.Name, job.Main.Agg.ProcTimeTTL, job.WatermarkCol)
		}
	})
}

// procTimeTTL runs script's GROUP BY (a key k, a count; check, if not nil,
// checks its plan) with a 10 ms TTL over four batches at processing times
// 0, 5, 20 and 26 ms and checks the changes of a processing-time TTL.
func procTimeTTL(t *testing.T, script string, check func(*planner.Job)) {
	t.Helper()
	clock := []int64{0, 5, 20, 26}
	calls := 0
	defer func() { ttlNow = nil }()
	ttlNow = func() int64 { calls++; return clock[min(calls-1, len(clock)-1)] }
	job := sensorbench.Plan(t, script, "")
	if check != nil {
		check(job)
	}
	job.Main.Agg.StateTTL = 10 * time.Millisecond
	batches := []string{"d,1,1\nd,1,1\nd,2,1\n", "d,1,1\n", "d,1,1\nd,2,1\n", "d,1,1\n"}
	src := &batchesSource{texts: batches, names: job.Stream.Names(), types: job.Stream.Types()}
	sink := &kindSink{}
	var stats Stats
	if err := run(t.Context(), job, src, sink, &stats, nil); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"+I 1 1", "-U 1 1", "+U 1 2", "+I 2 1", // clock 0
		"-U 1 2", "+U 1 3", // clock 5: within the TTL
		"+I 1 1", "+I 2 1", // clock 20: both expired (1 last changed at 5, 2 at 0)
		"-U 1 1", "+U 1 2", // clock 26: 1 changed at 20
	}
	if !slices.Equal(sink.got, want) {
		t.Fatalf("changes\n%q\nwant\n%q", sink.got, want)
	}
}
