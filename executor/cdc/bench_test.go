package cdc

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"streamql/executor/records"
	"streamql/executor/vector"
)

// changelogInput returns n records of format f: inserts and updates.
func changelogInput(f string, n int) string {
	var b strings.Builder
	for i := range n {
		switch f {
		case "debezium-json":
			fmt.Fprintf(&b, `{"before":{"id":%d,"name":"scooter","description":"Big 2-wheel scooter","weight":5.18},"after":{"id":%d,"name":"scooter","description":"Big 2-wheel scooter","weight":5.15},"op":"u","ts_ms":1589362330904}`+"\n", i, i)
		case "canal-json":
			fmt.Fprintf(&b, `{"data":[{"id":"%d","name":"scooter","description":"Big 2-wheel scooter","weight":"5.18"}],"old":[{"weight":"5.15"}],"database":"inventory","table":"products","type":"UPDATE"}`+"\n", i)
		default:
			fmt.Fprintf(&b, `{"database":"test","table":"product","type":"update","data":{"id":%d,"name":"scooter","description":"Big 2-wheel scooter","weight":5.18},"old":{"weight":5.15}}`+"\n", i)
		}
	}
	return b.String()
}

// decodeInput reads in through d into b until the end and returns the rows.
func decodeInput(tb testing.TB, d *Decoder, b *vector.Batch, bad *[]records.BadRow) int {
	n := 0
	for {
		*bad = (*bad)[:0]
		err := d.Decode(b, bad)
		n += b.N
		if err == io.EOF {
			return n
		}
		if err != nil || len(*bad) > 0 {
			tb.Fatal(err, *bad)
		}
	}
}

// BenchmarkDecode: records per second of each changelog format (each an
// update: two rows), and allocations per batch (none per row).
func BenchmarkDecode(b *testing.B) {
	for _, f := range []string{"debezium-json", "canal-json", "maxwell-json"} {
		b.Run(f, func(b *testing.B) {
			in := changelogInput(f, 10000)
			ch, _ := NewChanges(Options{Format: f, Envelope: envelopeOf[f]}, products.names, products.types, nil)
			batch := vector.NewBatch(products.types)
			var bad []records.BadRow
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				d := NewDecoder(strings.NewReader(in), ch, ReaderOptions{})
				if n := decodeInput(b, d, batch, &bad); n != 20000 {
					b.Fatalf("%d rows", n)
				}
			}
		})
	}
}

// TestDecodeAllocatesNothingPerRow: once its buffers have grown, decoding a
// changelog allocates nothing per record in any format.
func TestDecodeAllocatesNothingPerRow(t *testing.T) {
	for _, f := range []string{"debezium-json", "canal-json", "maxwell-json"} {
		in := changelogInput(f, 5000)
		ch, _ := NewChanges(Options{Format: f, Envelope: envelopeOf[f]}, products.names, products.types, nil)
		batch := vector.NewBatch(products.types)
		var bad []records.BadRow
		d := NewDecoder(strings.NewReader(in), ch, ReaderOptions{})
		decodeInput(t, d, batch, &bad) // warm up
		allocs := testing.AllocsPerRun(5, func() {
			d := NewDecoder(strings.NewReader(in), ch, ReaderOptions{})
			decodeInput(t, d, batch, &bad)
		})
		if allocs > 40 { // the decoder and its read buffer, not 5,000 records
			t.Errorf("%s: %.0f allocations for 5,000 records", f, allocs)
		}
	}
}

// envelopeOf is the envelope of each changelog format, as executor/codec
// registers it.
var envelopeOf = map[string]Envelope{"debezium-json": Debezium, "canal-json": Canal, "maxwell-json": Maxwell}
