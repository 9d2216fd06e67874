package tests

// Window state that survives a crash (issue 13 item 2; the connector package
// doc's replay protocol, SPEC 2.5): a windowed job of a consumer group
// commits the offset of its earliest row still held in an open window, with
// the mark "sq1 e=... w=... f=..."; a restarted process reads the open
// windows' rows again into state only and emits every window once.

import (
	"context"
	"fmt"
	"math/rand"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"streamql/tests/kafkatest"
)

// The window jobs' data: devices dev0..dev7, device d on partition d%4 (the
// topic partitioned by the grouping key, SPEC 2.5), each partition's rows in
// time order but for swaps within the watermark's delay (so no row is late
// by its partition's watermark), TUMBLE windows of winSize.
const (
	winBase  = int64(1_700_000_000_000)
	winSize  = int64(10_000) // ms
	winDelay = int64(3_000)  // the watermark's delay, ms
	// the hot branch takes the rows above this temperature first (SPEC
	// 2.1): they never reach the aggregate, and each is written once
	winHot = 90
)

// winRow is one input row of the window jobs.
type winRow struct {
	dev  string
	ts   int64
	temp int
	part int32
}

func (r winRow) value() string { return fmt.Sprintf("%s,%d,%d", r.dev, r.ts, r.temp) }

// winRows returns n rows per partition (rng's), in the order of the topic's
// partitions interleaved at random, then one closing row per partition far
// in the future: it fires every window of the rows before it (its own
// windows stay open). Two rows may be equal (a time step of 0, the same
// device and temperature): the full-size input (STREAMQL_SCALE_ROWS=1000000)
// holds several such pairs, one of them hot, so the checks count each
// value's expected copies (winExpected, compareCounts).
func winRows(rng *rand.Rand, n int) []winRow {
	parts := make([][]winRow, 4)
	for p := range parts {
		ts := winBase + int64(rng.Intn(5000)) + int64(p)*7_000
		for range n {
			ts += int64(rng.Intn(400))
			d := p + 4*rng.Intn(2)
			parts[p] = append(parts[p], winRow{fmt.Sprintf("dev%d", d), ts, rng.Intn(100), int32(p)})
		}
		for i := 1; i < len(parts[p]); i++ {
			if a, b := parts[p][i-1], parts[p][i]; rng.Intn(4) == 0 && b.ts-a.ts < winDelay {
				parts[p][i-1], parts[p][i] = b, a
			}
		}
	}
	var out []winRow
	next := make([]int, 4)
	for left := 4 * n; left > 0; left-- {
		p := rng.Intn(4)
		for next[p] == n {
			p = (p + 1) % 4
		}
		out = append(out, parts[p][next[p]])
		next[p]++
	}
	for p := range parts {
		out = append(out, winRow{fmt.Sprintf("dev%d", p), winBase + 1_000_000_000, 0, int32(p)})
	}
	return out
}

// winExpected returns the window rows (window_start,deviceNo,n,s) an
// uninterrupted run emits for rows, computed here by grouping (no row is
// late; the closing rows' windows never fire), and the hot branch's rows.
func winExpected(rows []winRow) (wins, hot map[string]int) {
	type key struct {
		start int64
		dev   string
	}
	type acc struct{ n, s int }
	groups := map[key]*acc{}
	hot = map[string]int{}
	for _, r := range rows[:len(rows)-4] {
		if r.temp > winHot {
			hot[r.value()]++
			continue
		}
		k := key{r.ts - ((r.ts%winSize)+winSize)%winSize, r.dev}
		a := groups[k]
		if a == nil {
			a = &acc{}
			groups[k] = a
		}
		a.n++
		a.s += r.temp
	}
	wins = map[string]int{}
	for k, a := range groups {
		wins[fmt.Sprintf("%d,%s,%d,%d", k.start, k.dev, a.n, a.s)]++
	}
	return wins, hot
}

// winScript writes the window job for one process (slot: its
// group.instance.id) into dir: rows of topic in above winHot go to the topic
// outs["hot"], the TUMBLE aggregate of the others to outs["wins"]; sink holds
// the sinks' extra options.
func winScript(t *testing.T, dir, in string, outs map[string]string, group, slot, sink string) string {
	sql := kafkaStream(t, "sensors", fmt.Sprintf("deviceNo VARCHAR, ts BIGINT, temperature BIGINT, WATERMARK FOR ts AS ts - INTERVAL '%d' SECOND", winDelay/1000), in,
		groupMember(group, slot)) +
		kafkaStream(t, "hot", "deviceNo VARCHAR, ts BIGINT, temperature BIGINT", outs["hot"], sink) +
		kafkaStream(t, "wins", "window_start BIGINT, deviceNo VARCHAR, n BIGINT, s BIGINT", outs["wins"], ", 'key.fields'='deviceNo'"+sink) +
		fmt.Sprintf("SELECT deviceNo, ts, temperature INTO STREAM hot FROM sensors WHERE temperature > %d;\n", winHot) +
		"INSERT INTO wins SELECT window_start, deviceNo, COUNT(*) AS n, SUM(temperature) AS s\n" +
		"  FROM TABLE(TUMBLE(TABLE sensors, DESCRIPTOR(ts), INTERVAL '10' SECOND))\n" +
		"  GROUP BY window_start, window_end, deviceNo;\n"
	return writeScript(t, dir, slot, sql)
}

// produceWinRows writes rows to topic in, each to its partition.
func produceWinRows(t *testing.T, cl *kgo.Client, in string, rows []winRow) error {
	var rs []*kgo.Record
	for _, r := range rows {
		rs = append(rs, &kgo.Record{Topic: in, Partition: r.part, Value: []byte(r.value())})
	}
	ctx, cancel := context.WithTimeout(context.Background(), kafkatest.Timeout)
	defer cancel()
	return cl.ProduceSync(ctx, rs...).FirstErr()
}

// emittedTo returns, per partition of topic in, the e of the group's
// committed replay mark (read require_stable), -1 for a partition without
// one.
func emittedTo(adm *kadm.Client, group, in string) (map[int32]int64, error) {
	return markField(adm, group, in, "e=")
}

// markField returns, per partition of topic in, the field name ("e=",
// "f=") of the group's committed replay mark (read require_stable), -1 for a
// partition without it.
func markField(adm *kadm.Client, group, in, name string) (map[int32]int64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	or, err := adm.FetchOffsetsForTopics(kadm.RequireStable(ctx), group, in)
	if err != nil {
		return nil, err
	}
	out := map[int32]int64{}
	or.Each(func(o kadm.OffsetResponse) {
		out[o.Partition] = -1
		for _, f := range strings.Fields(o.Metadata) {
			if v, ok := strings.CutPrefix(f, name); ok {
				out[o.Partition], _ = strconv.ParseInt(v, 10, 64)
			}
		}
	})
	return out, nil
}

// waitEmitted waits (at most limit) until the group's marks say every row of
// in up to its end offsets has had its outputs committed.
// startScript starts the binary on the script file q, after the flags
// flags, its stderr gathered.
func startScript(t *testing.T, q string, flags ...string) (*exec.Cmd, *strings.Builder) {
	var stderr strings.Builder
	c := exec.Command(binary, append(flags, "-f", q)...)
	c.Stderr = &stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	return c, &stderr
}

// stopByTerm stops the restarted process c by SIGTERM and checks that it
// ends as a signal ends a run (SPEC: exit status 128 + the signal).
func stopByTerm(t *testing.T, c *exec.Cmd, stderr *strings.Builder) {
	t.Helper()
	_ = c.Process.Signal(syscall.SIGTERM)
	if err := c.Wait(); c.ProcessState.ExitCode() != 128+int(syscall.SIGTERM) {
		t.Fatalf("the restarted process, stopped by SIGTERM: %v: %s", err, stderr.String())
	}
}

// sinkGuarantee returns the WITH options of a Kafka sink stream for the
// delivery guarantee guarantee: exactly-once's, with a transactional id
// prefix of the test's own, or none (at-least-once, the default).
func sinkGuarantee(t *testing.T, guarantee string) string {
	if guarantee != "exactly-once" {
		return ""
	}
	return ", 'sink.delivery-guarantee'='exactly-once', 'sink.transactional-id-prefix'='" + kafkatest.Name(t, "txn") + "'"
}

func waitEmitted(t *testing.T, adm *kadm.Client, group, in string, limit time.Duration, why func() string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	ends, err := adm.ListEndOffsets(ctx, in)
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(limit)
	for {
		e, err := emittedTo(adm, group, in)
		done := err == nil
		ends.Each(func(o kadm.ListedOffset) {
			if e[o.Partition] < o.Offset {
				done = false
			}
		})
		if done {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the group's marks %v did not reach the input's ends within %v (last error %v) %s", e, limit, err, why())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// readRows returns the values of topic's records (read_committed when rc)
// with how often each occurs.
func readRows(t *testing.T, topic string, rc bool) map[string]int {
	out := map[string]int{}
	for _, r := range kafkatest.ReadAll(t, topic, kafkatest.ReadOptions{ReadCommitted: rc}) {
		out[string(r.Value)]++
	}
	return out
}

// compareCounts reports, against want (each value with the number of times
// the input makes it: the input may hold one row twice, winRows), the
// values got holds fewer times (a row or window lost), those want does not
// hold (a wrong window or row), and, when exact, those got holds more times
// than want (a row written twice). It returns the number of records above
// want's counts (the duplicates) and the values that got holds more times
// than want, sorted.
func compareCounts(t *testing.T, what string, got, want map[string]int, exact bool) (dups int, over []string) {
	t.Helper()
	missing, wrong, over, dups := countDiff(got, want)
	if len(missing) > 0 {
		t.Errorf("%s: %d of %d rows missing (first %q)", what, len(missing), len(want), missing[:min(5, len(missing))])
	}
	if len(wrong) > 0 {
		t.Errorf("%s: %d rows not in one uninterrupted run's output (first %q)", what, len(wrong), wrong[:min(5, len(wrong))])
	}
	if exact && len(over) > 0 {
		t.Errorf("%s: %d rows seen more times than the input holds them (first %q)", what, len(over), over[:min(5, len(over))])
	}
	return dups, over
}

// countDiff compares the counts got with want: missing holds the values got
// holds fewer times than want, wrong those want does not hold, over those
// got holds more times than want (each list sorted); dups is the number of
// records of got above want's counts.
func countDiff(got, want map[string]int) (missing, wrong, over []string, dups int) {
	for v, n := range want {
		if got[v] < n {
			missing = append(missing, v)
		}
	}
	for v, n := range got {
		switch {
		case want[v] == 0:
			wrong = append(wrong, v)
		case n > want[v]:
			dups += n - want[v]
			over = append(over, v)
		}
	}
	return sorted(missing), sorted(wrong), sorted(over), dups
}

// recordsOf describes where topic's records (read_committed when rc) of the
// values vals (at most the first 5) are: "value: partition@offset
// pid=producer-id/epoch ...", so that a duplicate shows whether its copies
// are in one transaction or two.
func recordsOf(t *testing.T, topic string, rc bool, vals []string) string {
	if len(vals) == 0 {
		return ""
	}
	want := map[string]bool{}
	for _, v := range vals[:min(5, len(vals))] {
		want[v] = true
	}
	at := map[string][]string{}
	for _, r := range kafkatest.ReadAll(t, topic, kafkatest.ReadOptions{ReadCommitted: rc}) {
		if v := string(r.Value); want[v] {
			at[v] = append(at[v], fmt.Sprintf("p%d@%d pid=%d/%d", r.Partition, r.Offset, r.ProducerID, r.ProducerEpoch))
		}
	}
	var b strings.Builder
	for _, v := range vals[:min(5, len(vals))] {
		fmt.Fprintf(&b, "\n  %s: %s", v, strings.Join(at[v], ", "))
	}
	return b.String()
}

// TestKafkaWindowsSurviveAKill: a TUMBLE job of a consumer group is killed
// (SIGKILL) with windows open and rows of them committed as used; restarted,
// it reads the open windows' rows again from the committed hold frontier and
// emits exactly the windows, and the hot branch's rows, of one uninterrupted
// run: none lost (the rows before the kill are in state again), none twice
// (rows below e go to state only, windows below f are not emitted again).
func TestKafkaWindowsSurviveAKill(t *testing.T) {
	t.Parallel() // (its own topics, group, transactional ids and folders: it waits on the broker beside the others)
	for _, g := range []string{"exactly-once", "at-least-once"} {
		t.Run(g, func(t *testing.T) { windowsSurviveAKill(t, g) })
	}
}

func windowsSurviveAKill(t *testing.T, guarantee string) {
	kafkatest.Brokers(t)
	if testing.Short() {
		t.Skip("runs streamql processes against the broker: not with -short")
	}
	rng := rand.New(rand.NewSource(11))
	rows := winRows(rng, 400)
	wantWins, wantHot := winExpected(rows)
	in := kafkatest.CreateTopic(t, 4, nil)
	outs := map[string]string{"hot": kafkatest.CreateTopic(t, 2, nil), "wins": kafkatest.CreateTopic(t, 2, nil)}
	group := kafkatest.Name(t, "group")
	sink := sinkGuarantee(t, guarantee)
	dir := t.TempDir()
	q := winScript(t, dir, in, outs, group, "a", sink)
	cl := kafkatest.Client(t, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	adm := kafkatest.Admin(t)

	// The first half, ending inside open windows of every partition.
	half := len(rows) / 2
	if err := produceWinRows(t, cl, in, rows[:half]); err != nil {
		t.Fatal(err)
	}
	c, stderr := startScript(t, q)
	waitEmitted(t, adm, group, in, 60*time.Second, stderr.String)
	// Every row used is committed, but the open windows hold theirs: the
	// committed offset is the first of them, below e.
	or, err := adm.FetchOffsetsForTopics(kadm.RequireStable(context.Background()), group, in)
	if err != nil {
		t.Fatal(err)
	}
	behind := 0
	or.Each(func(o kadm.OffsetResponse) {
		if e, _ := emittedTo(adm, group, in); o.At < e[o.Partition] {
			behind++
		}
		if !strings.Contains(o.Metadata, " w=") {
			t.Errorf("partition %d: the mark %q has no watermark", o.Partition, o.Metadata)
		}
	})
	if behind == 0 {
		t.Fatalf("no partition's committed offset is below its e: the kill would not be inside open windows (%v)", or)
	}
	_ = c.Process.Signal(syscall.SIGKILL)
	_ = c.Wait()

	if err := produceWinRows(t, cl, in, rows[half:]); err != nil {
		t.Fatal(err)
	}
	c, stderr = startScript(t, q)
	waitEmitted(t, adm, group, in, 60*time.Second, stderr.String)
	stopByTerm(t, c, stderr)
	rc := guarantee == "exactly-once"
	compareCounts(t, "windows", readRows(t, outs["wins"], rc), wantWins, true)
	compareCounts(t, "hot rows", readRows(t, outs["hot"], rc), wantHot, true)
}

// TestExplainSaysWhatIsReplayed (SPEC 2.5, EXPLAIN): in a consumer group, a
// window aggregate's open state, the probe rows an event-time join holds,
// an updating Top-N's, a deduplication's and an OVER aggregation's state and
// an interval join's held rows, a window Top-N's are read again after a
// crash or a move (EXPLAIN says so); the state that is not (an event-time
// join and an aggregate in one job, a Top-N over a subquery's
// aggregate, a temporal or regular join, an aggregate after a join) says
// to run such a job in one process. EXPLAIN does not reach the brokers.
func TestExplainSaysWhatIsReplayed(t *testing.T) {
	kafka := func(name, cols string) string {
		return fmt.Sprintf("CREATE STREAM %s (%s) WITH ('connector'='kafka', 'topic'='%s', 'properties.bootstrap.servers'='127.0.0.1:9', 'properties.group.id'='g', 'format'='csv');\n", name, cols, name)
	}
	ddl := kafka("sensors", "deviceNo VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND") +
		"CREATE STREAM allowed (deviceNo VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='socket', 'port'='1', 'format'='csv');\n" +
		kafka("events", "deviceNo VARCHAR, ts BIGINT, v BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND") +
		kafka("plain", "deviceNo VARCHAR, v BIGINT")
	for _, c := range []struct{ query, want, not string }{
		{"EXPLAIN SELECT window_start, deviceNo, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE sensors, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, deviceNo;",
			"main: its open state survives a crash or a partition move: read again from the committed offset", "not read again"},
		{"EXPLAIN SELECT s.* FROM sensors s SEMI JOIN allowed a ON s.deviceNo = a.deviceNo;",
			"main: the probe rows its event-time join holds survive a crash or a partition move: read again from the committed offset", "not read again"},
		{"EXPLAIN SELECT window_start, s.deviceNo, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE sensors, DESCRIPTOR(ts), INTERVAL '10' SECOND)) s SEMI JOIN allowed a ON s.deviceNo = a.deviceNo GROUP BY window_start, window_end, s.deviceNo;",
			"note: the rows main's event-time join holds are not read again after a crash or a partition move when the job aggregates too", "survives"},
		{"EXPLAIN SELECT s.deviceNo, COUNT(*) AS n FROM sensors s SEMI JOIN allowed a ON s.deviceNo = a.deviceNo GROUP BY s.deviceNo;",
			"main: the probe rows its event-time join holds and the aggregate's groups after it survive a crash or a partition move", "not read again"},
		{"EXPLAIN SELECT deviceNo, COUNT(*) AS n FROM sensors GROUP BY deviceNo;",
			"main: its groups survive a crash or a partition move: read again from each partition's first row that made a group", "not read again"},
		{"EXPLAIN SELECT deviceNo, ts FROM (SELECT deviceNo, ts, ROW_NUMBER() OVER (PARTITION BY deviceNo ORDER BY ts DESC) AS rn FROM sensors) WHERE rn <= 2;",
			"main: its state survives a crash or a partition move: read again from each partition's first row it took", "not read again"},
		{"EXPLAIN SELECT deviceNo, ts FROM (SELECT deviceNo, ts, ROW_NUMBER() OVER (PARTITION BY deviceNo ORDER BY ts DESC) AS rn FROM sensors) WHERE rn <= 2;",
			"main: a Top-N is per process: topic 'sensors' must be partitioned by (deviceNo)", "not read again"},
		// the event-time rank operators (rankreplay.go)
		{"EXPLAIN SELECT deviceNo, ts FROM (SELECT deviceNo, ts, ROW_NUMBER() OVER (PARTITION BY deviceNo ORDER BY ts) AS rn FROM sensors) WHERE rn = 1;",
			"main: its state survives a crash or a partition move: read again from each partition's first row it took", "not read again"},
		{"EXPLAIN SELECT deviceNo, COUNT(*) OVER (PARTITION BY deviceNo ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS n FROM sensors;",
			"main: its state survives a crash or a partition move: read again from each partition's oldest row it holds", "not read again"},
		{"EXPLAIN SELECT deviceNo, COUNT(*) OVER (PARTITION BY deviceNo ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS n FROM sensors;",
			"main: its OverAggregate is per process: topic 'sensors' must be partitioned by (deviceNo)", "not read again"},
		// a window Top-N over a window TVF's rows (kafka_rankreplay_test.go)
		{"EXPLAIN SELECT window_start, deviceNo FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, deviceNo ORDER BY ts DESC) AS rn FROM TABLE(TUMBLE(TABLE sensors, DESCRIPTOR(ts), INTERVAL '10' SECOND))) WHERE rn <= 2;",
			"main: its state survives a crash or a partition move: read again from each partition's oldest row it holds", "not read again"},
		// a Top-N over a subquery's aggregate of the stream: one job, both
		// replayed (kafka_updating_test.go)
		{"EXPLAIN SELECT deviceNo, n FROM (SELECT deviceNo, n, ROW_NUMBER() OVER (ORDER BY n DESC) AS rn FROM (SELECT deviceNo, COUNT(*) AS n FROM sensors GROUP BY deviceNo)) WHERE rn <= 2;",
			"main: the Top-N over its aggregate's changes survives a crash or a partition move: read again with the groups from each partition's first row that made a group", "not read again"},
		// those not replayed yet say so: a Top-N over an aggregate of a
		// UNION ALL
		{"EXPLAIN SELECT deviceNo, n FROM (SELECT deviceNo, n, ROW_NUMBER() OVER (ORDER BY n DESC) AS rn FROM (SELECT deviceNo, COUNT(*) AS n FROM (SELECT deviceNo FROM sensors UNION ALL SELECT deviceNo FROM events) GROUP BY deviceNo)) WHERE rn <= 2;",
			"note: the state of the Rank over subquery is in this process only: it is not read again after a crash or a partition move", "its state survives"},
		// joins of two streams: an interval join is replayed; a temporal
		// join, a join without event time on an input, or one with an
		// aggregate after it is not, and says why
		{"EXPLAIN SELECT s.deviceNo, e.v FROM sensors s JOIN events e ON s.deviceNo = e.deviceNo AND e.ts BETWEEN s.ts AND s.ts + INTERVAL '5' SECOND;",
			"the rows the join holds survive a crash or a partition move: read again from the committed offset", "not replayed"},
		{"EXPLAIN SELECT s.deviceNo, p.v FROM sensors s JOIN plain p ON s.deviceNo = p.deviceNo;",
			"not replayed (input p has no event time (WATERMARK)): each process reads both inputs whole, every partition, and commits no offsets", "survive"},
		{"EXPLAIN SELECT s.deviceNo, COUNT(*) AS n FROM sensors s JOIN events e ON s.deviceNo = e.deviceNo AND e.ts BETWEEN s.ts AND s.ts + INTERVAL '5' SECOND GROUP BY s.deviceNo;",
			"the join's rows and the aggregate's groups after it survive a crash or a partition move: read again from the committed offset (the first row the job read of each partition: the groups never close), the joined rows written before going into the aggregate's state only", "not replayed"},
		{"EXPLAIN SELECT s.deviceNo, COUNT(*) AS n FROM sensors s LEFT JOIN events e ON s.deviceNo = e.deviceNo GROUP BY s.deviceNo;",
			"not replayed (an aggregate or Top-N follows the join (of those, only an updating GROUP BY or global aggregate", "survive"},
	} {
		out, stderr, code := runSQL(t, nil, ddl+c.query, "--format", "plain")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.query, code, stderr)
		}
		flat := strings.Join(strings.Fields(out), " ")
		if !strings.Contains(flat, c.want) || strings.Contains(flat, c.not) {
			t.Errorf("%s: EXPLAIN gives\n%s\nwant a line %q and none with %q", c.query, out, c.want, c.not)
		}
	}
}
