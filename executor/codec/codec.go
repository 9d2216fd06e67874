// Package codec is the registry of the record formats' code (issue 22 item
// 5): the one place where a format's name maps to its decoder, its schema
// inferrer and its encoders. catalog.FormatSpec declares each format once
// (its name, whether a stream reads it, whether it is a changelog, whether a
// sink writes it, its file extensions); this package registers what runs it,
// in the table registry below. The executor's sources (executor.newDecoder,
// the connectors' record values through connector.Env), the schema inference
// of FROM 'file' (InferSchema) and the sinks (the file sink, the Kafka sink)
// ask Lookup and never switch on a format's name.
//
// Adding a record format means one row in catalog's table (catalog/formats.go)
// and one registration here: a Record with a Decoder and Values when the
// format Reads, an Infer when it has FileExts (a file read without a column
// list), a Lines encoder when it Writes and a Row encoder when a record of it
// is one row (Kafka's values and keys). TestEveryFormatRegistered fails for a
// format of the table without its code, and for code without its format.
//
// The printers of the command line's output formats (SPEC 4: table, csv,
// tsv, json, plain, markdown) are cmd/streamql/render's, keyed by the same
// table (render's printers): the command line imports no executor package but
// executor/format.
package codec

import (
	"fmt"
	"io"
	"strings"

	"streamql/catalog"
	"streamql/executor/records"
	"streamql/executor/vector"
)

// Decoder turns a byte stream into batches of a stream's rows (the
// executor's Decoder, connector.Decoder): Decode resets b, fills it with up
// to vector.Cap rows, appends malformed rows to *bad, and returns io.EOF
// when it returns nothing and the input ended.
type Decoder interface {
	Decode(b *vector.Batch, bad *[]records.BadRow) error
	BytesRead() int64
}

// ValueDecoder decodes records given one at a time (Kafka record values,
// SPEC 2.5; connector.ValueDecoder): DecodeValue decodes rec as row b.N of
// b (it leaves b.N to the caller) and returns "" or why rec is malformed.
type ValueDecoder interface {
	DecodeValue(b *vector.Batch, rec []byte) string
}

// ChangeDecoder decodes the records of a changelog format given one at a
// time (catalog.FormatSpec.Changelog, SPEC 2.8; connector.ChangeDecoder):
// Append decodes rec as rows b.N, b.N+1, ... with their kinds and position
// pos and advances b.N; it returns why rec is malformed (b unchanged), or
// full = true (nothing added) when the rows do not fit in b.
type ChangeDecoder interface {
	Append(b *vector.Batch, rec []byte, pos int64) (reason string, full bool)
}

// DecodeOptions are what a decoder takes beside the stream's format options
// (which it reads from catalog.Stream.Shared).
type DecodeOptions struct {
	// NotNull marks the columns whose NULL makes a row malformed (the event
	// time column, SPEC 2.3), or nil.
	NotNull []bool
	// Lines, when not nil, says which input lines held bytes the transcoder
	// could not read ('encoding', SPEC 1).
	Lines records.LineChecker
	// MaxRecord is 'max-record-size' in bytes (> 0).
	MaxRecord int
	// Continues says the input goes on from where an earlier job stopped
	// (the session's stdin, SPEC 1): no BOM, no header.
	Continues bool
}

// RowEncoder appends row i of vals (one vector per column of cols) as one
// record without a line end (a Kafka record's value or key, SPEC 2.5) and
// returns dst.
type RowEncoder func(dst []byte, cols []catalog.Column, vals []*vector.Vec, i int) []byte

// LineEncoder writes a sink's rows as lines (the file sink, SPEC 2.5, 2.8).
// It is not safe for concurrent use.
type LineEncoder interface {
	// Header appends what an empty file starts with (csv's header line, with
	// its line end) and returns dst.
	Header(dst []byte) []byte
	// Append appends the lines that row i of vals, of kind k, completes, each
	// ending in a line end, and returns dst. A format that keeps no kinds
	// writes the row whatever k is.
	Append(dst []byte, vals []*vector.Vec, i int, k vector.RowKind) []byte
	// End appends what the encoder still holds at the end of the job (a
	// Debezium -U that no +U followed) and returns dst.
	End(dst []byte) []byte
}

// LineOptions are a LineEncoder's options.
type LineOptions struct {
	// Delim is csv's field delimiter ('csv.delimiter'; 0 is ',').
	Delim byte
	// Op says the first column is the op column of a changelog written as
	// csv or json (catalog.Stream.OpColumn, SPEC 2.8): each row's kind goes
	// there.
	Op bool
}

// InferOptions are csv's options that schema inference reads: Delim and
// Quote (0: ',' and '"') and Header ('csv.header').
type InferOptions struct {
	Delim, Quote byte
	Header       bool
}

// Record is the code of one record format. A field is nil when the format
// does not do that (catalog.FormatSpec says what it does).
type Record struct {
	// Decoder returns the decoder of st's rows over r, with st's format
	// options; errors name the stream and the option.
	Decoder func(st *catalog.Stream, r io.Reader, o DecodeOptions) (Decoder, error)
	// Values returns the decoder of st's record values, one record at a
	// time, for a format whose record is one row; a record longer than
	// o.MaxRecord is malformed.
	Values func(st *catalog.Stream, o DecodeOptions) (ValueDecoder, error)
	// Changes returns the decoder of st's record values, one record at a
	// time, for a changelog format (catalog.FormatSpec.Changelog: a record
	// is rows with kinds); a record longer than o.MaxRecord is malformed.
	Changes func(st *catalog.Stream, o DecodeOptions) (ChangeDecoder, error)
	// Infer reads the column names and what their values can be read as
	// from the first InferRows records of r (SPEC 1: a file read without a
	// column list).
	Infer func(r io.Reader, o InferOptions) (names []string, kinds []Kind, err error)
	// Lines returns the line encoder of a sink of cols.
	Lines func(cols []catalog.Column, o LineOptions) LineEncoder
	// Row returns the encoder of one row per record with delimiter delim
	// (csv's; 0 is ','); nil for a format whose record is not one row (a
	// changelog envelope).
	Row func(delim byte) RowEncoder
}

// registry holds the record formats' code, by catalog.FormatSpec.Name: the
// one registration a record format needs (see the package doc).
var registry = map[string]*Record{
	"csv":           &csvRecord,
	"json":          &jsonRecord,
	"debezium-json": &debeziumRecord,
	"canal-json":    &canalRecord,
	"maxwell-json":  &maxwellRecord,
}

// Lookup returns the code of the record format named name ("" is csv, the
// default 'format' of catalog's connectors), or nil for a name no format has.
func Lookup(name string) *Record {
	if name == "" {
		name = "csv"
	}
	return registry[name]
}

// Of returns the code of st's 'format', or an error naming the stream and
// the formats there are.
func Of(st *catalog.Stream) (*Record, error) {
	format := st.Shared().Format
	if r := Lookup(format); r != nil {
		return r, nil
	}
	return nil, fmt.Errorf("stream %s: unknown 'format' = '%s'; use one of %s", st.Name, format, strings.Join(catalog.FormatNames(), ", "))
}

// delimOr returns d, or ',' when d is 0.
func delimOr(d byte) byte {
	if d == 0 {
		return ','
	}
	return d
}

// rowDecoder is the decoder of a format whose record is one row: it reads a
// stream (Decoder) and a record given on its own (ValueDecoder).
type rowDecoder interface {
	Decoder
	ValueDecoder
}

// rowRecord returns the Record of a format whose record is one row (csv,
// json) from the constructor of its decoder (its Values is that decoder over
// no input, its values longer than 'max-record-size' malformed), its
// inferrer and its encoders.
func rowRecord[D rowDecoder](newDec func(st *catalog.Stream, r io.Reader, o DecodeOptions) D,
	infer func(io.Reader, InferOptions) ([]string, []Kind, error),
	lines func([]catalog.Column, LineOptions) LineEncoder, row func(delim byte) RowEncoder) Record {
	return Record{
		Decoder: func(st *catalog.Stream, r io.Reader, o DecodeOptions) (Decoder, error) {
			return newDec(st, r, o), nil
		},
		Values: func(st *catalog.Stream, o DecodeOptions) (ValueDecoder, error) {
			return sizedValues{newDec(st, eofReader{}, o), o.MaxRecord}, nil
		},
		Infer: infer,
		Lines: lines,
		Row:   row,
	}
}

// eofReader is an empty input: a decoder made for its record values only.
type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }
