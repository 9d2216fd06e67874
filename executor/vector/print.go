package vector

import (
	"strconv"

	"streamql/catalog"
	"streamql/catalog/textconv"
)

// AppendValue appends the printed form of row i of v, of type t, to dst (SPEC 4,
// values: DOUBLE as Java's Double.toString, BIGINT as digits, BOOLEAN true/false,
// TIMESTAMP as 2021-01-17 12:48:29.123, VARCHAR as is; a number whose source
// text v keeps, Vec.Text, as that text; ARRAY, MAP and ROW as Flink prints
// them, `[1, 2]`, `{a=1, b=2}`, `(1, x)`, SPEC 2.10). The caller handles
// NULL (of the value itself; NULL inside a nested value prints as NULL).
func AppendValue(dst []byte, t catalog.Type, v *Vec, i int) []byte {
	if v.Text != nil && v.Text[i] != nil {
		return append(dst, v.Text[i]...) // the source text is the printed form
	}
	switch t {
	case catalog.BigInt:
		return textconv.AppendInt(dst, v.I[i])
	case catalog.Double:
		return textconv.AppendDouble(dst, v.F[i])
	case catalog.Boolean:
		return strconv.AppendBool(dst, v.B[i])
	case catalog.Timestamp:
		return textconv.AppendTimestamp(dst, v.I[i])
	case catalog.Varchar:
		return append(dst, v.S[i]...)
	}
	if t.IsNested() {
		return appendNested(dst, v, i)
	}
	return dst
}
