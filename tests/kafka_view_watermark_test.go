package tests

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"streamql/tests/kafkatest"
)

// TestKafkaViewWatermark (SPEC 2.5, 2.6; plan.Derived.StreamWatermarks), against
// the real broker: a window over a view, WITH name or subquery that filters
// a two-partition topic gives the windows and late rows of the same window
// over the stream with the relation's WHERE inline, as sets (the partitions'
// interleaving is the consumer's), also in a consumer group (where the
// planner runs the window over the stream itself, ruleInlineView). Rows are
// late by their own partition's watermark, which rows the WHERE drops move
// too: y,5000 after x,10000 on partition 0 (WATERMARK ts - 1 s) is late,
// y,3000 on partition 1, which lags, is not. The relation computed its own
// watermark over the rows it kept, one for both partitions, and counted
// y,5000 and made y,3000 late.
func TestKafkaViewWatermark(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	var vals []string
	var ps []int32
	ts := [2]int64{20_000, 0}
	add := func(p int32, k string, t int64) {
		vals = append(vals, fmt.Sprintf("%s,%d", k, t))
		ps = append(ps, p)
	}
	add(0, "x", 10_000)
	add(0, "y", 5_000)
	add(1, "y", 3_000)
	for range 300 {
		p := rng.Intn(2)
		ts[p] += int64(rng.Intn(700))
		at := ts[p]
		if rng.Intn(6) == 0 {
			at -= int64(rng.Intn(6_000))
		}
		add(int32(p), string(rune('x'+rng.Intn(3))), at)
	}
	in := kafkatest.CreateTopic(t, 2, nil)
	produceValues(t, in, vals, ps)
	const cols = "k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND"
	win := func(rel, where string) string {
		return "SELECT window_start, k, COUNT(*) AS n, SUM(ts) AS s FROM TABLE(TUMBLE(TABLE " + rel + ", DESCRIPTOR(ts), INTERVAL '2' SECOND))" + where +
			" GROUP BY window_start, window_end, k LATE INTO SIDE 'lt';\n"
	}
	const where = "k <> 'x'"
	var want string
	for _, grouped := range []bool{false, true} {
		for _, fm := range []struct{ name, sql string }{
			{"inline", win("s", " WHERE "+where)},
			{"view", "CREATE VIEW v AS SELECT * FROM s WHERE " + where + ";\n" + win("v", "")},
			{"WITH", "WITH w AS (SELECT k, ts FROM s WHERE " + where + ") " + win("w", "")},
		} {
			group := ""
			if grouped { // (a group of its own: the committed offsets are the job's checkpoint, SPEC 2.5)
				group = ", 'properties.group.id'='" + in + "-" + fm.name + "'"
			}
			sql := kafkaStream(t, "s", cols, in, ", 'format'='csv', 'scan.startup.mode'='earliest-offset', 'scan.bounded.mode'='latest-offset'"+group) + fm.sql
			out, errs, code := runSQL(t, nil, sql, "--format", "csv")
			if code != 0 {
				t.Fatalf("%s%s: exit %d: %s", fm.name, group, code, errs)
			}
			got := sortedLines(outputRows(out))
			if !strings.Contains(got, "lt,y,5000") || strings.Contains(got, "lt,y,3000") {
				t.Errorf("%s%s: y,5000 must be late (partition 0's watermark is 9000 before it) and y,3000 not (partition 1's is unset), SPEC 2.5:\n%s", fm.name, group, got)
			}
			if want == "" {
				want = got
				if strings.Count(want, "lt,") < 5 {
					t.Fatalf("only %d late rows: the test checks too little", strings.Count(want, "lt,"))
				}
				continue
			}
			if got != want {
				t.Errorf("%s%s: got\n%s\nwant (the window over the stream with the WHERE inline, SPEC 2.6)\n%s", fm.name, group, got, want)
			}
		}
	}
}
