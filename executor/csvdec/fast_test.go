package csvdec

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
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

// TestTextIsPrintedForm checks the source texts setPlain keeps for numbers
// (vector.Vec.Text): a text kept is byte for byte what the encoders print for
// the value (vector.AppendValue: strconv for BIGINT, Java's Double.toString
// for DOUBLE, SPEC 4 values), and the texts of the common printed forms are
// kept. Random digits with a dot anywhere, leading and trailing zeros, and the
// edges of Java's plain layout (1e-3, 1e7) are tried.
func TestTextIsPrintedForm(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	edges := []string{"0", "00", "07", "10", "0.0", "0.00", "00.0", "0.001", "0.0010", "0.0001", "0.01", "0.1",
		"1.0", "1.00", "10.0", "100.0", "9999999.9", "9999999.0", "10000000.0", "1000000.5", "123456789012345",
		"1.23456789012345", "0.123456789012345", "72.6", "72.60", "072.6", "5.", ".5", "1.5e3"}
	var cases []string
	cases = append(cases, edges...)
	for range 200_000 {
		b := make([]byte, 1+r.IntN(16))
		for i := range b {
			b[i] = byte('0' + r.IntN(10))
			if r.IntN(3) == 0 {
				b[i] = '0'
			}
		}
		if r.IntN(4) != 0 {
			b[r.IntN(len(b))] = '.'
		}
		cases = append(cases, string(b))
	}
	kept := map[catalog.Type]int{}
	for _, typ := range []catalog.Type{catalog.BigInt, catalog.Double} {
		v := vector.NewVec(typ)
		v.Text = make([][]byte, vector.Cap)
		for _, c := range cases {
			v.Text[0] = []byte("stale")
			if !setPlain(v, 0, []byte(c), false) {
				continue
			}
			if v.Text[0] == nil {
				continue
			}
			kept[typ]++
			text := string(v.Text[0])
			v.Text[0] = nil
			if want := string(vector.AppendValue(nil, typ, v, 0)); text != want {
				t.Fatalf("%s %q: kept text %q, but it prints as %q", typ, c, text, want)
			}
		}
	}
	for _, c := range []struct {
		typ  catalog.Type
		text string
	}{{catalog.BigInt, "1610035289754"}, {catalog.BigInt, "0"}, {catalog.Double, "72.6"}, {catalog.Double, "0.0"},
		{catalog.Double, "100.0"}, {catalog.Double, "0.001"}, {catalog.Double, "9999999.25"}} {
		v := vector.NewVec(c.typ)
		v.Text = make([][]byte, vector.Cap)
		if !setPlain(v, 0, []byte(c.text), false) || string(v.Text[0]) != c.text {
			t.Errorf("%s %q: the text is the printed form but was not kept (%q)", c.typ, c.text, v.Text[0])
		}
	}
	if kept[catalog.BigInt] < 1000 || kept[catalog.Double] < 1000 {
		t.Errorf("texts kept: %v, too few to check", kept)
	}
}

// TestDigitsInt checks digitsInt, which reads eight digits at a time, against
// strconv: every length from 1 to 18, and every byte value at every position
// of a 17-digit number (only the ten digits are taken).
func TestDigitsInt(t *testing.T) {
	const digits = "12345678909876543"
	for n := 1; n <= 18; n++ {
		s := (digits + "0")[:n]
		want, _ := strconv.ParseInt(s, 10, 64)
		if got, ok := digitsInt([]byte(s)); !ok || got != want {
			t.Errorf("digitsInt(%q) = %d, %v, want %d", s, got, ok, want)
		}
	}
	for pos := range len(digits) {
		for c := range 256 {
			b := []byte(digits)
			b[pos] = byte(c)
			want, err := strconv.ParseUint(string(b), 10, 64)
			got, ok := digitsInt(b)
			if ok != (err == nil) || ok && got != int64(want) {
				t.Fatalf("digitsInt(%q) = %d, %v, want %d (%v)", b, got, ok, want, err)
			}
		}
	}
	if _, ok := digitsInt([]byte("1234567890123456789")); ok {
		t.Error("19 digits taken (may overflow)")
	}
}

// TestShortDecimal: shortDecimal agrees with plainDecimal (and both with
// strconv for what they take) on every text of 1 to 5 bytes over digits, '.',
// and bytes next to them, and on random texts of 6 to 8 bytes, with any bytes
// after the text in its word.
func TestShortDecimal(t *testing.T) {
	const alpha = "0123456789./:-e"
	r := rand.New(rand.NewPCG(7, 11))
	check := func(b []byte) {
		buf := make([]byte, 8)
		copy(buf, b)
		for k := len(b); k < 8; k++ {
			buf[k] = alpha[r.IntN(len(alpha))] // what follows in the input
		}
		w := binary.LittleEndian.Uint64(buf)
		x, frac, ok := shortDecimal(w, buf[:len(b)])
		wx, wfrac, wok := plainDecimal(b)
		if ok != wok || ok && (math.Float64bits(x) != math.Float64bits(wx) || frac != wfrac) {
			t.Fatalf("shortDecimal(%q) = %v, %d, %v; plainDecimal: %v, %d, %v", b, x, frac, ok, wx, wfrac, wok)
		}
		if ok {
			if f, err := strconv.ParseFloat(string(b), 64); err != nil || f != x {
				t.Fatalf("shortDecimal(%q) = %v, strconv: %v, %v", b, x, f, err)
			}
		}
	}
	var rec func(b []byte, n int)
	rec = func(b []byte, n int) {
		if len(b) > 0 {
			check(b)
		}
		if len(b) == n {
			return
		}
		for k := range len(alpha) {
			rec(append(b, alpha[k]), n)
		}
	}
	rec(nil, 5)
	for range 300_000 {
		n := 6 + r.IntN(3)
		b := make([]byte, n)
		for k := range b {
			b[k] = alpha[r.IntN(11)] // digits and '.'
		}
		if r.IntN(4) == 0 {
			b[r.IntN(n)] = alpha[r.IntN(len(alpha))]
		}
		check(b)
	}
}

// TestPlainRowShortIntsAgree: plainRow reads a BIGINT field of one to
// eight bytes from the record's word (eightDigits, no loop a digit; a
// lookup join's user ids, issue 23), and must give what the general path
// gives: the same values, number texts and malformed rows. Random records
// of a BIGINT between two other columns (and alone, last), each field 0 to
// 10 bytes of digits with, now and then, one byte that is not a digit
// ('/', ':', '-', '+', ' ', '.', a letter, a high byte) at any place,
// leading zeros, with LF and CRLF line ends, kept texts and not.
func TestPlainRowShortIntsAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 1616))
	odd := []byte("/:-+ .ax\xc3\xff")
	field := func() []byte {
		b := make([]byte, r.IntN(11))
		for i := range b {
			b[i] = byte('0' + r.IntN(10))
		}
		if len(b) > 0 && r.IntN(4) == 0 {
			b[r.IntN(len(b))] = odd[r.IntN(len(odd))]
		}
		return b
	}
	typeSets := [][]catalog.Type{{catalog.Varchar, catalog.BigInt, catalog.Double}, {catalog.BigInt}, {catalog.BigInt, catalog.BigInt, catalog.Varchar}}
	for round := range 300 {
		types := typeSets[round%len(typeSets)]
		var in []byte
		for range 1 + r.IntN(60) {
			for j, ty := range types {
				if j > 0 {
					in = append(in, ',')
				}
				switch ty {
				case catalog.BigInt:
					in = append(in, field()...)
				case catalog.Double:
					in = append(in, "1.5"...)
				default:
					in = append(in, "x"...)
				}
			}
			if r.IntN(5) == 0 {
				in = append(in, '\r')
			}
			in = append(in, '\n')
		}
		in = append(in, "\n\n\n\n\n\n\n\n"...) // (so that the last records are in words too)
		noText := round%2 == 0
		fast := decodeForCompare(t, in, types, Options{}, ',', noText)
		plainRecords = false
		slow := decodeForCompare(t, in, types, Options{}, ',', noText)
		plainRecords = true
		if strings.Join(fast.rows, "\n") != strings.Join(slow.rows, "\n") || strings.Join(fast.texts, "\n") != strings.Join(slow.texts, "\n") || strings.Join(fast.bad, "\n") != strings.Join(slow.bad, "\n") {
			t.Fatalf("round %d, input %q: the one-pass path gave\n%q\n%q\n%q\nthe general path\n%q\n%q\n%q", round, in, fast.rows, fast.texts, fast.bad, slow.rows, slow.texts, slow.bad)
		}
	}
}

// TestWordDigitsInt: wordDigitsInt, given the field's first word with any
// bytes after a short field in it, agrees with strconv on 0 to 19 bytes of
// digits, with every byte value at every place of every length.
func TestWordDigitsInt(t *testing.T) {
	const digits = "9876543210123456789"
	for n := 0; n <= 19; n++ {
		for pos := range max(n, 1) {
			for c := range 256 {
				buf := []byte(digits[:n] + ",7,x\n\"\xff12345678")
				if n > 0 {
					buf[pos] = byte(c)
				}
				b := buf[:n]
				want, err := strconv.ParseUint(string(b), 10, 64)
				ok := err == nil && n <= 18 && n > 0 && !strings.ContainsAny(string(b), "+-_")
				got, fine := wordDigitsInt(binary.LittleEndian.Uint64(buf), b)
				if fine != ok || ok && got != int64(want) {
					t.Fatalf("wordDigitsInt(%q) = %d, %v, want %d, %v", b, got, fine, want, ok)
				}
			}
		}
	}
}
