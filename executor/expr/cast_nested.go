package expr

import (
	"streamql/catalog"
	"streamql/executor/vector"
)

// castNested returns the loop that casts values of one nested type to
// another (NestedCastable): each element, key, value or field is cast by
// castKernel's rule for its types. The child vectors of out take the same
// element slots as in's (out's row i has in's offset and length), so the
// elements of all rows are cast in one loop per child. As Flink's TRY_CAST
// (SPEC 2: a failed CAST gives NULL), an element that does not convert
// makes the whole value NULL; a NULL element stays NULL.
func castNested(from, to catalog.Type) castLoop {
	var kids []castLoop
	switch from.Kind() {
	case catalog.KindArray:
		kids = []castLoop{elemCast(from.Elem(), to.Elem())}
	case catalog.KindMap:
		kids = []castLoop{elemCast(from.Key(), to.Key()), elemCast(from.Elem(), to.Elem())}
	case catalog.KindRow:
		for k, f := range from.Fields() {
			kids = append(kids, elemCast(f.Type, to.Fields()[k].Type))
		}
	}
	row := from.Kind() == catalog.KindRow
	var esel, rsel []int32
	return func(in, out *vector.Vec, sel []int32) {
		// the rows to convert, and (ARRAY, MAP) their element slots
		esel, rsel = esel[:0], rsel[:0]
		for _, i := range sel {
			if out.Null[i] = in.Null[i]; in.Null[i] {
				continue
			}
			rsel = append(rsel, i)
			if !row {
				off, n := in.Elems(int(i))
				out.Off[i], out.Len[i] = in.Off[i], in.Len[i]
				for e := off; e < off+n; e++ {
					esel = append(esel, int32(e))
				}
			}
		}
		slots := esel
		if row {
			slots = rsel
		}
		for k, conv := range kids {
			ik, ok := in.Kids[k], out.Kids[k]
			if !row {
				ok.Used = ik.Used
				ok.Grow(ik.Used)
			}
			conv(ik, ok, slots)
		}
		// an element that was not NULL and is now failed the cast
		for _, i := range rsel {
			if row {
				for k := range kids {
					if out.Kids[k].Null[i] && !in.Kids[k].Null[i] {
						out.Null[i] = true
					}
				}
				continue
			}
			off, n := in.Elems(int(i))
			for k := range kids {
				for e := off; e < off+n; e++ {
					if out.Kids[k].Null[e] && !in.Kids[k].Null[e] {
						out.Null[i] = true
					}
				}
			}
		}
	}
}

// elemCast is the loop that casts one child's values from one type to
// another, copying them when the types are the same.
func elemCast(from, to catalog.Type) castLoop {
	if from == to {
		return func(in, out *vector.Vec, sel []int32) {
			for _, i := range sel {
				if out.Null[i] = in.Null[i]; !in.Null[i] {
					out.CopyValue(int(i), in, int(i))
				}
			}
		}
	}
	conv := castKernel(from, to)
	return func(in, out *vector.Vec, sel []int32) {
		for _, i := range sel {
			out.Null[i] = false // (a loop may leave a converted value's flag as it was)
		}
		conv(in, out, sel)
	}
}
