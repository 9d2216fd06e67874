package plan

import "streamql/catalog"

// Unnest is CROSS JOIN UNNEST(x) AS t (c, ...) (SPEC 2.10): each row of
// Inner is repeated once per element of the ARRAY x, with the element as a
// new column, or once per entry of the MAP x, with its key and value as two
// new columns; a NULL or empty x gives no row (a cross join with nothing, as
// Flink). The rows of one input row are given in element order, each
// carrying the input row's position (its line, for errors).
type Unnest struct {
	// Inner is the stream read; InnerTypes its batch's types (its columns,
	// then its watermark column when it has one).
	Inner      *catalog.Stream
	InnerTypes []catalog.Type
	// Expr is x, over Inner's batch.
	Expr *Expr
	// Text is the clause as written, for EXPLAIN.
	Text string
	// Left is LEFT JOIN UNNEST ... ON TRUE (Flink's): a row whose value is
	// NULL or empty is kept once, the new columns NULL.
	Left bool
	// Ordinality is WITH ORDINALITY (Flink 2.1): after the element's
	// columns, a BIGINT column with its position, from 1 (NULL in a LEFT
	// row's padding).
	Ordinality bool
	// RowFields is the unnest of an ARRAY of ROW into a column per field
	// (Flink's), in the ROW's order; a NULL element gives NULL fields.
	// Without it an ARRAY's element is one column.
	RowFields bool
}

// UnnestedStream returns the relation of a query that unnests: inner's
// columns (same indexes, event-time column and WATERMARK), then the new
// columns cols of types types, named alias.name; its batch layout is
// therefore the inner one with the new columns before the watermark column.
func UnnestedStream(inner *catalog.Stream, alias string, cols []string, types []catalog.Type) *catalog.Stream {
	st := *inner
	st.Columns = append(append([]catalog.Column(nil), inner.Columns...), make([]catalog.Column, len(cols))...)
	for k, c := range cols {
		st.Columns[len(inner.Columns)+k] = catalog.Column{Name: c, Type: types[k]}
	}
	return &st
}
