package op

import (
	"encoding/binary"
	"math"
	"math/bits"
	"slices"

	"streamql/catalog"
	"streamql/executor/format"
	"streamql/executor/vector"
)

// lookupTable is a lookup join's right side laid out for probing once the
// right input has ended (SPEC 2.7: the right side is read whole first, and
// none of its rows changes or leaves afterwards; Join.probeLookup): each row
// one record of bytes, its key and values side by side, the records of one
// key next to each other, found by key through one of two indexes:
//   - dense, when the key is one BIGINT or TIMESTAMP column whose values
//     span at most denseSpan times the rows: an array indexed by the key
//     minus the least key, each entry the key's run of records (a "perfect
//     hash": no hash, no key comparison, 8 bytes an entry);
//   - otherwise a flat open-addressing table of the key hashes, each slot
//     the hash, its first record and its record count (records of keys
//     whose hashes are equal share a run: the probe compares the keys).
//
// A probe reads an entry and then one record (a cache line or two for
// narrow rows) where the columnar Rows took a line per column, and the
// joined row's strings point into the record, so the encoder reads bytes
// the probe just brought in.
//
// A record is: its length (uint32), a matched flag (byte: the row has
// joined a left row, JoinCounts.Partnered), one flag byte a column (NULL:
// lookupNull; a VARCHAR value format.Plain holds for: lookupPlain, checked
// once here, so that the joined rows carry it to the csv encoder in
// vector.Vec.Text instead of the encoder scanning the value a row),
// the row's source position (vector.Batch.Pos, 8 bytes: Join.Sources),
// then each column's value at a fixed offset (lookupTable.fixed, the same
// in every record; zero bytes when NULL): BIGINT, TIMESTAMP and DOUBLE 8
// bytes little endian, BOOLEAN one byte, VARCHAR the offset of its bytes
// from the record's start and their length (two uint32); the VARCHAR
// bytes follow. So a column of the joined rows is gathered record by
// record at one offset, without walking the record's earlier values. Only
// the scalar types are laid out (newLookupTable refuses a nested one).
type lookupTable struct {
	types []catalog.Type
	// ns marks the null-safe key parts (JoinSpec.NullSafe): their NULL
	// rows are in the table, hashed with nullMark (never dense)
	ns []bool
	// plain says which columns have a value marked lookupPlain (gather
	// marks its rows' values in vector.Vec.Text)
	plain []bool
	// end is a record's length without its VARCHAR bytes (fixedEnd)
	end   int
	fixed []int // each column's value offset in a record
	data  []byte

	// the dense index (nil: the hash index): entry k is the run of key lo+k
	dense []lookupRun
	lo    int64

	// the hash index
	slots []lookupSlot // power-of-two length, at most half full, linear probing
	mask  uint64
	shift uint8 // lineShift(mask)

	// runs is probe's result, each row's run of the batch it probed (kept:
	// steady state allocates nothing); touched its loads ahead (kept, so
	// that they are made).
	runs    []lookupRun
	touched byte
	// hashes and hashed are hashBatch's result (kept, likewise)
	hashes []uint64
	hashed []bool
}

// lookupRun is one key's (or key hash's) records: n records from data[off]
// on (n 0: none).
type lookupRun struct {
	off, n uint32
}

// lookupSlot is one key hash's run of records (n 0: a free slot).
type lookupSlot struct {
	h uint64
	lookupRun
}

// The bytes of a record before its NULL flags (length, matched flag), and
// the offset of its matched flag.
const (
	recordHead    = 5
	recordMatched = 4
)

// A column's flag byte in a record: NULL, and, for VARCHAR, a value that
// needs no quoting as a csv or tsv field (format.Plain).
const (
	lookupNull  = 1
	lookupPlain = 2
)

// denseSpan is how many times the rows a dense index's key span may be: at
// most 8 bytes an entry, so at most 32 bytes a row, what a hash index of
// distinct keys takes (16-byte slots, at most half full).
const denseSpan = 4

// denseKey reports whether keys (column indexes into types) are one BIGINT
// or TIMESTAMP column, the only key a dense index takes, and which column.
func denseKey(types []catalog.Type, keys []int) (int, bool) {
	if len(keys) != 1 || types[keys[0]] != catalog.BigInt && types[keys[0]] != catalog.Timestamp {
		return 0, false
	}
	return keys[0], true
}

// denseFits reports whether keys from lo to hi (inclusive) over n rows fit a
// dense index: a span below denseSpan times the rows.
func denseFits(lo, hi int64, n int) bool {
	return uint64(hi)-uint64(lo) < uint64(denseSpan*n)
}

// newLookupTable lays out the live rows of side sd (types: the layout its
// Rows keep, keptTypes, where a column the join does not keep is
// catalog.Unknown and NULL in every record; keys its key columns), each key's rows in the order they came in, without the
// rows whose key is NULL or NaN (they match nothing): a dense index straight
// from the rows when it fits (denseTable), else a hash index over the key
// hashes of the side's index, which index builds first (Join.indexRight).
// It returns nil when the layout cannot hold the rows: a nested column type
// (ARRAY, MAP, ROW), or more than 2 GiB of records (Join.selR holds a
// record's offset as an int32); the join then probes the Rows as before.
func newLookupTable(sd *joinSide, types []catalog.Type, keys []int, ns []bool, index func()) *lookupTable {
	t := &lookupTable{types: types, ns: ns, fixed: make([]int, len(types)), plain: make([]bool, len(types))}
	at := recordHead + len(types) + 8 // (the position: recordPos)
	for c, ty := range types {
		t.fixed[c] = at
		switch ty {
		case catalog.BigInt, catalog.Timestamp, catalog.Double, catalog.Varchar:
			at += 8
		case catalog.Boolean:
			at++
		case catalog.Unknown: // (a column the join does not keep, keptTypes: NULL in every record, no bytes)
		default:
			return nil
		}
	}
	t.end = at
	if ok, fits := t.denseTable(sd, keys); ok {
		if !fits {
			return nil
		}
		return t
	}
	index()
	r := sd.rows
	// the live rows of each hash chain (the order they came in), without
	// NULL or NaN keys: chain c is rows[ends[c-1]:ends[c]], of hash hashes[c]
	rows := make([]int32, 0, r.Len())
	var ends []int
	var hashes []uint64
	strs := t.strCols()
	size := 0 // the VARCHAR values' bytes
	for _, s := range sd.index.slots {
		if s.head < 0 {
			continue
		}
		start := len(rows)
		for o := s.head; o >= 0; o = sd.index.next[o] {
			k := int(o)
			if sd.dead[k] {
				continue
			}
			if _, ok := r.keyHash(k, keys, t.ns); !ok {
				continue
			}
			rows = append(rows, o)
			for _, c := range strs {
				size += len(r.Str(k, c))
			}
		}
		if len(rows) > start {
			ends = append(ends, len(rows))
			hashes = append(hashes, s.h)
		}
	}
	t.data = make([]byte, 0, size+len(rows)*t.fixedEnd())
	slots := 16
	if len(ends) > 8 {
		slots = 1 << bits.Len(uint(len(ends)*2))
	}
	t.slots, t.mask = make([]lookupSlot, slots), uint64(slots-1)
	t.shift = lineShift(t.mask)
	start := 0
	for c, end := range ends {
		off := len(t.data)
		if !t.appendRecords(r, rows[start:end]) {
			return nil
		}
		t.place(lookupSlot{h: hashes[c], lookupRun: lookupRun{off: uint32(off), n: uint32(end - start)}})
		start = end
	}
	return t
}

// strCols returns the table's VARCHAR columns.
func (t *lookupTable) strCols() []int {
	var strs []int
	for c, ty := range t.types {
		if ty == catalog.Varchar {
			strs = append(strs, c)
		}
	}
	return strs
}

// denseTable lays out the live rows of sd with a dense index when the key
// is one BIGINT or TIMESTAMP column (keys) whose non-NULL values span at
// most denseSpan times the rows (ok; else it does nothing): the records in
// key order, each key's in the order its rows came in (a counting sort of
// the rows, without the side's index). fits is false when the records pass
// 2 GiB.
func (t *lookupTable) denseTable(sd *joinSide, keys []int) (ok, fits bool) {
	kc, keyed := denseKey(t.types, keys)
	if !keyed || anyNullSafe(t.ns) { // (a null-safe key's NULL rows have no place in a dense index)
		return false, false
	}
	r := sd.rows
	live, lo, hi := 0, int64(math.MaxInt64), int64(math.MinInt64)
	for k := range r.Len() {
		if !sd.dead[k] && !r.Null(k, kc) {
			x := r.Int(k, kc)
			lo, hi = min(lo, x), max(hi, x)
			live++
		}
	}
	if live == 0 || !denseFits(lo, hi, live) {
		return false, false
	}
	t.lo, t.dense = lo, make([]lookupRun, uint64(hi)-uint64(lo)+1)
	strs := t.strCols()
	size := 0 // the VARCHAR values' bytes
	for k := range r.Len() {
		if !sd.dead[k] && !r.Null(k, kc) {
			t.dense[uint64(r.Int(k, kc))-uint64(lo)].n++
			for _, c := range strs {
				size += len(r.Str(k, c))
			}
		}
	}
	// each key's first place in order, then the rows by key
	at := make([]int32, len(t.dense))
	n := int32(0)
	for i, e := range t.dense {
		at[i] = n
		n += int32(e.n)
	}
	order := make([]int32, live)
	for k := range r.Len() {
		if !sd.dead[k] && !r.Null(k, kc) {
			i := uint64(r.Int(k, kc)) - uint64(lo)
			order[at[i]] = int32(k)
			at[i]++
		}
	}
	t.data = make([]byte, 0, size+live*t.fixedEnd())
	p := 0
	for i := range t.dense {
		e := &t.dense[i]
		if e.n == 0 {
			continue
		}
		e.off = uint32(len(t.data))
		if !t.appendRecords(r, order[p:p+int(e.n)]) {
			return true, false
		}
		p += int(e.n)
	}
	return true, true
}

// posAt returns the offset of a record's source position.
func (t *lookupTable) posAt() int { return recordHead + len(t.types) }

// positions sets out[x] to the source position of the record at sel[x]
// (an offset; -1: an outer join's padding, whose position is -1).
func (t *lookupTable) positions(out []int64, sel []int32) {
	d, at := t.data, t.posAt()
	for x, rec := range sel {
		out[x] = -1
		if rec >= 0 {
			out[x] = int64(binary.LittleEndian.Uint64(d[int(rec)+at:]))
		}
	}
}

// fixedEnd returns the length of a record without its VARCHAR bytes.
func (t *lookupTable) fixedEnd() int { return t.end }

// appendRecords appends the records of rows ks of r; false when the records
// pass 2 GiB.
func (t *lookupTable) appendRecords(r *Rows, ks []int32) bool {
	fixedEnd := t.fixedEnd()
	for _, o := range ks {
		k := int(o)
		rec := len(t.data)
		t.data = slices.Grow(t.data, fixedEnd)[:rec+fixedEnd]
		d := t.data[rec:]
		clear(d)
		binary.LittleEndian.PutUint64(d[t.posAt():], uint64(r.Pos(k)))
		for c, ty := range t.types {
			if r.Null(k, c) {
				d[recordHead+c] = lookupNull
				continue
			}
			at := t.fixed[c]
			switch ty {
			case catalog.BigInt, catalog.Timestamp:
				binary.LittleEndian.PutUint64(d[at:], uint64(r.Int(k, c)))
			case catalog.Double:
				binary.LittleEndian.PutUint64(d[at:], math.Float64bits(r.Float(k, c)))
			case catalog.Boolean:
				d[at] = boolByte(r.Bool(k, c))
			case catalog.Varchar:
				s := r.Str(k, c)
				if format.Plain(s) {
					d[recordHead+c] = lookupPlain
					t.plain[c] = true
				}
				binary.LittleEndian.PutUint32(d[at:], uint32(len(t.data)-rec))
				binary.LittleEndian.PutUint32(d[at+4:], uint32(len(s)))
				t.data = append(t.data, s...)
				d = t.data[rec:]
			}
		}
		if len(t.data) > math.MaxInt32 {
			return false
		}
		binary.LittleEndian.PutUint32(t.data[rec:], uint32(len(t.data)-rec))
	}
	return true
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// place puts slot s into a free slot of its hash (each hash once).
func (t *lookupTable) place(s lookupSlot) {
	i := spreadBy(s.h, t.mask, t.shift)
	for t.slots[i].n != 0 {
		i = (i + 1) & t.mask
	}
	t.slots[i] = s
}

// find returns the slot of hash h, -1 when it has none.
func (t *lookupTable) find(h uint64) int32 {
	for i := spreadBy(h, t.mask, t.shift); ; i = (i + 1) & t.mask {
		s := &t.slots[i]
		if s.n == 0 {
			return -1
		}
		if s.h == h {
			return int32(i)
		}
	}
}

// probe returns the run of records of each row of b (keys: b's key
// columns; n 0: none, a NULL or NaN key's too), the candidates whose keys
// keyEqual compares (all of them equal for a dense index). It finds every
// row's run first and then loads each run's first byte, in loops of
// independent loads, so the processor overlaps their cache misses. The
// result is valid until the next probe.
func (t *lookupTable) probe(b *vector.Batch, keys []int) []lookupRun {
	runs := slices.Grow(t.runs[:0], b.N)[:b.N]
	if t.dense != nil {
		v := b.Cols[keys[0]]
		xs, nulls := v.I[:b.N], v.Null[:b.N]
		for i, x := range xs {
			var r lookupRun
			if k := uint64(x) - uint64(t.lo); k < uint64(len(t.dense)) && !nulls[i] {
				r = t.dense[k]
			}
			runs[i] = r
		}
	} else {
		hs, ok := t.hashBatch(b, keys)
		for i, h := range hs {
			var r lookupRun
			if ok[i] {
				if si := t.find(h); si >= 0 {
					r = t.slots[si].lookupRun
				}
			}
			runs[i] = r
		}
	}
	if len(t.data) > 0 {
		// (a record's fixed part may span two cache lines: both are loaded)
		touched, last := t.touched, t.fixedEnd()-1
		for _, r := range runs {
			touched |= t.data[r.off] ^ t.data[int(r.off)+last]
		}
		t.touched = touched
	}
	t.runs = runs
	return runs
}

// hashBatch returns the key hash of each row of b (keys: its key columns),
// batchKeyHash's, and whether the row has one (no NULL or NaN in its key),
// a key column at a time: each column's type is looked at once a batch,
// and the rows' hashes, independent of each other, overlap in the
// processor. The slices are valid until the next call.
func (t *lookupTable) hashBatch(b *vector.Batch, keys []int) ([]uint64, []bool) {
	hs, ok := slices.Grow(t.hashes[:0], b.N)[:b.N], slices.Grow(t.hashed[:0], b.N)[:b.N]
	t.hashes, t.hashed = hs, ok
	for i := range hs {
		hs[i], ok[i] = hashSeed, true
	}
	for j, c := range keys {
		v := b.Cols[c]
		if nullSafe(t.ns, j) {
			hashNullSafe(hs, ok, v)
			continue
		}
		switch v.Type {
		case catalog.BigInt, catalog.Timestamp:
			for i, x := range v.I[:b.N] {
				hs[i] = hashInt(hs[i], x)
			}
		case catalog.Double:
			for i, f := range v.F[:b.N] {
				var fine bool
				hs[i], fine = hashFloat(hs[i], f)
				ok[i] = ok[i] && fine
			}
		case catalog.Boolean:
			for i, x := range v.B[:b.N] {
				hs[i] = hashBool(hs[i], x)
			}
		case catalog.Varchar:
			// (a NULL's slot is not read: a decoder leaves it as it was,
			// which on a morsel worker may point into another worker's
			// read buffer, plan.LookupMorsel)
			for i, x := range v.S[:b.N] {
				if !v.Null[i] {
					hs[i] = hashBytes(hs[i], x)
				}
			}
		}
		for i, null := range v.Null[:b.N] {
			ok[i] = ok[i] && !null
		}
	}
	return hs, ok
}

// next returns the offset of the record after the one at rec.
func (t *lookupTable) next(rec int) int {
	return rec + int(binary.LittleEndian.Uint32(t.data[rec:]))
}

// keyEqual reports whether the record at rec has the key of row i of b:
// SPEC 2.7's equality of keyEqual (bcols the batch's key columns, rcols
// the record's; the batch's key holds no NULL or NaN in an = part: it was
// hashed; in a null-safe part, t.ns, NULL equals NULL only).
func (t *lookupTable) keyEqual(b *vector.Batch, i, rec int, bcols, rcols []int) bool {
	d := t.data[rec:]
	for j, c := range bcols {
		v, rc := b.Cols[c], rcols[j]
		if rn := d[recordHead+rc]&lookupNull != 0; rn || v.Null[i] {
			if rn != v.Null[i] || !nullSafe(t.ns, j) {
				return false
			}
			continue
		}
		at := t.fixed[rc]
		switch v.Type {
		case catalog.BigInt, catalog.Timestamp:
			if v.I[i] != int64(binary.LittleEndian.Uint64(d[at:])) {
				return false
			}
		case catalog.Double:
			if v.F[i] != math.Float64frombits(binary.LittleEndian.Uint64(d[at:])) {
				return false
			}
		case catalog.Boolean:
			if v.B[i] != (d[at] != 0) {
				return false
			}
		case catalog.Varchar:
			o := binary.LittleEndian.Uint32(d[at:])
			n := binary.LittleEndian.Uint32(d[at+4:])
			if string(v.S[i]) != string(d[o:o+n]) {
				return false
			}
		}
	}
	return true
}

// gather writes the values of the records at sel (offsets; -1: NULLs, an
// outer join's padding) into rows at, at+1, ... of out's columns from col
// on, column by column; strings point into the table, which no longer
// changes, and a VARCHAR column with values marked lookupPlain gets
// vector.Vec.Text (made on its first such batch): each such value's row
// is the value itself, the others nil. Text is cleared in the other
// columns. A column pass leaves out (nil: none; JoinSpec.Pass) is NULL.
func (t *lookupTable) gather(out *vector.Batch, at, col int, sel []int32, pass []bool) {
	d, n := t.data, len(sel)
	for c, ty := range t.types {
		v := out.Cols[col+c]
		nulls, flag, off := v.Null[at:at+n], recordHead+c, t.fixed[c]
		if ty == catalog.Unknown || c < len(pass) && !pass[c] { // (a column the join does not keep, or does not pass on)
			setNulls(nulls)
			if v.Text != nil {
				clear(v.Text[at : at+n])
			}
			continue
		}
		if ty == catalog.Varchar && t.plain[c] {
			t.gatherPlain(v, at, c, sel) // (its NULLs with its marks: one pass)
			continue
		}
		for x, rec := range sel {
			nulls[x] = rec < 0 || d[int(rec)+flag]&lookupNull != 0
		}
		switch ty {
		case catalog.BigInt, catalog.Timestamp:
			o := v.I[at : at+n]
			for x, rec := range sel {
				if rec >= 0 {
					o[x] = int64(binary.LittleEndian.Uint64(d[int(rec)+off:]))
				}
			}
		case catalog.Double:
			o := v.F[at : at+n]
			for x, rec := range sel {
				if rec >= 0 {
					o[x] = math.Float64frombits(binary.LittleEndian.Uint64(d[int(rec)+off:]))
				}
			}
		case catalog.Boolean:
			o := v.B[at : at+n]
			for x, rec := range sel {
				if rec >= 0 {
					o[x] = d[int(rec)+off] != 0
				}
			}
		case catalog.Varchar:
			o := v.S[at : at+n]
			for x, rec := range sel {
				if rec < 0 {
					o[x] = nil
					continue
				}
				p := int(rec) + off
				s := int(rec) + int(binary.LittleEndian.Uint32(d[p:]))
				e := s + int(binary.LittleEndian.Uint32(d[p+4:]))
				o[x] = d[s:e:e]
			}
		}
		if v.Text != nil {
			clear(v.Text[at : at+n])
		}
	}
}

// gatherPlain is gather's VARCHAR column c, which has values marked
// lookupPlain, into v: each row's NULL flag and value, and in v.Text the
// value again where it is marked, else nil (vector.Vec.Text), the record's
// flag byte read once for both.
func (t *lookupTable) gatherPlain(v *vector.Vec, at, c int, sel []int32) {
	if v.Text == nil {
		v.Text = make([][]byte, vector.Cap)
	}
	d, n, flag, off := t.data, len(sel), recordHead+c, t.fixed[c]
	o, txt, nulls := v.S[at:at+n], v.Text[at:at+n], v.Null[at:at+n]
	for x, rec := range sel {
		if rec < 0 {
			o[x], txt[x], nulls[x] = nil, nil, true
			continue
		}
		p := int(rec) + off
		s := int(rec) + int(binary.LittleEndian.Uint32(d[p:]))
		e := s + int(binary.LittleEndian.Uint32(d[p+4:]))
		f := d[int(rec)+flag]
		val, mark := d[s:e:e], []byte(nil)
		if f&lookupPlain != 0 {
			mark = val
		}
		o[x], txt[x], nulls[x] = val, mark, f&lookupNull != 0
	}
}
