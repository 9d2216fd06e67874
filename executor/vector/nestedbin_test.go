package vector_test

import (
	"math"
	"math/rand"
	"testing"

	"streamql/catalog"
	"streamql/executor/jsondec"
	"streamql/executor/vector"
)

// TestBinaryRoundTrip: AppendBinary then ReadBinary gives back every nested
// value exactly (SPEC 2.10: a value keeps its type and value through an
// operator's state): NULLs inside, empty values, a DOUBLE's NaN, -0.0 and
// Infinity bits, TIMESTAMP milliseconds, MAP keys of any scalar type, ROWs
// in ARRAYs in MAPs; several values in one buffer read back in order.
func TestBinaryRoundTrip(t *testing.T) {
	row := catalog.RowOf([]catalog.Field{{Name: "t", Type: catalog.Timestamp}, {Name: "b", Type: catalog.Boolean}, {Name: "s", Type: catalog.Varchar}})
	typ := catalog.MapOf(catalog.BigInt, catalog.ArrayOf(row))
	dbl := catalog.ArrayOf(catalog.Double)
	src := vector.NewBatch([]catalog.Type{typ, dbl})
	texts := []string{`{"1":[{"t":"2021-01-01 00:00:00.123","b":true,"s":"x,\"y"},null,{"t":null,"b":false,"s":""}],"-5":[],"7":null}`, `{}`}
	for i, s := range texts {
		if err := jsondec.SetNested(src.Cols[0], i, []byte(s)); err != "" {
			t.Fatal(err)
		}
	}
	rng := rand.New(rand.NewSource(1))
	d := src.Cols[1]
	for i := range 3 {
		d.Null[i] = false
		d.Off[i], d.Len[i] = int32(d.Kids[0].Used), 0
		for range rng.Intn(6) {
			e := d.Kids[0].AddElem()
			switch rng.Intn(5) {
			case 0:
				d.Kids[0].Null[e] = true
			case 1:
				d.Kids[0].F[e] = math.NaN()
			case 2:
				d.Kids[0].F[e] = math.Copysign(0, -1)
			case 3:
				d.Kids[0].F[e] = math.Inf(-1)
			default:
				d.Kids[0].F[e] = rng.NormFloat64()
			}
			d.Len[i]++
		}
	}
	var buf []byte
	for i := range 2 {
		buf = vector.AppendBinary(buf, src.Cols[0], i)
	}
	for i := range 3 {
		buf = vector.AppendBinary(buf, src.Cols[1], i)
	}
	dst := vector.NewBatch([]catalog.Type{typ, dbl})
	rest := buf
	for i := range 2 {
		rest = vector.ReadBinary(dst.Cols[0], i, rest)
		if got, want := string(vector.AppendValue(nil, typ, dst.Cols[0], i)), string(vector.AppendValue(nil, typ, src.Cols[0], i)); got != want {
			t.Errorf("value %d: got %s, want %s", i, got, want)
		}
	}
	for i := range 3 {
		rest = vector.ReadBinary(dst.Cols[1], i, rest)
		so, sn := src.Cols[1].Elems(i)
		do, dn := dst.Cols[1].Elems(i)
		if sn != dn {
			t.Fatalf("array %d: %d elements, want %d", i, dn, sn)
		}
		for e := range sn {
			sk, dk := src.Cols[1].Kids[0], dst.Cols[1].Kids[0]
			if sk.Null[so+e] != dk.Null[do+e] || !sk.Null[so+e] && math.Float64bits(sk.F[so+e]) != math.Float64bits(dk.F[do+e]) {
				t.Errorf("array %d element %d: got %v (null %v), want %v (null %v)", i, e, dk.F[do+e], dk.Null[do+e], sk.F[so+e], sk.Null[so+e])
			}
		}
	}
	if len(rest) != 0 {
		t.Errorf("%d bytes left", len(rest))
	}
}
