package op

import (
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
type Rows struct {
	types []catalog.Type
	cols  []rowCol
	pos   []int64
	n     int
	moved []int // Compact's result, reused
}

type rowCol struct {
	i     []int64
	f     []float64
	b     []bool
	off   []uint32 // VARCHAR: value k is arena[off[k]:off[k+1]]
	arena []byte
	null  []bool
}

// NewRows returns an empty store of rows of types.
func NewRows(types []catalog.Type) *Rows {
	r := &Rows{types: types, cols: make([]rowCol, len(types))}
	for c, t := range types {
		if textLike(t) {
			r.cols[c].off = []uint32{0}
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
	bytes := int64(8 + len(r.types)) // (its position and NULL flags)
	for c := range r.cols {
		rc, v := &r.cols[c], b.Cols[c]
		null := v.Null[i]
		rc.null = append(rc.null, null)
		switch r.types[c] {
		case catalog.BigInt, catalog.Timestamp:
			x := int64(0)
			if !null {
				x = v.I[i]
			}
			rc.i = append(rc.i, x)
			bytes += 8
		case catalog.Double:
			x := 0.0
			if !null {
				x = v.F[i]
			}
			rc.f = append(rc.f, x)
			bytes += 8
		case catalog.Boolean:
			rc.b = append(rc.b, !null && v.B[i])
			bytes++
		case catalog.Varchar:
			if !null {
				rc.arena = append(rc.arena, v.S[i]...)
				bytes += int64(len(v.S[i]))
			}
			rc.off = append(rc.off, uint32(len(rc.arena)))
			bytes += 4
		default:
			if textLike(r.types[c]) {
				start := len(rc.arena)
				if !null {
					rc.arena = vector.AppendBinary(rc.arena, v, i)
				}
				rc.off = append(rc.off, uint32(len(rc.arena)))
				bytes += 4 + int64(len(rc.arena)-start)
			}
		}
	}
	r.pos = append(r.pos, b.Pos[i])
	r.n++
	return r.n - 1, bytes
}

// Null reports whether column c of row k is NULL.
func (r *Rows) Null(k, c int) bool { return r.cols[c].null[k] }

// Int returns column c of row k (BIGINT or TIMESTAMP; 0 when NULL).
func (r *Rows) Int(k, c int) int64 { return r.cols[c].i[k] }

// Float returns column c of row k (DOUBLE; 0 when NULL).
func (r *Rows) Float(k, c int) float64 { return r.cols[c].f[k] }

// Bool returns column c of row k (BOOLEAN; false when NULL).
func (r *Rows) Bool(k, c int) bool { return r.cols[c].b[k] }

// Str returns column c of row k (VARCHAR; empty when NULL), pointing into
// the store: valid until the next Add or Compact.
func (r *Rows) Str(k, c int) []byte {
	rc := &r.cols[c]
	return rc.arena[rc.off[k]:rc.off[k+1]:rc.off[k+1]]
}

// Pos returns row k's source position (vector.Batch.Pos).
func (r *Rows) Pos(k int) int64 { return r.pos[k] }

// CopyTo writes row k into row i of b, in b's columns from at on (they have
// r's types), strings copied into b's arenas; NULL when k < 0 (an outer
// join's padding).
func (r *Rows) CopyTo(b *vector.Batch, i, at, k int) {
	for c := range r.cols {
		v := b.Cols[at+c]
		if k < 0 || r.cols[c].null[k] {
			v.Null[i] = true
			continue
		}
		v.Null[i] = false
		switch r.types[c] {
		case catalog.BigInt, catalog.Timestamp:
			v.I[i] = r.cols[c].i[k]
		case catalog.Double:
			v.F[i] = r.cols[c].f[k]
		case catalog.Boolean:
			v.B[i] = r.cols[c].b[k]
		case catalog.Varchar:
			v.SetString(i, r.Str(k, c))
		default:
			if textLike(r.types[c]) {
				vector.ReadBinary(v, i, r.Str(k, c))
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
	for c := range r.cols {
		rc, v := &r.cols[c], b.Cols[col+c]
		for x, k := range ks {
			i := at + x
			if k < 0 || rc.null[k] {
				v.Null[i] = true
				continue
			}
			v.Null[i] = false
			switch r.types[c] {
			case catalog.BigInt, catalog.Timestamp:
				v.I[i] = rc.i[k]
			case catalog.Double:
				v.F[i] = rc.f[k]
			case catalog.Boolean:
				v.B[i] = rc.b[k]
			case catalog.Varchar:
				v.S[i] = rc.arena[rc.off[k]:rc.off[k+1]:rc.off[k+1]]
			default:
				if textLike(r.types[c]) {
					vector.ReadBinary(v, i, r.Str(int(k), c))
				}
			}
		}
		if v.Text != nil {
			clear(v.Text[at : at+len(ks)])
		}
	}
}

// Compact keeps the rows for which keep is true, in their order, and returns
// each kept row's new index (-1 for a dropped row), indexed by the old one:
// valid until the next Compact (its array is reused, so compacting
// allocates nothing once it has grown).
func (r *Rows) Compact(keep func(k int) bool) []int {
	if cap(r.moved) < r.n {
		r.moved = make([]int, r.n)
	}
	moved := r.moved[:r.n]
	n := 0
	for k := 0; k < r.n; k++ {
		if !keep(k) {
			moved[k] = -1
			continue
		}
		moved[k] = n
		r.pos[n] = r.pos[k]
		for c := range r.cols {
			rc := &r.cols[c]
			rc.null[n] = rc.null[k]
			switch r.types[c] {
			case catalog.BigInt, catalog.Timestamp:
				rc.i[n] = rc.i[k]
			case catalog.Double:
				rc.f[n] = rc.f[k]
			case catalog.Boolean:
				rc.b[n] = rc.b[k]
			default: // VARCHAR and the nested types' binary form
				if !textLike(r.types[c]) {
					continue
				}
				from, to := rc.off[k], rc.off[k+1]
				start := rc.off[n]
				copy(rc.arena[start:], rc.arena[from:to])
				rc.off[n+1] = start + (to - from)
			}
		}
		n++
	}
	r.n = n
	r.pos = r.pos[:n]
	for c := range r.cols {
		rc := &r.cols[c]
		rc.null = rc.null[:n]
		switch r.types[c] {
		case catalog.BigInt, catalog.Timestamp:
			rc.i = rc.i[:n]
		case catalog.Double:
			rc.f = rc.f[:n]
		case catalog.Boolean:
			rc.b = rc.b[:n]
		default:
			if textLike(r.types[c]) {
				rc.off = rc.off[:n+1]
				rc.arena = rc.arena[:rc.off[n]]
			}
		}
	}
	return moved
}

// keyHash hashes the key columns cols of stored row k (FNV-1a over the
// values), and reports whether the key can match at all: a NULL or a NaN
// never matches (SQL; SPEC 2.7: NaN matches nothing), and -0.0 hashes as 0.0
// (0.0 matches -0.0).
func (r *Rows) keyHash(k int, cols []int) (uint64, bool) {
	h := hashSeed
	for _, c := range cols {
		if r.cols[c].null[k] {
			return 0, false
		}
		switch r.types[c] {
		case catalog.BigInt, catalog.Timestamp:
			h = hashInt(h, r.cols[c].i[k])
		case catalog.Double:
			var ok bool
			if h, ok = hashFloat(h, r.cols[c].f[k]); !ok {
				return 0, false
			}
		case catalog.Boolean:
			h = hashBool(h, r.cols[c].b[k])
		case catalog.Varchar:
			h = hashBytes(h, r.Str(k, c))
		}
	}
	return h, true
}

func mix(h, x uint64) uint64 {
	for range 8 {
		h = (h ^ (x & 0xff)) * 1099511628211
		x >>= 8
	}
	return h
}

// keyEqual reports whether the key columns acols of row i of a equal the key
// columns bcols of row k of b (SPEC 2's =: 0.0 equals -0.0; neither key holds
// a NULL or a NaN, keyHash has checked). The columns are of one type
// pairwise.
func keyEqual(a *Rows, i int, acols []int, b *Rows, k int, bcols []int) bool {
	for j, c := range acols {
		d := bcols[j]
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
