package expr

import (
	"streamql/catalog"
	"streamql/executor/vector"
	"streamql/planner/plan"
)

// compareNested sets out[i] for the rows sel to op (=, <>, or the equality
// of IS NOT DISTINCT FROM) of two ARRAY, MAP or ROW values of one type
// (SPEC 2.10). NULL operands are the caller's (compare). Two values are
// equal when they have the same shape and equal elements: an ARRAY's in
// order, a MAP's entries whatever their order (each key of one found in the
// other with an equal value), a ROW's fields by position. Flink compares
// the values' binary forms, so a NULL element equals a NULL element and the
// result is never NULL for two non-NULL values; a non-NULL element compares
// by SPEC 2's = (a NaN equals nothing, 0.0 equals -0.0, text byte for byte).
func compareNested(op plan.Cmp, sel []int32, a, c *vector.Vec, out []bool) {
	for _, i := range sel {
		if a.Null[i] || c.Null[i] {
			continue
		}
		eq := NestedEqual(a, int(i), c, int(i))
		out[i] = eq == (op != plan.NE)
	}
}

// NestedEqual reports whether row i of a equals row j of b, two vectors of
// one type, by compareNested's rule (a NULL equals a NULL here: the caller
// handles a NULL value itself when = should give NULL).
func NestedEqual(a *vector.Vec, i int, b *vector.Vec, j int) bool {
	if a.Null[i] || b.Null[j] {
		return a.Null[i] && b.Null[j]
	}
	switch a.Type.Kind() {
	case catalog.KindArray:
		ao, an := a.Elems(i)
		bo, bn := b.Elems(j)
		if an != bn {
			return false
		}
		for e := range an {
			if !NestedEqual(a.Kids[0], ao+e, b.Kids[0], bo+e) {
				return false
			}
		}
		return true
	case catalog.KindMap:
		ao, an := a.Elems(i)
		bo, bn := b.Elems(j)
		if an != bn {
			return false
		}
		for e := ao; e < ao+an; e++ {
			found := false
			for f := bo; f < bo+bn; f++ {
				if NestedEqual(a.Kids[0], e, b.Kids[0], f) {
					found = NestedEqual(a.Kids[1], e, b.Kids[1], f)
					break
				}
			}
			if !found {
				return false
			}
		}
		return true
	case catalog.KindRow:
		for k := range a.Kids {
			if !NestedEqual(a.Kids[k], i, b.Kids[k], j) {
				return false
			}
		}
		return true
	}
	return vector.Equal(a, i, b, j)
}
