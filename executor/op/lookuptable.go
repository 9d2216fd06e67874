package op

import (
	"encoding/binary"
	"math"
	"math/bits"

	"streamql/catalog"
	"streamql/executor/vector"
)

// lookupTable is a lookup join's right side laid out for probing once the
// right input has ended (SPEC 2.7: the right side is read whole first, and
// none of its rows changes or leaves afterwards; Join.probeLookup): each row
// one record of bytes, its key and values side by side, the records of one
// key hash next to each other, and a flat open-addressing table of the
// hashes, each slot the hash, its first record and its record count. A probe
// reads one slot and then one record (a cache line or two for narrow rows)
// where the columnar Rows took a line per column (the key, each value's
// NULL flag, a string's offsets, its bytes), and the joined row's strings
// point into the record, so the encoder reads bytes the probe just brought
// in.
//
// A record is: its length (uint32), its row's index in the side's Rows
// (uint32, for the counts), a matched flag (byte: the row has joined a left
// row, JoinCounts.Partnered), one NULL flag byte a column, then each
// non-NULL value in column order: BIGINT, TIMESTAMP and DOUBLE 8 bytes
// little endian, BOOLEAN one byte, VARCHAR its length (uint32) and bytes.
// Only the scalar types are laid out (newLookupTable refuses a nested
// one).
type lookupTable struct {
	types []catalog.Type
	slots []lookupSlot // power-of-two length, at most half full, linear probing
	mask  uint64
	data  []byte
	// fields is one record's value offsets (recordFields' scratch, a
	// column's: -1 when NULL).
	fields []int32
}

// lookupSlot is one key hash's records: n records from data[off] on (n 0: a
// free slot).
type lookupSlot struct {
	h   uint64
	off uint32
	n   uint32
}

// recordHead is the bytes before a record's NULL flags: length, row index,
// matched flag.
const recordHead = 9

// newLookupTable lays out the live rows of side sd (types: its layout, keys
// its key columns) by key hash, each hash's rows in the order of its chain
// (the order they came in), without the rows whose key is NULL or NaN (they
// match nothing). It returns nil when the layout cannot hold them: a nested
// column type (ARRAY, MAP, ROW), or more than 2 GiB of records (Join.selR holds a record's offset as an int32); the join
// then probes the Rows as before.
func newLookupTable(sd *joinSide, types []catalog.Type, keys []int) *lookupTable {
	for _, t := range types {
		switch t {
		case catalog.BigInt, catalog.Timestamp, catalog.Double, catalog.Boolean, catalog.Varchar:
		default:
			return nil
		}
	}
	chains := 0
	for _, s := range sd.index.slots {
		if s.head >= 0 {
			chains++
		}
	}
	size := 16
	if chains > 8 {
		size = 1 << bits.Len(uint(chains*2))
	}
	t := &lookupTable{types: types, slots: make([]lookupSlot, size), mask: uint64(size - 1), fields: make([]int32, len(types))}
	r := sd.rows
	for _, s := range sd.index.slots {
		if s.head < 0 {
			continue
		}
		start, n := len(t.data), 0
		for o := s.head; o >= 0; o = sd.index.next[o] {
			k := int(o)
			if sd.dead[k] {
				continue
			}
			if _, ok := r.keyHash(k, keys); !ok {
				continue
			}
			rec := len(t.data)
			t.data = binary.LittleEndian.AppendUint32(t.data, 0)
			t.data = binary.LittleEndian.AppendUint32(t.data, uint32(k))
			t.data = append(t.data, 0)
			for c := range types {
				t.data = append(t.data, boolByte(r.Null(k, c)))
			}
			for c, ty := range types {
				if r.Null(k, c) {
					continue
				}
				switch ty {
				case catalog.BigInt, catalog.Timestamp:
					t.data = binary.LittleEndian.AppendUint64(t.data, uint64(r.Int(k, c)))
				case catalog.Double:
					t.data = binary.LittleEndian.AppendUint64(t.data, math.Float64bits(r.Float(k, c)))
				case catalog.Boolean:
					t.data = append(t.data, boolByte(r.Bool(k, c)))
				case catalog.Varchar:
					s := r.Str(k, c)
					t.data = binary.LittleEndian.AppendUint32(t.data, uint32(len(s)))
					t.data = append(t.data, s...)
				}
			}
			if len(t.data) > math.MaxInt32 {
				return nil
			}
			binary.LittleEndian.PutUint32(t.data[rec:], uint32(len(t.data)-rec))
			n++
		}
		if n > 0 {
			t.place(lookupSlot{h: s.h, off: uint32(start), n: uint32(n)})
		}
	}
	return t
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// place puts slot s into a free slot of its hash (each hash once).
func (t *lookupTable) place(s lookupSlot) {
	i := spread(s.h) & t.mask
	for t.slots[i].n != 0 {
		i = (i + 1) & t.mask
	}
	t.slots[i] = s
}

// find returns the slot of hash h, -1 when it has none.
func (t *lookupTable) find(h uint64) int32 {
	for i := spread(h) & t.mask; ; i = (i + 1) & t.mask {
		s := &t.slots[i]
		if s.n == 0 {
			return -1
		}
		if s.h == h {
			return int32(i)
		}
	}
}

// recordFields sets t.fields to the offsets of the values of the record at
// rec (-1: NULL) and returns the offset of the record after it.
func (t *lookupTable) recordFields(rec int) int {
	d := t.data
	at := rec + recordHead + len(t.types)
	for c, ty := range t.types {
		if d[rec+recordHead+c] != 0 {
			t.fields[c] = -1
			continue
		}
		t.fields[c] = int32(at)
		switch ty {
		case catalog.BigInt, catalog.Timestamp, catalog.Double:
			at += 8
		case catalog.Boolean:
			at++
		case catalog.Varchar:
			at += 4 + int(binary.LittleEndian.Uint32(d[at:]))
		}
	}
	return rec + int(binary.LittleEndian.Uint32(d[rec:]))
}

// keyEqual reports whether the record whose fields t.fields holds has the
// key of row i of b: SPEC 2.7's equality of keyEqual (bcols the batch's key
// columns, rcols the record's; neither has a NULL: the hashes matched).
func (t *lookupTable) keyEqual(b *vector.Batch, i int, bcols, rcols []int) bool {
	d := t.data
	for j, c := range bcols {
		v, at := b.Cols[c], t.fields[rcols[j]]
		if at < 0 {
			return false
		}
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
			n := int32(binary.LittleEndian.Uint32(d[at:]))
			if string(v.S[i]) != string(d[at+4:at+4+n]) {
				return false
			}
		}
	}
	return true
}

// writeRow writes the values of the record whose fields t.fields holds
// into row i of b's columns from col on (NULLs for rec < 0: an outer
// join's padding); strings point into the table, which no longer changes.
func (t *lookupTable) writeRow(b *vector.Batch, i, col int, rec int32) {
	d := t.data
	for c, ty := range t.types {
		v := b.Cols[col+c]
		at := int32(-1)
		if rec >= 0 {
			at = t.fields[c]
		}
		if at < 0 {
			v.Null[i] = true
			continue
		}
		v.Null[i] = false
		switch ty {
		case catalog.BigInt, catalog.Timestamp:
			v.I[i] = int64(binary.LittleEndian.Uint64(d[at:]))
		case catalog.Double:
			v.F[i] = math.Float64frombits(binary.LittleEndian.Uint64(d[at:]))
		case catalog.Boolean:
			v.B[i] = d[at] != 0
		case catalog.Varchar:
			n := int32(binary.LittleEndian.Uint32(d[at:]))
			v.S[i] = d[at+4 : at+4+n : at+4+n]
		}
	}
}
