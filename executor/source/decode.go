package source

import (
	"fmt"
	"io"

	"streamql/catalog"
	"streamql/executor/codec"
	"streamql/executor/connector"
	"streamql/executor/inbuf"
	"streamql/executor/records"
	"streamql/executor/textenc"
	"streamql/executor/vector"
)

// Decoder turns a byte stream into batches of a stream's rows (a format's
// codec.Record.Decoder; connector.Decoder). Decode resets b, fills it with up
// to vector.Cap rows, appends malformed rows to *bad, and returns io.EOF
// when it returns nothing and the input ended.
type Decoder = connector.Decoder

// NewDecoder returns the decoder of st's 'format' (its codec.Record) over r, with st's
// format options, 'max-record-size' and 'encoding' (SPEC 1). A stream whose
// connector hands back what a job does not use (catalog.CapHandBack, as its
// spec declares: stdin) keeps the input's bytes to give back; continues says
// r goes on from where an earlier job stopped. An input not in UTF-8 goes through a
// textenc.Reader, which transcodes it line by line and tells the decoder which
// lines held invalid bytes, so those rows are malformed with their input bytes as
// raw text.
func NewDecoder(st *catalog.Stream, r io.Reader, continues bool) (Decoder, error) {
	c := st.Shared()
	enc, err := textenc.Lookup(c.Encoding)
	if err != nil {
		return nil, fmt.Errorf("stream %s: option 'encoding': %v", st.Name, err)
	}
	maxRec := maxRecordSize(st)
	handBack := st.Caps().Has(catalog.CapHandBack)
	continues = handBack && continues // no BOM, no header: SPEC 1, stdin
	var tr *textenc.Reader
	var lines records.LineChecker
	if !enc.IsUTF8() {
		tr = textenc.NewReader(r, enc)
		tr.SetMaxLine(maxRec)
		// a later job reads on from the first row this one did not use; a
		// changelog decoder (executor/cdc) hands nothing back, so keeps nothing
		if f := catalog.LookupFormat(c.Format); handBack && (f == nil || !f.Changelog) {
			tr.KeepRest()
		}
		if continues {
			tr.NoBOM()
		}
		r, lines = tr, tr
	}
	rec, err := codec.Of(st)
	if err != nil {
		return nil, err
	}
	var dec Decoder
	if dec, err = rec.Decoder(st, r, codec.DecodeOptions{NotNull: notNullTime(st), Lines: lines, MaxRecord: maxRec, Continues: continues}); err != nil {
		return nil, err
	}
	if tr != nil {
		dec = transcoded{dec, tr}
	}
	return dec, nil
}

// notNullTime marks st's event time column, whose NULL makes a row
// malformed (SPEC 2.3), or returns nil for a stream without one.
func notNullTime(st *catalog.Stream) []bool {
	if st.EventTime < 0 {
		return nil
	}
	notNull := make([]bool, len(st.Columns))
	notNull[st.EventTime] = true
	return notNull
}

// maxRecordSize returns st's 'max-record-size' in bytes (SPEC 1; default
// inbuf.DefaultMaxRecord when it has none), parsed when the stream was
// declared (catalog.SharedConfig).
func maxRecordSize(st *catalog.Stream) int {
	if n := st.Shared().MaxRecordSize; n > 0 {
		return int(n)
	}
	return inbuf.DefaultMaxRecord
}

// NewValueDecoder returns the decoder of st's 'format' and format options for
// sources whose every record is given on its own (Kafka record values,
// SPEC 2.5): the format's codec.Record.Values, with a value longer than
// 'max-record-size' malformed. An 'encoding' other than UTF-8 is an error
// naming the stream (the kafka connector refuses it when the stream is
// declared); so is a changelog format (read with NewChangeDecoder).
func NewValueDecoder(st *catalog.Stream) (connector.ValueDecoder, error) {
	rec, err := codec.Of(st)
	if err != nil {
		return nil, err
	}
	c := st.Shared()
	if rec.Values == nil {
		return nil, fmt.Errorf("stream %s: format '%s' is a changelog, whose record is rows with kinds (SPEC 2.8): read it with the connector's change decoder", st.Name, c.Format)
	}
	enc, err := textenc.Lookup(c.Encoding)
	if err != nil {
		return nil, fmt.Errorf("stream %s: option 'encoding': %v", st.Name, err)
	}
	if !enc.IsUTF8() {
		return nil, fmt.Errorf("stream %s: option 'encoding' = '%s': record values are read as UTF-8 only; remove the option", st.Name, c.Encoding)
	}
	return rec.Values(st, codec.DecodeOptions{NotNull: notNullTime(st), MaxRecord: maxRecordSize(st)})
}

// NewChangeDecoder returns the decoder of st's changelog 'format'
// (catalog.FormatSpec.Changelog, SPEC 2.8) for sources whose every record
// is given on its own (Kafka record values): the format's
// codec.Record.Changes, a record being rows with kinds, with a value longer
// than 'max-record-size' malformed. A format that is not a changelog is an
// error naming the stream.
func NewChangeDecoder(st *catalog.Stream) (connector.ChangeDecoder, error) {
	rec, err := codec.Of(st)
	if err != nil {
		return nil, err
	}
	if rec.Changes == nil {
		return nil, fmt.Errorf("stream %s: format '%s' is not a changelog: read it with the connector's value decoder", st.Name, st.Shared().Format)
	}
	return rec.Changes(st, codec.DecodeOptions{NotNull: notNullTime(st), MaxRecord: maxRecordSize(st)})
}

// transcoded is a decoder reading through a textenc.Reader: its progress counts
// the source's bytes, not the transcoded ones.
type transcoded struct {
	Decoder
	tr *textenc.Reader
}

func (t transcoded) BytesRead() int64 { return t.tr.BytesRead() }

// textRester is a format decoder that gives back the text it did not use
// (csvdec.Decoder.Rest, jsondec.Decoder.Rest).
type textRester interface {
	Rest(rows int) []byte
	RestAfter(rows, bad int) []byte
}

// Decode implements Decoder. Starting a batch, it lets the textenc.Reader
// forget the source bytes of the text the decoder has used for good (only
// kept for a stream that hands back, see Rest).
func (t transcoded) Decode(b *vector.Batch, bad *[]records.BadRow) error {
	if r, ok := t.Decoder.(textRester); ok {
		t.tr.Forget(t.Decoder.BytesRead() - int64(len(r.Rest(-1))))
	}
	return t.Decoder.Decode(b, bad)
}

// Rest gives back the source bytes, exactly as read, of the rows after the
// first rows good rows of the last batch (rows < 0: after all of them, see
// csvdec.Decoder.Rest), for the next job reading the session's stdin (SPEC 1).
// It returns nil for a source that does not hand back (catalog.CapHandBack).
func (t transcoded) Rest(rows int) []byte {
	r, ok := t.Decoder.(textRester)
	if !ok || !t.tr.Keeps() {
		return nil
	}
	return t.tr.Rest(r.Rest(rows))
}

// RestAfter is Rest after the first rows good rows and the first bad
// malformed rows of the last batch (csvdec.Decoder.RestAfter).
func (t transcoded) RestAfter(rows, bad int) []byte {
	r, ok := t.Decoder.(textRester)
	if !ok || !t.tr.Keeps() {
		return nil
	}
	return t.tr.Rest(r.RestAfter(rows, bad))
}

// RestLine is the format decoder's RestLine (csvdec.Decoder.RestLine): lines
// map 1:1 through the transcoder, so the line where the handed-back rest
// starts is the same in the source. It returns 0 when the decoder cannot tell.
func (t transcoded) RestLine(rows, bad int) int64 {
	if r, ok := t.Decoder.(interface{ RestLine(rows, bad int) int64 }); ok {
		return r.RestLine(rows, bad)
	}
	return 0
}
