package tests

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"streamql/tests/kafkatest"
)

// latestReadings is the reference of the latest-reading examples, computed
// from queries/sensors.csv apart from the engine: each device's reading
// with the largest ts (of equal ones the later in the file, as
// deduplication keeping the last row breaks ties), as "ts|temperature" by
// device.
func latestReadings(t *testing.T) map[string]string {
	t.Helper()
	recs := readCSV(t, readFile(t, filepath.Join("..", "queries", "sensors.csv")))
	best := map[string]int64{}
	want := map[string]string{}
	for _, r := range recs {
		ts, err := strconv.ParseInt(r[1], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		if old, ok := best[r[0]]; !ok || ts >= old {
			best[r[0]] = ts
			want[r[0]] = r[1] + "|" + r[2]
		}
	}
	return want
}

// readCSV parses text as csv records.
func readCSV(t *testing.T, text string) [][]string {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(text)).ReadAll()
	if err != nil {
		t.Fatalf("%v: %q", err, text)
	}
	return recs
}

// upsertByDevice applies a csv changelog (op, deviceNo, ts, temperature;
// the header first: the example's read-back) by deviceNo as an upsert sink does: +I and +U put
// "ts|temperature" under the device, -D deletes it, -U is dropped (its +U
// replaces the row).
func upsertByDevice(t *testing.T, text string) map[string]string {
	t.Helper()
	recs := readCSV(t, text)
	if len(recs) == 0 || !reflect.DeepEqual(recs[0], []string{"op", "deviceNo", "ts", "temperature"}) {
		t.Fatalf("changelog header: %q", text)
	}
	got := map[string]string{}
	for _, r := range recs[1:] {
		switch r[0] {
		case "+I", "+U":
			got[r[1]] = r[2] + "|" + r[3]
		case "-D":
			delete(got, r[1])
		}
	}
	return got
}

// TestLatestReadingTwin: the expected table of the queries/tests/latest-reading
// case (the file twin of queries/latest_reading_upsert_kafka.sql, which
// `streamql test` checks against a run: the bounded file's final table) is
// each device's latest reading by the separate reference, the table the
// upsert topic holds.
func TestLatestReadingTwin(t *testing.T) {
	recs := readCSV(t, readFile(t, filepath.Join("..", "queries", "tests", "latest-reading", "expected", "main.csv")))
	if len(recs) == 0 || !reflect.DeepEqual(recs[0], []string{"deviceNo", "ts", "temperature"}) {
		t.Fatalf("header %v", recs[:min(1, len(recs))])
	}
	got := map[string]string{}
	for _, r := range recs[1:] {
		if _, dup := got[r[0]]; dup {
			t.Errorf("device %s has two rows", r[0])
		}
		got[r[0]] = r[1] + "|" + r[2]
	}
	if want := latestReadings(t); !reflect.DeepEqual(got, want) {
		t.Errorf("the twin's table\n%v\nthe reference\n%v", got, want)
	}
}

// TestKafkaLatestReadingExample (issue 24 item 7; SPEC 2.8, 2.9) runs
// queries/latest_reading_upsert_kafka.sql itself against the real broker
// (its topic and address replaced by the test's): deduplication keeping
// each device's last reading, written to an upsert-kafka sink keyed by
// deviceNo. The topic read back as upserts (the last record of every key;
// a tombstone deletes its key) is each device's latest reading by a
// separately computed reference, every record's key is its value's
// deviceNo, and the script's own read-back (its last SELECT) prints the
// same table. Needs STREAMQL_KAFKA_BROKERS (kafkatest.Brokers).
func TestKafkaLatestReadingExample(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	script, err := os.ReadFile(filepath.Join("..", "queries", "latest_reading_upsert_kafka.sql"))
	if err != nil {
		t.Fatal(err)
	}
	sensors, err := os.ReadFile(filepath.Join("..", "queries", "sensors.csv"))
	if err != nil {
		t.Fatal(err)
	}
	topic := kafkatest.CreateTopic(t, 3, nil)
	sql := string(script)
	for old, repl := range map[string]string{"'latest_reading'": "'" + topic + "'", "'127.0.0.1:9092'": "'" + brokers + "'"} {
		if !strings.Contains(sql, old) {
			t.Fatalf("the example no longer holds %s", old)
		}
		sql = strings.ReplaceAll(sql, old, repl)
	}
	stdout, stderr, code := runSQLIn(t, t.TempDir(), map[string]string{"sensors.csv": string(sensors)}, sql, "--format", "csv")
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	want := latestReadings(t)
	got := map[string]string{}
	for _, rec := range kafkatest.ReadAll(t, topic, kafkatest.ReadOptions{}) {
		var key struct{ DeviceNo string }
		if err := json.Unmarshal(rec.Key, &key); err != nil {
			t.Fatalf("record key %q: %v", rec.Key, err)
		}
		if rec.Value == nil {
			delete(got, key.DeviceNo)
			continue
		}
		var v struct {
			DeviceNo    string
			Ts          int64
			Temperature float64
		}
		if err := json.Unmarshal(rec.Value, &v); err != nil {
			t.Fatalf("record value %q: %v", rec.Value, err)
		}
		if v.DeviceNo != key.DeviceNo {
			t.Errorf("record key %s holds the row of %s", rec.Key, v.DeviceNo)
		}
		got[key.DeviceNo] = fmt.Sprintf("%d|%s", v.Ts, strconv.FormatFloat(v.Temperature, 'f', -1, 64))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the topic read as upserts gives\n%v\nthe reference\n%v", got, want)
	}
	// the script's read-back: a changelog (csv, op first) whose table is the same
	back := upsertByDevice(t, stdout)
	if !reflect.DeepEqual(back, want) {
		t.Errorf("the script's read-back prints\n%s\nits table\n%v\nthe reference\n%v", stdout, back, want)
	}
}
