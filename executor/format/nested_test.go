package format_test

import (
	"bytes"
	"strings"
	"testing"

	"streamql/catalog"
	"streamql/executor/csvdec"
	"streamql/executor/format"
	"streamql/executor/jsondec"
	"streamql/executor/vector"
)

func mustType(t *testing.T, s string) catalog.Type {
	t.Helper()
	ty, err := catalog.ParseType(s)
	if err != nil {
		t.Fatal(err)
	}
	return ty
}

// TestNestedRoundTrip: nested JSON read into ARRAY, MAP and ROW columns
// (SPEC 2.10) prints as Flink prints it (CAST to STRING: `[1, 2]`,
// `{a=1, b=2}`, `(1, x)`, NULL inside as NULL), writes back as nested JSON,
// and the csv field (its JSON text) reads back to the same value.
func TestNestedRoundTrip(t *testing.T) {
	cases := []struct {
		typ, in, flink, json string
	}{
		{"ARRAY<BIGINT>", `[1, 2, null]`, `[1, 2, NULL]`, `[1,2,null]`},
		{"ARRAY<VARCHAR>", `["a", "b,c", ""]`, `[a, b,c, ]`, `["a","b,c",""]`},
		{"ARRAY<DOUBLE>", `[1, 2.5, "1e7"]`, `[1.0, 2.5, 1.0E7]`, `[1.0,2.5,1.0E7]`},
		{"ARRAY<ARRAY<BIGINT>>", `[[1], [], [2, 3]]`, `[[1], [], [2, 3]]`, `[[1],[],[2,3]]`},
		{"MAP<VARCHAR, BIGINT>", `{"a": 1, "b": 2}`, `{a=1, b=2}`, `{"a":1,"b":2}`},
		{"MAP<BIGINT, BOOLEAN>", `{"1": true, "2": null}`, `{1=true, 2=NULL}`, `{"1":true,"2":null}`},
		{"ROW<id BIGINT, name VARCHAR>", `{"name": "x", "id": 1, "other": [1]}`, `(1, x)`, `{"id":1,"name":"x"}`},
		{"ROW<id BIGINT, name VARCHAR>", `{"id": 1}`, `(1, NULL)`, `{"id":1,"name":null}`},
		{"ROW<d ROW<t TIMESTAMP>, tags ARRAY<VARCHAR>>", `{"d": {"t": "2021-01-17 12:48:29"}, "tags": ["x"]}`,
			`((2021-01-17 12:48:29.000), [x])`, `{"d":{"t":"2021-01-17 12:48:29.000"},"tags":["x"]}`},
		{"ARRAY<ROW<a BIGINT>>", `[{"a": 1}, null, {"a": 2}]`, `[(1), NULL, (2)]`, `[{"a":1},null,{"a":2}]`},
		{"ARRAY<VARCHAR>", `[{"k": [1, 2]}, 3]`, `[{"k":[1,2]}, 3]`, `["{\"k\":[1,2]}","3"]`},
	}
	for _, c := range cases {
		ty := mustType(t, c.typ)
		types := []catalog.Type{catalog.BigInt, ty}
		d := jsondec.NewDecoder(strings.NewReader(`{"n": 1, "v": `+c.in+"}\n"+`{"n": 2}`+"\n"), []string{"n", "v"}, types, jsondec.Options{})
		b := vector.NewBatch(types)
		var bad []jsondec.BadRow
		if err := d.Decode(b, &bad); err != nil || len(bad) > 0 || b.N != 2 {
			t.Fatalf("%s %s: decode: %v %v, %d rows", c.typ, c.in, err, bad, b.N)
		}
		v := b.Cols[1]
		if got := string(vector.AppendValue(nil, ty, v, 0)); got != c.flink {
			t.Errorf("%s %s: printed %s, want %s", c.typ, c.in, got, c.flink)
		}
		if got := string(format.AppendJSONValue(nil, ty, v, 0)); got != c.json {
			t.Errorf("%s %s: json %s, want %s", c.typ, c.in, got, c.json)
		}
		if !v.Null[1] {
			t.Errorf("%s: a missing field is not NULL", c.typ)
		}
		// csv: the JSON text, quoted, reads back
		line := format.AppendCSVRow(nil, []catalog.Column{{Name: "n", Type: catalog.BigInt}, {Name: "v", Type: ty}}, b.Cols, 0, ',')
		cd := csvdec.NewDecoder(bytes.NewReader(append(line, '\n')), []string{"n", "v"}, types, csvdec.Options{})
		b2 := vector.NewBatch(types)
		var bad2 []csvdec.BadRow
		if err := cd.Decode(b2, &bad2); err != nil || len(bad2) > 0 || b2.N != 1 {
			t.Fatalf("%s: csv %s: %v %v %d rows", c.typ, line, err, bad2, b2.N)
		}
		if got := string(format.AppendJSONValue(nil, ty, b2.Cols[1], 0)); got != c.json {
			t.Errorf("%s: csv %s read back as %s, want %s", c.typ, line, got, c.json)
		}
		// a copy (AppendRows) outlives the source and prints the same
		b3 := vector.NewBatch(types)
		b3.AppendRows(b, 0, 2)
		b.Reset()
		if got := string(vector.AppendValue(nil, ty, b3.Cols[1], 0)); got != c.flink {
			t.Errorf("%s: copied row prints %s, want %s", c.typ, got, c.flink)
		}
	}
}

// TestNestedMalformed: a value that does not fit its nested type makes the
// row malformed with a reason naming the column, never a crash.
func TestNestedMalformed(t *testing.T) {
	for _, c := range []struct{ typ, in, reason string }{
		{"ARRAY<BIGINT>", `[1, "x"]`, "column v: x is not a valid BIGINT"},
		{"ARRAY<BIGINT>", `{"a": 1}`, "column v: expected a JSON array for ARRAY<BIGINT> at byte 1"},
		{"MAP<BIGINT, BIGINT>", `{"a": 1}`, `column v: map key "a": a is not a valid BIGINT`},
		{"ROW<a BIGINT>", `[1]`, "column v: expected a JSON object for ROW<a BIGINT> at byte 1"},
		{"ROW<a ARRAY<BIGINT>>", `{"a": [1.5]}`, "column v: field a: 1.5 is not a valid BIGINT"},
	} {
		ty := mustType(t, c.typ)
		types := []catalog.Type{ty}
		d := jsondec.NewDecoder(strings.NewReader(`{"v": `+c.in+"}\n"), []string{"v"}, types, jsondec.Options{})
		b := vector.NewBatch(types)
		var bad []jsondec.BadRow
		if err := d.Decode(b, &bad); err != nil {
			t.Fatal(err)
		}
		if len(bad) != 1 || bad[0].Reason != c.reason {
			t.Errorf("%s %s: bad rows %+v, want reason %q", c.typ, c.in, bad, c.reason)
		}
	}
}
