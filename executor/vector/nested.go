package vector

import "streamql/catalog"

// initNested gives a vector of a nested type (ARRAY, MAP, ROW; SPEC 2.10)
// room for n rows and its child vectors, which start empty.
func (v *Vec) initNested(n int) {
	t := v.Type
	switch t.Kind() {
	case catalog.KindArray:
		v.Off, v.Len = make([]int32, n), make([]int32, n)
		v.Kids = []*Vec{newChild(t.Elem())}
	case catalog.KindMap:
		v.Off, v.Len = make([]int32, n), make([]int32, n)
		v.Kids = []*Vec{newChild(t.Key()), newChild(t.Elem())}
	case catalog.KindRow:
		fs := t.Fields()
		v.Kids = make([]*Vec, len(fs))
		for k, f := range fs {
			if n == Cap {
				v.Kids[k] = NewVec(f.Type)
			} else {
				v.Kids[k] = newChild(f.Type)
			}
		}
	}
}

// newChild returns an empty child vector of type t: its slices grow as
// elements are added (Grow), so memory follows the data.
func newChild(t catalog.Type) *Vec {
	v := &Vec{Type: t}
	if t.IsNested() {
		v.initNested(0)
	}
	return v
}

// Grow makes v's slices hold at least n rows (a child vector of a nested
// type; a ROW's fields grow with it). Existing rows are kept.
func (v *Vec) Grow(n int) {
	if len(v.Null) >= n {
		return
	}
	c := max(n, 2*len(v.Null), 8)
	v.Null = grow(v.Null, c)
	switch v.Type {
	case catalog.BigInt, catalog.Timestamp:
		v.I = grow(v.I, c)
	case catalog.Double:
		v.F = grow(v.F, c)
	case catalog.Boolean:
		v.B = grow(v.B, c)
	case catalog.Varchar:
		v.S = grow(v.S, c)
	}
	switch v.Type.Kind() {
	case catalog.KindArray, catalog.KindMap:
		v.Off, v.Len = grow(v.Off, c), grow(v.Len, c)
	case catalog.KindRow:
		for _, k := range v.Kids {
			k.Grow(c)
		}
	}
}

func grow[T any](s []T, n int) []T {
	out := make([]T, n)
	copy(out, s)
	return out
}

// resetKids empties the child vectors of a nested vector.
func (v *Vec) resetKids() {
	for _, k := range v.Kids {
		k.Used = 0
		k.ResetArena()
	}
}

// AddElem adds one element slot to a child vector of an ARRAY or MAP and
// returns its index (the slot's value is unset: the caller writes it, or
// marks it NULL).
func (v *Vec) AddElem() int {
	j := v.Used
	v.Used++
	v.Grow(v.Used)
	return j
}

// SetFrom makes row i of v a copy of row j of src (same type), NULL or not:
// CopyValue when it is not NULL.
func (v *Vec) SetFrom(i int, src *Vec, j int) {
	if v.Null[i] = src.Null[j]; !src.Null[j] {
		v.CopyValue(i, src, j)
	}
}

// CopyRows makes rows 0, 1, ... of v copies of the rows sel of src (same
// type; SetFrom of each).
func (v *Vec) CopyRows(src *Vec, sel []int32) {
	for k, j := range sel {
		v.SetFrom(k, src, int(j))
	}
}

// CopyValue makes row i of v a copy of row j of src (same type, not NULL):
// text copied into v's arenas, a nested value's elements appended to v's
// child vectors.
func (v *Vec) CopyValue(i int, src *Vec, j int) {
	v.Null[i] = false
	if v.Type == catalog.Varchar {
		v.SetString(i, src.S[j])
		return
	}
	if v.copyFixed(i, src, j) {
		return
	}
	switch v.Type.Kind() {
	case catalog.KindArray, catalog.KindMap:
		off, n := src.Off[j], src.Len[j]
		v.Off[i], v.Len[i] = int32(v.Kids[0].Used), n
		for k, kid := range v.Kids {
			from := src.Kids[k]
			for e := off; e < off+n; e++ {
				d := kid.AddElem()
				if from.Null[e] {
					kid.Null[d] = true
				} else {
					kid.CopyValue(d, from, int(e))
				}
			}
		}
	case catalog.KindRow:
		for k, kid := range v.Kids {
			if src.Kids[k].Null[j] {
				kid.Null[i] = true
			} else {
				kid.CopyValue(i, src.Kids[k], j)
			}
		}
	}
}

// ownNested copies the text of rows 0..n-1's nested values (held in v's
// child vectors) into the child vectors' own arenas (Batch.OwnStrings).
func (v *Vec) ownNested(n int) {
	for _, k := range v.Kids {
		m := n
		if v.Type.Kind() != catalog.KindRow {
			m = k.Used
		}
		switch {
		case k.Kids != nil:
			k.ownNested(m)
		case k.S != nil:
			for e := range m {
				if !k.Null[e] {
					k.SetString(e, k.S[e])
				}
			}
		}
	}
}

// Elems returns the element range of row i of an ARRAY or MAP vector: its
// elements are rows off .. off+n-1 of v.Kids[0] (and of v.Kids[1], a MAP's
// values).
func (v *Vec) Elems(i int) (off, n int) { return int(v.Off[i]), int(v.Len[i]) }

// appendNested appends the printed form of row i of a nested vector as Flink
// prints it (CAST to STRING, and its SQL client's table): ARRAY `[1, 2]`, MAP
// `{a=1, b=2}`, ROW `(1, x)`, text unquoted, NULL inside as `NULL`.
func appendNested(dst []byte, v *Vec, i int) []byte {
	elem := func(dst []byte, k *Vec, e int) []byte {
		if k.Null[e] {
			return append(dst, "NULL"...)
		}
		return AppendValue(dst, k.Type, k, e)
	}
	switch v.Type.Kind() {
	case catalog.KindArray:
		dst = append(dst, '[')
		off, n := v.Elems(i)
		for e := off; e < off+n; e++ {
			if e > off {
				dst = append(dst, ", "...)
			}
			dst = elem(dst, v.Kids[0], e)
		}
		return append(dst, ']')
	case catalog.KindMap:
		dst = append(dst, '{')
		off, n := v.Elems(i)
		for e := off; e < off+n; e++ {
			if e > off {
				dst = append(dst, ", "...)
			}
			dst = elem(dst, v.Kids[0], e)
			dst = append(dst, '=')
			dst = elem(dst, v.Kids[1], e)
		}
		return append(dst, '}')
	case catalog.KindRow:
		dst = append(dst, '(')
		for k, kid := range v.Kids {
			if k > 0 {
				dst = append(dst, ", "...)
			}
			dst = elem(dst, kid, i)
		}
		return append(dst, ')')
	}
	return dst
}

// ShareValue makes row i of v row j of src (same type) without copying:
// a fixed-width value is copied, a text points into src's memory, and an
// ARRAY's or MAP's elements stay in src's child vectors, which v then
// shares (a ROW's fields share theirs). So a value costs the same whatever
// its size, however many rows repeat it (an unnested row's other columns).
// Valid while src's rows are. Once v shares src's child vectors it must only
// take values of src (ShareValue), never build its own (CopyValue, AddElem).
func (v *Vec) ShareValue(i int, src *Vec, j int) {
	if v.Null[i] = src.Null[j]; v.Null[i] {
		return
	}
	if v.Type == catalog.Varchar {
		v.S[i] = src.S[j]
		return
	}
	if v.copyFixed(i, src, j) {
		return
	}
	switch v.Type.Kind() {
	case catalog.KindArray, catalog.KindMap:
		v.Kids = src.Kids
		v.Off[i], v.Len[i] = src.Off[j], src.Len[j]
	case catalog.KindRow:
		for k, kid := range v.Kids {
			kid.ShareValue(i, src.Kids[k], j)
		}
	}
}

// copyFixed copies row j of src to row i of v when their type is BIGINT,
// TIMESTAMP, DOUBLE or BOOLEAN, and reports whether it was.
func (v *Vec) copyFixed(i int, src *Vec, j int) bool {
	switch v.Type {
	case catalog.BigInt, catalog.Timestamp:
		v.I[i] = src.I[j]
	case catalog.Double:
		v.F[i] = src.F[j]
	case catalog.Boolean:
		v.B[i] = src.B[j]
	default:
		return false
	}
	return true
}

// Equal is SPEC 2's = of row i of a and row j of b, two vectors of one
// scalar type (a DOUBLE NaN equals nothing; text byte for byte); false for
// the nested types, which are not compared. NULLs are the caller's.
func Equal(a *Vec, i int, b *Vec, j int) bool {
	switch a.Type {
	case catalog.BigInt, catalog.Timestamp:
		return a.I[i] == b.I[j]
	case catalog.Double:
		return a.F[i] == b.F[j]
	case catalog.Boolean:
		return a.B[i] == b.B[j]
	case catalog.Varchar:
		return string(a.S[i]) == string(b.S[j])
	}
	return false
}
