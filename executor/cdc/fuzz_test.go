package cdc

import (
	"io"
	"strings"
	"testing"

	"streamql/executor/records"
	"streamql/executor/vector"
)

// FuzzDecode: any input, in each changelog format, decodes without a panic
// into rows with kinds and malformed records whose raw text is a line of the
// input; every row has a kind the format can give and no batch holds more
// than vector.Cap rows.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"before":null,"after":{"id":1,"name":"a"},"op":"c"}`,
		`{"before":{"id":1},"after":{"id":2},"op":"u"}` + "\n" + `{"op":"d"}`,
		`{"data":[{"id":"1"},{"id":2}],"old":[{"name":null},{}],"type":"UPDATE"}`,
		`{"data":{"id":1},"old":{"weight":1},"type":"update"}`,
		`{"payload":{"before":null,"after":{"id":1},"op":"r"}}`,
		"\ufeff{\"data\":[],\"type\":\"INSERT\"}\r\n\n[1,2]\n{\"after\":[1]}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		for _, o := range []Options{{Format: "debezium-json", Envelope: Debezium}, {Format: "debezium-json", Envelope: Debezium, SchemaInclude: true}, {Format: "canal-json", Envelope: Canal}, {Format: "maxwell-json", Envelope: Maxwell}} {
			ch, err := NewChanges(o, products.names, products.types, nil)
			if err != nil {
				t.Fatal(err)
			}
			d := NewDecoder(strings.NewReader(in), ch, ReaderOptions{MaxRecord: 1 << 16})
			b := vector.NewBatch(products.types)
			for range 10000 {
				var bad []records.BadRow
				err := d.Decode(b, &bad)
				if b.N > vector.Cap {
					t.Fatalf("%d rows in a batch", b.N)
				}
				for i := range b.N {
					if k := b.Kinds[i]; k > vector.Delete {
						t.Fatalf("row kind %d", k)
					}
				}
				for _, x := range bad {
					if !strings.Contains(in, string(x.Raw)) || x.Reason == "" {
						t.Fatalf("bad row %q (%s) is not a line of the input", x.Raw, x.Reason)
					}
				}
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
			}
		}
	})
}
