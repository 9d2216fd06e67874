// Package vector owns the typed column batches that flow through the engine: a
// Batch is up to Cap rows held column by column (int64, float64, bool or byte-slice
// vectors with a NULL flag per row), reset and reused from batch to batch so the hot
// path allocates nothing per row (DESIGN: executor, "typed column vectors").
package vector

import "streamql/catalog"

// Cap is the number of rows a batch holds at most.
const Cap = 1024

// Vec is one column of a batch. Exactly one of I, F, B, S is used, chosen by Type:
// I for BIGINT and TIMESTAMP (epoch ms), F for DOUBLE, B for BOOLEAN, S for VARCHAR.
// Null[i] marks row i as NULL; the value slot of a NULL row is unspecified.
// All slices have length Cap once Reset. S entries point into Arena or into the
// memory of an upstream vector (a decoder's read buffer); they are valid until the
// producer of the batch is called again.
type Vec struct {
	Type  catalog.Type
	I     []int64
	F     []float64
	B     []bool
	S     [][]byte
	Null  []bool
	Arena []byte // backing bytes for S entries this vector built itself
	// Text, when not nil, is kept by a text decoder (executor/csvdec) for a
	// BIGINT or DOUBLE vector it fills: Text[i], when not nil, is row i's source
	// text, which is byte for byte the value's printed form (AppendValue, SPEC 4
	// values), so encoders copy it instead of formatting the number; nil when
	// the text is not that form. Valid as long as the S entries of the batch.
	// Whoever else writes I or F of such a vector sets Text[i] to nil.
	// For a VARCHAR vector, Text[i], when not nil, is S[i] itself, marked by
	// its producer as a value format.Plain holds for (not empty, no comma,
	// tab, quote, CR or LF), checked once where it was made (a lookup
	// join's table, executor/op; the csv decoder of a batch with
	// Batch.PlainMarks, which knows its fields' bytes as it splits them) so
	// that the csv and tsv encoders copy it without looking at its bytes;
	// whoever else writes S[i] of such a vector sets Text[i] to nil, as for
	// numbers.
	Text [][]byte
	// The nested types of SPEC 2.10 use Arrow's layout, never a boxed Go value
	// per row (nested.go): an ARRAY's or MAP's row i is the elements
	// Off[i] .. Off[i]+Len[i]-1 of its child vectors (Arrow's list-view
	// layout: an offset and a length per row), Kids[0] the elements (a MAP's
	// keys) and Kids[1] a MAP's values; a ROW's Kids are its fields, row i of
	// each holding row i's field. Used is the number of elements a child
	// vector of an ARRAY or MAP holds; its slices grow to fit (Grow).
	Off, Len []int32
	Kids     []*Vec
	Used     int
}

// NewVec returns a vector of type t with room for Cap rows.
func NewVec(t catalog.Type) *Vec { return NewVecRows(t, Cap) }

// NewVecRows returns a vector of type t with room for n rows (n > 0): a
// batch's own vectors hold Cap (NewVec); a buffer of more rows, such as the
// changelog encoder's (cmd/streamql/render), holds more.
func NewVecRows(t catalog.Type, n int) *Vec {
	v := &Vec{Type: t, Null: make([]bool, n)}
	switch t {
	case catalog.BigInt, catalog.Timestamp:
		v.I = make([]int64, n)
	case catalog.Double:
		v.F = make([]float64, n)
	case catalog.Boolean:
		v.B = make([]bool, n)
	case catalog.Varchar:
		v.S = make([][]byte, n)
	default: // Unknown: a NULL-only vector; or a nested type
		if t.IsNested() {
			v.initNested(n)
		}
	}
	return v
}

// ResetArena empties the arena so a new batch can build strings in it (and,
// for a nested type, empties its child vectors).
func (v *Vec) ResetArena() {
	v.Arena = v.Arena[:0]
	if v.Kids != nil {
		v.resetKids()
	}
}

// SetString copies b into the arena and points row i at the copy.
func (v *Vec) SetString(i int, b []byte) {
	start := len(v.Arena)
	v.Arena = append(v.Arena, b...)
	v.S[i] = v.Arena[start:len(v.Arena):len(v.Arena)]
	v.Null[i] = false
}

// Batch is up to Cap rows of a stream, column by column. Rows 0..N-1 are valid.
// Pos[i] is the row's source position (line number for files, row number for other
// sources), used for the errors side output and error messages.
type Batch struct {
	Cols []*Vec
	N    int
	Pos  []int64
	// Line, when not nil, is kept by a text decoder (executor/csvdec): Line[i],
	// when not nil, is row i's record text, byte for byte the csv encoding of
	// its values in Cols[:LineCols] with delimiter LineDelim (SPEC 4 csv:
	// fields as format.AppendCSVRow writes them, without the line end), so an
	// encoder whose row is exactly those columns copies it whole. Valid as
	// long as the S entries of the batch. Whoever writes a value of row i of
	// those columns in place sets Line[i] to nil; Reset drops the lines
	// (LineCols 0) until the decoder keeps them again.
	Line      [][]byte
	LineCols  int
	LineDelim byte
	// NoText, set by the batch's owner, says no encoder will copy the rows'
	// source texts (a job whose every output is an aggregate's, whose input
	// rows reach an output only as late or malformed rows): a text decoder
	// then keeps neither Line nor the numbers' Vec.Text, which saves their
	// bookkeeping on every row, and an encoder formats the values (the same
	// bytes, SPEC 4). Reset keeps it.
	NoText bool
	// PlainMarks, set by the batch's owner, asks a text decoder to mark the
	// VARCHAR values it knows are format.Plain in their Vec.Text (see Text:
	// the csv decoder, for fields of records without a quote), so that an
	// encoder copies them unchecked: a lookup join's inputs (issue 23), whose
	// joined rows carry the left side's marks (op.Join). Independent of
	// NoText; Reset keeps it.
	PlainMarks bool
	// Kinds is each row's change kind (SPEC 2.8), nil for a batch of an
	// append-only relation (every row an insert): append-only operators never
	// allocate it (issue 22 item 2). An updating operator sets Kinds[i] for
	// rows 0..N-1; Reset keeps the slice and its owner's choice.
	Kinds     []RowKind
	lineArena []byte // backing of the lines OwnStrings copied
}

// RowKind is the change kind of one row of an updating relation (SPEC 2.8;
// Flink's RowKind): an insert, the old row of an update, its new row, or a
// delete.
type RowKind uint8

// The row kinds, as Flink prints them (String).
const (
	Insert       RowKind = iota // +I
	UpdateBefore                // -U
	UpdateAfter                 // +U
	Delete                      // -D
)

// String returns the kind as Flink's print sink writes it: "+I", "-U", "+U"
// or "-D" (SPEC 2.8).
func (k RowKind) String() string {
	switch k {
	case UpdateBefore:
		return "-U"
	case UpdateAfter:
		return "+U"
	case Delete:
		return "-D"
	}
	return "+I"
}

// Retracts reports whether a row of kind k takes back an earlier row (-U, -D).
func (k RowKind) Retracts() bool { return k == UpdateBefore || k == Delete }

// NewBatch returns an empty batch with one vector per type in types.
func NewBatch(types []catalog.Type) *Batch {
	b := &Batch{Cols: make([]*Vec, len(types)), Pos: make([]int64, Cap)}
	for i, t := range types {
		b.Cols[i] = NewVec(t)
	}
	return b
}

// Reset empties the batch for reuse: N becomes 0 and every owned arena is emptied.
func (b *Batch) Reset() {
	b.N = 0
	b.LineCols = 0
	b.lineArena = b.lineArena[:0]
	for _, c := range b.Cols {
		c.ResetArena()
	}
}

// ShareRows resets b and fills it with the first n rows of src (same column
// types): values and positions are copied, VARCHAR entries point into src's
// memory, so they are valid while src's strings are (the sources that replay
// batches they keep: values, the Go-fed stream).
func (b *Batch) ShareRows(src *Batch, n int) {
	b.Reset()
	for c, from := range src.Cols {
		to := b.Cols[c]
		copy(to.Null[:n], from.Null[:n])
		switch from.Type {
		case catalog.BigInt, catalog.Timestamp:
			copy(to.I[:n], from.I[:n])
		case catalog.Double:
			copy(to.F[:n], from.F[:n])
		case catalog.Boolean:
			copy(to.B[:n], from.B[:n])
		case catalog.Varchar:
			copy(to.S[:n], from.S[:n])
		default:
			if from.Type.IsNested() {
				for i := range n {
					if !from.Null[i] {
						to.CopyValue(i, from, i)
					}
				}
			}
		}
		to.shareText(from, 0, 0, n)
	}
	copy(b.Pos[:n], src.Pos[:n])
	b.N = n
	if src.LineCols > 0 {
		if b.Line == nil {
			b.Line = make([][]byte, Cap)
		}
		copy(b.Line[:n], src.Line[:n])
		b.LineCols, b.LineDelim = src.LineCols, src.LineDelim
	}
}

// SwapRows exchanges the rows of b and o, two batches of the same column
// types, without copying a value: their column vectors, positions, record
// texts (Line), change kinds (Kinds, which travel with the rows: a batch
// whose new rows carry none has Kinds nil) and N. Each batch keeps its
// NoText. It is the hand-off of a full batch between an operator's output
// and a queue (executor's joinSource) that would otherwise copy every
// column twice; the VARCHAR values still point where they pointed, so the
// receiver copies them (OwnStrings) when that memory may change first.
// Whoever held a vector of either batch must not use it after the swap:
// read b.Cols again.
func (b *Batch) SwapRows(o *Batch) {
	b.Cols, o.Cols = o.Cols, b.Cols
	b.Pos, o.Pos = o.Pos, b.Pos
	b.N, o.N = o.N, b.N
	b.Line, o.Line = o.Line, b.Line
	b.LineCols, o.LineCols = o.LineCols, b.LineCols
	b.LineDelim, o.LineDelim = o.LineDelim, b.LineDelim
	b.lineArena, o.lineArena = o.lineArena, b.lineArena
	b.Kinds, o.Kinds = o.Kinds, b.Kinds
}

// OwnStrings copies the VARCHAR values (and the numbers' source texts, Vec.Text)
// of rows 0..N-1 into b's own arenas, so
// they outlive the memory they pointed into (a decoder's read buffer that the
// decoder reuses on its next call): decoding ahead (executor/prefetch.go) and
// in chunks (executor/chunked). The arenas grow to fit, then are reused. The
// rows' record texts (Batch.Line) are copied too.
func (b *Batch) OwnStrings() {
	if b.LineCols > 0 {
		b.lineArena = b.lineArena[:0]
		for i, l := range b.Line[:b.N] {
			if l != nil {
				start := len(b.lineArena)
				b.lineArena = append(b.lineArena, l...)
				b.Line[i] = b.lineArena[start:len(b.lineArena):len(b.lineArena)]
			}
		}
	}
	for _, v := range b.Cols {
		if v.Text != nil && v.S == nil { // (a number's text; a VARCHAR mark is its value: below)
			for i, t := range v.Text[:b.N] {
				if t != nil && !v.Null[i] {
					start := len(v.Arena)
					v.Arena = append(v.Arena, t...)
					v.Text[i] = v.Arena[start:len(v.Arena):len(v.Arena)]
				}
			}
		}
		if v.Kids != nil {
			v.ownNested(b.N)
			continue
		}
		if v.S == nil {
			continue
		}
		marks := v.Text != nil // (VARCHAR marks, Text: each the value itself)
		for i := range b.N {
			if !v.Null[i] {
				v.SetString(i, v.S[i])
				if marks && v.Text[i] != nil {
					v.Text[i] = v.S[i]
				}
			}
		}
	}
}

// AppendRows appends rows [from, to) of src to b, strings copied into b's
// arenas (so they outlive src), with their change kinds (Kinds) when either
// batch carries them. A column of b whose type differs from src's
// (catalog.Unknown: a column not kept, as the event-time join's held rows) is
// skipped. b must have room for the rows (at most Cap in all).
func (b *Batch) AppendRows(src *Batch, from, to int) {
	off, n := b.N, to-from
	b.LineCols = 0 // the lines would not outlive src
	copy(b.Pos[off:], src.Pos[from:to])
	for c, s := range src.Cols {
		d := b.Cols[c]
		if d.Type != s.Type {
			continue // not kept
		}
		copy(d.Null[off:], s.Null[from:to])
		switch {
		case d.CopyFixedRange(off, s, from, to):
		case d.S != nil:
			for i := from; i < to; i++ {
				if !s.Null[i] {
					d.SetString(off+i-from, s.S[i])
				}
			}
		case d.Kids != nil:
			for i := from; i < to; i++ {
				if !s.Null[i] {
					d.CopyValue(off+i-from, s, i)
				}
			}
		}
		if d.Text != nil { // the texts would not outlive src: format the numbers
			clear(d.Text[off : off+n])
		}
	}
	switch {
	case src.Kinds != nil:
		if b.Kinds == nil {
			b.Kinds = make([]RowKind, Cap)
		}
		copy(b.Kinds[off:off+n], src.Kinds[from:to])
	case b.Kinds != nil:
		clear(b.Kinds[off : off+n]) // (Insert)
	}
	b.N = off + n
}

// CopyFixedRange copies the values of rows [from, to) of src (same type)
// into v's rows from at on, when they are fixed-width (BIGINT, TIMESTAMP,
// DOUBLE, BOOLEAN), and reports whether they were: text and nested values
// (false) are left to the caller, as are the NULL flags. v must have room.
func (v *Vec) CopyFixedRange(at int, src *Vec, from, to int) bool {
	switch {
	case v.I != nil:
		copy(v.I[at:], src.I[from:to])
	case v.F != nil:
		copy(v.F[at:], src.F[from:to])
	case v.B != nil:
		copy(v.B[at:], src.B[from:to])
	default:
		return false
	}
	return true
}

// KindAt returns row i's change kind: Insert when b carries none (an
// append-only batch, Kinds nil).
func (b *Batch) KindAt(i int) RowKind {
	if b.Kinds == nil {
		return Insert
	}
	return b.Kinds[i]
}

// shareText makes rows [to, to+n) of v's Text those of src's rows [from,
// from+n), pointing into the same memory (nil where src keeps no text).
func (v *Vec) shareText(src *Vec, from, to, n int) {
	switch {
	case src.Text != nil:
		if v.Text == nil {
			v.Text = make([][]byte, Cap)
		}
		copy(v.Text[to:to+n], src.Text[from:from+n])
	case v.Text != nil:
		clear(v.Text[to : to+n])
	}
}
