package tests

// The Kafka connector against the real broker (issue 12 item 7; SPEC 2.5):
// round trips per format, keys and partitions, dead letters with their
// offsets, bounded reads, consumer-group commits, exactly-once and
// at-least-once. They need STREAMQL_KAFKA_BROKERS (kafkatest.Brokers: skipped
// with a message saying how to start the broker, failed under CI=true).

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"streamql/cmd/streamql/cli"
	"streamql/tests/kafkatest"
)

// kafkaStream returns a CREATE STREAM of a kafka stream on topic with the
// test broker and extra options (", 'k'='v'..." or "").
func kafkaStream(t *testing.T, name, cols, topic, extra string) string {
	return fmt.Sprintf("CREATE STREAM %s (%s) WITH ('connector'='kafka', 'topic'='%s', 'properties.bootstrap.servers'='%s'%s);\n",
		name, cols, topic, kafkatest.Brokers(t), extra)
}

// produceValues writes one record per value to topic: into partition
// parts[i] when parts is given (manual partitioning), else round robin.
func produceValues(t *testing.T, topic string, values []string, parts []int32) []*kgo.Record {
	t.Helper()
	cl := kafkatest.Client(t, kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.MetadataMinAge(100*time.Millisecond))
	var rs []*kgo.Record
	for i, v := range values {
		r := &kgo.Record{Value: []byte(v), Partition: int32(i % 2)}
		if parts != nil {
			r.Partition = parts[i]
		}
		rs = append(rs, r)
	}
	kafkatest.Produce(t, cl, topic, rs...)
	return rs
}

// values returns the values of rs, sorted.
func values(rs []*kgo.Record) []string {
	var out []string
	for _, r := range rs {
		out = append(out, string(r.Value))
	}
	sort.Strings(out)
	return out
}

func sorted(s []string) []string {
	s = append([]string(nil), s...)
	sort.Strings(s)
	return s
}

// TestKafkaRoundTripFormats: a topic of csv or json values through a bounded
// kafka source into a kafka sink of the same format (SPEC 2.5): one value is
// one row, also when it holds line breaks (inside quotes for csv, JSON
// whitespace and an escaped one for json), and the sink's values are the SPEC
// 4 encodings without header or line end.
func TestKafkaRoundTripFormats(t *testing.T) {
	for _, tc := range []struct {
		format string
		in     []string
		want   []string
	}{
		{"csv", []string{"d1,1,5.5", "\"multi\nline\",2,80", "\"x,\"\"y\",3,40", "d4,4,"},
			[]string{"d1,5.5", "\"multi\nline\",80.0", "\"x,\"\"y\",40.0", "d4,"}},
		{"json", []string{`{"deviceNo":"d1","ts":1,"temperature":5.5}`, "{\"deviceNo\":\"multi\\nline\",\n  \"ts\":2,\n  \"temperature\":80}", `{"ts":3,"deviceNo":"x,\"y","temperature":40}`, `{"deviceNo":"d4","ts":4}`},
			[]string{`{"deviceNo":"d1","temperature":5.5}`, `{"deviceNo":"multi\nline","temperature":80.0}`, `{"deviceNo":"x,\"y","temperature":40.0}`, `{"deviceNo":"d4","temperature":null}`}},
	} {
		t.Run(tc.format, func(t *testing.T) {
			in, out := kafkatest.CreateTopic(t, 3, nil), kafkatest.CreateTopic(t, 2, nil)
			produceValues(t, in, tc.in, []int32{0, 1, 2, 0})
			sql := kafkaStream(t, "sensors", "deviceNo VARCHAR, ts BIGINT, temperature DOUBLE", in, ", 'format'='"+tc.format+"', 'scan.bounded.mode'='latest-offset'") +
				kafkaStream(t, "hot", "deviceNo VARCHAR, temperature DOUBLE", out, ", 'format'='"+tc.format+"'") +
				"INSERT INTO hot SELECT deviceNo, temperature FROM sensors;\n"
			stdout, stderr, code := runSQLIn(t, t.TempDir(), nil, sql, "--format", "csv")
			if code != 0 || stdout != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q; want 0 and nothing on stdout", code, stdout, stderr)
			}
			got := values(kafkatest.ReadAll(t, out, kafkatest.ReadOptions{}))
			if want := sorted(tc.want); fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
				t.Errorf("the sink topic holds\n%q\nwant\n%q", got, want)
			}
		})
	}
}

// TestKafkaKeysAndPartitions: 'key.fields' makes each record's key the key
// columns in 'key.format' (default the value's format), and keyed records land
// on the partition the Java client's murmur2 partitioner gives them; without
// key.fields records have no key.
func TestKafkaKeysAndPartitions(t *testing.T) {
	var csv strings.Builder
	for i := range 60 {
		fmt.Fprintf(&csv, "sensor-%d,%d,%d.5\n", i, i, i)
	}
	csvTopic, jsonTopic, noKey := kafkatest.CreateTopic(t, 3, nil), kafkatest.CreateTopic(t, 3, nil), kafkatest.CreateTopic(t, 3, nil)
	sql := strings.Replace(sensorsDDL, "%s", "", 1) +
		kafkaStream(t, "kcsv", "deviceNo VARCHAR, temperature DOUBLE", csvTopic, ", 'format'='csv', 'key.fields'='deviceNo'") +
		kafkaStream(t, "kjson", "deviceNo VARCHAR, temperature DOUBLE", jsonTopic, ", 'format'='csv', 'key.fields'='deviceNo', 'key.format'='json'") +
		kafkaStream(t, "nokey", "deviceNo VARCHAR, temperature DOUBLE", noKey, ", 'format'='json'") +
		"SELECT deviceNo, temperature INTO STREAM kjson FROM sensors WHERE ts >= 40;\n" +
		"SELECT deviceNo, temperature INTO STREAM nokey FROM sensors WHERE ts >= 30;\n" +
		"INSERT INTO kcsv SELECT deviceNo, temperature FROM sensors;\n"
	if stdout, stderr, code := runSQLIn(t, t.TempDir(), map[string]string{"s.csv": csv.String()}, sql); code != 0 || stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	check := func(topic string, n int, key func(i int) string) {
		t.Helper()
		rs := kafkatest.ReadAll(t, topic, kafkatest.ReadOptions{})
		if len(rs) != n {
			t.Fatalf("topic %s has %d records, want %d", topic, len(rs), n)
		}
		parts := map[int32]bool{}
		for _, r := range rs {
			var i int
			if _, err := fmt.Sscanf(string(r.Value), "sensor-%d,", &i); err != nil {
				t.Fatalf("value %q: %v", r.Value, err)
			}
			if string(r.Key) != key(i) {
				t.Errorf("topic %s: row sensor-%d has key %q, want %q", topic, i, r.Key, key(i))
			}
			if want := kafkatest.JavaPartition(r.Key, 3); r.Partition != want {
				t.Errorf("topic %s: key %q in partition %d; the Java client puts it in %d", topic, r.Key, r.Partition, want)
			}
			parts[r.Partition] = true
		}
		if len(parts) != 3 {
			t.Errorf("topic %s: keyed records used partitions %v, want all 3", topic, parts)
		}
	}
	check(csvTopic, 30, func(i int) string { return fmt.Sprintf("sensor-%d", i) })
	check(jsonTopic, 20, func(i int) string { return fmt.Sprintf(`{"deviceNo":"sensor-%d"}`, i) })
	rs := kafkatest.ReadAll(t, noKey, kafkatest.ReadOptions{})
	if len(rs) != 10 {
		t.Fatalf("the unkeyed topic has %d records, want 10", len(rs))
	}
	for _, r := range rs {
		if r.Key != nil || !strings.HasPrefix(string(r.Value), `{"deviceNo":"sensor-3`) {
			t.Errorf("unkeyed record: key %q value %q; want no key and a json row of sensor-30..39", r.Key, r.Value)
		}
	}
}

// TestKafkaMalformedToDeadLetterTopic: malformed values (a bad number, invalid
// UTF-8, a wrong field count across a line break, a value longer than
// 'max-record-size') of a kafka source with
// 'errors.stream' reach the Kafka dead-letter topic, one record each, value =
// the input bytes exactly, headers stream, position = topic:partition:offset
// of the input record, and error; good rows go on.
func TestKafkaMalformedToDeadLetterTopic(t *testing.T) {
	in, dlq := kafkatest.CreateTopic(t, 2, nil), kafkatest.CreateTopic(t, 1, nil)
	vals := []string{"d1,1,5.5", "d2,x,1", "d3,3,40", "\xff\xfe,4,1", "a,5\nb,6,7", "d6,6,", strings.Repeat("long", 30) + ",7,1"}
	rs := produceValues(t, in, vals, []int32{0, 1, 0, 1, 0, 1, 0})
	sql := kafkaStream(t, "sensors", "deviceNo VARCHAR, ts BIGINT, temperature DOUBLE", in, ", 'scan.bounded.mode'='latest-offset', 'errors.stream'='dlq', 'max-record-size'='100'") +
		kafkaStream(t, "dlq", "stream VARCHAR, position VARCHAR, raw VARCHAR, error VARCHAR", dlq, "") +
		"SELECT deviceNo, ts FROM sensors;\n"
	stdout, stderr, code := runSQLIn(t, t.TempDir(), nil, sql, "--format", "csv")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if got := sorted(strings.Split(strings.TrimSpace(stdout), "\n")); fmt.Sprint(got) != fmt.Sprint([]string{"d1,1", "d3,3", "d6,6", "deviceNo,ts"}) {
		t.Errorf("main output %q, want the rows d1, d3, d6", stdout)
	}
	if strings.Contains(stdout, "errors") || strings.Contains(stderr, "errors>") {
		t.Errorf("dead letters also went to the errors side output: stdout %q stderr %q", stdout, stderr)
	}
	got := kafkatest.ReadAll(t, dlq, kafkatest.ReadOptions{})
	want := map[string]*kgo.Record{}
	for _, k := range []int{1, 3, 4, 6} {
		want[fmt.Sprintf("%s:%d:%d", in, rs[k].Partition, rs[k].Offset)] = rs[k]
	}
	if len(got) != len(want) {
		t.Fatalf("dead-letter topic has %d records, want %d", len(got), len(want))
	}
	for _, r := range got {
		h := map[string]string{}
		for _, x := range r.Headers {
			h[x.Key] = string(x.Value)
		}
		src, ok := want[h["position"]]
		if !ok {
			t.Errorf("dead letter %q has position %q, not one of the malformed records' %v", r.Value, h["position"], want)
			continue
		}
		if string(r.Value) != string(src.Value) {
			t.Errorf("dead letter at %s: value %q, want the input bytes %q", h["position"], r.Value, src.Value)
		}
		if h["stream"] != "sensors" || h["error"] == "" {
			t.Errorf("dead letter at %s: headers %v, want stream=sensors and an error", h["position"], h)
		}
	}
}

// TestKafkaBoundedSameOutputTwice: a bounded read ('scan.startup.mode' and
// 'scan.bounded.mode' by timestamp) gives the same rows when run again after
// more records arrived, and exactly the records of its time range; a
// specific-offsets start reads from the offsets given.
func TestKafkaBoundedSameOutputTwice(t *testing.T) {
	topic := kafkatest.CreateTopic(t, 2, nil)
	cl := kafkatest.Client(t, kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.MetadataMinAge(100*time.Millisecond))
	const base = int64(1_700_000_000_000)
	produce := func(from, to int) {
		var rs []*kgo.Record
		for i := from; i < to; i++ {
			rs = append(rs, &kgo.Record{Partition: int32(i % 2), Value: fmt.Appendf(nil, "r%d,%d", i, i), Timestamp: time.UnixMilli(base + int64(i))})
		}
		kafkatest.Produce(t, cl, topic, rs...)
	}
	produce(0, 50)
	sql := kafkaStream(t, "s", "name VARCHAR, n BIGINT", topic, fmt.Sprintf(", 'scan.startup.mode'='timestamp', 'scan.startup.timestamp-millis'='%d', 'scan.bounded.mode'='timestamp', 'scan.bounded.timestamp-millis'='%d'", base+10, base+40)) +
		"SELECT name FROM s;\n"
	run := func() []string {
		stdout, stderr, code := runSQLIn(t, t.TempDir(), nil, sql, "--format", "csv")
		if code != 0 {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
		return sorted(strings.Split(strings.TrimSpace(stdout), "\n"))
	}
	first := run()
	var want []string
	for i := 10; i < 40; i++ {
		want = append(want, fmt.Sprintf("r%d", i))
	}
	want = sorted(append(want, "name"))
	if fmt.Sprint(first) != fmt.Sprint(want) {
		t.Fatalf("first run read %v, want r10..r39", first)
	}
	produce(50, 80)
	if second := run(); fmt.Sprint(second) != fmt.Sprint(first) {
		t.Errorf("second run read %v, the first %v", second, first)
	}

	spec := kafkaStream(t, "s", "name VARCHAR, n BIGINT", topic, ", 'scan.startup.mode'='specific-offsets', 'scan.startup.specific-offsets'='partition:1,offset:38', 'scan.bounded.mode'='latest-offset'") +
		"SELECT name FROM s WHERE n % 2 = 1;\n"
	stdout, stderr, code := runSQLIn(t, t.TempDir(), nil, spec, "--format", "csv")
	if code != 0 || stdout != "name\nr77\nr79\n" {
		t.Errorf("specific offsets: exit %d, stdout %q (stderr %q); want r77 and r79 (offsets 38, 39 of partition 1)", code, stdout, stderr)
	}
}

// TestKafkaPartitionInterleavings: the sensor split over a 4-partition topic
// gives the same rows per output, as sets, as over the file, whatever the
// order and partitions the records were produced in (20 random
// interleavings); the errors output holds the same raw rows and reasons.
func TestKafkaPartitionInterleavings(t *testing.T) {
	t.Parallel() // (its own topics, group, transactional ids and folders: it waits on the broker beside the others)
	data, err := os.ReadFile(filepath.Join("..", "queries", "sensors.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	lines = append(lines, "bad,x,1", "设备9,12,abc")
	split := "SELECT deviceNo, temperature INTO SIDE 'low-tmp' FROM sensors WHERE temperature < 10;\n" +
		"SELECT deviceNo, temperature INTO STREAM hot FROM sensors WHERE temperature > 70;\n" +
		"SELECT * FROM sensors;\n"
	cols := "deviceNo VARCHAR, ts BIGINT, temperature DOUBLE"
	// outputs reads the main output, the side outputs and the errors
	// (without their positions) of one run, each as a sorted set of lines.
	outputs := func(dir, stdout string) map[string][]string {
		out := map[string][]string{"main": sorted(strings.Split(strings.TrimSpace(stdout), "\n"))}
		for _, side := range []string{"low-tmp", "errors"} {
			b, _ := os.ReadFile(filepath.Join(dir, "sides", side+".csv"))
			var rows []string
			for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
				if side == "errors" {
					f := strings.SplitN(l, ",", 3) // stream,position,raw,error: drop the position
					l = f[0] + "," + f[len(f)-1]
				}
				rows = append(rows, l)
			}
			out[side] = sorted(rows)
		}
		return out
	}
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "sides"), 0o755)
	ref := strings.Replace(sensorsDDL, "%s", "", 1) + "CREATE STREAM hot (deviceNo VARCHAR, temperature DOUBLE) WITH ('connector'='file', 'path'='hot.csv', 'format'='json');\n" + split
	stdout, stderr, code := runSQLIn(t, dir, map[string]string{"s.csv": strings.Join(lines, "\n") + "\n"}, ref, "--format", "csv", "--side-dir", filepath.Join(dir, "sides"))
	if code != 0 {
		t.Fatalf("file run: exit %d %s", code, stderr)
	}
	want := outputs(dir, stdout)
	hb, _ := os.ReadFile(filepath.Join(dir, "hot.csv"))
	want["hot"] = sorted(strings.Split(strings.TrimSpace(string(hb)), "\n"))
	if len(want["hot"]) < 10 || len(want["low-tmp"]) < 5 || len(want["errors"]) != 3 {
		t.Fatalf("the reference run's outputs are too small to tell anything: %v", want)
	}
	rng := rand.New(rand.NewSource(12))
	for iter := range 20 {
		in, hot := kafkatest.CreateTopic(t, 4, nil), kafkatest.CreateTopic(t, 3, nil)
		perm := rng.Perm(len(lines))
		var vals []string
		var parts []int32
		for _, k := range perm {
			vals = append(vals, lines[k])
			parts = append(parts, int32(rng.Intn(4)))
		}
		produceValues(t, in, vals, parts)
		dir := t.TempDir()
		os.Mkdir(filepath.Join(dir, "sides"), 0o755)
		sql := kafkaStream(t, "sensors", cols, in, ", 'scan.bounded.mode'='latest-offset'") +
			kafkaStream(t, "hot", "deviceNo VARCHAR, temperature DOUBLE", hot, ", 'format'='json'") + split
		stdout, stderr, code := runSQLIn(t, dir, nil, sql, "--format", "csv", "--side-dir", filepath.Join(dir, "sides"))
		if code != 0 {
			t.Fatalf("interleaving %d: exit %d %s", iter, code, stderr)
		}
		got := outputs(dir, stdout)
		got["hot"] = values(kafkatest.ReadAll(t, hot, kafkatest.ReadOptions{}))
		for name, w := range want {
			if fmt.Sprintf("%q", got[name]) != fmt.Sprintf("%q", w) {
				t.Errorf("interleaving %d: output %s holds\n%q\nthe file run's\n%q", iter, name, got[name], w)
			}
		}
	}
}

// rowsOf returns how often each value occurs in rs.
func rowsOf(rs []*kgo.Record) map[string]int {
	n := map[string]int{}
	for _, r := range rs {
		n[string(r.Value)]++
	}
	return n
}

// TestKafkaGroupCommitsWrittenRows: with 'properties.group.id' a job commits
// the offsets of the rows it wrote, so the next job of the group goes on after
// them (group-offsets, the default with a group): each row reaches the sink
// once over three jobs, the committed offsets are the partitions' ends; a
// job stopped by a malformed row ('errors'='fail') does not commit past it.
func TestKafkaGroupCommitsWrittenRows(t *testing.T) {
	in, out := kafkatest.CreateTopic(t, 3, nil), kafkatest.CreateTopic(t, 1, nil)
	group := kafkatest.Name(t, "group")
	var vals []string
	var parts []int32
	for i := range 30 {
		vals = append(vals, fmt.Sprintf("g%d,%d", i, i))
		parts = append(parts, int32(i%3))
	}
	produceValues(t, in, vals, parts)
	job := func(errs string) int {
		sql := kafkaStream(t, "src", "name VARCHAR, n BIGINT", in, ", 'properties.group.id'='"+group+"', 'scan.bounded.mode'='latest-offset', 'errors'='"+errs+"'") +
			kafkaStream(t, "dst", "name VARCHAR, n BIGINT", out, "") +
			"INSERT INTO dst SELECT name, n FROM src;\n"
		_, stderr, code := runSQLIn(t, t.TempDir(), nil, sql)
		if code != 0 && errs != "fail" {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
		return code
	}
	job("side")
	job("side") // nothing new: the group's offsets are at the end
	if n := rowsOf(kafkatest.ReadAll(t, out, kafkatest.ReadOptions{})); len(n) != 30 || n["g0,0"] != 1 || n["g29,29"] != 1 {
		t.Fatalf("after two jobs the sink holds %v, want the 30 rows once each", n)
	}
	// Three more rows, the middle one malformed, all in partition 0.
	produceValues(t, in, []string{"g30,30", "bad,x", "g31,31"}, []int32{0, 0, 0})
	if code := job("fail"); code != 1 {
		t.Fatalf("the job over a malformed row with 'errors'='fail' exited %d, want 1", code)
	}
	if code := job("fail"); code != 1 {
		t.Fatalf("run again, the job must stop at the malformed row again (its offset not committed); exit %d", code)
	}
	job("skip")
	n := rowsOf(kafkatest.ReadAll(t, out, kafkatest.ReadOptions{}))
	if n["g31,31"] != 1 || n["g30,30"] < 1 || len(n) != 32 {
		t.Errorf("after the failing and the skipping jobs the sink holds %v, want g30 (at least once) and g31 once", n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), kafkatest.Timeout)
	defer cancel()
	offs, err := kafkatest.Admin(t).FetchOffsets(ctx, group)
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[int32]int64{0: 13, 1: 10, 2: 10} {
		if o, ok := offs.Lookup(in, p); !ok || o.At != want {
			t.Errorf("group %s committed %v for partition %d, want %d (its end)", group, o.At, p, want)
		}
	}
}

// TestKafkaExactlyOnce: an 'exactly-once' sink fed by a group source: a job
// that fails midway leaves nothing a read_committed consumer sees (its
// transaction is aborted and its offsets not committed), and the job run
// again writes each row once; the same failing job into an at-least-once
// sink writes the rows before the malformed one, so the check is the
// transactions at work.
func TestKafkaExactlyOnce(t *testing.T) {
	in, out := kafkatest.CreateTopic(t, 2, nil), kafkatest.CreateTopic(t, 2, nil)
	group, prefix := kafkatest.Name(t, "group"), kafkatest.Name(t, "txn")
	var vals []string
	for i := range 40 {
		vals = append(vals, fmt.Sprintf("e%d,%d", i, i))
	}
	vals = append(vals, "bad,x")
	parts := make([]int32, len(vals)) // all in partition 0: the malformed row comes last
	produceValues(t, in, vals, parts)
	job := func(errs string) int {
		sql := kafkaStream(t, "src", "name VARCHAR, n BIGINT", in, ", 'properties.group.id'='"+group+"', 'scan.bounded.mode'='latest-offset', 'errors'='"+errs+"'") +
			kafkaStream(t, "dst", "name VARCHAR, n BIGINT", out, ", 'format'='json', 'key.fields'='name', 'sink.delivery-guarantee'='exactly-once', 'sink.transactional-id-prefix'='"+prefix+"'") +
			"INSERT INTO dst SELECT name, n FROM src;\n"
		_, stderr, code := runSQLIn(t, t.TempDir(), nil, sql)
		if code != 0 {
			t.Logf("job with 'errors'='%s': exit %d, stderr %s", errs, code, stderr)
		}
		return code
	}
	if code := job("fail"); code != 1 {
		t.Fatalf("the failing job exited %d, want 1", code)
	}
	if rs := kafkatest.ReadAll(t, out, kafkatest.ReadOptions{ReadCommitted: true}); len(rs) != 0 {
		t.Fatalf("read_committed sees %d records of the failed job, want none", len(rs))
	}
	if code := job("skip"); code != 0 {
		t.Fatalf("the job run again exited %d", code)
	}
	n := rowsOf(kafkatest.ReadAll(t, out, kafkatest.ReadOptions{ReadCommitted: true}))
	if len(n) != 40 {
		t.Errorf("read_committed sees %d distinct rows, want 40", len(n))
	}
	for v, k := range n {
		if k != 1 {
			t.Errorf("read_committed sees %s %d times, want once", v, k)
		}
	}
	// The control: the same failing job into an at-least-once sink writes the
	// 40 rows before the malformed one, so the empty read above is the
	// aborted transaction at work.
	ctl := kafkatest.CreateTopic(t, 1, nil)
	sql := kafkaStream(t, "src", "name VARCHAR, n BIGINT", in, ", 'properties.group.id'='"+group+"-ctl', 'scan.bounded.mode'='latest-offset', 'errors'='fail'") +
		kafkaStream(t, "dst", "name VARCHAR, n BIGINT", ctl, "") +
		"INSERT INTO dst SELECT name, n FROM src;\n"
	if _, _, code := runSQLIn(t, t.TempDir(), nil, sql); code != 1 {
		t.Fatalf("the failing at-least-once job exited %d, want 1", code)
	}
	if rs := kafkatest.ReadAll(t, ctl, kafkatest.ReadOptions{}); len(rs) != 40 {
		t.Errorf("the failing at-least-once job wrote %d records, want the 40 before the malformed row", len(rs))
	}
}

// TestKafkaPerPartitionWatermarks (SPEC 2.5): each partition has its own
// watermark, CURRENT_WATERMARK is the row's partition's and a row is late by
// it, so the late branch and the main output hold the same rows, with the
// same CURRENT_WATERMARK, whatever the interleaving of the partitions (the
// partitions' event times are far apart: one watermark for the whole stream
// would make the slower partitions' rows late). The expected rows are SPEC
// 2.3 applied to each partition's rows in offset order, computed here.
func TestKafkaPerPartitionWatermarks(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	const parts = 3
	var rows [parts][]string // per partition, in offset order: name,ts
	wantLate, wantMain := []string{}, []string{"name,ts,wm"}
	for p := range parts {
		wm, set := int64(0), false
		base := int64(p) * 1_000_000
		for i := range 15 {
			ts := base + int64(i)*100 + int64(rng.Intn(400)) - 200
			name := fmt.Sprintf("p%d-%d", p, i)
			rows[p] = append(rows[p], fmt.Sprintf("%s,%d", name, ts))
			w := ""
			if set {
				w = fmt.Sprint(wm)
			}
			line := fmt.Sprintf("%s,%d,%s", name, ts, w)
			if set && ts < wm {
				wantLate = append(wantLate, line)
			} else {
				wantMain = append(wantMain, line)
			}
			if !set || ts > wm {
				wm, set = ts, true
			}
		}
	}
	if len(wantLate) < 5 {
		t.Fatalf("only %d late rows generated: the test would tell little", len(wantLate))
	}
	wantLate = append(wantLate, "name,ts,wm")
	for iter := range 10 {
		topic := kafkatest.CreateTopic(t, parts, nil)
		// A random interleaving of the partitions, each in its own order,
		// produced in small rounds so that fetches mix them.
		next := [parts]int{}
		cl := kafkatest.Client(t, kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.MetadataMinAge(100*time.Millisecond))
		for left := parts * 15; left > 0; {
			var round []*kgo.Record
			for k := rng.Intn(5) + 1; k > 0 && left > 0; k-- {
				p := rng.Intn(parts)
				for next[p] == len(rows[p]) {
					p = (p + 1) % parts
				}
				round = append(round, &kgo.Record{Partition: int32(p), Value: []byte(rows[p][next[p]])})
				next[p]++
				left--
			}
			kafkatest.Produce(t, cl, topic, round...)
		}
		dir := t.TempDir()
		os.Mkdir(filepath.Join(dir, "sides"), 0o755)
		sql := fmt.Sprintf("CREATE STREAM s (name VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts) WITH ('connector'='kafka', 'topic'='%s', 'properties.bootstrap.servers'='%s', 'scan.bounded.mode'='latest-offset');\n", topic, kafkatest.Brokers(t)) +
			"SELECT name, ts, CURRENT_WATERMARK(ts) AS wm INTO SIDE 'late' FROM s WHERE ts < CURRENT_WATERMARK(ts);\n" +
			"SELECT name, ts, CURRENT_WATERMARK(ts) AS wm FROM s;\n"
		stdout, stderr, code := runSQLIn(t, dir, nil, sql, "--format", "csv", "--side-dir", filepath.Join(dir, "sides"))
		if code != 0 {
			t.Fatalf("interleaving %d: exit %d %s", iter, code, stderr)
		}
		late, _ := os.ReadFile(filepath.Join(dir, "sides", "late.csv"))
		if got, want := sorted(strings.Split(strings.TrimSpace(string(late)), "\n")), sorted(wantLate); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("interleaving %d: late rows\n%q\nwant\n%q", iter, got, want)
		}
		if got, want := sorted(strings.Split(strings.TrimSpace(stdout), "\n")), sorted(wantMain); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("interleaving %d: main rows\n%q\nwant\n%q", iter, got, want)
		}
	}
}

// TestKafkaUnknownTopic: reading a topic that does not exist is an error
// naming the stream and the topic, before any row.
func TestKafkaUnknownTopic(t *testing.T) {
	sql := kafkaStream(t, "s", "a VARCHAR", kafkatest.Name(t, "missing"), ", 'scan.bounded.mode'='latest-offset'") + "SELECT * FROM s;\n"
	_, stderr, code := runSQLIn(t, t.TempDir(), nil, sql)
	if code != 1 || !strings.Contains(stderr, "stream s: topic 'streamql-missing-") || !strings.Contains(stderr, "does not exist") {
		t.Errorf("exit %d, stderr %q; want 1 and a message that the topic does not exist", code, stderr)
	}
}

// TestKafkaBuildSideReadWhole (SPEC 2.5): a kafka stream read as a join's
// build side is read whole, every partition, outside its consumer group (so
// it commits nothing): each process needs all of it.
func TestKafkaBuildSideReadWhole(t *testing.T) {
	topic := kafkatest.CreateTopic(t, 3, nil)
	group := kafkatest.Name(t, "group")
	produceValues(t, topic, []string{"p1", "p2", "p3", "p4", "p5", "p6"}, []int32{0, 1, 2, 0, 1, 2})
	orders := "o1,p1\no2,p9\no3,p3\no4,p5\no5,p6\no6,p2\no7,p4\n"
	sql := "CREATE STREAM orders (id VARCHAR, product VARCHAR) WITH ('connector'='file', 'path'='o.csv');\n" +
		kafkaStream(t, "allowed", "product VARCHAR", topic, ", 'properties.group.id'='"+group+"', 'scan.bounded.mode'='latest-offset'") +
		"SELECT o.id FROM orders o SEMI JOIN allowed a ON o.product = a.product;\n"
	stdout, stderr, code := runSQLIn(t, t.TempDir(), map[string]string{"o.csv": orders}, sql, "--format", "csv")
	if code != 0 || stdout != "id\no1\no3\no4\no5\no6\no7\n" {
		t.Errorf("exit %d, stdout %q (stderr %q); want every order but o2 (the build side's 3 partitions all read)", code, stdout, stderr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), kafkatest.Timeout)
	defer cancel()
	offs, err := kafkatest.Admin(t).FetchOffsets(ctx, group)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(offs.Offsets()[topic]); n != 0 {
		t.Errorf("the build side committed offsets for %d partitions of group %s; it reads outside the group", n, group)
	}
}

// TestKafkaGroupSharesPartitions (SPEC 2.5): two processes running the same
// script with one 'properties.group.id' share the topic's partitions: rows
// produced once both joined are each written (at least once), and both
// processes write some of them.
func TestKafkaGroupSharesPartitions(t *testing.T) {
	t.Parallel() // (its own topics, group, transactional ids and folders: it waits on the broker beside the others)
	in, out := kafkatest.CreateTopic(t, 4, nil), kafkatest.CreateTopic(t, 1, nil)
	group := kafkatest.Name(t, "group")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 2)
	for _, who := range []string{"A", "B"} {
		sql := kafkaStream(t, "src", "name VARCHAR", in, ", 'properties.group.id'='"+group+"', 'scan.startup.mode'='earliest-offset'") +
			kafkaStream(t, "dst", "name VARCHAR, who VARCHAR", out, "") +
			"INSERT INTO dst SELECT name, '" + who + "' FROM src;\n"
		q := filepath.Join(t.TempDir(), "q.sql")
		if err := os.WriteFile(q, []byte(sql), 0o644); err != nil {
			t.Fatal(err)
		}
		go func() {
			var o, e strings.Builder
			done <- cli.Run(ctx, []string{"-f", q}, strings.NewReader(""), &o, &e)
		}()
	}
	kafkatest.WaitAssigned(t, group, in, 2, 4) // both join and the group settles
	var vals []string
	var parts []int32
	for i := range 200 {
		vals = append(vals, fmt.Sprintf("r%d", i))
		parts = append(parts, int32(i%4))
	}
	produceValues(t, in, vals, parts)
	deadline := time.Now().Add(30 * time.Second)
	var got []*kgo.Record
	for time.Now().Before(deadline) {
		if got = kafkatest.ReadAll(t, out, kafkatest.ReadOptions{}); len(rowsOfName(got)) == 200 {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	cancel()
	<-done
	<-done
	names := rowsOfName(got)
	if len(names) != 200 {
		t.Fatalf("the two processes wrote %d of the 200 rows within 30 s", len(names))
	}
	who := map[string]int{}
	for _, r := range got {
		who[strings.SplitN(string(r.Value), ",", 2)[1]]++
	}
	if who["A"] == 0 || who["B"] == 0 {
		t.Errorf("rows written per process %v: want both to have had partitions", who)
	}
}

// rowsOfName returns the distinct first csv fields of rs's values.
func rowsOfName(rs []*kgo.Record) map[string]bool {
	n := map[string]bool{}
	for _, r := range rs {
		n[strings.SplitN(string(r.Value), ",", 2)[0]] = true
	}
	return n
}
