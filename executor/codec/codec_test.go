package codec

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"streamql/catalog"
	"streamql/executor/records"
	"streamql/executor/vector"
)

// TestEveryFormatRegistered: every record format of catalog's table has its
// code here, as its capabilities say (a format added to the table without
// its code fails), and no code is registered for a name the table does not
// declare as a record format.
func TestEveryFormatRegistered(t *testing.T) {
	declared := map[string]bool{}
	for _, f := range catalog.Formats() {
		if !f.Reads && !f.Writes {
			if registry[f.Name] != nil {
				t.Errorf("format %s is only printed, but codec registers a record format of its name", f.Name)
			}
			continue
		}
		declared[f.Name] = true
		r := Lookup(f.Name)
		if r == nil {
			t.Errorf("format %s (Reads %v, Writes %v) has no codec.Record: register it in codec.registry", f.Name, f.Reads, f.Writes)
			continue
		}
		if f.Reads && (r.Decoder == nil || (r.Values == nil) != f.Changelog || (r.Changes == nil) != !f.Changelog) {
			t.Errorf("format %s Reads (changelog %v): its Record needs Decoder, and Changes for a changelog format, Values for another", f.Name, f.Changelog)
		}
		if !f.Reads && (r.Values != nil || r.Changes != nil) {
			t.Errorf("format %s does not read, but its Record has value decoders: say Reads in catalog's table", f.Name)
		}
		if len(f.FileExts) > 0 && r.Infer == nil {
			t.Errorf("format %s reads files by extension %v (read without a column list): its Record needs Infer", f.Name, f.FileExts)
		}
		if f.Writes && r.Lines == nil {
			t.Errorf("format %s Writes: its Record needs Lines", f.Name)
		}
		if f.Writes && !f.Changelog && r.Row == nil {
			t.Errorf("format %s Writes one row per record (a Kafka sink's value): its Record needs Row", f.Name)
		}
		if !f.Writes && (r.Lines != nil || r.Row != nil) {
			t.Errorf("format %s does not write, but its Record has encoders: say Writes in catalog's table", f.Name)
		}
		if f.Changelog && r.Row != nil {
			t.Errorf("changelog format %s: a record is a change, not a row: its Record has no Row", f.Name)
		}
	}
	for name := range registry {
		if !declared[name] {
			t.Errorf("codec registers %s, which catalog's table does not declare a record format", name)
		}
	}
	if Lookup("") != Lookup("csv") || Lookup("csv") == nil {
		t.Errorf(`Lookup("") is not csv's code (the default 'format')`)
	}
}

var rtCols = []catalog.Column{{Name: "id", Type: catalog.BigInt}, {Name: "name", Type: catalog.Varchar}, {Name: "x", Type: catalog.Double}}

type rtRow struct {
	kind vector.RowKind
	id   int64
	name string
	x    float64
	null bool // x is NULL
}

var rtRows = []rtRow{
	{vector.Insert, 1, "a,b", 1.5, false},
	{vector.UpdateBefore, 1, "a,b", 1.5, false},
	{vector.UpdateAfter, 1, `say "hi"`, 0, true},
	{vector.Delete, 2, "z", -2.25, false},
}

// rtBatch returns rows in a batch of rtCols.
func rtBatch(rows []rtRow) *vector.Batch {
	b := vector.NewBatch([]catalog.Type{catalog.BigInt, catalog.Varchar, catalog.Double})
	for i, r := range rows {
		b.Cols[0].I[i], b.Cols[1].S[i], b.Cols[2].F[i], b.Cols[2].Null[i] = r.id, []byte(r.name), r.x, r.null
	}
	b.N = len(rows)
	return b
}

// rowsOf reads back the rows of b's columns from (first, the columns of rtCols).
func rowsOf(t *testing.T, b *vector.Batch, first int) []rtRow {
	t.Helper()
	var out []rtRow
	for i := 0; i < b.N; i++ {
		r := rtRow{kind: b.KindAt(i), id: b.Cols[first].I[i], name: string(b.Cols[first+1].S[i]), null: b.Cols[first+2].Null[i]}
		if !r.null {
			r.x = b.Cols[first+2].F[i]
		}
		out = append(out, r)
	}
	return out
}

// decode reads the first batch of st's rows in text with rec's decoder, and
// the malformed rows.
func decode(t *testing.T, rec *Record, st *catalog.Stream, text []byte) (*vector.Batch, []records.BadRow) {
	t.Helper()
	dec, err := rec.Decoder(st, bytes.NewReader(text), DecodeOptions{MaxRecord: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	b := vector.NewBatch(st.Types())
	var bad []records.BadRow
	if err := dec.Decode(b, &bad); err != nil && err != io.EOF {
		t.Fatal(err)
	}
	return b, bad
}

// decodeAll is decode of text without malformed rows.
func decodeAll(t *testing.T, rec *Record, st *catalog.Stream, text []byte) *vector.Batch {
	t.Helper()
	b, bad := decode(t, rec, st, text)
	if len(bad) > 0 {
		t.Fatalf("malformed rows reading back %q: %+v", text, bad)
	}
	return b
}

// TestLinesRoundTrip: what each writable format's line encoder writes, its
// decoder reads back as the same rows (a changelog format: with their kinds;
// csv and json with an op column: the kinds in it).
func TestLinesRoundTrip(t *testing.T) {
	for _, f := range catalog.Formats() {
		if !f.Writes || !f.Reads {
			continue
		}
		rec := Lookup(f.Name)
		for _, op := range []bool{false, true} {
			if op && f.Changelog {
				continue
			}
			rows := rtRows
			if !f.Changelog && !op {
				rows = nil
				for _, r := range rtRows {
					r.kind = vector.Insert
					rows = append(rows, r)
				}
			}
			cols, first := rtCols, 0
			if op {
				cols, first = append([]catalog.Column{{Name: "op", Type: catalog.Varchar}}, rtCols...), 1
			}
			b := rtBatch(rows)
			vals := b.Cols
			if op {
				vals = append([]*vector.Vec{vector.NewVec(catalog.Varchar)}, b.Cols...)
			}
			enc := rec.Lines(cols, LineOptions{Op: op})
			text := enc.Header(nil)
			for i, r := range rows {
				text = enc.Append(text, vals, i, r.kind)
			}
			text = enc.End(text)
			st := &catalog.Stream{Name: "s", Columns: cols, EventTime: -1, Options: map[string]string{"format": f.Name, "csv.header": "true"}}
			got := decodeAll(t, rec, st, text)
			back := rowsOf(t, got, first)
			if op {
				for i := range back {
					back[i].kind = vector.Insert
					for k := vector.Insert; k <= vector.Delete; k++ {
						if string(got.Cols[0].S[i]) == k.String() {
							back[i].kind = k
						}
					}
				}
				rows = rtRows
			}
			if !slices.Equal(back, rows) {
				t.Errorf("format %s (op column %v): wrote\n%s\nread back %+v, want %+v", f.Name, op, text, back, rows)
			}
		}
	}
}

// TestRowRoundTrip: a one-row record (a Kafka value) that Row writes, Values
// reads back.
func TestRowRoundTrip(t *testing.T) {
	for _, f := range catalog.Formats() {
		rec := Lookup(f.Name)
		if rec == nil || rec.Row == nil || !f.Reads {
			continue
		}
		st := &catalog.Stream{Name: "s", Columns: rtCols, EventTime: -1, Options: map[string]string{"format": f.Name}}
		vd, err := rec.Values(st, DecodeOptions{MaxRecord: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		in := rtBatch(rtRows)
		out := vector.NewBatch(st.Types())
		for i := range rtRows {
			v := rec.Row(0)(nil, rtCols, in.Cols, i)
			if why := vd.DecodeValue(out, v); why != "" {
				t.Fatalf("format %s: %q read back malformed: %s", f.Name, v, why)
			}
			out.N++
		}
		want := slices.Clone(rtRows)
		for i := range want {
			want[i].kind = vector.Insert
		}
		if back := rowsOf(t, out, 0); !slices.Equal(back, want) {
			t.Errorf("format %s: read back %+v, want %+v", f.Name, back, want)
		}
		if why := vd.DecodeValue(out, bytes.Repeat([]byte("x"), 1<<20+1)); why == "" {
			t.Errorf("format %s: a value longer than MaxRecord was read", f.Name)
		}
	}
}

// TestInferSchema: the inferrer of each format read by file extension names
// the columns and types of a file it wrote.
func TestInferSchema(t *testing.T) {
	dir := t.TempDir()
	for _, f := range catalog.Formats() {
		if len(f.FileExts) == 0 {
			continue
		}
		rec := Lookup(f.Name)
		enc := rec.Lines(rtCols, LineOptions{})
		b := rtBatch(rtRows)
		text := enc.Header(nil)
		for i := range rtRows {
			text = enc.Append(text, b.Cols, i, vector.Insert)
		}
		path := filepath.Join(dir, "x"+f.FileExts[0])
		if err := os.WriteFile(path, text, 0o644); err != nil {
			t.Fatal(err)
		}
		cols, err := InferSchema(path, catalog.FileFormat(path), 0, 0, true)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(cols, rtCols) {
			t.Errorf("format %s: inferred %v from\n%s\nwant %v", f.Name, cols, text, rtCols)
		}
	}
}

// changelogSamples are one insert record of each changelog format, in its
// own envelope (SPEC 2.8; Flink's debezium-json, canal-json, maxwell-json).
var changelogSamples = map[string]string{
	"debezium-json": `{"before":null,"after":{"id":1,"name":"a,b","x":1.5},"op":"c"}`,
	"canal-json":    `{"data":[{"id":1,"name":"a,b","x":1.5}],"old":null,"type":"INSERT","database":"d","table":"t","isDdl":false}`,
	"maxwell-json":  `{"database":"d","table":"t","type":"insert","data":{"id":1,"name":"a,b","x":1.5}}`,
}

// TestChangelogEnvelopes: each changelog format is registered with its own
// envelope: its decoder and its value decoder read its sample as the row
// inserted, and the other formats' decoders do not.
func TestChangelogEnvelopes(t *testing.T) {
	want := []rtRow{{vector.Insert, 1, "a,b", 1.5, false}}
	for _, f := range catalog.Formats() {
		if !f.Changelog {
			continue
		}
		sample, ok := changelogSamples[f.Name]
		if !ok {
			t.Errorf("changelog format %s has no sample record in changelogSamples: add one", f.Name)
			continue
		}
		for _, g := range catalog.Formats() {
			if !g.Changelog {
				continue
			}
			st := &catalog.Stream{Name: "s", Columns: rtCols, EventTime: -1, Options: map[string]string{"format": g.Name}}
			b, bad := decode(t, Lookup(g.Name), st, []byte(sample+"\n"))
			got := rowsOf(t, b, 0)
			if read := slices.Equal(got, want) && len(bad) == 0; read != (g.Name == f.Name) {
				t.Errorf("%s's decoder read %s's record %s as %+v (malformed %d)", g.Name, f.Name, sample, got, len(bad))
			}
			if g.Name != f.Name {
				continue
			}
			cd, err := Lookup(g.Name).Changes(st, DecodeOptions{MaxRecord: 1 << 20})
			if err != nil {
				t.Fatal(err)
			}
			vb := vector.NewBatch(st.Types())
			if why, _ := cd.Append(vb, []byte(sample), 1); why != "" || !slices.Equal(rowsOf(t, vb, 0), want) {
				t.Errorf("%s's value decoder read %s as %+v (%s)", g.Name, sample, rowsOf(t, vb, 0), why)
			}
		}
	}
}

// TestOfUnknownFormat: a 'format' no record format has is an error naming
// the stream and listing the formats.
func TestOfUnknownFormat(t *testing.T) {
	st := &catalog.Stream{Name: "s", Columns: rtCols, EventTime: -1, Options: map[string]string{"format": "avro"}}
	_, err := Of(st)
	if err == nil {
		t.Fatal("format 'avro' has code")
	}
	for _, want := range append([]string{"stream s", "'avro'"}, catalog.FormatNames()...) {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}
