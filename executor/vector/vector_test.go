package vector

import (
	"testing"

	"streamql/catalog"
)

// TestOwnStrings: after OwnStrings the VARCHAR values no longer share the
// buffer they pointed into (overwritten here, as a decoder reuses its
// buffer), NULL rows stay NULL, other columns are untouched.
func TestOwnStrings(t *testing.T) {
	b := NewBatch([]catalog.Type{catalog.Varchar, catalog.BigInt, catalog.Varchar})
	buf := []byte("alphabetagamma")
	b.Cols[0].S[0], b.Cols[0].S[1] = buf[0:5], buf[5:9]
	b.Cols[0].Null[2] = true
	b.Cols[1].I[0], b.Cols[1].I[1], b.Cols[1].I[2] = 1, 2, 3
	b.Cols[2].S[0], b.Cols[2].S[1], b.Cols[2].S[2] = buf[9:], buf[:0], buf[2:4]
	b.N = 3
	b.OwnStrings()
	for i := range buf {
		buf[i] = '#'
	}
	got := string(b.Cols[0].S[0]) + "|" + string(b.Cols[0].S[1]) + "|" + string(b.Cols[2].S[0]) + "|" + string(b.Cols[2].S[1]) + "|" + string(b.Cols[2].S[2])
	if got != "alpha|beta|gamma||ph" || !b.Cols[0].Null[2] || b.Cols[1].I[2] != 3 {
		t.Fatalf("after OwnStrings and the buffer overwritten: %q, null %v, I %v", got, b.Cols[0].Null[2], b.Cols[1].I[:3])
	}
}

// TestNumberTexts: OwnStrings copies the numbers' source texts (Vec.Text) off
// the buffer they pointed into, ShareRows shares them, and AppendRows, whose
// copy outlives its source, drops them (the numbers are formatted instead).
func TestNumberTexts(t *testing.T) {
	b := NewBatch([]catalog.Type{catalog.BigInt, catalog.Double})
	buf := []byte("4272.5")
	b.Cols[0].Text, b.Cols[1].Text = make([][]byte, Cap), make([][]byte, Cap)
	b.Cols[0].I[0], b.Cols[0].Text[0] = 42, buf[:2]
	b.Cols[1].F[0], b.Cols[1].Text[0] = 72.5, buf[2:]
	b.Cols[1].F[1] = 3 // no text: formatted
	b.N = 2
	shared := NewBatch([]catalog.Type{catalog.BigInt, catalog.Double})
	shared.ShareRows(b, 2)
	if string(shared.Cols[1].Text[0]) != "72.5" || shared.Cols[1].Text[1] != nil {
		t.Errorf("ShareRows: texts %q", shared.Cols[1].Text[:2])
	}
	b.OwnStrings()
	copy(buf, "xxxxxx")
	if got := string(AppendValue(nil, catalog.BigInt, b.Cols[0], 0)); got != "42" {
		t.Errorf("after OwnStrings and the buffer's reuse, BIGINT prints %q, want 42", got)
	}
	if got := string(AppendValue(nil, catalog.Double, b.Cols[1], 0)); got != "72.5" {
		t.Errorf("after OwnStrings and the buffer's reuse, DOUBLE prints %q, want 72.5", got)
	}
	if got := string(AppendValue(nil, catalog.Double, b.Cols[1], 1)); got != "3.0" {
		t.Errorf("DOUBLE without text prints %q, want 3.0", got)
	}
	dst := NewBatch([]catalog.Type{catalog.BigInt, catalog.Double})
	dst.Cols[0].Text = make([][]byte, Cap)
	dst.Cols[0].Text[0] = []byte("stale")
	dst.AppendRows(b, 0, 2)
	if dst.Cols[0].Text[0] != nil {
		t.Errorf("AppendRows kept text %q", dst.Cols[0].Text[0])
	}
	if got := string(AppendValue(nil, catalog.BigInt, dst.Cols[0], 0)); got != "42" {
		t.Errorf("after AppendRows BIGINT prints %q, want 42", got)
	}
}

// TestRecordLines: OwnStrings copies the rows' record texts (Batch.Line) off
// the buffer they pointed into, ShareRows shares them, and AppendRows and
// Reset drop them.
func TestRecordLines(t *testing.T) {
	b := NewBatch([]catalog.Type{catalog.Varchar, catalog.BigInt})
	buf := []byte("a,1b,2")
	b.Line = make([][]byte, Cap)
	b.Cols[0].S[0], b.Cols[1].I[0], b.Line[0] = buf[0:1], 1, buf[0:3]
	b.Cols[0].S[1], b.Cols[1].I[1] = buf[3:4], 2 // no line: encoded
	b.N, b.LineCols, b.LineDelim = 2, 2, ','
	shared := NewBatch([]catalog.Type{catalog.Varchar, catalog.BigInt})
	shared.ShareRows(b, 2)
	if shared.LineCols != 2 || shared.LineDelim != ',' || string(shared.Line[0]) != "a,1" || shared.Line[1] != nil {
		t.Errorf("ShareRows: lines %q for %d columns, delimiter %q", shared.Line[:2], shared.LineCols, shared.LineDelim)
	}
	b.OwnStrings()
	copy(buf, "xxxxxx")
	if b.LineCols != 2 || string(b.Line[0]) != "a,1" || b.Line[1] != nil {
		t.Errorf("after OwnStrings and the buffer's reuse: lines %q for %d columns", b.Line[:2], b.LineCols)
	}
	dst := NewBatch([]catalog.Type{catalog.Varchar, catalog.BigInt})
	dst.Line, dst.LineCols = make([][]byte, Cap), 2
	dst.AppendRows(b, 0, 2)
	if dst.LineCols != 0 {
		t.Errorf("AppendRows kept the lines of %d columns", dst.LineCols)
	}
	b.Reset()
	if b.LineCols != 0 {
		t.Errorf("Reset kept the lines of %d columns", b.LineCols)
	}
}

// TestCopyRowsNullsAndText: CopyRows makes rows 0, 1, ... of the destination
// the rows sel of the source, in sel's order: a NULL row becomes NULL over a
// value the destination held, a value over a NULL becomes a value, and a
// VARCHAR is copied into the destination's arena (the source's buffer
// overwritten afterwards leaves it unchanged); SetFrom copies one row so.
// The reference is the source's row as AppendValue prints it, taken before.
func TestCopyRowsNullsAndText(t *testing.T) {
	for _, typ := range []catalog.Type{catalog.BigInt, catalog.Double, catalog.Varchar} {
		src, dst := NewVec(typ), NewVec(typ)
		buf := []byte("zero one two three")
		words := [][]byte{buf[0:4], buf[5:8], buf[9:12], buf[13:]}
		for i := range 4 {
			switch typ {
			case catalog.BigInt:
				src.I[i], dst.I[i] = int64(10+i), -1
			case catalog.Double:
				src.F[i], dst.F[i] = float64(i)+0.5, -1
			case catalog.Varchar:
				src.S[i] = words[i]
				dst.SetString(i, []byte("old"))
			}
		}
		src.Null[1] = true // a NULL over the destination's value
		dst.Null[2] = true // a value over the destination's NULL
		sel := []int32{3, 1, 2, 0}
		var want []string
		for _, i := range sel {
			if src.Null[i] {
				want = append(want, "NULL")
			} else {
				want = append(want, string(AppendValue(nil, typ, src, int(i))))
			}
		}
		dst.CopyRows(src, sel[:3])
		dst.SetFrom(3, src, int(sel[3]))
		for i := range buf {
			buf[i] = '#'
		}
		for k := range sel {
			got := "NULL"
			if !dst.Null[k] {
				got = string(AppendValue(nil, typ, dst, k))
			}
			if got != want[k] {
				t.Errorf("%s: row %d is %q, want %q (source row %d)", typ, k, got, want[k], sel[k])
			}
		}
	}
}

// TestSwapRows: SwapRows exchanges two batches' rows (values, positions,
// kinds and N; no value copied: the vectors themselves change hands), and
// each batch keeps its NoText.
func TestSwapRows(t *testing.T) {
	types := []catalog.Type{catalog.BigInt, catalog.Varchar}
	a, b := NewBatch(types), NewBatch(types)
	a.NoText = true
	a.Cols[0].I[0], a.Cols[0].I[1] = 7, 8
	a.Cols[1].SetString(0, []byte("x"))
	a.Cols[1].Null[1] = true
	a.Pos[0], a.Pos[1] = 10, 11
	a.Kinds = []RowKind{Insert, Delete}
	a.N = 2
	b.Cols[0].I[0] = 99
	b.N = 1
	av, bv := a.Cols[0], b.Cols[0]
	a.SwapRows(b)
	if b.N != 2 || b.Cols[0] != av || b.Cols[0].I[1] != 8 || string(b.Cols[1].S[0]) != "x" || !b.Cols[1].Null[1] || b.Pos[1] != 11 || b.KindAt(1) != Delete {
		t.Fatalf("b after the swap: N %d, values %v, pos %v, kinds %v", b.N, b.Cols[0].I[:2], b.Pos[:2], b.Kinds)
	}
	if a.N != 1 || a.Cols[0] != bv || a.Cols[0].I[0] != 99 || a.Kinds != nil {
		t.Fatalf("a after the swap: N %d, values %v, kinds %v", a.N, a.Cols[0].I[:1], a.Kinds)
	}
	if !a.NoText || b.NoText {
		t.Fatalf("NoText moved with the rows: a %v, b %v", a.NoText, b.NoText)
	}
}
