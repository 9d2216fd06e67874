package format

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"testing"

	"streamql/catalog"
	"streamql/executor/vector"
)

// TestAppendCSVLinesAgainstReference: AppendCSVLines, the encoder's run of
// rows of one output (a lookup join's joined rows, issue 23), writes for
// every row the bytes AppendCSVRow writes and a line end, and those bytes
// are SPEC 4's csv (tsv) as a separately written reference has them for
// VARCHAR and BIGINT (NULL an empty field; text quoted when empty or
// holding the delimiter, a quote, CR or LF, its quotes doubled; a number
// as strconv prints it, or its source text when the decoder kept it). Over
// random batches of 1 to 20 columns (past the 16 whose kinds it keeps on
// the stack: the row-by-row fallback) of VARCHAR, BIGINT, DOUBLE and
// BOOLEAN, with and without NULLs, VARCHAR values marked Plain (Vec.Text)
// or not (a marked one never needs quotes, as its producers mark), numbers
// with and without kept texts, runs starting anywhere in the batch, and the
// delimiters ',', '\t' (the marks hold for them) and ';' (they do not).
func TestAppendCSVLinesAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 16))
	words := []string{"a", "user12345", "DE", "/item/4784", "", "x,y", "say \"hi\"", "two\nlines", "cr\r", "tab\there", "semi;colon", "ünïcödé"}
	plain := func(s string, d byte) bool { // (its producers' rule: format.Plain, which holds for ',' and '\t')
		if s == "" || d != ',' && d != '\t' {
			return false
		}
		for _, c := range []byte(s) {
			if c == ',' || c == '\t' || c == '"' || c == '\r' || c == '\n' {
				return false
			}
		}
		return true
	}
	ref := func(ty catalog.Type, v *vector.Vec, i int, d byte) (string, bool) {
		if v.Null[i] {
			return "", true
		}
		switch ty {
		case catalog.Varchar:
			s := string(v.S[i])
			if s != "" && !bytes.ContainsAny(v.S[i], string([]byte{d, '"', '\r', '\n'})) {
				return s, true
			}
			q := []byte{'"'}
			for _, c := range []byte(s) {
				if c == '"' {
					q = append(q, '"')
				}
				q = append(q, c)
			}
			return string(append(q, '"')), true
		case catalog.BigInt:
			return strconv.FormatInt(v.I[i], 10), true
		}
		return "", false // (DOUBLE, BOOLEAN: AppendCSVRow's, compared below)
	}
	types := []catalog.Type{catalog.Varchar, catalog.BigInt, catalog.Double, catalog.Boolean}
	for round := range 2000 {
		ncols := 1 + r.IntN(20)
		if round%4 == 0 {
			ncols = 1 + r.IntN(4)
		}
		cols := make([]catalog.Column, ncols)
		vals := make([]*vector.Vec, ncols)
		d := []byte{',', '\t', ';'}[r.IntN(3)]
		n := 1 + r.IntN(40)
		for c := range cols {
			ty := types[r.IntN(len(types))]
			cols[c] = catalog.Column{Name: "c" + strconv.Itoa(c), Type: ty}
			v := vector.NewVec(ty)
			withText := r.IntN(2) == 0 && ty != catalog.Boolean
			if withText {
				v.Text = make([][]byte, vector.Cap)
			}
			for i := range n {
				v.Null[i] = r.IntN(6) == 0
				switch ty {
				case catalog.Varchar:
					s := []byte(words[r.IntN(len(words))])
					v.S[i] = s
					if withText && plain(string(s), d) && r.IntN(3) != 0 {
						v.Text[i] = s // (marked: its producer checked it)
					}
				case catalog.BigInt:
					v.I[i] = r.Int64N(2_000_000_000) - 1_000_000_000
					if r.IntN(8) == 0 {
						v.I[i] = int64(r.Uint64())
					}
					if withText && r.IntN(2) == 0 {
						v.Text[i] = strconv.AppendInt(nil, v.I[i], 10) // (a kept source text is the printed form)
					}
				case catalog.Double:
					v.F[i] = r.NormFloat64() * 1e3
				case catalog.Boolean:
					v.B[i] = r.IntN(2) == 0
				}
			}
			vals[c] = v
		}
		from := r.IntN(n)
		to := from + r.IntN(n-from+1)
		prefix := []byte("kept;")
		got := AppendCSVLines(append([]byte(nil), prefix...), cols, vals, from, to, d)
		want := append([]byte(nil), prefix...)
		for i := from; i < to; i++ {
			want = append(AppendCSVRow(want, cols, vals, i, d), '\n')
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("round %d, delimiter %q, rows %d..%d of %d columns:\n got %q\nwant %q (AppendCSVRow)", round, d, from, to, ncols, got, want)
		}
		// the reference, field by field, where it knows the types (a row at
		// a time: a quoted field may hold a line end)
		for i := from; i < to; i++ {
			var line []byte
			known := true
			for c, v := range vals {
				if c > 0 {
					line = append(line, d)
				}
				f, ok := ref(cols[c].Type, v, i, d)
				known = known && ok
				line = append(line, f...)
			}
			line = append(line, '\n')
			if one := AppendCSVLines(nil, cols, vals, i, i+1, d); known && !bytes.Equal(one, line) {
				t.Fatalf("round %d, delimiter %q, row %d: got %q, want %q (reference)", round, d, i, one, line)
			}
		}
	}
}

// TestAppendCSVLinesAllocatesNothing: with room in dst, a run of rows
// allocates nothing (the encoder's steady state, issue 23's zero
// allocations a row).
func TestAppendCSVLinesAllocatesNothing(t *testing.T) {
	cols := []catalog.Column{{Name: "id", Type: catalog.BigInt}, {Name: "url", Type: catalog.Varchar}, {Name: "name", Type: catalog.Varchar}}
	vals := []*vector.Vec{vector.NewVec(catalog.BigInt), vector.NewVec(catalog.Varchar), vector.NewVec(catalog.Varchar)}
	vals[2].Text = make([][]byte, vector.Cap)
	for i := range vector.Cap {
		vals[0].I[i] = int64(i * 7919)
		vals[1].S[i] = []byte("/item/" + strconv.Itoa(i))
		vals[2].S[i] = []byte("user" + strconv.Itoa(i))
		vals[2].Text[i] = vals[2].S[i]
	}
	dst := make([]byte, 0, 1<<20)
	if n := testing.AllocsPerRun(20, func() {
		dst = AppendCSVLines(dst[:0], cols, vals, 0, vector.Cap, ',')
	}); n != 0 {
		t.Fatalf("%v allocations a run of %d rows, want 0", n, vector.Cap)
	}
}
