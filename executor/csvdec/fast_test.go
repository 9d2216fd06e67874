package csvdec

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"streamql/catalog"
	"streamql/executor/vector"
)

// splitReference is the plain way to split an unquoted record: one
// bytes.IndexByte per field.
func splitReference(fs []field, rec []byte, delim byte, ncols int) ([]field, int) {
	rest := rec
	for {
		k := bytes.IndexByte(rest, delim)
		if k < 0 {
			fs = append(fs, field{b: rest})
			return fs, len(fs)
		}
		fs = append(fs, field{b: rest[:k]})
		rest = rest[k+1:]
		if len(fs) == ncols {
			return fs, ncols + 1 + bytes.Count(rest, []byte{delim})
		}
	}
}

func TestSplitUnquoted(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	alphabet := []byte(",;-+.0123456789 \tab\xe8\xae\xbe,,,")
	for range 200_000 {
		rec := make([]byte, r.IntN(40))
		for i := range rec {
			rec[i] = alphabet[r.IntN(len(alphabet))]
		}
		delim := []byte{',', ';', '-'}[r.IntN(3)]
		ncols := 1 + r.IntN(6)
		got, gotN := splitUnquoted(nil, rec, delim, ncols)
		want, wantN := splitReference(nil, rec, delim, ncols)
		if gotN != wantN || len(got) != len(want) {
			t.Fatalf("split %q at %q, %d columns: %d fields (%d stored), want %d (%d)", rec, delim, ncols, gotN, len(got), wantN, len(want))
		}
		for i := range got {
			if !bytes.Equal(got[i].b, want[i].b) {
				t.Fatalf("split %q at %q: field %d = %q, want %q", rec, delim, i, got[i].b, want[i].b)
			}
		}
	}
}

// TestSetPlainAgrees checks the fast paths against setField: whenever setPlain
// takes a field, setField stores the same value.
func TestSetPlainAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	d := NewDecoder(nil, []string{"c"}, []catalog.Type{catalog.Varchar}, Options{})
	alphabet := []byte("0123456789.....-+ eE\tx\xe8\xae\xbe\xff")
	types := []catalog.Type{catalog.Varchar, catalog.BigInt, catalog.Double, catalog.Boolean, catalog.Timestamp}
	fasts, slows := make([]*vector.Vec, len(types)), make([]*vector.Vec, len(types))
	for k, typ := range types {
		fasts[k], slows[k] = vector.NewVec(typ), vector.NewVec(typ)
	}
	taken := 0
	for n := range 300_000 {
		var b []byte
		switch n % 3 {
		case 0: // anything
			b = make([]byte, r.IntN(24))
			for i := range b {
				b[i] = alphabet[r.IntN(len(alphabet))]
			}
		case 1: // digits with perhaps a dot
			b = make([]byte, 1+r.IntN(20))
			for i := range b {
				b[i] = byte('0' + r.IntN(10))
			}
			if r.IntN(2) == 0 {
				b[r.IntN(len(b))] = '.'
			}
		default: // a decimal as text
			b = []byte(string(rune('0' + r.IntN(10))))
			b = append(b, []byte(".")...)
			for range r.IntN(16) {
				b = append(b, byte('0'+r.IntN(10)))
			}
		}
		quoted := r.IntN(4) == 0
		for k, typ := range types {
			fast, slow := fasts[k], slows[k]
			fast.Null[0], slow.Null[0] = true, true
			if !setPlain(fast, 0, b, quoted) {
				continue
			}
			taken++
			if reason := d.setField(slow, 0, 0, field{b: b, quoted: quoted}); reason != "" {
				t.Fatalf("%s %q (quoted %v): fast path took it, setField says %s", typ, b, quoted, reason)
			}
			same := fast.Null[0] == slow.Null[0]
			switch typ {
			case catalog.Varchar:
				same = same && bytes.Equal(fast.S[0], slow.S[0])
			case catalog.BigInt:
				same = same && fast.I[0] == slow.I[0]
			case catalog.Double:
				same = same && math.Float64bits(fast.F[0]) == math.Float64bits(slow.F[0])
			}
			if !same {
				t.Fatalf("%s %q (quoted %v): fast path and setField differ", typ, b, quoted)
			}
		}
	}
	if taken < 100_000 {
		t.Fatalf("the fast paths took only %d fields", taken)
	}
}
