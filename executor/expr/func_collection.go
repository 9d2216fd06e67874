package expr

import (
	"bytes"
	"slices"

	"streamql/catalog"
	"streamql/executor/vector"
)

// The ARRAY and MAP functions of Flink 2.x (SPEC 2.10; Flink's
// Array*Function and Map*Function classes), over the vectors' child vectors:
// a result's elements are appended to the output's child vectors, nothing
// is boxed per row. Elements are equal by NestedEqual (a NULL equals a NULL,
// a NaN equals nothing, SPEC 2's =). The planner (rule_func_collection.go)
// has checked the argument types: an ARRAY (or MAP) first, a value of its
// element type where one is looked for.

// addElem appends element e of src (NULL or not) to dst, a child vector of
// the same type.
func addElem(dst, src *vector.Vec, e int) {
	d := dst.AddElem()
	if src.Null[e] {
		dst.Null[d] = true
		return
	}
	dst.CopyValue(d, src, e)
}

// startArray begins row i of out (an ARRAY vector) at its child's end; endArray
// sets its length to what was appended since.
func startArray(out *vector.Vec, i int) *vector.Vec {
	out.Off[i] = int32(out.Kids[0].Used)
	return out.Kids[0]
}

func endArray(out *vector.Vec, i int) { out.Len[i] = int32(out.Kids[0].Used) - out.Off[i] }

// indexOf is the first element of row i of arr (from off, n elements) equal
// to row j of x, or -1.
func indexOf(arr *vector.Vec, i int, x *vector.Vec, j int) int {
	off, n := arr.Elems(i)
	kid := arr.Kids[0]
	for e := off; e < off+n; e++ {
		if NestedEqual(kid, e, x, j) {
			return e - off
		}
	}
	return -1
}

// hasElem reports whether elements from..to-1 of kid hold one equal to
// element e of src.
func hasElem(kid *vector.Vec, from, to int, src *vector.Vec, e int) bool {
	for k := from; k < to; k++ {
		if NestedEqual(kid, k, src, e) {
			return true
		}
	}
	return false
}

// prepArrayContains is ARRAY_CONTAINS(arr, x) (Flink's
// ArrayContainsFunction): whether an element equals x; a NULL x finds a NULL
// element; NULL for a NULL ARRAY.
func prepArrayContains([]Arg, catalog.Type) (RowFunc, error) {
	return func(a []*vector.Vec, i int, out *vector.Vec) bool {
		if a[0].Null[i] {
			return false
		}
		out.B[i] = indexOf(a[0], i, a[1], i) >= 0
		return true
	}, nil
}

// prepArrayPosition is ARRAY_POSITION(arr, x) (Flink's
// ArrayPositionFunction): where the first element equal to x is, from 1; 0
// when none.
func prepArrayPosition([]Arg, catalog.Type) (RowFunc, error) {
	return func(a []*vector.Vec, i int, out *vector.Vec) bool {
		out.I[i] = int64(indexOf(a[0], i, a[1], i) + 1)
		return true
	}, nil
}

// prepArrayDistinct is ARRAY_DISTINCT(arr) (Flink's ArrayDistinctFunction):
// the elements without repeats, in the order they first come.
func prepArrayDistinct([]Arg, catalog.Type) (RowFunc, error) {
	return func(a []*vector.Vec, i int, out *vector.Vec) bool {
		dst := startArray(out, i)
		start := dst.Used
		off, n := a[0].Elems(i)
		for e := off; e < off+n; e++ {
			if !hasElem(dst, start, dst.Used, a[0].Kids[0], e) {
				addElem(dst, a[0].Kids[0], e)
			}
		}
		endArray(out, i)
		return true
	}, nil
}

// prepArrayRemove is ARRAY_REMOVE(arr, x) (Flink's ArrayRemoveFunction): the
// elements not equal to x (a NULL x removes the NULL elements); NULL for a
// NULL ARRAY.
func prepArrayRemove([]Arg, catalog.Type) (RowFunc, error) {
	return func(a []*vector.Vec, i int, out *vector.Vec) bool {
		if a[0].Null[i] {
			return false
		}
		dst := startArray(out, i)
		off, n := a[0].Elems(i)
		kid := a[0].Kids[0]
		for e := off; e < off+n; e++ {
			if !NestedEqual(kid, e, a[1], i) {
				addElem(dst, kid, e)
			}
		}
		endArray(out, i)
		return true
	}, nil
}

// prepArrayReverse is ARRAY_REVERSE(arr).
func prepArrayReverse([]Arg, catalog.Type) (RowFunc, error) {
	return func(a []*vector.Vec, i int, out *vector.Vec) bool {
		dst := startArray(out, i)
		off, n := a[0].Elems(i)
		for e := off + n - 1; e >= off; e-- {
			addElem(dst, a[0].Kids[0], e)
		}
		endArray(out, i)
		return true
	}, nil
}

// sliceBounds is Flink's ArraySliceFunction on an ARRAY of n > 0 elements:
// the 1-based inclusive range [from, to] of ARRAY_SLICE(arr, start, end)
// (a negative offset counts from the end, 0 is the first), empty when
// to < from.
func sliceBounds(n, start, end int64) (from, to int64) {
	if start < 0 {
		start += n + 1
	}
	if end < 0 {
		end += n + 1
	}
	from = max(1, start)
	if end == 0 {
		to = 1
	} else {
		to = min(end, n)
	}
	return from, to
}

// prepArraySlice is ARRAY_SLICE(arr, start[, end]) (Flink's
// ArraySliceFunction; end is the last element by default).
func prepArraySlice([]Arg, catalog.Type) (RowFunc, error) {
	return func(a []*vector.Vec, i int, out *vector.Vec) bool {
		dst := startArray(out, i)
		off, n := a[0].Elems(i)
		end := int64(n)
		if len(a) == 3 {
			end = a[2].I[i]
		}
		if n > 0 {
			from, to := sliceBounds(int64(n), a[1].I[i], end)
			for e := from; e <= to; e++ {
				addElem(dst, a[0].Kids[0], off+int(e)-1)
			}
		}
		endArray(out, i)
		return true
	}, nil
}

// prepArrayAppend and prepArrayPrepend are ARRAY_APPEND(arr, x) and
// ARRAY_PREPEND(arr, x) (Flink's): x, NULL or not, added at the end or the
// start; NULL for a NULL ARRAY.
func prepArrayAppend([]Arg, catalog.Type) (RowFunc, error)  { return prepArrayAdd(false), nil }
func prepArrayPrepend([]Arg, catalog.Type) (RowFunc, error) { return prepArrayAdd(true), nil }

func prepArrayAdd(front bool) RowFunc {
	return func(a []*vector.Vec, i int, out *vector.Vec) bool {
		if a[0].Null[i] {
			return false
		}
		dst := startArray(out, i)
		if front {
			addElem(dst, a[1], i)
		}
		off, n := a[0].Elems(i)
		for e := off; e < off+n; e++ {
			addElem(dst, a[0].Kids[0], e)
		}
		if !front {
			addElem(dst, a[1], i)
		}
		endArray(out, i)
		return true
	}
}

// prepArrayConcat is ARRAY_CONCAT(a1, a2, ...) (Flink's ArrayConcatFunction):
// the ARRAYs' elements one after the other.
func prepArrayConcat([]Arg, catalog.Type) (RowFunc, error) {
	return func(a []*vector.Vec, i int, out *vector.Vec) bool {
		dst := startArray(out, i)
		for _, x := range a {
			off, n := x.Elems(i)
			for e := off; e < off+n; e++ {
				addElem(dst, x.Kids[0], e)
			}
		}
		endArray(out, i)
		return true
	}, nil
}

// The set operations of ARRAY_UNION, ARRAY_INTERSECT and ARRAY_EXCEPT.
const (
	setUnion = iota
	setIntersect
	setExcept
)

// prepArraySet is ARRAY_UNION(a, b) (the elements of a then b), ARRAY_INTERSECT
// (those of a also in b) and ARRAY_EXCEPT (those of a not in b), each without
// repeats, in the order they first come (Flink's docs of Array*Function).
func prepArraySet(op int) func([]Arg, catalog.Type) (RowFunc, error) {
	return func([]Arg, catalog.Type) (RowFunc, error) {
		return func(a []*vector.Vec, i int, out *vector.Vec) bool {
			dst := startArray(out, i)
			start := dst.Used
			ao, an := a[0].Elems(i)
			bo, bn := a[1].Elems(i)
			ak, bk := a[0].Kids[0], a[1].Kids[0]
			for e := ao; e < ao+an; e++ {
				if hasElem(dst, start, dst.Used, ak, e) {
					continue
				}
				if op == setUnion || (op == setIntersect) == hasElem(bk, bo, bo+bn, ak, e) {
					addElem(dst, ak, e)
				}
			}
			if op == setUnion {
				for e := bo; e < bo+bn; e++ {
					if !hasElem(dst, start, dst.Used, bk, e) {
						addElem(dst, bk, e)
					}
				}
			}
			endArray(out, i)
			return true
		}, nil
	}
}

// cmpElem compares elements e and f of kid, a vector of a scalar type, as
// Flink's ordering does (a DOUBLE as Java's Double.compare, FALSE before
// TRUE, text byte by byte: the UTF-8 order of code points).
func cmpElem(kid *vector.Vec, e, f int) int {
	switch kid.Type {
	case catalog.BigInt, catalog.Timestamp:
		return cmpOrdered(kid.I[e], kid.I[f])
	case catalog.Double:
		return javaCompareDouble(kid.F[e], kid.F[f])
	case catalog.Boolean:
		x, y := kid.B[e], kid.B[f]
		switch {
		case x == y:
			return 0
		case y:
			return -1
		}
		return 1
	}
	return bytes.Compare(kid.S[e], kid.S[f])
}

// prepArrayExtreme is ARRAY_MAX (sign 1) and ARRAY_MIN (sign -1) (Flink's
// ArrayMaxFunction, ArrayMinFunction): the greatest or least element that is
// not NULL; NULL when there is none.
func prepArrayExtreme(sign int) func([]Arg, catalog.Type) (RowFunc, error) {
	return func([]Arg, catalog.Type) (RowFunc, error) {
		return func(a []*vector.Vec, i int, out *vector.Vec) bool {
			off, n := a[0].Elems(i)
			kid := a[0].Kids[0]
			best := -1
			for e := off; e < off+n; e++ {
				if !kid.Null[e] && (best < 0 || cmpElem(kid, e, best)*sign > 0) {
					best = e
				}
			}
			if best < 0 {
				return false
			}
			out.CopyValue(i, kid, best)
			return true
		}, nil
	}
}

// prepArraySort is ARRAY_SORT(arr[, ascending[, nullsFirst]]) (Flink's
// ArraySortFunction): a stable sort, ascending with NULLs first by default;
// nullsFirst defaults to ascending.
func prepArraySort([]Arg, catalog.Type) (RowFunc, error) {
	var idx []int
	return func(a []*vector.Vec, i int, out *vector.Vec) bool {
		asc := len(a) < 2 || a[1].B[i]
		nullsFirst := asc
		if len(a) == 3 {
			nullsFirst = a[2].B[i]
		}
		off, n := a[0].Elems(i)
		kid := a[0].Kids[0]
		idx = idx[:0]
		for e := off; e < off+n; e++ {
			idx = append(idx, e)
		}
		slices.SortStableFunc(idx, func(e, f int) int {
			switch en, fn := kid.Null[e], kid.Null[f]; {
			case en && fn:
				return 0
			case en == nullsFirst && (en || fn):
				return -1
			case en || fn:
				return 1
			}
			if asc {
				return cmpElem(kid, e, f)
			}
			return -cmpElem(kid, e, f)
		})
		dst := startArray(out, i)
		for _, e := range idx {
			addElem(dst, kid, e)
		}
		endArray(out, i)
		return true
	}, nil
}

// prepArrayJoin is ARRAY_JOIN(arr, delim[, nullText]) (Flink's
// ArrayJoinFunction): the elements as text (as CAST to VARCHAR prints them)
// joined by delim; NULL elements are left out, or written as nullText.
func prepArrayJoin(args []Arg, _ catalog.Type) (RowFunc, error) {
	return textRow(func(a []*vector.Vec, i int, dst []byte) ([]byte, bool) {
		off, n := a[0].Elems(i)
		kid := a[0].Kids[0]
		first := true
		for e := off; e < off+n; e++ {
			if kid.Null[e] && len(a) < 3 {
				continue
			}
			if !first {
				dst = append(dst, a[1].S[i]...)
			}
			first = false
			switch {
			case kid.Null[e]:
				dst = append(dst, a[2].S[i]...)
			case kid.Type == catalog.Varchar:
				dst = append(dst, kid.S[e]...)
			default:
				dst = vector.AppendValue(dst, kid.Type, kid, e)
			}
		}
		return dst, true
	}), nil
}

// prepMapPart is MAP_KEYS (part 0) and MAP_VALUES (part 1) (Flink's
// MapKeysFunction, MapValuesFunction): the MAP's keys or values as an ARRAY,
// in the MAP's order.
func prepMapPart(part int) func([]Arg, catalog.Type) (RowFunc, error) {
	return func([]Arg, catalog.Type) (RowFunc, error) {
		return func(a []*vector.Vec, i int, out *vector.Vec) bool {
			dst := startArray(out, i)
			off, n := a[0].Elems(i)
			for e := off; e < off+n; e++ {
				addElem(dst, a[0].Kids[part], e)
			}
			endArray(out, i)
			return true
		}, nil
	}
}

// prepMapEntries is MAP_ENTRIES(map) (Flink's MapEntriesFunction): the
// entries as an ARRAY of ROW<key, value>.
func prepMapEntries([]Arg, catalog.Type) (RowFunc, error) {
	return func(a []*vector.Vec, i int, out *vector.Vec) bool {
		rows := startArray(out, i)
		off, n := a[0].Elems(i)
		for e := off; e < off+n; e++ {
			d := rows.AddElem()
			rows.Null[d] = false
			for k := range 2 {
				if a[0].Kids[k].Null[e] {
					rows.Kids[k].Null[d] = true
				} else {
					rows.Kids[k].CopyValue(d, a[0].Kids[k], e)
				}
			}
		}
		endArray(out, i)
		return true
	}, nil
}

// putEntry sets key e of keys (values in vals) in the MAP being built in
// out's child vectors from entry start on: a key already there keeps its
// place and takes the value (Flink builds a map: the last value wins).
func putEntry(out *vector.Vec, start int, keys *vector.Vec, ke int, vals *vector.Vec, ve int) {
	ok, ov := out.Kids[0], out.Kids[1]
	for x := start; x < ok.Used; x++ {
		if NestedEqual(ok, x, keys, ke) {
			ov.Null[x] = false
			if vals.Null[ve] {
				ov.Null[x] = true
			} else {
				ov.CopyValue(x, vals, ve)
			}
			return
		}
	}
	addElem(ok, keys, ke)
	addElem(ov, vals, ve)
}

// prepMapFromArrays is MAP_FROM_ARRAYS(keys, values) (Flink's
// MapFromArraysFunction): keys[i] to values[i]; NULL when the lengths
// differ (Flink fails the job; SPEC 2.10: a runtime failure gives NULL).
func prepMapFromArrays([]Arg, catalog.Type) (RowFunc, error) {
	return func(a []*vector.Vec, i int, out *vector.Vec) bool {
		ko, kn := a[0].Elems(i)
		vo, vn := a[1].Elems(i)
		if kn != vn {
			return false
		}
		start := out.Kids[0].Used
		out.Off[i] = int32(start)
		for k := range kn {
			putEntry(out, start, a[0].Kids[0], ko+k, a[1].Kids[0], vo+k)
		}
		out.Len[i] = int32(out.Kids[0].Used - start)
		return true
	}, nil
}

// prepMapUnion is MAP_UNION(m1, m2, ...) (Flink's MapUnionFunction): the
// entries of all, a later MAP's value winning for a key.
func prepMapUnion([]Arg, catalog.Type) (RowFunc, error) {
	return func(a []*vector.Vec, i int, out *vector.Vec) bool {
		start := out.Kids[0].Used
		out.Off[i] = int32(start)
		for _, m := range a {
			off, n := m.Elems(i)
			for e := off; e < off+n; e++ {
				putEntry(out, start, m.Kids[0], e, m.Kids[1], e)
			}
		}
		out.Len[i] = int32(out.Kids[0].Used - start)
		return true
	}, nil
}
