package executor

import (
	"fmt"
	"io"

	"streamql/catalog"
	"streamql/executor/csvdec"
	"streamql/executor/vector"
)

// Decoder turns a byte stream into batches of a stream's rows (csvdec.Decoder is
// one). Decode resets b, fills it with up to vector.Cap rows, appends malformed
// rows to *bad, and returns io.EOF when it returns nothing and the input ended.
type Decoder interface {
	Decode(b *vector.Batch, bad *[]BadRow) error
	BytesRead() int64
}

// newDecoder returns the decoder of st's 'format' over r, with st's format options
// (SPEC 1).
func newDecoder(st *catalog.Stream, r io.Reader) (Decoder, error) {
	if st.Options["format"] != "csv" {
		return nil, fmt.Errorf("stream %s: format '%s' is not supported yet; use 'format'='csv'", st.Name, st.Options["format"])
	}
	if enc := st.Options["encoding"]; enc != "utf-8" && enc != "utf8" && enc != "UTF-8" {
		return nil, fmt.Errorf("stream %s: 'encoding'='%s' is not supported yet; use utf-8", st.Name, enc)
	}
	opts := csvdec.Options{
		Delimiter:   st.Options["csv.delimiter"][0],
		Quote:       st.Options["csv.quote"][0],
		Header:      st.Options["csv.header"] == "true",
		AllowRagged: st.Options["csv.allow-ragged"] == "true",
	}
	if st.EventTime >= 0 {
		opts.NotNull = make([]bool, len(st.Columns))
		opts.NotNull[st.EventTime] = true
	}
	if nl, ok := st.Options["csv.null-literal"]; ok {
		opts.NullLiteral, opts.HasNull = []byte(nl), true
	}
	return csvdec.NewDecoder(r, st.Names(), st.Types(), opts), nil
}
