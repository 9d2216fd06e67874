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
