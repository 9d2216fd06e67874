package cdc

import (
	"streamql/catalog"
	"streamql/executor/format"
	"streamql/executor/vector"
)

// Encoder writes rows with kinds as Debezium's envelope, one JSON object per
// line (SPEC 2.8: a file sink with 'format'='debezium-json'): +I is {"before":
// null, "after": row, "op": "c"}, -D {"before": row, "after": null, "op":
// "d"}, and an update, -U followed by its +U, one {"before": old, "after":
// new, "op": "u"}, which Decoder reads back as the same -U and +U. A -U not
// followed by a +U is written as a delete, and a +U without its -U as a
// create (Flink's debezium-json writes every update so: d, then c). It is not
// safe for concurrent use.
type Encoder struct {
	cols    []catalog.Column
	before  []byte // the pending -U's row object
	pending bool
}

// NewEncoder returns an encoder of rows of cols.
func NewEncoder(cols []catalog.Column) *Encoder { return &Encoder{cols: cols} }

// Append appends the records that row i of vals (one vector per column), of
// kind k, completes, each ending in a line end, and returns dst. A -U is held
// until the next row says whether it is an update's.
func (e *Encoder) Append(dst []byte, vals []*vector.Vec, i int, k vector.RowKind) []byte {
	if e.pending && k == vector.UpdateAfter {
		e.pending = false
		dst = append(dst, `{"before":`...)
		dst = append(dst, e.before...)
		dst = append(dst, `,"after":{`...)
		dst = format.AppendJSONFields(dst, e.cols, vals, i)
		return append(dst, `},"op":"u"}`+"\n"...)
	}
	dst = e.End(dst)
	switch k {
	case vector.UpdateBefore:
		e.before = append(format.AppendJSONFields(append(e.before[:0], '{'), e.cols, vals, i), '}')
		e.pending = true
		return dst
	case vector.Delete:
		dst = append(dst, `{"before":{`...)
		dst = format.AppendJSONFields(dst, e.cols, vals, i)
		return append(dst, `},"after":null,"op":"d"}`+"\n"...)
	}
	dst = append(dst, `{"before":null,"after":{`...)
	dst = format.AppendJSONFields(dst, e.cols, vals, i)
	return append(dst, `},"op":"c"}`+"\n"...)
}

// End appends the held -U, if any, as a delete record, and returns dst: at
// the end of the job, when no +U follows.
func (e *Encoder) End(dst []byte) []byte {
	if !e.pending {
		return dst
	}
	e.pending = false
	dst = append(dst, `{"before":`...)
	dst = append(dst, e.before...)
	return append(dst, `,"after":null,"op":"d"}`+"\n"...)
}
