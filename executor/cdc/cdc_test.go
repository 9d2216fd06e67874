package cdc

import (
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"

	"streamql/catalog"
	"streamql/executor/records"
	"streamql/executor/vector"
)

var products = struct {
	names []string
	types []catalog.Type
}{[]string{"id", "name", "description", "weight"}, []catalog.Type{catalog.BigInt, catalog.Varchar, catalog.Varchar, catalog.Double}}

// show prints row i of b as Flink's print sink does: +I[111, scooter, ...].
func show(b *vector.Batch, i int) string {
	var f []string
	for _, v := range b.Cols {
		if v.Null[i] {
			f = append(f, "NULL")
			continue
		}
		f = append(f, string(vector.AppendValue(nil, v.Type, v, i)))
	}
	return b.Kinds[i].String() + "[" + strings.Join(f, ", ") + "]"
}

// decodeAll reads input in format o through a Decoder and returns every row
// (as show prints it, with its line) and every malformed record (line:
// reason), in input order.
func decodeAll(t *testing.T, o Options, input string) (rows, bad []string) {
	t.Helper()
	ch, err := NewChanges(o, products.names, products.types, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := NewDecoder(strings.NewReader(input), ch, ReaderOptions{})
	b := vector.NewBatch(products.types)
	for {
		var br []records.BadRow
		err := d.Decode(b, &br)
		k := 0
		for i := 0; i <= b.N; i++ {
			for ; k < len(br) && br[k].Index == i; k++ {
				bad = append(bad, fmt.Sprintf("%d: %s", br[k].Line, br[k].Reason))
				if !strings.Contains(input, string(br[k].Raw)) || len(br[k].Raw) == 0 {
					t.Errorf("raw %q is not the record's text", br[k].Raw)
				}
			}
			if i < b.N {
				rows = append(rows, fmt.Sprintf("%d %s", b.Pos[i], show(b, i)))
			}
		}
		if err == io.EOF {
			return rows, bad
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func check(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\ngot\n  %s\nwant\n  %s", what, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// Flink's documented Debezium example (docs: formats/debezium), and the other ops.
func TestDebezium(t *testing.T) {
	in := `{"before":{"id":111,"name":"scooter","description":"Big 2-wheel scooter","weight":5.18},"after":{"id":111,"name":"scooter","description":"Big 2-wheel scooter","weight":5.15},"source":{"db":"inventory","table":"products"},"op":"u","ts_ms":1589362330904,"transaction":null}
{"before":null,"after":{"id":101,"name":"car","description":"4 wheels","weight":1.5},"op":"c"}

{ "before" : null , "after" : { "id" : 102 , "name" : "snapshot" }, "op" : "r" }
{"before":{"id":101,"name":"car","description":"4 wheels","weight":1.5},"after":null,"op":"d"}
{"before":null,"after":{"id":1},"op":"x"}
{"before":null,"after":{"id":1},"op":"u"}
{"before":null,"after":null,"op":"d"}
{"after":{"id":1}}
{"before":null,"after":{"id":"abc"},"op":"c"}
{"before":null,"after":{"id":1},"op":"c"
`
	rows, bad := decodeAll(t, Options{Format: "debezium-json", Envelope: Debezium}, in)
	check(t, "rows", rows, []string{
		"1 -U[111, scooter, Big 2-wheel scooter, 5.18]",
		"1 +U[111, scooter, Big 2-wheel scooter, 5.15]",
		"2 +I[101, car, 4 wheels, 1.5]",
		"4 +I[102, snapshot, NULL, NULL]",
		"5 -D[101, car, 4 wheels, 1.5]",
	})
	check(t, "malformed", bad, []string{
		`6: unknown "op" value "x": Debezium's are c (create), r (read), u (update) and d (delete)`,
		`7: the "before" of an update (op "u") is null: Debezium must send the old row (for Postgres, set the table's REPLICA IDENTITY to FULL)`,
		`8: the "before" of a delete (op "d") is null: Debezium must send the old row (for Postgres, set the table's REPLICA IDENTITY to FULL)`,
		`9: no "op": a Debezium record's op is c, r, u or d`,
		`10: after: column id: "abc" is not a valid BIGINT`,
		`11: invalid JSON: the line ends too early (expected ',' or '}' after a field)`,
	})
}

func TestDebeziumSchemaInclude(t *testing.T) {
	in := `{"schema":{"type":"struct","fields":[]},"payload":{"before":null,"after":{"id":7,"name":"a"},"op":"c"}}
{"schema":{}}
{"payload":{"before":null,"after":{"id":7},"op":"z"}}
`
	rows, bad := decodeAll(t, Options{Format: "debezium-json", Envelope: Debezium, SchemaInclude: true}, in)
	check(t, "rows", rows, []string{"1 +I[7, a, NULL, NULL]"})
	check(t, "malformed", bad, []string{
		`2: 'debezium-json.schema-include' is true but the record has no "payload"`,
		`3: unknown "op" value "z": Debezium's are c (create), r (read), u (update) and d (delete)`,
	})
}

// Flink's documented Canal example (docs: formats/canal): values as strings,
// "old" holding the changed columns only; several rows in one record.
func TestCanal(t *testing.T) {
	in := `{"data":[{"id":"111","name":"scooter","description":"Big 2-wheel scooter","weight":"5.18"}],"database":"inventory","es":1589373560000,"id":9,"isDdl":false,"mysqlType":{"id":"INTEGER"},"old":[{"weight":"5.15"}],"pkNames":["id"],"sql":"","table":"products","ts":1589373560798,"type":"UPDATE"}
{"data":[{"id":1,"name":"a"},{"id":2,"name":"b, \"c\""}],"database":"inventory","table":"products","type":"INSERT"}
{"data":[{"id":1,"name":"a"},{"id":2,"name":"b"}],"old":[{"name":null},{}],"database":"inventory","table":"products","type":"UPDATE"}
{"data":[{"id":2,"name":"b"}],"database":"inventory","table":"products","type":"DELETE"}
{"data":null,"database":"inventory","table":"products","type":"CREATE","isDdl":true,"sql":"CREATE TABLE products (id INT)"}
{"data":[{"id":3}],"database":"inventory","table":"products","type":"ALTER"}
{"data":[{"id":3}],"database":"inventory","table":"products","type":"UPDATE"}
{"data":[{"id":3},{"id":4}],"old":[{}],"database":"inventory","table":"products","type":"UPDATE"}
{"data":[{"id":5}],"database":"other","table":"products","type":"INSERT"}
`
	rows, bad := decodeAll(t, Options{Format: "canal-json", Envelope: Canal}, in)
	check(t, "rows", rows, []string{
		"1 -U[111, scooter, Big 2-wheel scooter, 5.15]",
		"1 +U[111, scooter, Big 2-wheel scooter, 5.18]",
		"2 +I[1, a, NULL, NULL]",
		`2 +I[2, b, "c", NULL, NULL]`,
		"3 -U[1, NULL, NULL, NULL]",
		"3 +U[1, a, NULL, NULL]",
		"3 -U[2, b, NULL, NULL]",
		"3 +U[2, b, NULL, NULL]",
		"4 -D[2, b, NULL, NULL]",
		"9 +I[5, NULL, NULL, NULL]",
	})
	check(t, "malformed", bad, []string{
		`6: unknown "type" value "ALTER": Canal's are INSERT, UPDATE, DELETE (and CREATE, skipped)`,
		`7: type UPDATE needs "old", an array of the changed columns' old values per row`,
		`8: type UPDATE has 2 rows in "data" but 1 in "old"`,
	})
	db, _ := compile("inv.*")
	rows, _ = decodeAll(t, Options{Format: "canal-json", Envelope: Canal, Database: db}, in)
	if len(rows) != 9 || strings.Contains(strings.Join(rows, " "), "[5,") {
		t.Errorf("'canal-json.database.include' = 'inv.*' read %v", rows)
	}
}

// Flink's documented Maxwell example (docs: formats/maxwell).
func TestMaxwell(t *testing.T) {
	in := `{"database":"test","table":"product","type":"update","ts":1596684904,"xid":7201,"commit":true,"data":{"id":111,"name":"scooter","description":"Big 2-wheel scooter","weight":5.18},"old":{"weight":5.15},"primary_key_columns":["id"]}
{"database":"test","table":"product","type":"insert","data":{"id":1,"name":"a"}}
{"database":"test","table":"product","type":"delete","data":{"id":1,"name":"a"}}
{"database":"test","table":"product","type":"table-create","def":{}}
{"database":"test","table":"product","type":"update","data":{"id":1}}
{"database":"test","table":"product","type":"insert"}
`
	rows, bad := decodeAll(t, Options{Format: "maxwell-json", Envelope: Maxwell}, in)
	check(t, "rows", rows, []string{
		"1 -U[111, scooter, Big 2-wheel scooter, 5.15]",
		"1 +U[111, scooter, Big 2-wheel scooter, 5.18]",
		"2 +I[1, a, NULL, NULL]",
		"3 -D[1, a, NULL, NULL]",
	})
	check(t, "malformed", bad, []string{
		`4: unknown "type" value "table-create": Maxwell's are insert, update and delete`,
		`5: type update without "old" (the changed columns' old values)`,
		`6: type insert without "data" (the row)`,
	})
}

// Records of two rows cross batch boundaries whole, in order, with the
// malformed records between them in place.
func TestBatchBoundaries(t *testing.T) {
	var in strings.Builder
	var want, wantBad []string
	for i := 1; i <= 3000; i++ {
		switch {
		case i%7 == 0:
			fmt.Fprintf(&in, `{"before":{"id":%d},"after":null,"op":"q"}`+"\n", i)
			wantBad = append(wantBad, fmt.Sprintf(`%d: unknown "op" value "q": Debezium's are c (create), r (read), u (update) and d (delete)`, i))
		case i%3 == 0:
			fmt.Fprintf(&in, `{"before":{"id":%d,"name":"x"},"after":null,"op":"d"}`+"\n", i)
			want = append(want, fmt.Sprintf("%d -D[%d, x, NULL, NULL]", i, i))
		default:
			fmt.Fprintf(&in, `{"before":{"id":%d,"name":"o"},"after":{"id":%d,"name":"n"},"op":"u"}`+"\n", i, i)
			want = append(want, fmt.Sprintf("%d -U[%d, o, NULL, NULL]", i, i), fmt.Sprintf("%d +U[%d, n, NULL, NULL]", i, i))
		}
	}
	rows, bad := decodeAll(t, Options{Format: "debezium-json", Envelope: Debezium}, in.String())
	check(t, "rows", rows, want)
	check(t, "malformed", bad, wantBad)
}

// Append (the Kafka path): a tombstone is no row; a record that does not fit
// is refused whole; a canal record larger than a batch is malformed.
func TestAppend(t *testing.T) {
	ch, _ := NewChanges(Options{Format: "debezium-json", Envelope: Debezium}, products.names, products.types, nil)
	b := vector.NewBatch(products.types)
	if r, full := ch.Append(b, nil, 1); r != "" || full || b.N != 0 {
		t.Errorf("tombstone: %q %v N=%d", r, full, b.N)
	}
	b.N = vector.Cap - 1
	if r, full := ch.Append(b, []byte(`{"before":{"id":1},"after":{"id":2},"op":"u"}`), 2); r != "" || !full || b.N != vector.Cap-1 {
		t.Errorf("full batch: %q %v N=%d", r, full, b.N)
	}
	if r, full := ch.Append(b, []byte(`{"before":null,"after":{"id":2},"op":"c"}`), 3); r != "" || full || b.N != vector.Cap || b.Kinds[vector.Cap-1] != vector.Insert {
		t.Errorf("last row: %q %v N=%d", r, full, b.N)
	}
	cc, _ := NewChanges(Options{Format: "canal-json", Envelope: Canal}, products.names, products.types, nil)
	big := `{"type":"INSERT","data":[` + strings.Repeat(`{"id":1},`, vector.Cap) + `{"id":2}]}`
	b.N = 0
	if r, full := cc.Append(b, []byte(big), 1); full || !strings.Contains(r, "more than the 1024 a batch holds") {
		t.Errorf("huge canal record: %q %v", r, full)
	}
	nn, _ := NewChanges(Options{Format: "debezium-json", Envelope: Debezium}, products.names, products.types, []bool{true, false, false, false})
	if r, _ := nn.Append(b, []byte(`{"after":{"name":"x"},"op":"c"}`), 1); !strings.Contains(r, "event-time column is NULL") {
		t.Errorf("NULL event time: %q", r)
	}
}

func compile(p string) (*regexpT, error) {
	return regexpCompile(`^(?:` + p + `)$`)
}

type regexpT = regexp.Regexp

var regexpCompile = regexp.Compile
