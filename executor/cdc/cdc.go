// Package cdc owns the changelog formats of SPEC 2.8, read as Flink's
// flink-json reads them: debezium-json (Debezium's envelope: before, after,
// op = c/r/u/d; with 'debezium-json.schema-include' the envelope inside
// Kafka Connect's {"schema", "payload"}), canal-json (data, old, type =
// INSERT/UPDATE/DELETE, several rows per record) and maxwell-json (data, old,
// type = insert/update/delete); and Debezium's envelope written from row
// kinds (Encoder). A record becomes rows with kinds (vector.Batch.Kinds): an
// insert +I, an update -U (the row before) and +U (the row after), a delete
// -D. A record that cannot be read so (an unknown op, an update without its
// row before, a value its column cannot hold) is malformed: it goes to the
// errors output with its position and text (SPEC 1 bad input), never stops
// the job.
//
// The JSON itself is read by package jsondec (SPEC 1's json rules): the
// envelope's members as VARCHAR texts, then each row object as the stream's
// columns. This package must not import the planner, the connectors or the
// engine above it: executor and executor/connector call it.
package cdc

import (
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"streamql/catalog"
	"streamql/executor/jsondec"
	"streamql/executor/records"
	"streamql/executor/vector"
)

// Envelope is the shape of a changelog format's records, which Changes
// reads (SPEC 2.8); executor/codec registers each format's.
type Envelope uint8

const (
	// Debezium is debezium-json's envelope: before, after, op = c/r/u/d.
	Debezium Envelope = iota + 1
	// Canal is canal-json's: data, old, type = INSERT/UPDATE/DELETE,
	// database, table, isDdl.
	Canal
	// Maxwell is maxwell-json's: data, old, type = insert/update/delete.
	Maxwell
)

// Options are a changelog format's options (SPEC 2.8, Flink's names).
type Options struct {
	// Format is the format's name ("debezium-json"), which prefixes the
	// decoder's messages.
	Format string
	// Envelope is the shape of its records.
	Envelope Envelope
	// SchemaInclude is 'debezium-json.schema-include': each record is
	// {"schema": ..., "payload": envelope}.
	SchemaInclude bool
	// Database and Table are canal-json's 'canal-json.database.include' and
	// 'canal-json.table.include': only records whose database (table) the
	// expression matches whole are read; nil reads all.
	Database, Table *regexp.Regexp
}

// OptionsOf returns the options of st, whose 'format' is a changelog format
// of envelope e (its codec.Record's): its name and the format's options, or
// an error naming the stream and the option (an include pattern that does
// not compile).
func OptionsOf(st *catalog.Stream, e Envelope) (o Options, err error) {
	c := st.Shared()
	o = Options{Format: c.Format, Envelope: e, SchemaInclude: c.DebeziumSchemaInclude}
	for _, p := range []struct {
		key, v string
		re     **regexp.Regexp
	}{{"canal-json.database.include", c.CanalDatabaseInclude, &o.Database}, {"canal-json.table.include", c.CanalTableInclude, &o.Table}} {
		if v := p.v; v != "" {
			re, err := regexp.Compile(`^(?:` + v + `)$`)
			if err != nil {
				return o, fmt.Errorf("stream %s: option '%s': %v (RE2 syntax)", st.Name, p.key, err)
			}
			*p.re = re
		}
	}
	return o, nil
}

// The envelope members each format reads, in the order of Changes.env's columns.
var envelopes = map[Envelope][]string{
	Debezium: {"before", "after", "op"},
	Canal:    {"data", "old", "type", "database", "table", "isDdl"},
	Maxwell:  {"data", "old", "type"},
}

// Changes reads one changelog record at a time into rows with kinds (the
// Kafka path, and Decoder's). It is not safe for concurrent use.
type Changes struct {
	o       Options
	env     *jsondec.Decoder // the envelope's members, as VARCHAR texts
	envB    *vector.Batch    // one row: the envelope
	payload *jsondec.Decoder // schema-include: {"payload": ...}
	payB    *vector.Batch
	row     *jsondec.Decoder // a row object, as the stream's columns
	arena   []byte           // merged before-rows (canal, maxwell) of the current batch
	rows    []Span           // scratch: a canal record's data rows
	old     []Span           // and its old rows
}

// NewChanges returns a reader of o's format into rows of the columns names,
// of types types (the stream's); notNull marks the columns whose NULL makes a
// row malformed (the event-time column, SPEC 2.3; nil = none).
func NewChanges(o Options, names []string, types []catalog.Type, notNull []bool) (*Changes, error) {
	members, ok := envelopes[o.Envelope]
	if !ok {
		return nil, fmt.Errorf("cdc: format '%s' has no envelope (Options.Envelope): register it in executor/codec", o.Format)
	}
	vt := make([]catalog.Type, len(members))
	for i := range vt {
		vt[i] = catalog.Varchar
	}
	empty := strings.NewReader("")
	c := &Changes{
		o:    o,
		env:  jsondec.NewDecoder(empty, members, vt, jsondec.Options{}),
		envB: vector.NewBatch(vt),
		row:  jsondec.NewDecoder(empty, names, types, jsondec.Options{NotNull: notNull}),
	}
	if o.SchemaInclude {
		c.payload = jsondec.NewDecoder(empty, []string{"payload"}, []catalog.Type{catalog.Varchar}, jsondec.Options{})
		c.payB = vector.NewBatch([]catalog.Type{catalog.Varchar})
	}
	return c, nil
}

// Append reads rec, one whole record, as rows b.N, b.N+1, ... of b with
// their kinds in b.Kinds (allocated once) and pos as their position, and
// advances b.N. A record of no rows (a Kafka tombstone of Debezium, a canal
// DDL record, a table not included) adds none. It returns the reason when
// rec is malformed (b unchanged), and full = true, adding nothing, when the
// rows do not fit in b's room left: call again with an emptier batch. The
// rows' VARCHAR values are valid while rec is and until Append is next
// called with b.N = 0.
func (c *Changes) Append(b *vector.Batch, rec []byte, pos int64) (reason string, full bool) {
	if b.N == 0 {
		c.arena = c.arena[:0]
		for _, v := range c.envB.Cols {
			v.ResetArena()
		}
		if c.payB != nil {
			c.payB.Cols[0].ResetArena()
		}
	}
	if len(rec) == 0 {
		return "", false // a Kafka tombstone (a null value): Flink's formats skip it
	}
	if b.Kinds == nil {
		b.Kinds = make([]vector.RowKind, vector.Cap)
	}
	if c.payload != nil {
		if r := c.payload.DecodeValue(c.payB, rec); r != "" {
			return r, false
		}
		if c.payB.Cols[0].Null[0] {
			return `'debezium-json.schema-include' is true but the record has no "payload"`, false
		}
		rec = c.payB.Cols[0].S[0]
	}
	if r := c.env.DecodeValue(c.envB, rec); r != "" {
		if c.payload != nil {
			return "payload: " + r, false
		}
		return r, false
	}
	switch c.o.Envelope {
	case Debezium:
		return c.debezium(b, pos)
	case Canal:
		return c.canal(b, pos)
	}
	return c.maxwell(b, pos)
}

// member returns the envelope's member i: its text (a string unquoted, an
// object or array as compact JSON) and whether it is present and not null.
func (c *Changes) member(i int) ([]byte, bool) {
	v := c.envB.Cols[i]
	return v.S[0], !v.Null[0]
}

// emit decodes obj as row b.N+k with kind kind; a reason names the member
// what (with its index in an array when idx >= 0).
func (c *Changes) emit(b *vector.Batch, k int, obj []byte, kind vector.RowKind, pos int64, what string, idx int) string {
	at := b.N
	b.N += k // the row decoder writes row b.N
	r := c.row.DecodeValue(b, obj)
	b.N = at
	if r != "" {
		if idx >= 0 {
			what += "[" + strconv.Itoa(idx) + "]"
		}
		return what + ": " + r
	}
	b.Kinds[at+k], b.Pos[at+k] = kind, pos
	return ""
}

// debezium reads Debezium's envelope as Flink's debezium-json does: c and r
// insert after, u is -U before and +U after, d deletes before; an update or
// delete without before and any other op are malformed.
func (c *Changes) debezium(b *vector.Batch, pos int64) (string, bool) {
	before, hasBefore := c.member(0)
	after, hasAfter := c.member(1)
	op, hasOp := c.member(2)
	if !hasOp {
		return `no "op": a Debezium record's op is c, r, u or d`, false
	}
	need := 1
	if string(op) == "u" {
		need = 2
	}
	if b.N+need > vector.Cap {
		return "", true
	}
	switch string(op) {
	case "c", "r":
		if !hasAfter {
			return fmt.Sprintf(`op "%s" without "after" (the row inserted)`, op), false
		}
		if r := c.emit(b, 0, after, vector.Insert, pos, "after", -1); r != "" {
			return r, false
		}
	case "u":
		if !hasBefore {
			return `the "before" of an update (op "u") is null: Debezium must send the old row (for Postgres, set the table's REPLICA IDENTITY to FULL)`, false
		}
		if !hasAfter {
			return `op "u" without "after" (the row after the update)`, false
		}
		if r := c.emit(b, 0, before, vector.UpdateBefore, pos, "before", -1); r != "" {
			return r, false
		}
		if r := c.emit(b, 1, after, vector.UpdateAfter, pos, "after", -1); r != "" {
			return r, false
		}
	case "d":
		if !hasBefore {
			return `the "before" of a delete (op "d") is null: Debezium must send the old row (for Postgres, set the table's REPLICA IDENTITY to FULL)`, false
		}
		if r := c.emit(b, 0, before, vector.Delete, pos, "before", -1); r != "" {
			return r, false
		}
	default:
		return fmt.Sprintf(`unknown "op" value "%s": Debezium's are c (create), r (read), u (update) and d (delete)`, shorten(op)), false
	}
	b.N += need
	return "", false
}

// canal reads a Canal record as Flink's canal-json does: the rows of data
// are inserted (INSERT) or deleted (DELETE); for UPDATE each row of data is
// +U after a -U of the row before, which is the row with the members of the
// same row of old (the columns that changed) put back; CREATE and other DDL
// records (isDdl true) are skipped, so are databases and tables not included.
func (c *Changes) canal(b *vector.Batch, pos int64) (string, bool) {
	if ddl, ok := c.member(5); ok && string(ddl) == "true" {
		return "", false
	}
	for i, re := range []*regexp.Regexp{c.o.Database, c.o.Table} {
		if re == nil {
			continue
		}
		if name, ok := c.member(3 + i); !ok || !re.Match(name) {
			return "", false
		}
	}
	typ, hasType := c.member(2)
	if !hasType {
		return `no "type": a Canal record's type is INSERT, UPDATE or DELETE`, false
	}
	var kind vector.RowKind
	switch string(typ) {
	case "INSERT":
		kind = vector.Insert
	case "UPDATE":
		kind = vector.UpdateAfter
	case "DELETE":
		kind = vector.Delete
	case "CREATE":
		return "", false // a DDL record
	default:
		return fmt.Sprintf(`unknown "type" value "%s": Canal's are INSERT, UPDATE, DELETE (and CREATE, skipped)`, shorten(typ)), false
	}
	data, ok := c.member(0)
	if !ok || len(data) == 0 || data[0] != '[' {
		return fmt.Sprintf(`type %s needs "data", an array of rows`, typ), false
	}
	c.rows = elements(c.rows[:0], data)
	rows := c.rows
	var old []Span
	if kind == vector.UpdateAfter {
		o, ok := c.member(1)
		if !ok || len(o) == 0 || o[0] != '[' {
			return `type UPDATE needs "old", an array of the changed columns' old values per row`, false
		}
		c.old = elements(c.old[:0], o)
		if old = c.old; len(old) != len(rows) {
			return fmt.Sprintf(`type UPDATE has %d rows in "data" but %d in "old"`, len(rows), len(old)), false
		}
	}
	need := len(rows)
	if kind == vector.UpdateAfter {
		need *= 2
	}
	if b.N+need > vector.Cap {
		if b.N == 0 {
			return fmt.Sprintf("one record holds %d rows, more than the %d a batch holds", need, vector.Cap), false
		}
		return "", true
	}
	k := 0
	for i, s := range rows {
		row := data[s.Start:s.End]
		if kind == vector.UpdateAfter {
			o := c.envB.Cols[1].S[0]
			if r := c.emit(b, k, c.merge(row, o[old[i].Start:old[i].End]), vector.UpdateBefore, pos, "old", i); r != "" {
				return r, false
			}
			k++
		}
		if r := c.emit(b, k, row, kind, pos, "data", i); r != "" {
			return r, false
		}
		k++
	}
	b.N += k
	return "", false
}

// maxwell reads a Maxwell record as Flink's maxwell-json does: insert and
// delete carry the row in data; update is -U of data with old's members (the
// columns that changed) put back, then +U data; any other type is malformed.
func (c *Changes) maxwell(b *vector.Batch, pos int64) (string, bool) {
	typ, hasType := c.member(2)
	if !hasType {
		return `no "type": a Maxwell record's type is insert, update or delete`, false
	}
	data, hasData := c.member(0)
	need := 1
	if string(typ) == "update" {
		need = 2
	}
	if b.N+need > vector.Cap {
		return "", true
	}
	switch string(typ) {
	case "insert", "update", "delete":
	default:
		return fmt.Sprintf(`unknown "type" value "%s": Maxwell's are insert, update and delete`, shorten(typ)), false
	}
	if !hasData {
		return fmt.Sprintf(`type %s without "data" (the row)`, typ), false
	}
	switch string(typ) {
	case "insert":
		if r := c.emit(b, 0, data, vector.Insert, pos, "data", -1); r != "" {
			return r, false
		}
	case "delete":
		if r := c.emit(b, 0, data, vector.Delete, pos, "data", -1); r != "" {
			return r, false
		}
	default:
		old, ok := c.member(1)
		if !ok {
			return `type update without "old" (the changed columns' old values)`, false
		}
		if r := c.emit(b, 0, c.merge(data, old), vector.UpdateBefore, pos, "old", -1); r != "" {
			return r, false
		}
		if r := c.emit(b, 1, data, vector.UpdateAfter, pos, "data", -1); r != "" {
			return r, false
		}
	}
	b.N += need
	return "", false
}

// merge returns the object row with old's members after its own, so that
// old's values win (jsondec: the last of duplicate members wins): the row
// before an update, from the row after it and the changed columns' old
// values (Canal's and Maxwell's "old"). A member of old that is not an object
// leaves row as it is (the row decoder then reports what is wrong). The text
// lives in c.arena until the next batch.
func (c *Changes) merge(row, old []byte) []byte {
	if len(old) < 2 || old[0] != '{' || len(row) < 2 || row[0] != '{' {
		return row
	}
	ri, oi := row[1:len(row)-1], old[1:len(old)-1]
	start := len(c.arena)
	c.arena = append(c.arena, '{')
	c.arena = append(c.arena, ri...)
	if len(ri) > 0 && len(oi) > 0 {
		c.arena = append(c.arena, ',')
	}
	c.arena = append(c.arena, oi...)
	c.arena = append(c.arena, '}')
	return c.arena[start:len(c.arena):len(c.arena)]
}

// Span is one element of a JSON array: text[Start:End].
type Span struct{ Start, End int }

// elements appends to out the elements of arr, a compact JSON array that
// jsondec has checked, and returns out.
func elements(out []Span, arr []byte) []Span {
	depth, start, inStr := 0, 1, false
	for i := 1; i < len(arr)-1; i++ {
		ch := arr[i]
		if inStr {
			if ch == '\\' {
				i++
			} else if ch == '"' {
				inStr = false
			}
			continue
		}
		switch ch {
		case '"':
			inStr = true
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, Span{start, i})
				start = i + 1
			}
		}
	}
	if len(arr) > 2 {
		out = append(out, Span{start, len(arr) - 1})
	}
	return out
}

// shorten returns a value's text cut for a message.
func shorten(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "..."
	}
	return string(b)
}

// Decoder reads a changelog format from a byte stream, one record per line
// (SPEC 1's json lines: BOM, blank lines, 'max-record-size', 'encoding'), into
// batches with kinds. It implements the executor's Decoder.
type Decoder struct {
	c      *Changes
	r      records.Reader
	recs   *vector.Batch // one VARCHAR column: the records' texts, in the reader's buffer
	bad    []records.BadRow
	at     int // the next record of recs
	badAt  int // the next of bad
	ended  bool
	pend   int // the scan's resume position
	errEnd error
}

// ReaderOptions are what the byte stream is read with (SPEC 1).
type ReaderOptions struct {
	Lines     records.LineChecker // the 'encoding' layer; nil = none
	MaxRecord int                 // 'max-record-size' in bytes; 0 = the default
	Continues bool                // a later job's stdin: no BOM
}

// NewDecoder returns a Decoder of c's format over r.
func NewDecoder(r io.Reader, c *Changes, ro ReaderOptions) *Decoder {
	d := &Decoder{c: c, recs: vector.NewBatch([]catalog.Type{catalog.Varchar})}
	d.r.Init(r, (*lineFormat)(d), records.Config{Name: c.o.Format, Types: []catalog.Type{catalog.Varchar}, BufSize: 64 << 10,
		Lines: ro.Lines, MaxRecord: ro.MaxRecord, Continues: ro.Continues})
	return d
}

// BytesRead returns the bytes read from the input so far.
func (d *Decoder) BytesRead() int64 { return d.r.BytesRead() }

// Decode resets b and fills it with the rows of the next records (b.Kinds
// set), appending malformed records to *bad with their line and text; it
// returns io.EOF when it returns nothing and the input ended. VARCHAR values
// and raw texts are valid until the next call.
func (d *Decoder) Decode(b *vector.Batch, bad *[]records.BadRow) error {
	b.Reset()
	for {
		if d.at >= d.recs.N && d.badAt >= len(d.bad) {
			if d.ended {
				return d.errEnd
			}
			if b.N > 0 || len(*bad) > 0 {
				return nil // the reader's buffer must stay until these rows are used
			}
			d.at, d.badAt, d.bad = 0, 0, d.bad[:0]
			err := d.r.Decode(d.recs, &d.bad)
			if err != nil {
				d.ended, d.errEnd = true, err
				if d.recs.N == 0 && len(d.bad) == 0 {
					return err
				}
			}
		}
		for d.badAt < len(d.bad) && d.bad[d.badAt].Index <= d.at {
			x := d.bad[d.badAt]
			x.Index = b.N
			*bad = append(*bad, x)
			d.badAt++
		}
		if d.at >= d.recs.N {
			continue
		}
		rec := d.recs.Cols[0].S[d.at]
		pos := d.recs.Pos[d.at]
		reason, full := d.c.Append(b, rec, pos)
		if full {
			return nil
		}
		d.at++
		if reason != "" {
			*bad = append(*bad, records.BadRow{Index: b.N, Line: pos, Raw: rec, Reason: reason})
		}
	}
}

// lineFormat is the Decoder as the records.Reader sees it: a record is one
// line, kept whole as the batch's VARCHAR value.
type lineFormat Decoder

// Scan implements records.Format.
func (f *lineFormat) Scan(data []byte, base int, eof bool) (int, int, records.Kind, bool) {
	n, adv, blank, ok := jsondec.ScanLine(data, &f.pend, eof)
	var k records.Kind
	if blank {
		k = records.Blank
	}
	return n, adv, k, ok
}

// Dropped implements records.Format.
func (f *lineFormat) Dropped() { f.pend = 0 }

// Refilled implements records.Format.
func (f *lineFormat) Refilled() {}

// Record implements records.Format: the line is kept as it is; Changes reads it.
func (f *lineFormat) Record(b *vector.Batch, rec []byte) string {
	b.Cols[0].S[b.N], b.Cols[0].Null[b.N] = rec[:len(rec):len(rec)], false
	return ""
}
