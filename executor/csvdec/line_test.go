package csvdec

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"streamql/catalog"
	csvfmt "streamql/executor/format"
	"streamql/executor/vector"
)

// edgeFields are field texts at the edges of SPEC 1's rules: numbers with
// signs, spaces, leading zeros, exponents and long digits, empty and quoted
// fields, quotes and CRs inside unquoted fields, invalid UTF-8.
var edgeFields = []string{
	"0", "-0", "00", "007", "+5", " 5", "5 ", "-5", "1e308", "1e309", "1.7976931348623157e308",
	"123456789012345678", "1234567890123456789", "9223372036854775807", "9223372036854775808",
	"12345678", "1234567890123456", "12345678901234567", "72.6", "72.60", "072.6", "0.001",
	"0.0001", "0.0", "1.0", "1.", ".5", "10000000.0", "9999999.9", "123456789012345.6", "1.0E7",
	"NaN", "Infinity", "-Infinity", "", " ", `"quoted"`, `"a""b"`, `"x,y"`, `a"b`, "x\ry",
	"设备1", "\xff", "\xe8\xae", "true", "FALSE", "2021-01-17 12:48:29.123", "abc", "a b",
	"1610035289754", "29.6", "100.25",
}

// randomCSV returns n random records of about ncols fields from edgeFields and
// plain values, delimited by delim, with LF or CRLF line ends and blank lines.
func randomCSV(r *rand.Rand, n, ncols int, delim byte) []byte {
	var b []byte
	for range n {
		nf := ncols
		if r.IntN(20) == 0 {
			nf += r.IntN(3) - 1
		}
		for j := range nf {
			if j > 0 {
				b = append(b, delim)
			}
			var f string
			switch r.IntN(3) {
			case 0:
				f = edgeFields[r.IntN(len(edgeFields))]
			case 1:
				f = strings.Repeat("7", 1+r.IntN(17))
			default:
				f = string(rune('0'+r.IntN(10))) + "." + strings.Repeat("3", r.IntN(9))
			}
			b = append(b, f...)
		}
		switch r.IntN(10) {
		case 0:
			b = append(b, "\r\n"...)
		case 1:
			b = append(b, "\n\n"...)
		default:
			b = append(b, '\n')
		}
	}
	return b
}

// decodedRows is everything Decode gave over a whole input, the good rows as
// the values' bits, and the numbers' texts (Vec.Text) apart.
type decodedRows struct {
	rows  []string
	texts []string // per good row: its numbers' texts
	bad   []string
	lines int // good rows with a record text (Batch.Line)
}

// decodeForCompare decodes in whole into batches with vector.Batch.NoText
// set to noText.
func decodeForCompare(t *testing.T, in []byte, types []catalog.Type, opts Options, delim byte, noText bool) decodedRows {
	t.Helper()
	names := make([]string, len(types))
	for j := range names {
		names[j] = string(rune('a' + j))
	}
	d := NewDecoder(bytes.NewReader(in), names, types, opts)
	b := vector.NewBatch(types)
	b.NoText = noText
	cols := make([]catalog.Column, len(types))
	for j, typ := range types {
		cols[j] = catalog.Column{Name: names[j], Type: typ}
	}
	var out decodedRows
	var bad []BadRow
	for {
		bad = bad[:0]
		err := d.Decode(b, &bad)
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		for i := range b.N {
			var row, texts []byte
			row = append(row, []byte(string(rune(b.Pos[i])))...)
			for _, v := range b.Cols {
				row = append(row, '|')
				if v.Null[i] {
					row = append(row, "NULL"...)
					continue
				}
				switch v.Type {
				case catalog.Varchar:
					row = append(row, v.S[i]...)
				case catalog.Double:
					row = append(row, []byte(string(rune(math.Float64bits(v.F[i])>>40)))...)
					row = vector.AppendValue(row, v.Type, v, i)
				default:
					row = vector.AppendValue(row, v.Type, v, i)
				}
				texts = append(texts, '|')
				if v.Text != nil && v.Text[i] != nil {
					texts = append(texts, v.Text[i]...)
				}
			}
			out.rows = append(out.rows, string(row))
			out.texts = append(out.texts, string(texts))
			if b.LineCols > 0 && b.Line[i] != nil {
				out.lines++
				if b.LineDelim != delim || b.LineCols != len(types) {
					t.Fatalf("lines kept with delimiter %q for %d columns, want %q, %d", b.LineDelim, b.LineCols, delim, len(types))
				}
				want := csvfmt.AppendCSVRow(nil, cols, b.Cols, i, delim)
				if !bytes.Equal(b.Line[i], want) {
					t.Fatalf("line %d: kept record %q, but the csv encoder writes %q", b.Pos[i], b.Line[i], want)
				}
			}
		}
		for _, br := range bad {
			out.bad = append(out.bad, string(rune(br.Index))+string(rune(br.Line))+"|"+string(br.Raw)+"|"+br.Reason)
		}
		// Where a later reader would go on (SPEC 1, stdin): after no row, half
		// of them, all of them.
		for _, k := range []int{0, b.N / 2, b.N} {
			out.rows = append(out.rows, fmt.Sprintf("rest after %d rows: %q line %d", k, d.Rest(k), d.RestLine(k, 0)))
		}
	}
}

// TestPlainRecordsAgree decodes random input with edge values through the
// one-pass path of unquoted records (recordPlain) and through the general
// path alone: the same rows, values, texts, malformed rows and rest of the
// input after them (Rest, RestLine), byte for byte;
// and every record text kept (vector.Batch.Line) is what the csv encoder
// writes for its row.
func TestPlainRecordsAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 2))
	defer func() { bufSize = initialBufSize }()
	typeSets := [][]catalog.Type{
		{catalog.Varchar, catalog.BigInt, catalog.Double},
		{catalog.Double, catalog.Varchar},
		{catalog.BigInt},
		{catalog.Varchar},
		{catalog.Varchar, catalog.Boolean, catalog.Timestamp, catalog.BigInt},
	}
	lines := 0
	for k := range 300 {
		types := typeSets[k%len(typeSets)]
		delim := []byte{',', ';', '\t'}[k%3]
		opts := Options{Delimiter: delim, AllowRagged: k%7 == 3, Header: k%5 == 1}
		if k%11 == 4 {
			opts.NotNull = []bool{true}
		}
		if k%4 == 2 {
			opts.MaxRecord = 20 + r.IntN(20)
		}
		// Small buffers for some: records cut by a fill, buffers grown.
		bufSize = []int{initialBufSize, 64, 300, 4096}[k/5%4]
		in := randomCSV(r, 200+r.IntN(400), len(types), delim)
		fast := decodeForCompare(t, in, types, opts, delim, false)
		plainRecords = false
		slow := decodeForCompare(t, in, types, opts, delim, false)
		plainRecords = true
		if slow.lines != 0 {
			t.Fatalf("the general path kept %d record texts", slow.lines)
		}
		if len(fast.rows) != len(slow.rows) || len(fast.bad) != len(slow.bad) {
			t.Fatalf("input %d: %d rows, %d bad; the general path: %d, %d", k, len(fast.rows), len(fast.bad), len(slow.rows), len(slow.bad))
		}
		for i := range fast.rows {
			if fast.rows[i] != slow.rows[i] {
				t.Fatalf("input %d row %d: %q, the general path %q", k, i, fast.rows[i], slow.rows[i])
			}
		}
		for i := range fast.texts {
			if fast.texts[i] != slow.texts[i] {
				t.Fatalf("input %d row %d: texts %q, the general path %q", k, i, fast.texts[i], slow.texts[i])
			}
		}
		for i := range fast.bad {
			if fast.bad[i] != slow.bad[i] {
				t.Fatalf("input %d bad row %d: %q, the general path %q", k, i, fast.bad[i], slow.bad[i])
			}
		}
		lines += fast.lines
	}
	if lines < 10_000 {
		t.Fatalf("only %d record texts kept", lines)
	}
}

// TestNoTextSameValues decodes random input with edge values into batches
// that keep their source texts and into batches that do not
// (vector.Batch.NoText), on the one-pass path and the general one: the same
// rows, values, malformed rows and rest of the input, and with NoText no
// number's text and no record text.
func TestNoTextSameValues(t *testing.T) {
	r := rand.New(rand.NewPCG(16, 3))
	types := []catalog.Type{catalog.Varchar, catalog.BigInt, catalog.Double}
	texts := 0
	for k := range 60 {
		delim := []byte{',', ';'}[k%2]
		opts := Options{Delimiter: delim, AllowRagged: k%7 == 3, Header: k%5 == 1}
		in := randomCSV(r, 200+r.IntN(400), len(types), delim)
		plainRecords = k%3 != 0
		kept := decodeForCompare(t, in, types, opts, delim, false)
		none := decodeForCompare(t, in, types, opts, delim, true)
		plainRecords = true
		if none.lines != 0 {
			t.Fatalf("input %d: %d record texts kept under NoText", k, none.lines)
		}
		if strings.Join(none.rows, "\n") != strings.Join(kept.rows, "\n") || strings.Join(none.bad, "\n") != strings.Join(kept.bad, "\n") {
			t.Fatalf("input %d: rows or malformed rows differ under NoText", k)
		}
		for i, s := range none.texts {
			if strings.Trim(s, "|") != "" {
				t.Fatalf("input %d row %d: texts %q kept under NoText", k, i, s)
			}
			if strings.Trim(kept.texts[i], "|") != "" {
				texts++
			}
		}
	}
	if texts < 1000 {
		t.Fatalf("only %d rows kept texts without NoText", texts)
	}
}

// TestLineOnlyWhenPrinted: a record is kept as its row's csv text only when
// every field is as the encoder writes it (SPEC 4).
func TestLineOnlyWhenPrinted(t *testing.T) {
	types := []catalog.Type{catalog.Varchar, catalog.BigInt, catalog.Double}
	for _, c := range []struct {
		rec  string
		kept bool
	}{
		{"a,1,72.6", true},
		{"设备1,1610035289754,0.001", true},
		{"a,01,72.6", false},      // BIGINT 1
		{"a,1,72.60", false},      // DOUBLE 72.6
		{"a,1,72", false},         // 72.0
		{",1,72.6", false},        // an empty VARCHAR is written ""
		{"a,,72.6", false},        // NULL (the same text, but not the fast path)
		{"a\"b,1,72.6", false},    // a quote: written quoted
		{"a\rb,1,72.6", false},    // a CR: written quoted
		{"\"a\",1,72.6", false},   // quoted
		{"a,1,0.0001", false},     // 1.0E-4
		{"a,1,10000000.0", false}, // 1.0E7
		{"a, 1,72.6", false},
	} {
		d := NewDecoder(strings.NewReader(c.rec+"\n"), []string{"d", "t", "x"}, types, Options{})
		b := vector.NewBatch(types)
		var bad []BadRow
		if err := d.Decode(b, &bad); err != nil || b.N != 1 {
			t.Fatalf("%q: %v, %d rows, bad %v", c.rec, err, b.N, bad)
		}
		if kept := b.LineCols == 3 && b.Line[0] != nil; kept != c.kept {
			t.Errorf("%q: record kept as its csv line %v, want %v", c.rec, kept, c.kept)
		}
	}
	// A quote other than '"' keeps no lines: the encoder quotes '"'.
	d := NewDecoder(strings.NewReader("a\"b,1,72.6\n"), []string{"d", "t", "x"}, types, Options{Quote: '\''})
	b := vector.NewBatch(types)
	var bad []BadRow
	if err := d.Decode(b, &bad); err != nil || b.N != 1 || b.LineCols != 0 {
		t.Fatalf("quote ': %v, %d rows, lines for %d columns", err, b.N, b.LineCols)
	}
}

// TestShortTextsValid: shortTexts.valid agrees with utf8.Valid on random short
// texts of ASCII, UTF-8 sequences, their pieces and invalid bytes, drawn from
// a small set so that most are looked up again, each followed in memory by
// random bytes or at the end of its buffer; texts of up to 20 bytes, so that
// those of 9 to 16 take the two-word ASCII check.
func TestShortTextsValid(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 15))
	pieces := []string{"a", "1", "\x00", "设", "备", "é", "\xe8\xae", "\xbe", "\xff", "\xc3", "𝄞", "\xf0\x9d\x84", "\xed\xa0\x80", "\xc0\xaf", " ", "/item/", "x", "\x7f"}
	var pool []string
	for range 500 {
		var s string
		for n := 1 + r.IntN(17); len(s) < n; {
			s += pieces[r.IntN(len(pieces))]
		}
		pool = append(pool, s)
	}
	var texts shortTexts
	hits, words := 0, 0
	for range 200_000 {
		s := pool[r.IntN(len(pool))]
		buf := append([]byte(s), make([]byte, r.IntN(9))...)
		for i := len(s); i < len(buf); i++ {
			buf[i] = byte(r.IntN(256))
		}
		b := buf[:len(s)]
		want := utf8.Valid(b)
		if got := texts.valid(b); got != want {
			t.Fatalf("%q (cap %d): valid %v, utf8.Valid %v", b, cap(b), got, want)
		}
		if want && len(b) <= 8 && cap(b) >= 8 {
			hits++
		}
		if len(b) > 8 && len(b) <= 16 {
			words++
		}
	}
	for n := 1; n <= 20; n++ { // one non-ASCII byte at each place, the rest ASCII
		for at := range n {
			for _, c := range []byte{0x80, 0xff, 0xc3} {
				b := bytes.Repeat([]byte{'a'}, n)
				b[at] = c
				if texts.valid(b) {
					t.Fatalf("%q: valid", b)
				}
			}
		}
	}
	if hits < 10_000 || words < 10_000 {
		t.Fatalf("only %d short valid texts, %d of 9 to 16 bytes", hits, words)
	}
}
