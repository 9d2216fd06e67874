package kafka

import (
	"context"
	"fmt"
	"maps"
	"streamql/executor/connector"
	"strings"

	"streamql/catalog"
	"streamql/executor/format"
	"streamql/executor/vector"
)

// The 'upsert-kafka' connector (SPEC 1 connector table, SPEC 2.8; Flink's
// upsert-kafka): a topic as a table keyed by the stream's PRIMARY KEY. Each
// record's key is the key columns in 'key.format', its value the row in
// 'value.format' (all columns, or with 'value.fields-include' = 'EXCEPT_KEY'
// the others), and a record with a null value (a tombstone) deletes its key.
//
// As a source it reads the topic from its earliest offset and, as Flink's
// upsert-kafka source followed by its ChangelogNormalize, turns upserts into
// a changelog: the first value of a key is +I, a later different one -U (the
// row before) and +U, a tombstone -D of the last row (nothing for a key never
// seen); the last row of every key is state, charged to 'state.max-bytes'. A
// tombstone without a key is malformed. As a sink it takes changes
// (KindWriter): +I and +U write the row under its key, -D a tombstone, -U
// nothing (Flink's upsert sink). The Kafka work itself is the kafka
// connector's (kafkasource.go, kafkasink.go), on the stream seen as a kafka
// stream (asKafka).

// upsertFormats are the formats of a key or value (one row per record).
var upsertFormats = catalog.RowFormats()

func init() {
	connector.Register(&catalog.ConnectorSpec{
		Name: "upsert-kafka", Doc: "reads or writes a Kafka topic as upserts keyed by the PRIMARY KEY (SPEC 2.8); unbounded unless 'scan.bounded.mode' = 'latest-offset'",
		Upserts:   true,
		Configure: configureKafka,
		// (its source is the kafka connector's, which has record metadata
		// too; METADATA columns are refused on it, so it does not declare it)
		Caps: catalog.CapPartitioned | catalog.CapSinkKinds | catalog.CapDeadLetters | catalog.CapAbort | catalog.CapReread, // (never in a consumer group: every open reads every partition)
		Options: []catalog.OptionSpec{
			{Name: "topic", Kind: catalog.OptString, Required: true, Doc: "the topic to read or write"},
			{Name: "properties.bootstrap.servers", Kind: catalog.OptString, Required: true, Doc: "brokers to connect to, host:port[,host:port...]"},
			{Name: "key.format", Kind: catalog.OptEnum, Values: upsertFormats, Doc: "required: the format of each record's key: the PRIMARY KEY columns (csv or json)"},
			{Name: "value.format", Kind: catalog.OptEnum, Values: upsertFormats, Doc: "required: the format of each record's value: the row (csv or json)"},
			{Name: "key.fields-prefix", Kind: catalog.OptString, Doc: "a prefix of the key columns' names that the key's fields do not have (needs 'value.fields-include' = 'EXCEPT_KEY')"},
			{Name: "value.fields-include", Kind: catalog.OptEnum, Values: []string{"ALL", "EXCEPT_KEY"}, Default: "ALL", Doc: "ALL: the value holds every column; EXCEPT_KEY: every column but the key's"},
			{Name: "scan.bounded.mode", Kind: catalog.OptEnum, Values: []string{"unbounded", "latest-offset"}, Default: "unbounded", Doc: "where reading stops: never, or at the end offsets seen when the job starts"},
			{Name: "sink.delivery-guarantee", Kind: catalog.OptEnum, Values: []string{"at-least-once", "exactly-once"}, Default: "at-least-once", Doc: "as a sink: at-least-once flushes before the job succeeds; exactly-once writes in Kafka transactions"},
			{Name: "sink.transactional-id-prefix", Kind: catalog.OptString, Doc: "as an exactly-once sink: prefix of the transactional id"},
			{Name: "max-record-size", Kind: catalog.OptSize, Default: "64MiB", Doc: "longest key or value read; a longer one is malformed (bytes, or with a unit: 64kb, 64MiB, 1g; catalog.ParseSize)"},
			{Name: "errors", Kind: catalog.OptEnum, Values: []string{"side", "skip", "fail"}, Default: "side", Doc: "malformed records: side (to the errors side output), skip, or fail"},
			{Name: "errors.side", Kind: catalog.OptString, Default: "errors", Doc: "name of the errors side output"},
			{Name: "errors.stream", Kind: catalog.OptString, Doc: "sink stream that gets the malformed records instead of the errors side output (SPEC 2.5, dead letters)"},
			{Name: "properties.*", Kind: catalog.OptString, Doc: "a Kafka client property passed to the client (see the error of an unsupported one for the list)"},
		},
		Bounded:  func(o map[string]string) bool { return o["scan.bounded.mode"] == "latest-offset" },
		Validate: checkUpsertKafka,
	}, &connector.Driver{Open: func(ctx context.Context, st *catalog.Stream, env *connector.Env) (connector.Source, error) {
		if _, ok := st.Options["properties.group.id"]; ok {
			// a group would resume at its committed offsets, without the rows before
			// them that the changelog's -U and -D take back
			return nil, fmt.Errorf("stream %s: an upsert-kafka source reads its topic whole each time (the table is the last row of every key), so it reads in no consumer group: remove 'properties.group.id' (a sink may keep it)", st.Name)
		}
		ks := asKafka(st)
		rr, err := newUpsertReader(ctx, st, ks, env)
		if err != nil {
			return nil, err
		}
		return openKafka(ctx, ks, env, rr)
	}, OpenSink: func(ctx context.Context, st *catalog.Stream, env *connector.Env) (connector.SinkWriter, error) {
		w, err := OpenKafkaSink(ctx, asKafka(st), env)
		if err != nil {
			return nil, err
		}
		ks := w.(*kafkaSink)
		ks.upsert = true
		ks.valIdx, ks.valCols = valueColumns(st)
		ks.keyCols = keyColumnsNamed(st)
		return ks, nil
	}})
}

// checkUpsertKafka checks an upsert-kafka stream (SPEC 2.8, Flink's rules): a
// PRIMARY KEY is declared, 'key.fields-prefix' starts every key column's
// name and comes with 'value.fields-include' = 'EXCEPT_KEY', and the Kafka
// options pass the kafka connector's checks.
func checkUpsertKafka(st *catalog.Stream) error {
	o := st.Options
	if len(st.PrimaryKey) == 0 {
		return fmt.Errorf("connector 'upsert-kafka' needs PRIMARY KEY (k, ...) NOT ENFORCED among the columns: the key of each record (the key a later record replaces, a tombstone deletes)")
	}
	for _, k := range []string{"key.format", "value.format"} { // (enums: checked here, not as Required strings)
		if o[k] == "" {
			return fmt.Errorf("connector 'upsert-kafka' needs option '%s' ('csv' or 'json'), as Flink's", k)
		}
	}
	if p := o["key.fields-prefix"]; p != "" {
		if o["value.fields-include"] != "EXCEPT_KEY" {
			return &connector.OptionError{Key: "key.fields-prefix", Msg: "needs 'value.fields-include' = 'EXCEPT_KEY' (as Flink: with ALL the value's fields would be named differently from the key's)"}
		}
		for _, k := range st.PrimaryKey {
			if !strings.HasPrefix(k, p) {
				return &connector.OptionError{Key: "key.fields-prefix", Msg: fmt.Sprintf("the key column %s does not start with '%s'; every PRIMARY KEY column's name must", k, p)}
			}
		}
	}
	if len(st.PrimaryKey) == len(st.Columns) && o["value.fields-include"] == "EXCEPT_KEY" {
		return &connector.OptionError{Key: "value.fields-include", Msg: "'EXCEPT_KEY' leaves the value no column: every column is in the PRIMARY KEY; use 'ALL'"}
	}
	return checkKafka(asKafka(st))
}

// asKafka returns st as the kafka connector reads and writes it: the value
// in 'value.format', the key columns in 'key.format', read from the earliest
// offset (Flink's upsert-kafka always reads the whole topic).
func asKafka(st *catalog.Stream) *catalog.Stream {
	ks := *st
	ks.Options = maps.Clone(st.Options)
	o := ks.Options
	o["format"] = o["value.format"]
	o["scan.startup.mode"] = "earliest-offset"
	o["key.fields"] = strings.Join(st.PrimaryKey, ";")
	for _, k := range []string{"value.format", "key.fields-prefix", "value.fields-include"} {
		delete(o, k)
	}
	_ = ks.Configure() // (its options were checked: st's)
	return &ks
}

// keyColumnsNamed returns st's key columns as the record key names them:
// without 'key.fields-prefix'.
func keyColumnsNamed(st *catalog.Stream) []catalog.Column {
	var out []catalog.Column
	p := st.Options["key.fields-prefix"]
	for _, k := range st.PrimaryKey {
		c := st.Columns[st.Column(k)]
		c.Name = strings.TrimPrefix(c.Name, p)
		out = append(out, c)
	}
	return out
}

// valueColumns returns the indexes and columns of st that a record's value
// holds: all, or with 'value.fields-include' = 'EXCEPT_KEY' those not in the key.
func valueColumns(st *catalog.Stream) ([]int, []catalog.Column) {
	key := map[int]bool{}
	for _, k := range st.PrimaryKey {
		key[st.Column(k)] = true
	}
	var idx []int
	var cols []catalog.Column
	for i, c := range st.Columns {
		if st.Options["value.fields-include"] == "EXCEPT_KEY" && key[i] {
			continue
		}
		idx, cols = append(idx, i), append(cols, c)
	}
	return idx, cols
}

// upsertReader turns an upsert topic's records into a changelog (see the
// file's comment).
type upsertReader struct {
	cols    []catalog.Column
	keyIdx  []int // the stream's key columns
	keyDec  connector.ValueDecoder
	keyB    *vector.Batch // row 0: the record's key
	valIdx  []int         // the stream column of each value column
	valDec  connector.ValueDecoder
	valB    *vector.Batch          // row 0: the record's value
	rowDec  connector.ValueDecoder // a row as this reader keeps it (a JSON object of every column)
	vals    []*vector.Vec          // row 0 of the stream's columns, from keyB and valB
	keyOf   []*vector.Vec          // the key columns among vals
	keyCols []catalog.Column
	rows    map[string][]byte
	acct    connector.StateAccount
	err     error // the state budget's error
	kbuf    []byte
	rbuf    []byte
}

// stateAccount opens an account of the job's budget that env carries, or
// nil (no limit) when it carries none.
func stateAccount(env *connector.Env, operator, what string) connector.StateAccount {
	if env.Account != nil {
		return env.Account(operator, what)
	}
	return nil
}

// upsertEntry is the bytes a key's entry costs beyond its key and row: the
// map's slot and the slice headers.
const upsertEntry = 64

func newUpsertReader(ctx context.Context, st, ks *catalog.Stream, env *connector.Env) (*upsertReader, error) {
	u := &upsertReader{cols: st.Columns, rows: map[string][]byte{},
		acct: stateAccount(env, "upsert source of stream "+st.Name, "the last row of every key")}
	sub := func(cols []catalog.Column, f string) (connector.ValueDecoder, *vector.Batch, error) {
		x := &catalog.Stream{Name: st.Name, Columns: cols, EventTime: -1, Options: map[string]string{"format": f, "max-record-size": st.Options["max-record-size"]}}
		d, err := env.NewValueDecoder(x)
		return d, vector.NewBatch(x.Types()), err
	}
	var err error
	if u.keyDec, u.keyB, err = sub(keyColumnsNamed(st), st.Options["key.format"]); err != nil {
		return nil, err
	}
	var vcols []catalog.Column
	u.valIdx, vcols = valueColumns(st)
	if u.valDec, u.valB, err = sub(vcols, st.Options["value.format"]); err != nil {
		return nil, err
	}
	if u.rowDec, _, err = sub(st.Columns, "json"); err != nil {
		return nil, err
	}
	u.vals = make([]*vector.Vec, len(st.Columns))
	u.keyCols = keyColumnsNamed(st)
	for j, k := range st.PrimaryKey {
		i := st.Column(k)
		u.keyIdx = append(u.keyIdx, i)
		u.vals[i] = u.keyB.Cols[j]
		u.keyOf = append(u.keyOf, u.keyB.Cols[j])
	}
	for j, i := range u.valIdx {
		if u.vals[i] == nil { // (with ALL the key's columns come from the key)
			u.vals[i] = u.valB.Cols[j]
		}
	}
	return u, nil
}

// appendRecord implements recordReader.
func (u *upsertReader) appendRecord(b *vector.Batch, key, value []byte, pos int64) (string, bool) {
	if b.Kinds == nil {
		b.Kinds = make([]vector.RowKind, vector.Cap)
	}
	if b.N+2 > vector.Cap {
		return "", true
	}
	if key == nil {
		if value == nil {
			return "a tombstone (null value) without a key: upsert-kafka deletes by the record's key, the PRIMARY KEY columns in 'key.format'", false
		}
		return "a record without a key: upsert-kafka needs each record's key, the PRIMARY KEY columns in 'key.format'", false
	}
	for _, v := range u.keyB.Cols {
		v.ResetArena()
	}
	if r := u.keyDec.DecodeValue(u.keyB, key); r != "" {
		return "key: " + r, false
	}
	u.kbuf = format.AppendJSONFields(u.kbuf[:0], u.keyCols, u.keyOf, 0)
	old, had := u.rows[string(u.kbuf)]
	if value == nil { // a tombstone
		if !had {
			return "", false // (Flink drops the delete of a key it never saw)
		}
		if r := u.emit(b, old, vector.Delete, pos); r != "" {
			return r, false
		}
		b.N++
		delete(u.rows, string(u.kbuf))
		if u.acct != nil {
			u.acct.Grow(-int64(len(u.kbuf) + len(old) + upsertEntry))
		}
		return "", false
	}
	for _, v := range u.valB.Cols {
		v.ResetArena()
	}
	if r := u.valDec.DecodeValue(u.valB, value); r != "" {
		return "value: " + r, false
	}
	for j, i := range u.keyIdx {
		if u.keyOf[j].Null[0] {
			return "key: column " + u.cols[i].Name + " is NULL; a PRIMARY KEY column needs a value", false
		}
	}
	u.rbuf = append(format.AppendJSONFields(append(u.rbuf[:0], '{'), u.cols, u.vals, 0), '}')
	if had && string(old) == string(u.rbuf) {
		return "", false // the same row again: no change (Flink's ChangelogNormalize)
	}
	row := append([]byte(nil), u.rbuf...) // (the key's state: one allocation per change)
	grow := int64(len(row))
	if had {
		if r := u.emit(b, old, vector.UpdateBefore, pos); r != "" {
			return r, false
		}
		b.N++
		if r := u.emit(b, row, vector.UpdateAfter, pos); r != "" {
			b.N--
			return r, false
		}
		b.N--
		grow -= int64(len(old))
	} else {
		if r := u.emit(b, row, vector.Insert, pos); r != "" {
			return r, false
		}
		grow += int64(len(u.kbuf) + upsertEntry)
	}
	u.rows[string(u.kbuf)] = row
	if had {
		b.N += 2
	} else {
		b.N++
	}
	if u.acct != nil && u.err == nil {
		u.err = u.acct.Grow(grow)
	}
	return "", false
}

// failure implements recordReader: the state budget's error, once the keys'
// rows pass 'state.max-bytes'.
func (u *upsertReader) failure() error { return u.err }

// emit decodes row (a kept row, JSON) as row b.N of b with kind k; b.N is
// left as it was.
func (u *upsertReader) emit(b *vector.Batch, row []byte, k vector.RowKind, pos int64) string {
	if r := u.rowDec.DecodeValue(b, row); r != "" {
		return "value: " + r
	}
	b.Kinds[b.N], b.Pos[b.N] = k, pos
	return ""
}
