package op

import (
	"cmp"
	"encoding/binary"
	"slices"
	"unsafe"

	"streamql/catalog"
	"streamql/executor/vector"
)

// Rows is a columnar store of rows of one layout, copied out of batches: an
// operator's state or held rows. A row is named by its index (Add's result),
// stable until Compact. VARCHAR values live in one arena per column, so a
// row costs its values' size and no allocation of its own once the slices
// have grown. An ARRAY, MAP or ROW value (SPEC 2.10) is kept in the same
// kind of arena in vector.AppendBinary's form, and read back into the
// batch's child vectors by CopyTo: it comes back exactly, with its type
// (a DOUBLE's bits, NULLs inside).
//
// A row may also be overwritten in place (Set) or emptied (Free), so that an
// operator that releases rows one by one reuses their slots instead of
// holding them until a Compact (liveRows): the bytes of a VARCHAR value
// overwritten or freed are garbage in its column's arena, which is
// compacted in place once it is a quarter of the arena (the rows keep their
// indexes).
//
// The fixed-width values (and each VARCHAR value's address, and the rows'
// positions) live in blocks of colBlock values (column; BIGINT and
// TIMESTAMP in intColumn's, 4 bytes a value while a block's values are
// within 2^31 of each other), the NULL flags one bit a row (nullBits; none
// for a column a join does not keep, of type catalog.Unknown, which is NULL
// in every row): a row of BIGINTs costs 4 to 8 bytes a value and a bit,
// with no spare capacity and no copy as the store grows. Add counts 8 bytes
// a BIGINT (the most it takes).
//
// An operator may have the store pack the VARCHAR values of the columns it
// only copies out (packText: textPack), so that a value costs about 60% of
// its bytes.
type Rows struct {
	types []catalog.Type
	cols  []rowCol
	pos   column[int64]
	n     int
	moved []int   // Compact's result, reused
	order []int32 // compactArena's scratch, reused
	// noPos: the rows' positions are not kept (dropPositions)
	noPos bool
	// rowFixed is the bytes Add counts for every row (its position, NULL
	// flags and fixed-width values), texts the columns whose values'
	// bytes it counts besides (rowBytes)
	rowFixed int64
	texts    []int
	// inOrder: every arena holds its rows' values in row order (no Set or
	// Free since the last compaction), which Compact uses to close the
	// gaps in one pass
	inOrder bool
}

type rowCol struct {
	i    intColumn
	f    column[float64]
	b    column[bool]
	null nullBits
	// allNull: the column is of type catalog.Unknown, NULL in every row
	// (null is empty)
	allNull bool
	// VARCHAR and the nested types: value k is the record at address
	// off[k] of the column's arena (noAddr: the empty value, no record),
	// its length as a uvarint then its bytes (a byte of length for a value
	// under 128 bytes, where a second address took 4), the arena made of
	// chunks of arenaChunk bytes (a record longer than that spans several,
	// of one allocation), so that it grows without copying what it holds;
	// top is the next free address, garbage the bytes below it no row's
	// record holds
	off     column[uint32]
	chunks  [][]byte
	top     uint32
	garbage int
	scratch []byte // a nested value's binary form before it is placed
	// pack, when set, packs the column's VARCHAR values (Rows.packText):
	// the arena holds their packed forms, which enc is built in and Str
	// reads back into str
	pack     *textPack
	enc, str []byte
	spare    [][]byte // whole chunks a compaction let go, for place to reuse (at most maxSpare)
	// freed: the chunks below it are let go or were looked at by FreeBelow
	// (0 after a compaction)
	freed int
}

// maxSpare is the number of chunks a Rows column keeps for reuse after a
// compaction, so that a store whose size holds steady allocates nothing.
const maxSpare = 64

// arenaBits is log2 of arenaChunk, the size of a chunk of a Rows column's
// arena (the first one starts smaller and doubles up to it).
const (
	arenaBits  = 16
	arenaChunk = 1 << arenaBits
	arenaMask  = arenaChunk - 1
)

// noBytes is an empty value's bytes (not nil, as an empty string's in a
// batch).
var noBytes = []byte{}

// noAddr is the address of an empty value (rowCol.off): no record.
const noAddr = ^uint32(0)

// value returns the bytes of value k (capacity clipped to them).
func (rc *rowCol) value(k int) []byte { return rc.record(rc.off.get(k)) }

// record returns the bytes of the record at address o (noAddr: none).
func (rc *rowCol) record(o uint32) []byte {
	if o == noAddr {
		return noBytes
	}
	in := int(o & arenaMask)
	ch := rc.chunks[o>>arenaBits]
	n := int(ch[in])
	if n < 0x80 {
		return ch[in+1 : in+1+n : in+1+n]
	}
	x, w := binary.Uvarint(ch[in:])
	return ch[in+w : in+w+int(x) : in+w+int(x)]
}

// recordSize returns the bytes value k's record takes in the arena (0
// when empty).
func (rc *rowCol) recordSize(k int) int {
	o := rc.off.get(k)
	if o == noAddr {
		return 0
	}
	n := len(rc.record(o))
	return n + uvarintLen(n)
}

// uvarintLen returns the bytes of n as a uvarint.
func uvarintLen(n int) int {
	w := 1
	for ; n >= 0x80; n >>= 7 {
		w++
	}
	return w
}

// place reserves n bytes of the arena and returns their address and the
// bytes: inside one chunk, or, longer than a chunk, at the start of an
// allocation of their own.
func (rc *rowCol) place(n int) (uint32, []byte) {
	slot, in := int(rc.top>>arenaBits), int(rc.top&arenaMask)
	if slot < len(rc.chunks) {
		ch := rc.chunks[slot]
		if in+n <= len(ch) {
			rc.top += uint32(n)
			return uint32(slot<<arenaBits + in), ch[in : in+n]
		}
		if len(ch) < arenaChunk && in+n <= arenaChunk { // the first chunk, still small: it doubles
			grown := make([]byte, min(arenaChunk, max(2*len(ch), in+n)))
			copy(grown, ch[:in])
			rc.chunks[slot] = grown
			rc.top += uint32(n)
			return uint32(slot<<arenaBits + in), grown[in : in+n]
		}
		slot = len(rc.chunks) // (the chunks after slot are the rest of its allocation: no room there either)
	}
	m := max(1, (n+arenaMask)>>arenaBits) // chunks it spans
	if k := len(rc.spare); m == 1 && slot > 0 && k > 0 {
		ch := rc.spare[k-1]
		rc.spare = rc.spare[:k-1]
		rc.chunks = append(rc.chunks, ch)
		rc.top = uint32(slot<<arenaBits + n)
		return uint32(slot << arenaBits), ch[:n]
	}
	size := m << arenaBits
	if slot == 0 && m == 1 {
		size = max(256, n)
	}
	buf := make([]byte, size)
	for j := range m { // (each chunk's length its own slot, its capacity the allocation's rest: a long value reads across)
		rc.chunks = append(rc.chunks, buf[j<<arenaBits:min(size, (j+1)<<arenaBits):size])
	}
	rc.top = uint32(slot<<arenaBits + n)
	return uint32(slot << arenaBits), buf[:n]
}

// valueAt returns the bytes of the value at place in of block bi (value
// k's place: k>>colBits, k&colMask), as value does.
func (rc *rowCol) valueAt(bi, in int) []byte { return rc.record(rc.off.blocks[bi][in]) }

// isNull reports whether row k is NULL.
func (rc *rowCol) isNull(k int) bool { return rc.allNull || rc.null.get(k) }

// size returns the bytes of row k's VARCHAR or nested value.
func (rc *rowCol) size(k int) int { return len(rc.value(k)) }

// text returns value i of v as it is stored (a VARCHAR's bytes, a nested
// value's binary form; nil when NULL), a nested one built in rc.scratch.
func (rc *rowCol) text(t catalog.Type, v *vector.Vec, i int) []byte {
	switch {
	case v.Null[i]:
		return nil
	case t == catalog.Varchar:
		if rc.pack != nil && len(v.S[i]) > 0 {
			rc.enc = rc.pack.encode(rc.enc[:0], v.S[i])
			return rc.enc
		}
		return v.S[i]
	}
	rc.scratch = vector.AppendBinary(rc.scratch[:0], v, i)
	return rc.scratch
}

// add stores x as bytes of the arena (no record: TopN's keys, read back
// by at) and returns their address range.
func (rc *rowCol) add(x []byte) (uint32, uint32) {
	if len(x) == 0 {
		return 0, 0
	}
	o, dst := rc.place(len(x))
	copy(dst, x)
	return o, o + uint32(len(x))
}

// addRecord stores x as a new value's record and returns its address
// (noAddr when x is empty).
func (rc *rowCol) addRecord(x []byte) uint32 {
	if len(x) == 0 {
		return noAddr
	}
	o, dst := rc.place(uvarintLen(len(x)) + len(x))
	copy(dst[binary.PutUvarint(dst, uint64(len(x))):], x)
	return o
}

// addTexts is appendBatch's loop for a VARCHAR column that does not pack
// (rows 0..n-1 of v, n at most vector.Cap): when their records fit in the
// room left in the arena's current chunk (a batch's short texts: the
// interval join's payment methods, issue 23), it writes them there one
// after the other, as addRecord would place them, and their addresses
// with one push, adding each row's bytes to *total and sz (nil: none) as
// appendBatch counts them, and reports true; otherwise it stores nothing
// (what it wrote past the arena's top is free room still) and reports
// false, and appendBatch's row-by-row loop stores them.
func (rc *rowCol) addTexts(v *vector.Vec, n int, sz []int32, total *int64) bool {
	slot, in := int(rc.top>>arenaBits), int(rc.top&arenaMask)
	if slot >= len(rc.chunks) {
		return false
	}
	ch := rc.chunks[slot]
	var offs [vector.Cap]uint32
	at, bytes := in, int64(0)
	for i, x := range v.S[:n] {
		if v.Null[i] {
			x = nil
		}
		bytes += 4 + int64(len(x))
		if len(x) == 0 {
			offs[i] = noAddr
			continue
		}
		if len(x) >= 0x80 || len(x) >= len(ch)-at {
			return false // (a long value, or the chunk's end: place's)
		}
		offs[i] = uint32(slot<<arenaBits + at)
		ch[at] = byte(len(x))
		at += 1 + copy(ch[at+1:], x)
	}
	if sz != nil {
		for i, x := range v.S[:n] {
			if !v.Null[i] {
				sz[i] += 4 + int32(len(x))
			} else {
				sz[i] += 4
			}
		}
	}
	rc.top += uint32(at - in)
	rc.off.pushAll(offs[:n])
	*total += bytes
	return true
}

// NewRows returns an empty store of rows of types.
func NewRows(types []catalog.Type) *Rows {
	r := &Rows{types: types, cols: make([]rowCol, len(types)), inOrder: true, rowFixed: int64(8 + len(types))}
	for c, t := range types {
		r.cols[c].allNull = t == catalog.Unknown
		switch {
		case t == catalog.BigInt || t == catalog.Timestamp || t == catalog.Double:
			r.rowFixed += 8
		case t == catalog.Boolean:
			r.rowFixed++
		case textLike(t):
			r.texts = append(r.texts, c)
		}
	}
	return r
}

// textLike reports whether values of t live in a column's arena: VARCHAR,
// and ARRAY, MAP and ROW in their binary form (vector.AppendBinary).
func textLike(t catalog.Type) bool { return t == catalog.Varchar || t.IsNested() }

// Len returns the number of rows stored.
func (r *Rows) Len() int { return r.n }

// Add copies row i of b (whose columns have r's types) and returns its index
// and the bytes it takes.
func (r *Rows) Add(b *vector.Batch, i int) (int, int64) {
	bytes := r.rowFixed
	// (each column's push written out, full then put, so that it is inlined:
	// a push with its call of grow is not, and a row makes a push a column)
	for c := range r.cols {
		rc, v := &r.cols[c], b.Cols[c]
		if rc.allNull {
			continue
		}
		null := v.Null[i]
		if rc.null.n&63 == 0 {
			rc.null.w.push(0)
		}
		if null {
			rc.null.setLast()
		}
		rc.null.n++
		switch r.types[c] {
		case catalog.BigInt, catalog.Timestamp:
			x := int64(0)
			if !null {
				x = v.I[i]
			}
			rc.i.push(x)
		case catalog.Double:
			x := 0.0
			if !null {
				x = v.F[i]
			}
			if rc.f.full() {
				rc.f.grow()
			}
			rc.f.put(x)
		case catalog.Boolean:
			if rc.b.full() {
				rc.b.grow()
			}
			rc.b.put(!null && v.B[i])
		default:
			if textLike(r.types[c]) {
				x := rc.text(r.types[c], v, i)
				o := rc.addRecord(x)
				if rc.off.full() {
					rc.off.grow()
				}
				rc.off.put(o)
				bytes += 4 + int64(len(x))
			}
		}
	}
	if !r.noPos {
		if r.pos.full() {
			r.pos.grow()
		}
		r.pos.put(b.Pos[i])
	}
	r.n++
	return r.n - 1, bytes
}

// appendBatch copies rows 0..b.N-1 of b (whose columns have r's types) to
// the store, column by column (Add's result, row by row, for a whole
// batch), appends each row's bytes to sizes (nil: not kept) and returns
// their sum. A NULL's value is stored as it is in b (never read: Null
// comes first), where Add stores 0.
func (r *Rows) appendBatch(b *vector.Batch, sizes *[]int32) int64 {
	n := b.N
	total := int64(n) * r.rowFixed
	var sz []int32
	if sizes != nil {
		k0 := len(*sizes)
		for range n {
			*sizes = append(*sizes, int32(r.rowFixed))
		}
		sz = (*sizes)[k0:]
	}
	for c := range r.cols {
		rc, v := &r.cols[c], b.Cols[c]
		if rc.allNull {
			continue
		}
		rc.null.pushAll(v.Null[:n])
		switch t := r.types[c]; {
		case t == catalog.BigInt || t == catalog.Timestamp:
			rc.i.pushAll(v.I[:n])
		case t == catalog.Double:
			rc.f.pushAll(v.F[:n])
		case t == catalog.Boolean:
			rc.b.pushAll(v.B[:n])
		case t == catalog.Varchar && rc.pack == nil && n <= vector.Cap && rc.addTexts(v, n, sz, &total):
		case textLike(t):
			for i := range n {
				x := rc.text(t, v, i)
				rc.off.push(rc.addRecord(x))
				total += 4 + int64(len(x))
				if sz != nil {
					sz[i] += 4 + int32(len(x))
				}
			}
		}
	}
	if !r.noPos {
		r.pos.pushAll(b.Pos[:n])
	}
	r.n += n
	return total
}

// Set overwrites stored row k with row i of b (whose columns have r's
// types) and returns the bytes the new row takes (as Add counts them). A
// VARCHAR value that fits where the old one was is written there; the rest
// is garbage, reclaimed by compactArena.
func (r *Rows) Set(k int, b *vector.Batch, i int) int64 {
	bytes := int64(8 + len(r.types))
	r.inOrder = false
	for c := range r.cols {
		rc, v := &r.cols[c], b.Cols[c]
		if rc.allNull {
			continue
		}
		null := v.Null[i]
		rc.null.set(k, null)
		switch t := r.types[c]; t {
		case catalog.BigInt, catalog.Timestamp:
			x := int64(0)
			if !null {
				x = v.I[i]
			}
			rc.i.set(k, x)
			bytes += 8
		case catalog.Double:
			x := 0.0
			if !null {
				x = v.F[i]
			}
			rc.f.set(k, x)
			bytes += 8
		case catalog.Boolean:
			rc.b.set(k, !null && v.B[i])
			bytes++
		default:
			if !textLike(t) {
				continue
			}
			old := rc.recordSize(k)
			x := rc.text(t, v, i)
			if need := uvarintLen(len(x)) + len(x); need <= old && len(x) > 0 { // (in the old record's place)
				o := rc.off.get(k)
				in := int(o & arenaMask)
				dst := rc.chunks[o>>arenaBits][in : in+need : in+old]
				copy(dst[binary.PutUvarint(dst, uint64(len(x))):], x)
				rc.garbage += old - need
			} else {
				rc.off.set(k, rc.addRecord(x))
				rc.garbage += old
			}
			bytes += 4 + int64(len(x))
		}
	}
	if !r.noPos {
		r.pos.set(k, b.Pos[i])
	}
	r.compactArenas()
	return bytes
}

// Free empties stored row k's VARCHAR values (their bytes become garbage)
// and returns the bytes the row took (as Add counted them); the row keeps
// its index until Set overwrites it.
func (r *Rows) Free(k int) int64 {
	n := r.rowBytes(k)
	r.inOrder = false
	for c := range r.cols {
		rc := &r.cols[c]
		if rc.off.n > k {
			rc.garbage += rc.recordSize(k)
			rc.off.set(k, noAddr)
		}
	}
	r.compactArenas()
	return n
}

// Freeable returns how many arena chunks, over all VARCHAR and nested
// columns, FreeBelow(k) would let go: those below the chunk of row k's
// value (a column whose row k is empty counts none). 0 unless every arena
// holds its rows' values in row order (no Set or Free since the last
// compaction).
func (r *Rows) Freeable(k int) int {
	if !r.inOrder || k >= r.n {
		return 0
	}
	n := 0
	for _, c := range r.texts {
		rc := &r.cols[c]
		if o := rc.off.get(k); o != noAddr {
			n += max(0, int(o>>arenaBits)-rc.freed)
		}
	}
	return n
}

// FreeBelow lets go the arena chunks below the chunk of row k's value, in
// each VARCHAR and nested column (Freeable), keeping up to maxSpare whole
// chunks for the arena to reuse, for a caller to which the rows before k
// are dead (never read again: what Str returned for one is invalid after
// it): a store whose rows leave about in the order they came (a lookup
// join's left rows, held until the watermark passes them) then holds about
// its live rows' bytes between compactions, not the dead ones' too. It
// copies nothing and keeps the rows' indexes; Compact still drops the dead
// rows.
func (r *Rows) FreeBelow(k int) {
	if !r.inOrder || k >= r.n {
		return
	}
	for _, c := range r.texts {
		rc := &r.cols[c]
		o := rc.off.get(k)
		if o == noAddr {
			continue
		}
		for s := rc.freed; s < int(o>>arenaBits); s++ {
			if ch := rc.chunks[s]; len(ch) == arenaChunk && cap(ch) == arenaChunk && len(rc.spare) < maxSpare {
				rc.spare = append(rc.spare, ch)
			}
			rc.chunks[s] = nil
		}
		rc.freed = max(rc.freed, int(o>>arenaBits))
	}
}

// compactArenas closes the gaps in each arena whose garbage is a quarter
// of it or more (and at least 4 KiB), moving the values toward its start in
// the order they lie in it (row order when inOrder): the rows keep their
// indexes, the values' bytes move (what Str returned before is stale), and
// the chunks no longer used are let go.
func (r *Rows) compactArenas() {
	for c := range r.cols {
		rc := &r.cols[c]
		if rc.garbage < 4096 || 4*rc.garbage < int(rc.top) {
			continue
		}
		r.order = r.order[:0]
		for k := 0; k < r.n; k++ {
			if rc.off.get(k) != noAddr {
				r.order = append(r.order, int32(k))
			}
		}
		if !r.inOrder {
			slices.SortFunc(r.order, func(a, b int32) int { return cmp.Compare(rc.off.get(int(a)), rc.off.get(int(b))) })
		}
		w := uint32(0) // the next address written: never above the value moved
		for _, k := range r.order {
			size := uint32(rc.recordSize(int(k)))
			switch {
			case size > arenaChunk: // a long value stays where it is, its own allocation's start
				w = rc.off.get(int(k))
			default:
				for int(w&arenaMask+size) > len(rc.chunks[w>>arenaBits]) {
					w = (w>>arenaBits + 1) << arenaBits // (it does not fit in w's chunk, or that was let go (FreeBelow): the next; it is there or later)
				}
			}
			if o := rc.off.get(int(k)); w != o {
				in, from := w&arenaMask, o&arenaMask
				copy(rc.chunks[w>>arenaBits][in:in+size], rc.chunks[o>>arenaBits][from:from+size:cap(rc.chunks[o>>arenaBits])])
			}
			rc.off.set(int(k), w)
			w += size
		}
		used := int(w+arenaMask) >> arenaBits
		if used == 0 && len(rc.chunks) > 0 && cap(rc.chunks[0]) <= arenaChunk {
			used = 1 // (an emptied store keeps its first chunk, whatever its size: refilled, it does not grow it again by doubling)
		}
		for _, ch := range rc.chunks[used:] {
			if len(ch) == arenaChunk && cap(ch) == arenaChunk && len(rc.spare) < maxSpare {
				rc.spare = append(rc.spare, ch)
			}
		}
		clear(rc.chunks[used:])
		rc.chunks = rc.chunks[:used]
		rc.top, rc.garbage = w, 0
		rc.freed = 0
	}
}

// Null reports whether column c of row k is NULL.
func (r *Rows) Null(k, c int) bool { return r.cols[c].isNull(k) }

// Int returns column c of row k (BIGINT or TIMESTAMP; 0 when NULL).
func (r *Rows) Int(k, c int) int64 { return r.cols[c].i.get(k) }

// Float returns column c of row k (DOUBLE; 0 when NULL).
func (r *Rows) Float(k, c int) float64 { return r.cols[c].f.get(k) }

// Bool returns column c of row k (BOOLEAN; false when NULL).
func (r *Rows) Bool(k, c int) bool { return r.cols[c].b.get(k) }

// Str returns column c of row k (VARCHAR; empty when NULL), pointing into
// the store: valid until the next Add or Compact; of a packed column
// (packText), into the column's buffer: valid until the next Str of it.
func (r *Rows) Str(k, c int) []byte {
	rc := &r.cols[c]
	if rc.pack != nil {
		rc.str = rc.pack.decode(rc.str[:0], rc.value(k))
		return rc.str
	}
	return rc.value(k)
}

// packText makes r pack the VARCHAR values of columns cols (textPack): the
// columns its operator copies out (CopyTo, gatherTo) but does not compare
// or hash, whose Str then reads a copy. An empty store only.
func (r *Rows) packText(cols []int) {
	if r.n > 0 {
		return
	}
	for _, c := range cols {
		if r.types[c] == catalog.Varchar && r.cols[c].pack == nil {
			r.cols[c].pack = newTextPack()
		}
	}
}

// setText writes enc, value i of a VARCHAR column rc, into v's row i:
// unpacked into v's arena when rc packs (at once, since a packed value is
// not the text), else pointing at enc when share, else copied.
func (rc *rowCol) setText(v *vector.Vec, i int, enc []byte, share bool) {
	switch {
	case rc.pack != nil:
		start := len(v.Arena)
		v.Arena = rc.pack.decode(v.Arena, enc)
		v.S[i] = v.Arena[start:len(v.Arena):len(v.Arena)]
	case share:
		v.S[i] = enc
	default:
		v.SetString(i, enc)
	}
}

// Pos returns row k's source position (vector.Batch.Pos).
// It is -1 in a store that keeps no positions (dropPositions).
func (r *Rows) Pos(k int) int64 {
	if r.noPos {
		return -1
	}
	return r.pos.get(k)
}

// positions sets out[x] to the source position of row ks[x] (Pos), -1
// where ks[x] is -1 (a side padded with NULLs).
func (r *Rows) positions(out []int64, ks []int32) {
	out = out[:len(ks)]
	if r.noPos {
		for x := range out {
			out[x] = -1
		}
		return
	}
	cur := -1 // (a block's array looked up once for a run of rows in it, as intColumn.gather does)
	var blk []int64
	for x, k := range ks {
		if k < 0 {
			out[x] = -1
			continue
		}
		if b := int(k) >> colBits; b != cur {
			cur, blk = b, r.pos.blocks[b]
		}
		out[x] = blk[int(k)&colMask]
	}
}

// dropPositions makes r keep no source positions from now on (Pos -1): a
// store whose rows' positions no reader asks for (a lookup join's right
// side: its joined rows are the left row's, and no replay reads it) saves
// their 8 bytes a row. An empty store only.
func (r *Rows) dropPositions() { r.noPos = r.n == 0 || r.noPos }

// CopyTo writes row k into row i of b, in b's columns from at on (they have
// r's types), strings copied into b's arenas; NULL when k < 0 (an outer
// join's padding).
func (r *Rows) CopyTo(b *vector.Batch, i, at, k int) {
	if k < 0 {
		for c := range r.cols {
			b.Cols[at+c].Null[i] = true
		}
		return
	}
	// row k's place in every column's blocks, and its NULL flag's (the
	// columns of one store share their blocks' sizes)
	bi, in := k>>colBits, k&colMask
	w := k >> 6
	wb, wi, bit := w>>colBits, w&colMask, uint(k&63)
	for c := range r.cols {
		v, rc := b.Cols[at+c], &r.cols[c]
		if rc.allNull || rc.null.w.blocks[wb][wi]>>bit&1 != 0 {
			v.Null[i] = true
			continue
		}
		v.Null[i] = false
		switch r.types[c] {
		case catalog.BigInt, catalog.Timestamp:
			v.I[i] = rc.i.at(bi, in)
		case catalog.Double:
			v.F[i] = rc.f.blocks[bi][in]
		case catalog.Boolean:
			v.B[i] = rc.b.blocks[bi][in]
		case catalog.Varchar:
			rc.setText(v, i, rc.valueAt(bi, in), false)
		default:
			if textLike(r.types[c]) {
				vector.ReadBinary(v, i, rc.valueAt(bi, in))
			}
		}
		if v.Text != nil {
			v.Text[i] = nil
		}
	}
}

// gatherTo writes rows ks (-1: NULLs) into b's rows at, at+1, ..., in b's
// columns from col on (they have r's types), column by column. Unlike
// CopyTo, a VARCHAR value points into the store instead of being copied: b
// is valid only until the store's next Add or Compact.
func (r *Rows) gatherTo(b *vector.Batch, at, col int, ks []int32) {
	r.gatherPassed(b, at, col, ks, nil, true)
}

// gatherPassed is gatherTo writing only the columns pass marks (nil: every
// one; JoinSpec.Pass): the others are NULL, their values not read. With
// share false a VARCHAR value is copied into b's arena instead (b then
// outlives the store's changes, as after vector.Batch.OwnStrings).
func (r *Rows) gatherPassed(b *vector.Batch, at, col int, ks []int32, pass []bool, share bool) {
	padded := slices.ContainsFunc(ks, func(k int32) bool { return k < 0 }) // (a row padded with NULLs: found once, not a column at a time)
	for c := range r.cols {
		rc, v := &r.cols[c], b.Cols[col+c]
		if rc.allNull || c < len(pass) && !pass[c] {
			setNulls(v.Null[at : at+len(ks)])
			if v.Text != nil {
				clear(v.Text[at : at+len(ks)])
			}
			continue
		}
		// the NULL flags first, then the values of the rows that have one,
		// a loop for each type (no type switch a row)
		nulls := v.Null[at : at+len(ks)]
		if rc.null.some {
			for x, k := range ks {
				nulls[x] = k < 0 || rc.null.get(int(k))
			}
		} else if padded { // (no row's flag to read: a load a row saved, a cache miss for rows gathered out of order)
			for x, k := range ks {
				nulls[x] = k < 0
			}
		} else {
			clear(nulls) // (no padding either: an INNER join's pairs, one memclr a column)
		}
		switch t := r.types[c]; {
		case t == catalog.BigInt || t == catalog.Timestamp:
			rc.i.gather(v.I[at:at+len(ks)], ks, nulls)
		case t == catalog.Double:
			out := v.F[at : at+len(ks)]
			for x, k := range ks {
				if !nulls[x] {
					out[x] = rc.f.get(int(k))
				}
			}
		case t == catalog.Boolean:
			out := v.B[at : at+len(ks)]
			for x, k := range ks {
				if !nulls[x] {
					out[x] = rc.b.get(int(k))
				}
			}
		case t == catalog.Varchar && rc.pack == nil && !share:
			rc.gatherTexts(v, at, ks, nulls)
		case t == catalog.Varchar:
			for x, k := range ks {
				if !nulls[x] {
					rc.setText(v, at+x, rc.value(int(k)), share)
				}
			}
		case textLike(t):
			for x, k := range ks {
				if !nulls[x] {
					vector.ReadBinary(v, at+x, r.Str(int(k), c))
				}
			}
		}
		if v.Text != nil {
			clear(v.Text[at : at+len(ks)])
		}
	}
}

// gatherTexts is gatherPassed's loop for a VARCHAR column that does not
// pack, its values copied: the value of row ks[x] into v's row at+x for
// every x whose nulls[x] is false (their NULL flags written already),
// appended to v's arena as SetString does, the addresses' block looked up
// once for a run of rows in one block (as intColumn.gather's).
func (rc *rowCol) gatherTexts(v *vector.Vec, at int, ks []int32, nulls []bool) {
	arena, out := v.Arena, v.S[at:at+len(ks)]
	cur := -1
	var blk []uint32
	for x, k := range ks {
		if nulls[x] {
			continue
		}
		if b := int(k) >> colBits; b != cur {
			cur, blk = b, rc.off.blocks[b]
		}
		rec := rc.record(blk[int(k)&colMask])
		start := len(arena)
		arena = append(arena, rec...)
		out[x] = arena[start:len(arena):len(arena)]
	}
	v.Arena = arena
}

// allTrue is a batch's worth of trues: NULL flags (setNulls), keys that
// have a hash (batchKeyHashes).
var allTrue = func() (a [vector.Cap]bool) {
	for i := range a {
		a[i] = true
	}
	return a
}()

// setNulls sets every flag of nulls (at most vector.Cap of them), copied
// from allTrue: one memmove, not a store a row.
func setNulls(nulls []bool) { copy(nulls, allTrue[:]) }

// Compact keeps the rows for which keep is true (asked once a row, in row
// order, before the row moves: keep may read it), in their order, and returns
// each kept row's new index (-1 for a dropped row), indexed by the old one:
// valid until the next Compact (its array is reused, so compacting
// allocates nothing once it has grown).
func (r *Rows) Compact(keep func(k int) bool) []int {
	return r.compactFrom(0, keep)
}

// CompactDead is Compact of the rows whose dead[k] is false, the dead rows
// before the first live one (a join's rows die about in the order they
// came: most of its dead rows) dropped by a scan of dead, not a call of
// keep a row.
func (r *Rows) CompactDead(dead []bool) []int {
	p := 0
	for p < r.n && dead[p] {
		p++
	}
	return r.compactFrom(p, func(k int) bool { return !dead[k] })
}

// compactFrom is Compact with rows 0..from-1 dropped without asking keep.
func (r *Rows) compactFrom(from int, keep func(k int) bool) []int {
	if cap(r.moved) < r.n {
		r.moved = make([]int, r.n)
	}
	moved := r.moved[:r.n]
	for k := range moved[:from] {
		moved[k] = -1
	}
	n := 0
	for k := from; k < r.n; {
		if !keep(k) {
			moved[k] = -1
			k++
			continue
		}
		e := k + 1 // (the run of kept rows k..e-1: moved a column's range at a time)
		for e < r.n && keep(e) {
			e++
		}
		for x := k; x < e; x++ {
			moved[x] = n + x - k
		}
		if n != k {
			r.moveRows(n, k, e-k)
		}
		n += e - k
		k = e
		if k < r.n { // (keep(k) said false: keep is asked once a row)
			moved[k] = -1
			k++
		}
	}
	for c := range r.cols { // the dropped rows' values are garbage
		if rc := &r.cols[c]; textLike(r.types[c]) {
			live := 0
			for k := 0; k < n; k++ {
				live += rc.recordSize(k)
			}
			rc.garbage = int(rc.top) - live
		}
	}
	r.n = n
	if !r.noPos {
		r.pos.truncate(n)
	}
	for c := range r.cols {
		rc := &r.cols[c]
		if rc.allNull {
			continue
		}
		rc.null.truncate(n)
		switch r.types[c] {
		case catalog.BigInt, catalog.Timestamp:
			rc.i.truncate(n)
		case catalog.Double:
			rc.f.truncate(n)
		case catalog.Boolean:
			rc.b.truncate(n)
		default:
			if textLike(r.types[c]) {
				rc.off.truncate(n)
			}
		}
	}
	r.compactArenas()
	for c := range r.cols {
		r.cols[c].freed = 0 // (the values moved: FreeBelow looks again from the first chunk)
	}
	return moved
}

// moveRows moves rows from..from+m-1 to to..to+m-1 (to < from: Compact's
// kept rows, moved down), a column's range at a time (column.move,
// intColumn.move), not a value at a time: a join's rows die about in the
// order they came, so its live rows are a few long runs.
func (r *Rows) moveRows(to, from, m int) {
	if !r.noPos {
		r.pos.move(to, from, m)
	}
	for c := range r.cols {
		rc := &r.cols[c]
		if rc.allNull {
			continue
		}
		rc.null.move(to, from, m)
		switch t := r.types[c]; {
		case t == catalog.BigInt || t == catalog.Timestamp:
			rc.i.move(to, from, m)
		case t == catalog.Double:
			rc.f.move(to, from, m)
		case t == catalog.Boolean:
			rc.b.move(to, from, m)
		case textLike(t):
			rc.off.move(to, from, m) // (compactArenas moves the bytes)
		}
	}
}

// reset empties r, keeping its memory.
func (r *Rows) reset() {
	r.n, r.inOrder = 0, true
	r.pos.truncate(0)
	for c := range r.cols {
		rc := &r.cols[c]
		rc.i.truncate(0)
		rc.f.truncate(0)
		rc.b.truncate(0)
		rc.null.truncate(0)
		rc.off.truncate(0)
		rc.top, rc.garbage, rc.freed = 0, 0, 0
	}
}

// rowBytes is what stored row k of r takes (as Rows.Add counted it): the
// fixed part (rowFixed) and its VARCHAR and nested values' bytes.
func (r *Rows) rowBytes(k int) int64 {
	n := r.rowFixed
	for _, c := range r.texts {
		n += 4 + int64(r.cols[c].size(k))
	}
	return n
}

// keyHash hashes the key columns cols of stored row k (mix over the
// values), and reports whether the key can match at all: a NULL or a NaN
// never matches (SQL; SPEC 2.7: NaN matches nothing), and -0.0 hashes as 0.0
// (0.0 matches -0.0); a NULL in a null-safe part (ns, JoinSpec.NullSafe)
// mixes nullMark in and matches a NULL there.
func (r *Rows) keyHash(k int, cols []int, ns []bool) (uint64, bool) {
	h := hashSeed
	for j, c := range cols {
		if r.cols[c].isNull(k) {
			if nullSafe(ns, j) {
				h = mix(h, nullMark)
				continue
			}
			return 0, false
		}
		switch r.types[c] {
		case catalog.BigInt, catalog.Timestamp:
			h = hashInt(h, r.cols[c].i.get(k))
		case catalog.Double:
			var ok bool
			if h, ok = hashFloat(h, r.cols[c].f.get(k)); !ok {
				return 0, false
			}
		case catalog.Boolean:
			h = hashBool(h, r.cols[c].b.get(k))
		case catalog.Varchar:
			h = hashBytes(h, r.Str(k, c))
		}
	}
	return h, true
}

// mix folds the 64-bit value x into the key hash h: their xor times an odd
// constant, the high half then folded into the low one. Both steps are
// bijections, so the rows of a one-column key have distinct hashes for
// distinct values; spread scatters the bits over a table's slots. (It was
// FNV-1a over x's eight bytes: eight dependent multiplies a value, 3.6% of
// the benchmark suite's interval join.)
func mix(h, x uint64) uint64 {
	h = (h ^ x) * 0x9e3779b97f4a7c15
	return h ^ h>>32
}

// keyEqual reports whether the key columns acols of row i of a equal the key
// columns bcols of row k of b (SPEC 2's =: 0.0 equals -0.0; neither key holds
// a NULL or a NaN in an = part, keyHash has checked; in a null-safe part,
// ns, NULL equals NULL only). The columns are of one type pairwise.
func keyEqual(a *Rows, i int, acols []int, b *Rows, k int, bcols []int, ns []bool) bool {
	for j, c := range acols {
		d := bcols[j]
		if nullSafe(ns, j) {
			if an, bn := a.cols[c].isNull(i), b.cols[d].isNull(k); an || bn {
				if an != bn {
					return false
				}
				continue
			}
		}
		switch a.types[c] {
		case catalog.BigInt, catalog.Timestamp:
			if a.Int(i, c) != b.Int(k, d) {
				return false
			}
		case catalog.Double:
			if a.Float(i, c) != b.Float(k, d) {
				return false
			}
		case catalog.Boolean:
			if a.Bool(i, c) != b.Bool(k, d) {
				return false
			}
		case catalog.Varchar:
			if string(a.Str(i, c)) != string(b.Str(k, d)) {
				return false
			}
		}
	}
	return true
}

// colBits is log2 of colBlock, the values of one block of a Rows column's
// fixed-width values (column): 4,096 values, 32 KiB of BIGINT.
const (
	colBits  = 12
	colBlock = 1 << colBits
	colMask  = colBlock - 1
)

// column is a fixed-width column of a Rows (its BIGINT, DOUBLE or BOOLEAN
// values, its VARCHAR addresses, the rows' positions): blocks of colBlock
// values, the first one growing by doubling up to that, so a column grows
// without copying what it holds and without the spare quarter (and the
// garbage of each growth: four times the column, over its life) of a slice
// that append grows. Value k is blocks[k>>colBits][k&colMask]; every block
// is whole (len == cap), the values from n on free. Like a slice cut
// shorter, a column keeps its blocks when truncated, so that a store whose
// size goes up and down allocates nothing once it has grown.
type column[T any] struct {
	blocks [][]T
	n      int
	// cur is value n's block, lim the index after its last value (0 after
	// a truncate: grow finds them)
	cur []T
	lim int
}

// get returns value k.
func (c *column[T]) get(k int) T { return c.blocks[k>>colBits][k&colMask] }

// set makes value k x.
func (c *column[T]) set(k int, x T) { c.blocks[k>>colBits][k&colMask] = x }

// grow makes cur value n's block: the block that holds it, or a
// first block of 8 values, the first block doubled (up to colBlock), or a
// new block. (Not inlined: push is, and calls it once a block.)
//
//go:noinline
func (c *column[T]) grow() {
	b, in := c.n>>colBits, c.n&colMask
	switch {
	case b < len(c.blocks) && in < len(c.blocks[b]): // (room left after a truncate)
	case len(c.blocks) == 0:
		c.blocks = append(c.blocks, make([]T, 8))
	case b == 0:
		grown := make([]T, min(colBlock, 2*len(c.blocks[0])))
		copy(grown, c.blocks[0])
		c.blocks[0] = grown
	default:
		c.blocks = append(c.blocks, make([]T, colBlock))
	}
	c.cur, c.lim = c.blocks[b], b<<colBits+len(c.blocks[b])
}

// push appends x.
func (c *column[T]) push(x T) {
	if c.n >= c.lim {
		c.grow()
	}
	c.cur[c.n&colMask] = x
	c.n++
}

// full reports whether value n needs grow before put.
func (c *column[T]) full() bool { return c.n >= c.lim }

// put appends x where grow has made room (full is false).
func (c *column[T]) put(x T) {
	c.cur[c.n&colMask] = x
	c.n++
}

// pushAll appends xs.
func (c *column[T]) pushAll(xs []T) {
	for len(xs) > 0 {
		if c.n >= c.lim {
			c.grow()
		}
		m := copy(c.cur[c.n&colMask:], xs)
		c.n += m
		xs = xs[m:]
	}
}

// move copies values from..from+m-1 to to..to+m-1 (to < from, both
// below n), a block's run at a time (copy: overlapping runs of one block
// too).
func (c *column[T]) move(to, from, m int) {
	for m > 0 {
		db, di := c.blocks[to>>colBits], to&colMask
		sb, si := c.blocks[from>>colBits], from&colMask
		x := copy(db[di:], sb[si:min(len(sb), si+m)])
		to, from, m = to+x, from+x, m-x
	}
}

// truncate keeps the first n values (n <= c.n); the blocks stay.
func (c *column[T]) truncate(n int) { c.n, c.lim = n, 0 }

// bytes returns the memory the column's blocks take, width bytes a value.
func (c *column[T]) bytes(width int) int {
	n := 0
	for _, b := range c.blocks {
		n += len(b) * width
	}
	return n
}

// nullBits is a column's NULL flags, one bit a row in words of 64.
type nullBits struct {
	w column[uint64]
	n int
	// some: a flag was ever set NULL since the column was last empty (a
	// column without it has no NULL: Rows.gatherTo reads no flag)
	some bool
}

// get reports whether row k is NULL.
func (nb *nullBits) get(k int) bool { return nb.w.get(k>>6)>>(k&63)&1 != 0 }

// set makes row k's flag null.
func (nb *nullBits) set(k int, null bool) {
	w := nb.w.get(k >> 6)
	if null {
		w |= 1 << (k & 63)
		nb.some = true
	} else {
		w &^= 1 << (k & 63)
	}
	nb.w.set(k>>6, w)
}

// push appends a row's flag.
func (nb *nullBits) push(null bool) {
	if nb.n&63 == 0 {
		nb.w.push(0)
	}
	if null {
		nb.set(nb.n, true)
	}
	nb.n++
}

// setLast marks row n's flag NULL, the row being pushed (its word pushed
// already: push's steps written out, as Rows.Add does).
func (nb *nullBits) setLast() {
	w := nb.n >> 6
	nb.w.blocks[w>>colBits][w&colMask] |= 1 << (nb.n & 63)
	nb.some = true
}

// pushAll appends the rows' flags nulls, a word at a time.
func (nb *nullBits) pushAll(nulls []bool) {
	for len(nulls) > 0 {
		if nb.n&63 == 0 {
			nb.w.push(0)
		}
		m := min(64-nb.n&63, len(nulls))
		w := packBools(nulls[:m])
		if w != 0 {
			k := nb.n >> 6
			nb.w.set(k, nb.w.get(k)|w<<(nb.n&63))
			nb.some = true
		}
		nb.n += m
		nulls = nulls[m:]
	}
}

// packBools returns the bits of bs (at most 64): bit i set when bs[i] is
// true. Eight flags are read as one word (a bool is a byte of 0 or 1) and
// gathered into a byte by one multiply (byte i's 1 lands on bit 56+i), so
// that a word of no NULLs, the common case, costs a load and a test.
func packBools(bs []bool) uint64 {
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(bs))), len(bs))
	w, i := uint64(0), 0
	for ; i+8 <= len(b); i += 8 {
		if x := binary.LittleEndian.Uint64(b[i:]); x != 0 {
			w |= x * 0x0102040810204080 >> 56 << i
		}
	}
	for ; i < len(b); i++ {
		w |= uint64(b[i]) << i
	}
	return w
}

// move copies rows from..from+m-1's flags to rows to..to+m-1 (to <
// from), up to a word's at a time: none to copy when no flag was set NULL
// (some is false: every flag is clear).
func (nb *nullBits) move(to, from, m int) {
	if !nb.some {
		return
	}
	for m > 0 {
		dw, db := to>>6, uint(to&63)
		x := min(m, 64-int(db)) // (the flags to write into word dw)
		sw, sb := from>>6, uint(from&63)
		v := nb.w.get(sw) >> sb
		if sb+uint(x) > 64 {
			v |= nb.w.get(sw+1) << (64 - sb)
		}
		mask := ^uint64(0) >> (64 - uint(x))
		nb.w.set(dw, nb.w.get(dw)&^(mask<<db)|(v&mask)<<db)
		to, from, m = to+x, from+x, m-x
	}
}

// truncate keeps the first n rows' flags (n <= nb.n).
func (nb *nullBits) truncate(n int) {
	nb.w.truncate((n + 63) >> 6)
	if n&63 != 0 {
		k := n >> 6
		nb.w.set(k, nb.w.get(k)&(1<<(n&63)-1)) // (the flags from n on cleared: push sets only NULLs)
	}
	nb.n = n
	nb.some = nb.some && n > 0
}

// intColumn is a Rows column of BIGINT or TIMESTAMP values, in blocks of
// colBlock values as column's (the first growing by doubling), each block
// narrow while it can be: its values as 32-bit differences from its base
// (the first value it took), so that ids, prices and event times of one
// block (within 2^31 of each other: 24 days of milliseconds) take 4 bytes
// each, and wide (8 bytes a value) from the first value that is not. The
// differences wrap as int64 arithmetic does, so every value reads back
// exactly.
type intColumn struct {
	narrow [][]int32 // block b's values less base[b]; nil once it is wide
	wide   [][]int64 // block b's values once it is wide, else nil
	base   []int64
	n      int
}

// get returns value k.
func (c *intColumn) get(k int) int64 { return c.at(k>>colBits, k&colMask) }

// at returns the value at place in of block b.
func (c *intColumn) at(b, in int) int64 {
	if nb := c.narrow[b]; nb != nil {
		return c.base[b] + int64(nb[in])
	}
	return c.wide[b][in]
}

// gather sets out[x] to value ks[x] for every x whose nulls[x] is false
// (Rows.gatherPassed), looking a block's array up once for a run of rows in
// one block (a join's pairs come about in the order their rows were
// stored), not once a value as get does.
func (c *intColumn) gather(out []int64, ks []int32, nulls []bool) {
	cur := -1
	var nb []int32
	var wb []int64
	var base int64
	for x, k := range ks {
		if nulls[x] {
			continue
		}
		b, in := int(k)>>colBits, int(k)&colMask
		if b != cur {
			cur, nb, base = b, c.narrow[b], c.base[b]
			if nb == nil {
				wb = c.wide[b]
			}
		}
		if nb != nil {
			out[x] = base + int64(nb[in])
		} else {
			out[x] = wb[in]
		}
	}
}

// set makes value k x.
func (c *intColumn) set(k int, x int64) { c.put(k>>colBits, k&colMask, x) }

// put makes the value at place in of block b x, widening the block when x
// is not within 2^31 of its base.
func (c *intColumn) put(b, in int, x int64) {
	if nb := c.narrow[b]; nb != nil {
		if d := x - c.base[b]; d == int64(int32(d)) {
			nb[in] = int32(d)
			return
		}
		c.widen(b)
	}
	c.wide[b][in] = x
}

// widen makes block b wide.
func (c *intColumn) widen(b int) {
	nb := c.narrow[b]
	w := make([]int64, len(nb))
	for i, d := range nb {
		w[i] = c.base[b] + int64(d)
	}
	c.wide[b], c.narrow[b] = w, nil
}

// blockLen returns the values block b holds room for.
func (c *intColumn) blockLen(b int) int {
	if nb := c.narrow[b]; nb != nil {
		return len(nb)
	}
	return len(c.wide[b])
}

// push appends x.
func (c *intColumn) push(x int64) {
	b, in := c.n>>colBits, c.n&colMask
	if b >= len(c.base) || in >= c.blockLen(b) {
		c.room(x)
	}
	c.n++
	c.put(b, in, x)
}

// room makes room for value n, x (the base of a new block). (Not inlined:
// push is, and calls it once a block.)
//
//go:noinline
func (c *intColumn) room(x int64) {
	b := c.n >> colBits
	switch {
	case b < len(c.base): // the first block, full: it doubles
		size := min(colBlock, 2*c.blockLen(0))
		if nb := c.narrow[0]; nb != nil {
			c.narrow[0] = append(make([]int32, 0, size), nb...)[:size]
		} else {
			c.wide[0] = append(make([]int64, 0, size), c.wide[0]...)[:size]
		}
	default:
		size := colBlock
		if b == 0 {
			size = 8
		}
		c.narrow = append(c.narrow, make([]int32, size))
		c.wide = append(c.wide, nil)
		c.base = append(c.base, x)
	}
}

// pushAll appends xs, a block's run at a time (push's result).
func (c *intColumn) pushAll(xs []int64) {
	for len(xs) > 0 {
		b, in := c.n>>colBits, c.n&colMask
		if b >= len(c.base) || in >= c.blockLen(b) {
			c.room(xs[0])
		}
		m := min(len(xs), c.blockLen(b)-in)
		if nb := c.narrow[b]; nb != nil {
			base, i := c.base[b], 0
			dst := nb[in : in+m] // (sliced to the run first: no bounds check a value)
			for _, x := range xs[:m] {
				d := x - base
				if d != int64(int32(d)) {
					break
				}
				dst[i] = int32(d)
				i++
			}
			if i < m { // (a value not within 2^31 of the base: the block is wide from now on)
				c.widen(b)
				copy(c.wide[b][in+i:], xs[i:m])
			}
		} else {
			copy(c.wide[b][in:], xs[:m])
		}
		c.n += m
		xs = xs[m:]
	}
}

// move copies values from..from+m-1 to to..to+m-1 (to < from, both
// below n), a run of a block at a time: copied as they are between narrow
// blocks of one base, rebased between narrow blocks of two (put, which
// widens the block, for a value not within 2^31 of its new base), one by
// one where a block is wide.
func (c *intColumn) move(to, from, m int) {
	for m > 0 {
		db, di := to>>colBits, to&colMask
		sb, si := from>>colBits, from&colMask
		x := min(m, c.blockLen(db)-di, c.blockLen(sb)-si)
		nd, ns := c.narrow[db], c.narrow[sb]
		switch {
		case nd != nil && ns != nil && c.base[db] == c.base[sb]:
			copy(nd[di:di+x], ns[si:si+x])
		case nd != nil && ns != nil:
			delta, i := c.base[sb]-c.base[db], 0
			for ; i < x; i++ {
				d := int64(ns[si+i]) + delta
				if d != int64(int32(d)) {
					break
				}
				nd[di+i] = int32(d)
			}
			for ; i < x; i++ { // (a value not within 2^31 of the base: put widens the block)
				c.put(db, di+i, c.at(sb, si+i))
			}
		default:
			for i := range x {
				c.put(db, di+i, c.at(sb, si+i))
			}
		}
		to, from, m = to+x, from+x, m-x
	}
}

// truncate keeps the first n values (n <= c.n); the blocks stay.
func (c *intColumn) truncate(n int) { c.n = n }

// bytes returns the memory the column's blocks take.
func (c *intColumn) bytes() int {
	n := 0
	for b := range c.base {
		n += 4*len(c.narrow[b]) + 8*len(c.wide[b])
	}
	return n
}
