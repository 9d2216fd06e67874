package catalog

// NestedCastable reports whether CAST from one nested type to another is
// defined (SPEC 2.10, Flink's ArrayToArray, MapToMap and RowToRow cast
// rules): an ARRAY to an ARRAY whose elements cast, a MAP to a MAP whose
// keys and values cast, a ROW to a ROW of as many fields, field by field by
// position (the names are the target's). Scalars cast to each other (SPEC
// 2, CAST), and inside a nested value a VARCHAR casts to a nested type as
// JSON text and a nested value to VARCHAR as it prints.
func NestedCastable(from, to Type) bool {
	switch {
	case from == to, from == Unknown:
		return true
	case !from.IsNested() && !to.IsNested():
		return true
	case to == Varchar || from == Varchar:
		return true
	case from.Kind() != to.Kind():
		return false
	}
	switch from.Kind() {
	case KindArray:
		return NestedCastable(from.Elem(), to.Elem())
	case KindMap:
		return NestedCastable(from.Key(), to.Key()) && NestedCastable(from.Elem(), to.Elem())
	case KindRow:
		ff, tf := from.Fields(), to.Fields()
		if len(ff) != len(tf) {
			return false
		}
		for k := range ff {
			if !NestedCastable(ff[k].Type, tf[k].Type) {
				return false
			}
		}
		return true
	}
	return false
}

// LeastRestrictive returns the type that values of types a and b both
// convert to where one expression may give either (CASE, COALESCE, IF,
// ARRAY[…] and MAP[…] elements, UNION ALL columns), and whether there is
// one. It follows SPEC 2 for scalars (a type with itself or with Unknown, a
// bare NULL, is that type; BIGINT with DOUBLE is DOUBLE) and Calcite's
// leastRestrictive, which Flink uses, for nested types: ARRAYs of the
// elements' common type, MAPs of the keys' and the values' common types, and
// ROWs of as many fields, each of the fields' common type, named as a's
// fields (the first type's names, as Calcite's). Converting a value of a or b
// to the result is a CAST (NestedCastable holds).
func LeastRestrictive(a, b Type) (Type, bool) {
	switch {
	case a == b || b == Unknown:
		return a, true
	case a == Unknown:
		return b, true
	case a.IsNumeric() && b.IsNumeric():
		return Double, true
	case !a.IsNested() || a.Kind() != b.Kind():
		return Unknown, false
	}
	switch a.Kind() {
	case KindArray:
		if e, ok := LeastRestrictive(a.Elem(), b.Elem()); ok {
			return ArrayOf(e), true
		}
	case KindMap:
		k, ok := LeastRestrictive(a.Key(), b.Key())
		if v, ok2 := LeastRestrictive(a.Elem(), b.Elem()); ok && ok2 {
			return MapOf(k, v), true
		}
	case KindRow:
		af, bf := a.Fields(), b.Fields()
		if len(af) != len(bf) {
			return Unknown, false
		}
		fields := make([]Field, len(af))
		for i := range af {
			t, ok := LeastRestrictive(af[i].Type, bf[i].Type)
			if !ok {
				return Unknown, false
			}
			fields[i] = Field{Name: af[i].Name, Type: t}
		}
		return RowOf(fields), true
	}
	return Unknown, false
}
