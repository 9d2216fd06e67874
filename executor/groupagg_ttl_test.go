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
	clock := []int64{0, 5, 20, 26}
	calls := 0
	defer func() { ttlNow = nil }()
	ttlNow = func() int64 { calls++; return clock[min(calls-1, len(clock)-1)] }
	job := sensorbench.Plan(t, `CREATE STREAM sensors (deviceNo VARCHAR, ts BIGINT, temperature DOUBLE)
  WITH ('connector' = 'file', 'path' = 'sensors.csv', 'format' = 'csv', 'follow' = 'true');
SELECT ts AS k, COUNT(*) AS n FROM sensors GROUP BY ts;
`, "")
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
