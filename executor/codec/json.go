package codec

import (
	"io"

	"streamql/catalog"
	"streamql/executor/format"
	"streamql/executor/jsondec"
	"streamql/executor/vector"
)

// jsonRecord is json's code (SPEC 1, 4): one object per line, read by
// jsondec and written with executor/format's JSON encodings.
var jsonRecord = rowRecord(newJSON, inferJSON,
	func(cols []catalog.Column, o LineOptions) LineEncoder { return &jsonLines{cols: cols, op: o.Op} },
	func(byte) RowEncoder { return appendJSONRow })

// newJSON returns the json decoder of st over r.
func newJSON(st *catalog.Stream, r io.Reader, o DecodeOptions) *jsondec.Decoder {
	return jsondec.NewDecoder(r, st.Names(), st.Types(), jsondec.Options{NotNull: o.NotNull, Lines: o.Lines, MaxRecord: o.MaxRecord, Continues: o.Continues})
}

// appendJSONRow is json's RowEncoder: the row as one object.
func appendJSONRow(dst []byte, cols []catalog.Column, vals []*vector.Vec, i int) []byte {
	return append(format.AppendJSONFields(append(dst, '{'), cols, vals, i), '}')
}

// jsonLines is json's LineEncoder: an object per row, with an op column
// its first member.
type jsonLines struct {
	cols []catalog.Column
	op   bool
}

func (e *jsonLines) Header(dst []byte) []byte { return dst }

func (e *jsonLines) Append(dst []byte, vals []*vector.Vec, i int, k vector.RowKind) []byte {
	if !e.op {
		return append(appendJSONRow(dst, e.cols, vals, i), '\n')
	}
	dst = append(dst, `{"`...)
	dst = append(dst, e.cols[0].Name...)
	dst = append(dst, `":"`...)
	dst = append(dst, k.String()...)
	dst = append(dst, `",`...)
	return append(format.AppendJSONFields(dst, e.cols[1:], vals[1:], i), '}', '\n')
}

func (e *jsonLines) End(dst []byte) []byte { return dst }
