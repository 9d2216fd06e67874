package tests

// Changelog formats and sinks (SPEC 2.8, issue 24 item 4): a Debezium file
// read, filtered and written again round-trips its changes (kinds and
// values), checked against a changelog the test makes and encodes itself
// (encoding/json), over random changes and batch sizes; malformed records
// go to the errors output with their line.

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// change is one Debezium record as the test writes and reads it.
type change struct {
	Before map[string]any `json:"before"`
	After  map[string]any `json:"after"`
	Op     string         `json:"op"`
}

// randomChanges returns n changes of a table keyed by id: inserts (op c or
// r), updates (u, with the row before) and deletes (d) of live keys.
func randomChanges(r *rand.Rand, n int) []change {
	live := map[int64]map[string]any{}
	var keys []int64
	names := []any{"a", "b, \"q\"", "ünï\\code", "", nil, "line\nbreak"}
	row := func(id int64) map[string]any {
		var w any = float64(r.Intn(1000)) / 4
		if r.Intn(8) == 0 {
			w = nil
		}
		return map[string]any{"id": float64(id), "name": names[r.Intn(len(names))], "w": w}
	}
	var out []change
	for len(out) < n {
		switch op := r.Intn(10); {
		case op < 4 || len(keys) == 0:
			id := int64(len(out) + 1)
			after := row(id)
			live[id] = after
			keys = append(keys, id)
			o := "c"
			if op == 0 {
				o = "r"
			}
			out = append(out, change{After: after, Op: o})
		case op < 8:
			id := keys[r.Intn(len(keys))]
			after := row(id)
			out = append(out, change{Before: live[id], After: after, Op: "u"})
			live[id] = after
		default:
			k := r.Intn(len(keys))
			id := keys[k]
			out = append(out, change{Before: live[id], Op: "d"})
			delete(live, id)
			keys = append(keys[:k], keys[k+1:]...)
		}
	}
	return out
}

func encodeChanges(t *testing.T, cs []change) string {
	var b strings.Builder
	for _, c := range cs {
		j, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.String()
}

func decodeChanges(t *testing.T, text string) []change {
	t.Helper()
	var out []change
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if l == "" {
			continue
		}
		var c change
		if err := json.Unmarshal([]byte(l), &c); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		out = append(out, c)
	}
	return out
}

const cdcDDL = `CREATE STREAM p (id BIGINT, name VARCHAR, w DOUBLE, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector'='file', 'path'='p.json', 'format'='debezium-json');
CREATE STREAM o (id BIGINT, name VARCHAR, w DOUBLE) WITH ('connector'='file', 'path'='o.json', 'format'='debezium-json');
`

// TestDebeziumRoundTrip: INSERT INTO a debezium-json sink SELECT from a
// debezium-json source writes the same changes (op r is written as c, an
// update's -U and +U as one u record); a filter on the key keeps whole
// updates; the file written reads back into the same changes again.
func TestDebeziumRoundTrip(t *testing.T) {
	for seed := int64(1); seed <= 4; seed++ {
		r := rand.New(rand.NewSource(seed))
		cs := randomChanges(r, []int{5, 700, 1500, 3000}[seed-1])
		mod := int64(r.Intn(3) + 1)
		var want []change
		for _, c := range cs {
			row := c.After
			if row == nil {
				row = c.Before
			}
			if int64(row["id"].(float64))%mod != 0 {
				continue
			}
			if c.Op == "r" {
				c.Op = "c"
			}
			want = append(want, c)
		}
		dir := t.TempDir()
		sql := cdcDDL + fmt.Sprintf("INSERT INTO o SELECT * FROM p WHERE id %% %d = 0;\n", mod)
		if stdout, stderr, code := runSQLIn(t, dir, map[string]string{"p.json": encodeChanges(t, cs)}, sql); code != 0 || stdout != "" || stderr != "" {
			t.Fatalf("seed %d: exit %d, stdout %q, stderr %q", seed, code, stdout, stderr)
		}
		written := readFile(t, filepath.Join(dir, "o.json"))
		if got := decodeChanges(t, written); !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d: the sink holds %d changes, want %d; first difference:\n%s", seed, len(got), len(want), firstChangeDiff(got, want))
		}
		// read back: the same changes again, byte for byte
		again := strings.ReplaceAll(cdcDDL, "o.json", "o2.json") + "INSERT INTO o SELECT * FROM p;\n"
		if _, stderr, code := runSQLIn(t, dir, map[string]string{"p.json": written}, again); code != 0 {
			t.Fatalf("seed %d: reading back: exit %d, %s", seed, code, stderr)
		}
		if got := readFile(t, filepath.Join(dir, "o2.json")); got != written {
			t.Errorf("seed %d: the file written, read back and written again differs:\n%s\nwant\n%s", seed, got, written)
		}
	}
}

func firstChangeDiff(got, want []change) string {
	for i := range min(len(got), len(want)) {
		if !reflect.DeepEqual(got[i], want[i]) {
			return fmt.Sprintf("change %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	return "(one is a prefix of the other)"
}

// TestChangelogBadInput: a Debezium record with an unknown op, or an update
// without its row before, goes to the errors output with its line and text;
// the job goes on (SPEC 1 bad input, issue 24 item 6). The same for
// canal-json and maxwell-json's own faults.
func TestChangelogBadInput(t *testing.T) {
	for _, tc := range []struct {
		format, in string
		want       []string // errors rows: position, the reason's start
	}{
		{"debezium-json", `{"before":null,"after":{"id":1,"name":"a"},"op":"c"}
{"before":null,"after":{"id":1,"name":"b"},"op":"u"}
{"before":null,"after":{"id":2},"op":"upsert"}
{"before":{"id":1,"name":"a"},"after":{"id":1,"name":"c"},"op":"u"}
`, []string{`p.json:2,the "before" of an update (op "u") is null`, `p.json:3,unknown "op" value "upsert"`}},
		{"canal-json", `{"data":[{"id":"1","name":"a"}],"type":"INSERT"}
{"data":[{"id":"1","name":"b"}],"type":"UPDATE"}
{"data":[{"id":"1"}],"type":"TRUNCATE"}
`, []string{`p.json:2,type UPDATE needs "old"`, `p.json:3,unknown "type" value "TRUNCATE"`}},
		{"maxwell-json", `{"type":"insert","data":{"id":1,"name":"a"}}
{"type":"bootstrap-start","data":{}}
{"type":"update","data":{"id":1,"name":"b"}}
`, []string{`p.json:2,unknown "type" value "bootstrap-start"`, `p.json:3,type update without "old"`}},
	} {
		t.Run(tc.format, func(t *testing.T) {
			dir := t.TempDir()
			sql := strings.ReplaceAll(cdcDDL, "'format'='debezium-json');\nCREATE", "'format'='"+tc.format+"');\nCREATE") + "INSERT INTO o SELECT * FROM p;\n"
			stdout, stderr, code := runSQLIn(t, dir, map[string]string{"p.json": tc.in}, sql, "--format", "csv")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var errs []string
			for _, l := range strings.Split(stderr, "\n") {
				if strings.HasPrefix(l, "errors> ") {
					errs = append(errs, l)
				}
			}
			if len(errs) != len(tc.want) {
				t.Fatalf("errors output:\n%s\nwant %d rows (stdout %q)", stderr, len(tc.want), stdout)
			}
			lines := strings.Split(tc.in, "\n")
			for i, w := range tc.want {
				f, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(errs[i], "errors> "))).Read()
				pos, reason, _ := strings.Cut(w, ",")
				var line int
				fmt.Sscanf(pos, "p.json:%d", &line)
				if err != nil || len(f) != 4 || f[0] != "p" || f[1] != pos || f[2] != lines[line-1] || !strings.HasPrefix(f[3], reason) {
					t.Errorf("errors row %d: %s\nwant stream p, position %s, raw %s and a reason that starts %s", i, errs[i], pos, lines[line-1], reason)
				}
			}
			if got := decodeChanges(t, readFile(t, filepath.Join(dir, "o.json"))); len(got) == 0 {
				t.Errorf("the good records were not written")
			}
		})
	}
}

// cdcProductsGolden is the committed sink file of queries/cdc_products.sql,
// read before any test runs (TestQueries runs the script in place).
var cdcProductsGolden, cdcProductsErr = os.ReadFile(filepath.Join("..", "queries", "cdc_products.heavy.json"))

// TestQueriesCDCProducts runs queries/cdc_products.sql in a copy of queries/
// and compares its debezium-json sink with the committed file, and that file
// with the table the test computes from products.debezium.json itself: the
// changes of the heavy products (weight > 5) make the heavy rows of the
// products table.
func TestQueriesCDCProducts(t *testing.T) {
	if cdcProductsErr != nil {
		t.Fatal(cdcProductsErr)
	}
	dir := runQueriesCopy(t, "cdc_products.sql", "products.debezium.json")
	if got := readFile(t, filepath.Join(dir, "cdc_products.heavy.json")); got != string(cdcProductsGolden) {
		t.Errorf("the sink file:\n%s\nwant\n%s", got, cdcProductsGolden)
	}
	// the reference: the products table after every good record, heavy rows only
	var all []change
	for _, c := range decodeChanges(t, readFile(t, filepath.Join("..", "queries", "products.debezium.json"))) {
		if c.Op != "t" {
			all = append(all, c)
		}
	}
	tab, err := applyChanges(all)
	if err != nil {
		t.Fatal(err)
	}
	want := map[float64]map[string]any{}
	for id, row := range tab {
		if row["weight"].(float64) > 5 {
			want[id] = map[string]any{"id": row["id"], "name": row["name"], "weight": row["weight"]}
		}
	}
	got, err := applyChanges(decodeChanges(t, string(cdcProductsGolden)))
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("the committed sink file makes the table %v (%v), want %v", got, err, want)
	}
}

// TestUpsertKafkaOptions: an upsert-kafka stream needs a PRIMARY KEY, and
// 'key.fields-prefix' Flink's rules; a kafka sink refuses a changelog format
// it cannot write, naming what can.
func TestUpsertKafkaOptions(t *testing.T) {
	base := "CREATE STREAM u (%s) WITH ('connector'='upsert-kafka', 'topic'='t', 'properties.bootstrap.servers'='127.0.0.1:1', 'key.format'='json', 'value.format'='json'%s);\n"
	for _, tc := range []struct{ cols, extra, want string }{
		{"id BIGINT, v VARCHAR", "", "connector 'upsert-kafka' needs PRIMARY KEY (k, ...) NOT ENFORCED"},
		{"k_id BIGINT, v VARCHAR, PRIMARY KEY (k_id) NOT ENFORCED", ", 'key.fields-prefix'='k_'", "option 'key.fields-prefix': needs 'value.fields-include' = 'EXCEPT_KEY'"},
		{"id BIGINT, v VARCHAR, PRIMARY KEY (id) NOT ENFORCED", ", 'key.fields-prefix'='k_', 'value.fields-include'='EXCEPT_KEY'", "the key column id does not start with 'k_'"},
		{"id BIGINT, PRIMARY KEY (id) NOT ENFORCED", ", 'value.fields-include'='EXCEPT_KEY'", "'EXCEPT_KEY' leaves the value no column"},
		{"id BIGINT, PRIMARY KEY (id) NOT ENFORCED", ", 'format'='json'", "unknown option 'format' for connector 'upsert-kafka'"},
	} {
		_, stderr, code := runSQLIn(t, t.TempDir(), nil, fmt.Sprintf(base, tc.cols, tc.extra))
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s%s: exit %d, %s\nwant exit 2 and %q", tc.cols, tc.extra, code, stderr, tc.want)
		}
	}
}

// TestIgnoreParseErrors: Flink's '<format>.ignore-parse-errors' = 'true' drops
// malformed records as 'errors' = 'skip' does (counted on stderr, no errors
// rows), and contradicts 'errors' = 'fail' or 'side' given with it.
func TestIgnoreParseErrors(t *testing.T) {
	in := `{"before":null,"after":{"id":1,"name":"a"},"op":"c"}
{"before":null,"after":{"id":2},"op":"q"}
{"before":null,"after":{"id":3,"name":"c"},"op":"c"}
`
	dir := t.TempDir()
	ddl := strings.Replace(cdcDDL, "'format'='debezium-json');\nCREATE", "'format'='debezium-json', 'debezium-json.ignore-parse-errors'='true');\nCREATE", 1)
	_, stderr, code := runSQLIn(t, dir, map[string]string{"p.json": in}, ddl+"INSERT INTO o SELECT * FROM p;\n", "--format", "csv")
	if code != 0 || strings.Contains(stderr, "errors> ") || !strings.Contains(stderr, "1 malformed") {
		t.Errorf("exit %d, stderr %q; want 0, no errors rows and the count", code, stderr)
	}
	if n := len(decodeChanges(t, readFile(t, filepath.Join(dir, "o.json")))); n != 2 {
		t.Errorf("%d changes written, want 2", n)
	}
	bad := strings.Replace(ddl, "'debezium-json.ignore-parse-errors'='true'", "'debezium-json.ignore-parse-errors'='true', 'errors'='fail'", 1)
	if _, stderr, code := runSQLIn(t, dir, nil, bad); code != 2 || !strings.Contains(stderr, "contradicts 'debezium-json.ignore-parse-errors'") {
		t.Errorf("with 'errors'='fail': exit %d, %s", code, stderr)
	}
}

// TestDebeziumSinkOfUpdatingAggregate: an updating aggregate's changes (rows
// the aggregate makes itself, not input rows) reach a debezium-json sink with
// their kinds (SPEC 2.8): applying the written envelope (c inserts, u
// replaces before by after, d deletes) gives each key's count, computed
// separately over the whole input, for random inputs.
func TestDebeziumSinkOfUpdatingAggregate(t *testing.T) {
	for seed := range 5 {
		r := rand.New(rand.NewSource(int64(seed)*7 + 3))
		var in strings.Builder
		want := map[string]int{}
		for range 1 + r.Intn(300) {
			k := fmt.Sprintf("k%d", r.Intn(7))
			want[k]++
			fmt.Fprintf(&in, "{\"k\":%q}\n", k)
		}
		dir := t.TempDir()
		sql := `CREATE STREAM g (k VARCHAR) WITH ('connector'='file', 'path'='g.json', 'format'='json');
CREATE STREAM dz (k VARCHAR, n BIGINT) WITH ('connector'='file', 'path'='dz.json', 'format'='debezium-json');
SET 'execution.runtime-mode' = 'streaming';
INSERT INTO dz SELECT k, COUNT(*) AS n FROM g GROUP BY k;
`
		if _, errs, code := runSQLIn(t, dir, map[string]string{"g.json": in.String()}, sql); code != 0 {
			t.Fatalf("seed %d: exit %d: %s", seed, code, errs)
		}
		type row struct {
			K string `json:"k"`
			N int    `json:"n"`
		}
		table := map[string]int{}
		for _, line := range strings.Split(strings.TrimSpace(readFile(t, filepath.Join(dir, "dz.json"))), "\n") {
			var env struct {
				Before *row   `json:"before"`
				After  *row   `json:"after"`
				Op     string `json:"op"`
			}
			if err := json.Unmarshal([]byte(line), &env); err != nil {
				t.Fatalf("seed %d: %q: %v", seed, line, err)
			}
			switch env.Op {
			case "c":
				if _, ok := table[env.After.K]; ok || env.Before != nil {
					t.Fatalf("seed %d: %q creates a key already there", seed, line)
				}
				table[env.After.K] = env.After.N
			case "u":
				if env.Before == nil || table[env.Before.K] != env.Before.N {
					t.Fatalf("seed %d: %q updates a row not in the table (%v)", seed, line, table)
				}
				delete(table, env.Before.K)
				table[env.After.K] = env.After.N
			case "d":
				delete(table, env.Before.K)
			default:
				t.Fatalf("seed %d: op %q", seed, env.Op)
			}
		}
		if fmt.Sprint(table) != fmt.Sprint(want) {
			t.Fatalf("seed %d: the envelope applied gives %v, want %v", seed, table, want)
		}
	}
}
