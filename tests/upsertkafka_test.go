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
	for seed := int64(1); seed <= 3; seed++ {
		r := rand.New(rand.NewSource(seed))
		cs := randomChanges(r, []int{300, 2500, 1200}[seed-1])
		sinkOpts, readOpts := "", kafkatest.ReadOptions{}
		if seed == 3 { // the sink in Kafka transactions: a read_committed reader sees it whole
			sinkOpts = fmt.Sprintf(", 'sink.delivery-guarantee'='exactly-once', 'sink.transactional-id-prefix'='%s'", kafkatest.Name(t, "txn"))
			readOpts.ReadCommitted = true
		}
		want, err := applyChanges(cs)
		if err != nil {
			t.Fatal(err)
		}
		topic := kafkatest.CreateTopic(t, 3, nil)
		dir := t.TempDir()
		cols := "id BIGINT, name VARCHAR, w DOUBLE, PRIMARY KEY (id) NOT ENFORCED"
		write := strings.SplitAfter(cdcDDL, "\n")[0] + upsertStream(t, "u", cols, topic, sinkOpts) + "INSERT INTO u SELECT * FROM p;\n"
		if stdout, stderr, code := runSQLIn(t, dir, map[string]string{"p.json": encodeChanges(t, cs)}, write); code != 0 || stdout != "" {
			t.Fatalf("writing: exit %d, stdout %q, stderr %q", code, stdout, stderr)
		}
		last := map[string]*kgo.Record{}
		for _, rec := range kafkatest.ReadAll(t, topic, readOpts) {
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

// TestUpsertKafkaCSVExceptKey: with 'value.format'='csv', 'key.format'='csv',
// 'value.fields-include'='EXCEPT_KEY' and 'key.fields-prefix', the record key
// is the key columns alone, the value the other columns, and reading the
// topic back puts the key's values into the prefixed columns.
func TestUpsertKafkaCSVExceptKey(t *testing.T) {
	topic := kafkatest.CreateTopic(t, 2, nil)
	opts := ", 'key.format'='csv', 'value.format'='csv', 'key.fields-prefix'='k_', 'value.fields-include'='EXCEPT_KEY'"
	ddl := func(extra string) string {
		return strings.Replace(upsertStream(t, "u", "k_id BIGINT, k_region VARCHAR, name VARCHAR, PRIMARY KEY (k_id, k_region) NOT ENFORCED", topic, opts+extra),
			"'key.format'='json', 'value.format'='json', ", "", 1)
	}
	in := `{"before":null,"after":{"k_id":1,"k_region":"eu","name":"a"},"op":"c"}
{"before":null,"after":{"k_id":1,"k_region":"us","name":"b"},"op":"c"}
{"before":{"k_id":1,"k_region":"eu","name":"a"},"after":{"k_id":1,"k_region":"eu","name":"a, \"2\""},"op":"u"}
{"before":{"k_id":1,"k_region":"us","name":"b"},"after":null,"op":"d"}
`
	src := "CREATE STREAM p (k_id BIGINT, k_region VARCHAR, name VARCHAR) WITH ('connector'='file', 'path'='p.json', 'format'='debezium-json');\n"
	dir := t.TempDir()
	if _, stderr, code := runSQLIn(t, dir, map[string]string{"p.json": in}, src+ddl("")+"INSERT INTO u SELECT * FROM p;\n"); code != 0 {
		t.Fatalf("writing: exit %d, %s", code, stderr)
	}
	var got []string
	for _, r := range kafkatest.ReadAll(t, topic, kafkatest.ReadOptions{}) {
		v := "<null>"
		if r.Value != nil {
			v = string(r.Value)
		}
		got = append(got, string(r.Key)+" => "+v)
	}
	want := []string{"1,eu => a", "1,us => b", `1,eu => "a, ""2"""`, "1,us => <null>"}
	if fmt.Sprintf("%q", sorted(got)) != fmt.Sprintf("%q", sorted(want)) {
		t.Errorf("the topic holds %q, want %q", sorted(got), sorted(want))
	}
	read := ddl(", 'scan.bounded.mode'='latest-offset'") +
		"CREATE STREAM o (k_id BIGINT, k_region VARCHAR, name VARCHAR) WITH ('connector'='file', 'path'='o.json', 'format'='debezium-json');\n" +
		"INSERT INTO o SELECT * FROM u;\n"
	if _, stderr, code := runSQLIn(t, dir, nil, read); code != 0 {
		t.Fatalf("reading: exit %d, %s", code, stderr)
	}
	// the changes read, applied: the one key left is (1, eu) with its last name
	tab := map[string]string{}
	for _, c := range decodeChanges(t, readFile(t, filepath.Join(dir, "o.json"))) {
		if c.Before != nil {
			delete(tab, fmt.Sprint(c.Before["k_id"], c.Before["k_region"]))
		}
		if c.After != nil {
			tab[fmt.Sprint(c.After["k_id"], c.After["k_region"])] = c.After["name"].(string)
		}
	}
	if fmt.Sprint(tab) != `map[1eu:a, "2"]` {
		t.Errorf("the table read back: %v, want key (1, eu) with the name a, \"2\"", tab)
	}
}

// TestKafkaDebeziumSource: a plain kafka stream in 'format'='debezium-json'
// reads each record's changes (an update as -U and +U), skips tombstones, and
// sends a record with an unknown op to the errors output with its offset.
func TestKafkaDebeziumSource(t *testing.T) {
	topic := kafkatest.CreateTopic(t, 1, nil)
	kafkatest.Produce(t, kafkatest.Client(t), topic,
		&kgo.Record{Value: []byte(`{"schema":{},"payload":{"before":null,"after":{"id":1,"name":"a"},"op":"c"}}`)},
		&kgo.Record{Value: []byte(`{"schema":{},"payload":{"before":{"id":1,"name":"a"},"after":{"id":1,"name":"b"},"op":"u"}}`)},
		&kgo.Record{Key: []byte(`1`), Value: nil},
		&kgo.Record{Value: []byte(`{"schema":{},"payload":{"before":{"id":1,"name":"b"},"after":null,"op":"x"}}`)},
	)
	dir := t.TempDir()
	sql := kafkaStream(t, "p", "id BIGINT, name VARCHAR, w DOUBLE", topic, ", 'format'='debezium-json', 'debezium-json.schema-include'='true', 'scan.bounded.mode'='latest-offset'") +
		strings.SplitAfter(cdcDDL, "\n")[1] + "INSERT INTO o SELECT * FROM p;\n"
	_, stderr, code := runSQLIn(t, dir, nil, sql, "--format", "csv")
	if code != 0 || !strings.Contains(stderr, "errors> p,"+topic+":0:3,") || !strings.Contains(stderr, `unknown ""op"" value ""x""`) {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	want := `{"before":null,"after":{"id":1,"name":"a","w":null},"op":"c"}
{"before":{"id":1,"name":"a","w":null},"after":{"id":1,"name":"b","w":null},"op":"u"}
`
	if got := readFile(t, filepath.Join(dir, "o.json")); got != want {
		t.Errorf("the changes read:\n%s\nwant\n%s", got, want)
	}
}
