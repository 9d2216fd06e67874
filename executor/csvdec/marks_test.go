package csvdec

import (
	"bytes"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"

	"streamql/catalog"
	csvfmt "streamql/executor/format"
	"streamql/executor/vector"
)

// TestPlainMarks checks the VARCHAR marks a batch with vector.Batch.PlainMarks
// gets (vector.Vec.Text): a marked value is the row's value itself (the
// same bytes in the same memory, also after OwnStrings copies the batch's
// texts, as chunked's detach does) and format.Plain holds for it (the
// reference: the encoders copy a marked value unchecked); no row keeps a
// mark of an earlier row of the reused batch; the values are those of a
// batch without marks; and plain values of records without a quote are
// marked (some in every round). Random records of random fields (commas, tabs, CRs, control
// characters, quotes, non-ASCII text, empty fields, quoted fields with
// delimiters and line ends), for each delimiter the encoders know (',' and
// tab) and another one (';', where a comma is data), the quote '"' and
// another one (an apostrophe: no mark, a '"' may be data), small reads
// (records cut across the decoder's buffer) and large ones.
func TestPlainMarks(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 10))
	pieces := []string{"a", "bc", "/item/", "42", " ", "é", "\t", ",", ";", "\r", "\x01", "\x7f", "\"", "'", "xyzxyzxyz"}
	types := []catalog.Type{catalog.BigInt, catalog.Varchar, catalog.Varchar}
	marked := 0
	for round := range 60 {
		delim := []byte{',', '\t', ';'}[round%3]
		quote := byte('"')
		if round%5 == 4 {
			quote = '\''
		}
		var in bytes.Buffer
		var plainRec []bool // per record: written without a quote, each field plain
		for range 300 + r.IntN(400) {
			in.WriteString("7")
			recPlain := true
			for range 2 {
				in.WriteByte(delim)
				var f strings.Builder
				for range r.IntN(5) {
					f.WriteString(pieces[r.IntN(len(pieces))])
				}
				if r.IntN(8) == 0 {
					f.WriteString("\n") // (a line end: quoted below)
				}
				s := f.String()
				if strings.ContainsAny(s, string([]byte{delim, quote, '\n', '\r'})) || r.IntN(10) == 0 {
					q := string(quote)
					in.WriteString(q + strings.ReplaceAll(s, q, q+q) + q)
					recPlain = false
				} else {
					in.WriteString(s)
					if !csvfmt.Plain([]byte(s)) || strings.ContainsAny(s, "\"'") {
						recPlain = false
					}
				}
			}
			in.WriteByte('\n')
			plainRec = append(plainRec, recPlain)
		}
		data := in.Bytes()
		opts := Options{Delimiter: delim, Quote: quote}
		dm := NewDecoder(readerOf(data, r.IntN(2) == 0), []string{"n", "a", "b"}, types, opts)
		d0 := NewDecoder(bytes.NewReader(data), []string{"n", "a", "b"}, types, opts)
		bm := vector.NewBatch(types)
		bm.PlainMarks, bm.NoText = true, r.IntN(2) == 0
		b0 := vector.NewBatch(types)
		var want [][2]string
		var bad []BadRow
		for {
			err := d0.Decode(b0, &bad)
			for i := range b0.N {
				want = append(want, [2]string{string(b0.Cols[1].S[i]), string(b0.Cols[2].S[i])})
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		row := 0
		plainMarked := 0
		for {
			err := dm.Decode(bm, &bad)
			if err != nil && err != io.EOF {
				t.Fatal(err)
			}
			if r.IntN(3) == 0 {
				bm.OwnStrings()
			}
			for i := range bm.N {
				for c := 1; c <= 2; c++ {
					v := bm.Cols[c]
					if got := string(v.S[i]); got != want[row][c-1] {
						t.Fatalf("round %d row %d column %d: %q with marks, %q without", round, row, c, got, want[row][c-1])
					}
					if v.Text == nil || v.Text[i] == nil {
						continue
					}
					m := v.Text[i]
					if len(m) != len(v.S[i]) || unsafe.SliceData(m) != unsafe.SliceData(v.S[i]) {
						t.Fatalf("round %d row %d column %d: mark %q is not the value %q itself", round, row, c, m, v.S[i])
					}
					if !csvfmt.Plain(m) {
						t.Fatalf("round %d row %d column %d (delimiter %q, quote %q): %q marked plain", round, row, c, delim, quote, m)
					}
					if quote != '"' {
						t.Fatalf("round %d: %q marked with the quote %q", round, m, quote)
					}
					marked++
					if plainRec[row] {
						plainMarked++
					}
				}
				row++
			}
			if err == io.EOF {
				break
			}
		}
		if row != len(plainRec) {
			t.Fatalf("round %d: %d rows, %d records", round, row, len(plainRec))
		}
		if quote == '"' && delim != ';' {
			// (every value of a plain record before the data's first quote
			// is marked; some are after one: at least a few per round)
			if plainMarked == 0 {
				t.Errorf("round %d: no value of a plain record marked", round)
			}
		}
	}
	if marked < 1000 {
		t.Errorf("%d values marked in all: too few to check", marked)
	}
}

// readerOf returns a reader of data, a few bytes a read when small is set
// (records cut across the decoder's reads).
func readerOf(data []byte, small bool) io.Reader {
	if !small {
		return bytes.NewReader(data)
	}
	return &smallReads{data: data}
}

type smallReads struct{ data []byte }

func (s *smallReads) Read(p []byte) (int, error) {
	if len(s.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), 1+len(s.data)%97)], s.data)
	s.data = s.data[n:]
	return n, nil
}
