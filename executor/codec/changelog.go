package codec

import (
	"io"

	"streamql/catalog"
	"streamql/executor/cdc"
	"streamql/executor/inbuf"
	"streamql/executor/vector"
)

// canalRecord and maxwellRecord are the code of the changelog formats a
// stream reads and no sink writes (SPEC 2.8: canal-json, maxwell-json).
var (
	canalRecord   = changelogRecord(cdc.Canal)
	maxwellRecord = changelogRecord(cdc.Maxwell)
)

// debeziumRecord is debezium-json's code (SPEC 2.8): read as the other
// changelog formats, and written by a file sink as Debezium's envelope
// (cdc.Encoder). Its record is a change, not a row: it has no Row encoder.
var debeziumRecord = func() Record {
	r := changelogRecord(cdc.Debezium)
	r.Lines = func(cols []catalog.Column, _ LineOptions) LineEncoder {
		return debeziumLines{cdc.NewEncoder(cols)}
	}
	return r
}()

// changelogRecord returns the reading side of a changelog format whose
// records are envelopes e: executor/cdc reads each record into rows with
// kinds, JSON lines from a stream (cdc.Decoder) or one record at a time
// (changeValues).
func changelogRecord(e cdc.Envelope) Record {
	changes := func(st *catalog.Stream, o DecodeOptions) (*cdc.Changes, error) {
		co, err := cdc.OptionsOf(st, e)
		if err != nil {
			return nil, err
		}
		return cdc.NewChanges(co, st.Names(), st.Types(), o.NotNull)
	}
	return Record{
		Decoder: func(st *catalog.Stream, r io.Reader, o DecodeOptions) (Decoder, error) {
			ch, err := changes(st, o)
			if err != nil {
				return nil, err
			}
			return cdc.NewDecoder(r, ch, cdc.ReaderOptions{Lines: o.Lines, MaxRecord: o.MaxRecord, Continues: o.Continues}), nil
		},
		Changes: func(st *catalog.Stream, o DecodeOptions) (ChangeDecoder, error) {
			ch, err := changes(st, o)
			if err != nil {
				return nil, err
			}
			return changeValues{ch, o.MaxRecord}, nil
		},
	}
}

// changeValues is the value decoder of a changelog format (ChangeDecoder):
// a record may be several rows with kinds, or none; a record longer than max
// bytes is malformed (SPEC 1, 'max-record-size').
type changeValues struct {
	ch  *cdc.Changes
	max int
}

// Append implements ChangeDecoder.
func (d changeValues) Append(b *vector.Batch, rec []byte, pos int64) (string, bool) {
	if len(rec) > d.max {
		return inbuf.TooLong(d.max), false
	}
	return d.ch.Append(b, rec, pos)
}

// sizedValues is a ValueDecoder whose values longer than max bytes are
// malformed (SPEC 1, 'max-record-size').
type sizedValues struct {
	ValueDecoder
	max int
}

func (d sizedValues) DecodeValue(b *vector.Batch, rec []byte) string {
	if len(rec) > d.max {
		return inbuf.TooLong(d.max)
	}
	return d.ValueDecoder.DecodeValue(b, rec)
}

// debeziumLines is debezium-json's LineEncoder (cdc.Encoder): no header.
type debeziumLines struct{ e *cdc.Encoder }

func (l debeziumLines) Header(dst []byte) []byte { return dst }

func (l debeziumLines) Append(dst []byte, vals []*vector.Vec, i int, k vector.RowKind) []byte {
	return l.e.Append(dst, vals, i, k)
}

func (l debeziumLines) End(dst []byte) []byte { return l.e.End(dst) }
