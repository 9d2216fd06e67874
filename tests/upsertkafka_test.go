package tests

// upsert-kafka against the real broker (SPEC 2.8, issue 24 items 4 and 6):
// a changelog written to an upsert topic by streamql and read back gives the
// final table (the latest row per key, deleted keys gone), checked against a
// table the test computes itself; a tombstone without a key is malformed.
// They need STREAMQL_KAFKA_BROKERS (kafkatest.Brokers).

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"streamql/tests/kafkatest"
)

// upsertStream returns a CREATE STREAM of an upsert-kafka stream over topic.
func upsertStream(t *testing.T, name, cols, topic, extra string) string {
	return fmt.Sprintf("CREATE STREAM %s (%s) WITH ('connector'='upsert-kafka', 'topic'='%s', 'properties.bootstrap.servers'='%s', 'key.format'='json', 'value.format'='json'%s);\n",
		name, cols, topic, kafkatest.Brokers(t), extra)
}

// applyChanges applies a changelog to a table keyed by id, strictly: a -U or
// -D must take back the key's current row, a +I must find no row. It
// returns the table, or the first change that does not apply.
func applyChanges(cs []change) (map[float64]map[string]any, error) {
	tab := map[float64]map[string]any{}
	for i, c := range cs {
		if c.Before != nil {
			id := c.Before["id"].(float64)
			if !reflect.DeepEqual(tab[id], c.Before) {
				return nil, fmt.Errorf("change %d takes back %v, but the key's row is %v", i, c.Before, tab[id])
			}
			delete(tab, id)
		}
		if c.After != nil {
			id := c.After["id"].(float64)
			if _, ok := tab[id]; ok {
				return nil, fmt.Errorf("change %d inserts %v, but the key has the row %v", i, c.After, tab[id])
			}
			tab[id] = c.After
		}
	}
	return tab, nil
}

// TestUpsertKafkaRoundTrip: a Debezium changelog written by an upsert-kafka
// sink (key = the PRIMARY KEY, value = the row, a delete = a tombstone) and
// read back by an upsert-kafka source gives the table the changes make; the
// source's changelog is consistent (+I first, -U and -D take back the key's
// last row) and the topic's last record of every deleted key is a tombstone.
func TestUpsertKafkaRoundTrip(t *testing.T) {
	for seed := int64(1); seed <= 2; seed++ {
		r := rand.New(rand.NewSource(seed))
		cs := randomChanges(r, []int{300, 2500}[seed-1])
		want, err := applyChanges(cs)
		if err != nil {
			t.Fatal(err)
		}
		topic := kafkatest.CreateTopic(t, 3, nil)
		dir := t.TempDir()
		cols := "id BIGINT, name VARCHAR, w DOUBLE, PRIMARY KEY (id) NOT ENFORCED"
		write := strings.SplitAfter(cdcDDL, "\n")[0] + upsertStream(t, "u", cols, topic, "") + "INSERT INTO u SELECT * FROM p;\n"
		if stdout, stderr, code := runSQLIn(t, dir, map[string]string{"p.json": encodeChanges(t, cs)}, write); code != 0 || stdout != "" {
			t.Fatalf("writing: exit %d, stdout %q, stderr %q", code, stdout, stderr)
		}
		last := map[string]*kgo.Record{}
		for _, rec := range kafkatest.ReadAll(t, topic, kafkatest.ReadOptions{}) {
			if rec.Key == nil {
				t.Fatalf("a record without a key: value %q", rec.Value)
			}
			last[string(rec.Key)] = rec
		}
		for _, rec := range last {
			var k struct{ ID float64 }
			if err := json.Unmarshal(rec.Key, &k); err != nil {
				t.Fatalf("key %q: %v", rec.Key, err)
			}
			row, live := want[k.ID]
			switch {
			case !live && rec.Value != nil:
				t.Errorf("deleted key %s: the last record is %q, not a tombstone", rec.Key, rec.Value)
			case live:
				var got map[string]any
				if err := json.Unmarshal(rec.Value, &got); err != nil || !reflect.DeepEqual(got, row) {
					t.Errorf("key %s: the last value is %q, want %v", rec.Key, rec.Value, row)
				}
			}
		}
		read := upsertStream(t, "u", cols, topic, ", 'scan.bounded.mode'='latest-offset'") +
			strings.SplitAfter(cdcDDL, "\n")[1] + "INSERT INTO o SELECT * FROM u;\n"
		if stdout, stderr, code := runSQLIn(t, dir, nil, read); code != 0 || stdout != "" {
			t.Fatalf("reading: exit %d, stdout %q, stderr %q", code, stdout, stderr)
		}
		got, err := applyChanges(decodeChanges(t, readFile(t, filepath.Join(dir, "o.json"))))
		if err != nil {
			t.Fatalf("seed %d: the source's changelog: %v", seed, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("seed %d: the table read back has %d keys, want %d", seed, len(got), len(want))
		}
	}
}

// TestUpsertKafkaBadRecords: a tombstone without a key, and a record without
// a key, go to the errors output as topic:partition:offset; a tombstone of a
// key deletes its row; a value its columns cannot hold is malformed.
func TestUpsertKafkaBadRecords(t *testing.T) {
	topic := kafkatest.CreateTopic(t, 1, nil)
	cl := kafkatest.Client(t)
	kafkatest.Produce(t, cl, topic,
		&kgo.Record{Key: []byte(`{"id":1}`), Value: []byte(`{"id":1,"name":"a"}`)},
		&kgo.Record{Key: nil, Value: nil},
		&kgo.Record{Key: []byte(`{"id":1}`), Value: []byte(`{"id":1,"name":"b"}`)},
		&kgo.Record{Key: nil, Value: []byte(`{"id":2,"name":"x"}`)},
		&kgo.Record{Key: []byte(`{"id":1}`), Value: nil},
		&kgo.Record{Key: []byte(`{"id":3}`), Value: []byte(`{"id":"three"}`)},
		&kgo.Record{Key: []byte(`{"id":4}`), Value: nil},
	)
	dir := t.TempDir()
	sql := upsertStream(t, "u", "id BIGINT, name VARCHAR, w DOUBLE, PRIMARY KEY (id) NOT ENFORCED", topic, ", 'scan.bounded.mode'='latest-offset'") +
		strings.SplitAfter(cdcDDL, "\n")[1] + "INSERT INTO o SELECT * FROM u;\n"
	stdout, stderr, code := runSQLIn(t, dir, nil, sql, "--format", "csv")
	if code != 0 || stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	for _, w := range []string{
		"errors> u," + topic + ":0:1,\"\",\"a tombstone (null value) without a key",
		"errors> u," + topic + ":0:3,\"{\"\"id\"\":2,\"\"name\"\":\"\"x\"\"}\",\"a record without a key",
		"errors> u," + topic + ":0:5,\"{\"\"id\"\":\"\"three\"\"}\",\"value: column id: \"\"three\"\" is not a valid BIGINT",
	} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks %s\n%s", w, stderr)
		}
	}
	got := readFile(t, filepath.Join(dir, "o.json"))
	want := `{"before":null,"after":{"id":1,"name":"a","w":null},"op":"c"}
{"before":{"id":1,"name":"a","w":null},"after":{"id":1,"name":"b","w":null},"op":"u"}
{"before":{"id":1,"name":"b","w":null},"after":null,"op":"d"}
`
	if got != want {
		t.Errorf("the changelog read:\n%s\nwant\n%s", got, want)
	}
}

// TestUpsertKafkaState: the last row of every key counts against
// 'state.max-bytes': a topic of more keys than fit stops the job with exit 1
// and a message naming the upsert source; a budget that fits them reads all.
func TestUpsertKafkaState(t *testing.T) {
	topic := kafkatest.CreateTopic(t, 1, nil)
	var rs []*kgo.Record
	for i := range 2000 {
		rs = append(rs, &kgo.Record{Key: []byte(fmt.Sprintf(`{"id":%d}`, i)), Value: []byte(fmt.Sprintf(`{"id":%d,"name":"%s"}`, i, strings.Repeat("x", 100)))})
	}
	kafkatest.Produce(t, kafkatest.Client(t), topic, rs...)
	ddl := upsertStream(t, "u", "id BIGINT, name VARCHAR, w DOUBLE, PRIMARY KEY (id) NOT ENFORCED", topic, ", 'scan.bounded.mode'='latest-offset'") +
		strings.SplitAfter(cdcDDL, "\n")[1]
	_, stderr, code := runSQLIn(t, t.TempDir(), nil, "SET 'state.max-bytes' = '64KiB';\n"+ddl+"INSERT INTO o SELECT * FROM u;\n")
	if code != 1 || !strings.Contains(stderr, "upsert source of stream u") {
		t.Errorf("64KiB for 2000 keys of 100-byte rows: exit %d, %s; want exit 1 naming the upsert source", code, stderr)
	}
	dir := t.TempDir()
	if _, stderr, code := runSQLIn(t, dir, nil, "SET 'state.max-bytes' = '4MiB';\n"+ddl+"INSERT INTO o SELECT * FROM u;\n"); code != 0 {
		t.Fatalf("4MiB: exit %d, %s", code, stderr)
	}
	if n := strings.Count(readFile(t, filepath.Join(dir, "o.json")), "\n"); n != 2000 {
		t.Errorf("4MiB: %d changes, want 2000 inserts", n)
	}
}
