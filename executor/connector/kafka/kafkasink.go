package kafka

import (
	"context"
	"errors"
	"fmt"
	"streamql/executor/connector"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"streamql/catalog"
	"streamql/executor/codec"
	"streamql/executor/vector"
)

// errAborted is the failure a job's Kafka sources see once an exactly-once
// sink aborted the failed job's open transaction.
var errAborted = errors.New("the job failed and its open transaction was aborted")

// kafkaSinkClose bounds how long closing a Kafka sink waits for the broker to
// acknowledge what was written (a broker restarting within it loses nothing).
var kafkaSinkClose = 2 * time.Minute

// kafkaSink is the 'kafka' connector's sink (SPEC 2.5): one record per row,
// its value the row in 'format' (a json object, or a csv line without header
// and line end), its key the 'key.fields' columns in 'key.format', placed by
// Kafka's murmur2 partitioner as the Java client places them (no key: sticky
// partitioning). 'at-least-once' flushes the producer at every checkpoint and
// at Close, failing the job when a record was not acknowledged;
// 'exactly-once' writes in the transactions of the job's one transactional
// producer (kafkaTxn, id by kafkaTxnID), committed every KafkaCommitEvery,
// at every checkpoint and at Close. Write and Flush run on the job's
// goroutine; franz-go's delivery callbacks on its own, touching only err.
type kafkaSink struct {
	st    *catalog.Stream
	topic string
	cl    *kgo.Client
	job   *kafkaJob
	// value and key encode a record's value in 'format' and its key in
	// 'key.format' (their codec.Record's Row: a json object, or a csv line
	// without header and line end)
	value, key codec.RowEncoder
	eos        bool

	keyIdx  []int
	keyCols []catalog.Column
	keyVals []*vector.Vec

	// upsert: an upsert-kafka sink (SPEC 2.8, upsertkafka.go) writes the
	// columns valIdx (valCols) as the value, a delete as a tombstone
	upsert bool
	// pendingUB holds the encoded key of a -U whose +U has not come (an
	// upsert sink, WriteKind), hasUB whether there is one: a -U followed by
	// the +U of its key is an update (the +U replaces the row), a -U alone
	// (its +U filtered out, as HAVING does when the new row fails it) is a
	// delete.
	pendingUB []byte
	hasUB     bool
	valIdx    []int
	valCols   []catalog.Column
	valVals   []*vector.Vec

	tx *kafkaTxn // exactly-once: the job's transactional producer, shared

	buf     []byte      // scratch: the encoded value or key
	chunk   *kafkaChunk // the block the next records go into
	stamp   time.Time   // the timestamp of this batch's records; zero: read the clock
	promise func(*kgo.Record, error)

	mu     sync.Mutex
	err    error       // the first delivery error
	hasErr atomic.Bool // err != nil, read without mu on every row
}

// OpenKafkaSink opens st as a Kafka sink (SPEC 2.5) for one job: it checks
// that the topic exists and starts the producer (transactional for
// 'exactly-once'). Errors name the stream, the topic and the brokers.
func OpenKafkaSink(ctx context.Context, st *catalog.Stream, env *connector.Env) (connector.SinkWriter, error) {
	o, err := kafkaClientOpts(st.Options)
	if err != nil {
		return nil, fmt.Errorf("sink stream %s: %v", st.Name, err)
	}
	if f := catalog.LookupFormat(st.Options["format"]); f != nil && f.Changelog {
		return nil, fmt.Errorf("sink stream %s: a kafka sink writes 'format' = 'csv' or 'json' (one row per record), not '%s' yet; to write changes to Kafka use 'connector' = 'upsert-kafka' (SPEC 2.8), or a file sink with 'format' = 'debezium-json'", st.Name, f.Name)
	}
	var delim byte
	if d := st.Options["csv.delimiter"]; len(d) == 1 {
		delim = d[0]
	}
	rowOf := func(opt, format string) (codec.RowEncoder, error) {
		if r := codec.Lookup(format); r != nil && r.Row != nil {
			return r.Row(delim), nil
		}
		return nil, fmt.Errorf("sink stream %s: option '%s' = '%s': a kafka sink writes one row per record in csv or json", st.Name, opt, format)
	}
	s := &kafkaSink{st: st, topic: st.Options["topic"], job: kafkaJobOf(env), eos: st.Options["sink.delivery-guarantee"] == "exactly-once"}
	if s.value, err = rowOf("format", st.Options["format"]); err != nil {
		return nil, err
	}
	if v, ok := st.Options["key.fields"]; ok {
		if s.keyIdx, err = keyColumns(st, v); err != nil {
			return nil, fmt.Errorf("sink stream %s: option 'key.fields': %v", st.Name, err)
		}
		for _, k := range s.keyIdx {
			s.keyCols = append(s.keyCols, st.Columns[k])
		}
		s.keyVals = make([]*vector.Vec, len(s.keyIdx))
		kf := st.Options["key.format"]
		if kf == "" {
			kf = st.Options["format"]
		}
		if s.key, err = rowOf("key.format", kf); err != nil {
			return nil, err
		}
	}
	opts := append(kafkaProducerOpts(st, o), kgo.DefaultProduceTopic(s.topic), kgo.RecordPartitioner(kgo.StickyKeyPartitioner(nil)), kgo.AllowAutoTopicCreation())
	servers := st.Options["properties.bootstrap.servers"]
	if s.eos {
		s.tx = s.job.sharedTxn(servers, s)
	}
	if s.tx != nil {
		s.cl = s.tx.cl
	} else {
		var txnID string
		if s.eos {
			txnID = s.job.kafkaTxnID(st.Options["sink.transactional-id-prefix"], st.Name)
			opts = append(opts, kgo.TransactionalID(txnID))
		}
		if s.cl, err = kgo.NewClient(opts...); err != nil {
			return nil, fmt.Errorf("sink stream %s: Kafka client for 'properties.bootstrap.servers' = '%s': %v", st.Name, servers, err)
		}
		if s.eos {
			s.tx = &kafkaTxn{cl: s.cl, id: txnID, servers: servers}
			s.job.addTxn(s.tx, s)
		}
	}
	octx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	lo, err := kadm.NewClient(s.cl).ListEndOffsets(octx, s.topic)
	if err == nil {
		err = lo.Error()
	}
	if err == nil && len(lo[s.topic]) == 0 || errors.Is(err, kerr.UnknownTopicOrPartition) {
		err = s.autoCreate(octx)
	}
	if err == nil && s.eos {
		err = s.fence(octx)
	}
	if err != nil {
		s.closeClient()
		if cerr := ctx.Err(); cerr != nil { // stopped while waiting: that is the reason
			return nil, fmt.Errorf("sink stream %s: %w", st.Name, cerr)
		}
		if octx.Err() != nil {
			err = fmt.Errorf("no answer from the brokers within 30 s: check 'properties.bootstrap.servers' and that the broker runs (scripts/kafka-broker status DIR)")
		}
		return nil, fmt.Errorf("sink stream %s: topic '%s' on %s: %v%s", st.Name, s.topic, st.Options["properties.bootstrap.servers"], err, refusedHint(err))
	}
	s.promise = s.delivered
	s.job.addSink(s)
	return s, nil
}

// kafkaProducerOpts returns the options of a sink's producer client: the
// seeds, lz4 compression (or none where a batch does not get smaller), and
// then the stream's own 'properties.*', which override it
// ('properties.compression.type'). franz-go's default is snappy and the Java
// client's none: the local Kafka 4.4 broker spends about twice the CPU on
// snappy or uncompressed batches of small rows as on lz4 ones (README,
// Development: the split between Kafka topics), and that broker shares the
// machine. SPEC 2.5 (the kafka sink; 'properties.*' passed through).
func kafkaProducerOpts(st *catalog.Stream, o *kafkaOpts) []kgo.Opt {
	opts := append(seeds(st, o), kgo.ProducerBatchCompression(kgo.Lz4Compression(), kgo.NoCompression()))
	return append(opts, o.producer...)
}

// delivered is the promise of every record of the sink (on franz-go's
// goroutine): it keeps the first delivery error (none for a record the
// engine's own abort dropped: abandoned) and counts the record out of its
// block.
func (s *kafkaSink) delivered(r *kgo.Record, err error) {
	if err != nil && !s.abandoned(err) {
		s.mu.Lock()
		if s.err == nil {
			s.err = err
			s.hasErr.Store(true)
		}
		s.mu.Unlock()
	}
	if c, ok := r.Context.(*kafkaChunk); ok {
		c.done()
	}
}

// abandoned reports whether err, a record's delivery error, says that the
// engine dropped the record itself: kgo.ErrAborting (franz-go fails the
// records buffered while AbortBufferedRecords runs with it) while the sink's
// transactional producer aborts a transaction the engine gave up
// (kafkaTxn.abort). Any other error, or kgo.ErrAborting outside such an
// abort, is a delivery failure that fails the job.
func (s *kafkaSink) abandoned(err error) bool {
	return s.tx != nil && s.tx.abandoning.Load() > 0 && errors.Is(err, kgo.ErrAborting)
}

// fence initializes the transactional producer at once (Kafka's
// InitProducerID for its transactional id, SPEC 2.5), instead of at its first
// record: the broker then aborts the open transaction a crashed predecessor
// with the same id (the same script, stream and 'properties.group.instance.id')
// left behind. Left open, that transaction holds every read_committed reader
// of the outputs at its first record (the last stable offset) until the
// broker's 'transaction.timeout.ms', whatever later transactions commit; and a
// successor that writes nothing (it gets no partition, or is stopped first)
// would never abort it. It returns the producer's error.
func (s *kafkaSink) fence(ctx context.Context) error {
	if _, _, err := s.cl.ProducerID(ctx); err != nil {
		return fmt.Errorf("initializing the transactional producer '%s': %w", s.tx.id, err)
	}
	return nil
}

// autoCreate asks the broker to create the sink's missing topic, as the Java
// producer does (the broker's auto.create.topics.enable, with its default
// partitions); a broker that does not create topics on demand is an error
// that says to create it.
func (s *kafkaSink) autoCreate(ctx context.Context) error {
	req := kmsg.NewPtrMetadataRequest()
	t := kmsg.NewMetadataRequestTopic()
	t.Topic = kmsg.StringPtr(s.topic)
	req.Topics = append(req.Topics, t)
	req.AllowAutoTopicCreation = true
	var last error
	// The first answer may still say unknown while the broker creates it.
	for try := 0; try < 20; try++ {
		resp, err := req.RequestWith(ctx, s.cl)
		if err != nil {
			return err
		}
		last = fmt.Errorf("no answer for the topic")
		for _, rt := range resp.Topics {
			last = kerr.ErrorForCode(rt.ErrorCode)
			if last == nil || errors.Is(last, kerr.LeaderNotAvailable) {
				return nil // created (or being created): the producer waits for its leader
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return fmt.Errorf("topic '%s' does not exist and the broker did not create it (%v); create it first (or let the broker create topics: auto.create.topics.enable), or check 'topic'", s.topic, last)
}

// kafkaChunkRecs and kafkaChunkBytes size a kafkaChunk: the records it
// holds, and the bytes of their values and keys (a record whose value and key
// do not fit in an empty chunk gets its own bytes).
const (
	kafkaChunkRecs  = 512
	kafkaChunkBytes = 32 << 10
)

// kafkaChunkPool holds the kafkaChunks whose records were all acknowledged.
var kafkaChunkPool = sync.Pool{New: func() any { return new(kafkaChunk) }}

// kafkaChunk is a block of records a Kafka sink hands to the producer and of
// the bytes of their values and keys: franz-go holds a record and its bytes
// until its promise (the broker acknowledged it, or it failed), so a block
// goes back to kafkaChunkPool once every record in it was promised and the
// sink moved on to another block. Records and bytes thus cost no allocation
// per row, nor garbage per row for the GC. It is the records' Context (one
// that is never canceled and holds no values, like context.Background; its
// methods read no field, as franz-go may still ask a record's context after
// its promise, while the block is reused), which is how a promise finds the
// block of its record without a lookup.
type kafkaChunk struct {
	recs [kafkaChunkRecs]kgo.Record
	n    int    // recs[:n] are in use
	data []byte // their values and keys
	// pending is kafkaChunkHold minus the records promised while the sink
	// writes into the block; seal subtracts kafkaChunkHold and adds n, so
	// that it reaches 0 (and the block is recycled) exactly when the last
	// of its n records is promised after the sink left it.
	pending atomic.Int64
}

// Deadline, Done, Err and Value make a kafkaChunk a context.Context that is
// never canceled and holds no values.
func (*kafkaChunk) Deadline() (time.Time, bool) { return time.Time{}, false }
func (*kafkaChunk) Done() <-chan struct{}       { return nil }
func (*kafkaChunk) Err() error                  { return nil }
func (*kafkaChunk) Value(any) any               { return nil }

// kafkaChunkHold is a kafkaChunk's pending count while its sink writes into
// it: more than it can hold records.
const kafkaChunkHold = 1 << 40

// newKafkaChunk returns an empty block from the pool.
func newKafkaChunk() *kafkaChunk {
	c := kafkaChunkPool.Get().(*kafkaChunk)
	if c.data == nil {
		c.data = make([]byte, 0, kafkaChunkBytes)
	}
	c.pending.Store(kafkaChunkHold)
	return c
}

// fits reports whether the block has a record free and n bytes (when no
// more than a block holds: a larger record's bytes are its own, copyIn).
func (c *kafkaChunk) fits(n int) bool {
	return c.n < len(c.recs) && (n > kafkaChunkBytes || cap(c.data)-len(c.data) >= n)
}

// record returns the block's next record, zeroed.
func (c *kafkaChunk) record() *kgo.Record {
	r := &c.recs[c.n]
	*r = kgo.Record{Context: c}
	c.n++
	return r
}

// copyIn copies b into the block's bytes and returns the copy, or a copy of
// its own when the block has no room for it.
func (c *kafkaChunk) copyIn(b []byte) []byte {
	if cap(c.data)-len(c.data) < len(b) {
		return append([]byte(nil), b...)
	}
	n := len(c.data)
	c.data = append(c.data, b...)
	return c.data[n:len(c.data):len(c.data)]
}

// seal is called by the sink when it writes no more into the block.
func (c *kafkaChunk) seal() {
	if c.pending.Add(int64(c.n)-kafkaChunkHold) == 0 {
		c.recycle()
	}
}

// done is called by a promise of one of the block's records (on franz-go's
// goroutine).
func (c *kafkaChunk) done() {
	if c.pending.Add(-1) == 0 {
		c.recycle()
	}
}

// recycle drops what the records point to and puts the block in the pool.
func (c *kafkaChunk) recycle() {
	clear(c.recs[:c.n])
	c.n, c.data = 0, c.data[:0]
	kafkaChunkPool.Put(c)
}

// record returns a record for a row whose value and key take n bytes, in the
// sink's current block or a new one, stamped with the batch's time (read
// once per batch: reading the clock for every record was a tenth of the
// sink's CPU time).
func (s *kafkaSink) record(n int) *kgo.Record {
	if s.chunk != nil && !s.chunk.fits(n) {
		s.chunk.seal()
		s.chunk = nil
	}
	if s.chunk == nil {
		s.chunk = newKafkaChunk()
	}
	if s.stamp.IsZero() {
		s.stamp = time.Now().Truncate(time.Millisecond)
	}
	r := s.chunk.record()
	r.Topic = s.topic // (a shared transactional client writes several topics)
	r.Timestamp = s.stamp
	return r
}

// produce hands r to the producer, counting it in its block until its promise.
func (s *kafkaSink) produce(r *kgo.Record) {
	s.cl.Produce(context.Background(), r, s.promise)
}

// Write implements SinkWriter: row i of cols becomes one record.
func (s *kafkaSink) Write(cols []*vector.Vec, i int) error {
	if err := s.failed(); err != nil {
		return err
	}
	if err := s.begin(); err != nil {
		return err
	}
	return s.write(cols, i, false)
}

// WriteKind implements KindWriter: an upsert-kafka sink writes +I and +U as
// the row under its key and -D as a tombstone of its key; a -U waits for the
// next change: the +U of its key replaces the row (Flink's upsert sink drops
// the -U), anything else makes the -U a tombstone (the update's new row was
// filtered out, as a HAVING that the new row fails does: SPEC 2.8, the key's
// row leaves the result). A plain kafka sink writes the row whatever its
// kind.
func (s *kafkaSink) WriteKind(cols []*vector.Vec, i int, kind vector.RowKind) error {
	if !s.upsert {
		return s.Write(cols, i)
	}
	if err := s.failed(); err != nil {
		return err
	}
	if err := s.begin(); err != nil {
		return err
	}
	if s.hasUB {
		key := s.appendKey(s.buf[:0], cols, i)
		s.buf = key
		if kind == vector.UpdateAfter && string(key) == string(s.pendingUB) {
			s.hasUB = false
		} else if err := s.settleUB(); err != nil {
			return err
		}
	}
	if kind == vector.UpdateBefore {
		s.pendingUB = s.appendKey(s.pendingUB[:0], cols, i)
		s.hasUB = true
		return nil
	}
	return s.write(cols, i, kind == vector.Delete)
}

// appendKey appends the encoded key of row i of cols to dst (the key's
// record bytes, as write encodes them).
func (s *kafkaSink) appendKey(dst []byte, cols []*vector.Vec, i int) []byte {
	for j, k := range s.keyIdx {
		s.keyVals[j] = cols[k]
	}
	return s.key(dst, s.keyCols, s.keyVals, i)
}

// settleUB writes the pending -U (WriteKind) as the tombstone of its key:
// no +U of its key followed it.
func (s *kafkaSink) settleUB() error {
	if !s.hasUB {
		return nil
	}
	s.hasUB = false
	r := s.record(len(s.pendingUB))
	r.Key = s.chunk.copyIn(s.pendingUB)
	r.Value = nil
	s.produce(r)
	return nil
}

// write produces row i of cols as one record: its value (none for a
// tombstone), and its key when the sink has key columns.
func (s *kafkaSink) write(cols []*vector.Vec, i int, tombstone bool) error {
	// The value, then the key, encoded one after the other into buf.
	vcols, vvals := s.st.Columns, cols
	if s.valIdx != nil {
		if s.valVals == nil {
			s.valVals = make([]*vector.Vec, len(s.valIdx))
		}
		for j, k := range s.valIdx {
			s.valVals[j] = cols[k]
		}
		vcols, vvals = s.valCols, s.valVals
	}
	s.buf = s.buf[:0]
	if !tombstone {
		s.buf = s.value(s.buf, vcols, vvals, i)
	}
	nv := len(s.buf)
	if s.keyIdx != nil {
		s.buf = s.appendKey(s.buf, cols, i)
	}
	r := s.record(len(s.buf))
	r.Value = s.chunk.copyIn(s.buf[:nv])
	if tombstone {
		r.Value = nil
	}
	if s.keyIdx != nil {
		r.Key = s.chunk.copyIn(s.buf[nv:])
	}
	s.produce(r)
	return nil
}

// WriteDeadLetter implements DeadLetterWriter (SPEC 2.5): the value is the raw
// input bytes exactly, the headers stream, position and error hold the rest.
func (s *kafkaSink) WriteDeadLetter(stream, position string, raw []byte, reason string) error {
	if err := s.failed(); err != nil {
		return err
	}
	if err := s.begin(); err != nil {
		return err
	}
	r := s.record(len(raw))
	r.Value = s.chunk.copyIn(raw)
	r.Headers = []kgo.RecordHeader{
		{Key: "stream", Value: []byte(stream)},
		{Key: "position", Value: []byte(position)},
		{Key: "error", Value: []byte(reason)},
	}
	s.produce(r)
	return nil
}

// begin starts a transaction for an exactly-once sink that is not in one.
func (s *kafkaSink) begin() error {
	if s.tx == nil {
		return nil
	}
	if err := s.tx.begin(); err != nil {
		return s.fail(err)
	}
	return nil
}

// closeClient closes the sink's client, or drops its share of the job's
// transactional one.
func (s *kafkaSink) closeClient() {
	if s.tx != nil {
		s.job.releaseTxn(s.tx, s)
		return
	}
	s.cl.Close()
}

func (s *kafkaSink) fail(err error) error {
	return fmt.Errorf("sink stream %s: writing topic '%s': %v", s.st.Name, s.topic, err)
}

// failed returns the first delivery error, as the sink's error.
func (s *kafkaSink) failed() error {
	if !s.hasErr.Load() {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.fail(s.err)
	}
	return nil
}

// Flush implements SinkWriter: the records are handed to the producer as
// they are written, so it only reports a delivery error, and commits an
// exactly-once sink's transaction once it is KafkaCommitEvery old.
func (s *kafkaSink) Flush() error {
	s.stamp = time.Time{} // the next batch reads the clock
	if err := s.failed(); err != nil {
		return err
	}
	if err := s.settleUB(); err != nil { // (a batch ends the changes of its rows: SPEC 2.8's -U/+U pairs are adjacent)
		return err
	}
	// With a Kafka source in a consumer group, the source's commits end the
	// transactions, so that each holds the outputs of the offsets it commits.
	if s.tx != nil && s.tx.inTxn && time.Since(s.tx.txnStart) >= KafkaCommitEvery && !s.job.hasGroupSource() {
		return s.job.checkpoint(context.Background(), midJob)
	}
	return nil
}

// checkpoint makes what an at-least-once sink wrote durable: flushed and
// acknowledged. (Exactly-once sinks commit through their kafkaTxn.)
func (s *kafkaSink) checkpoint(ctx context.Context) error {
	if err := s.cl.Flush(ctx); err != nil {
		return s.fail(err)
	}
	return s.failed()
}

// txnOffsets adds the offsets g of a group source to the open transaction
// (Kafka's AddOffsetsToTxn and TxnOffsetCommit, with the source's group
// member and generation), so they commit or abort with its records.
func (s *kafkaSink) txnOffsets(ctx context.Context, g groupOffsets) error {
	pid, epoch, err := s.cl.ProducerID(ctx)
	if err != nil {
		return err
	}
	txnID := s.tx.id
	add := kmsg.NewPtrAddOffsetsToTxnRequest()
	add.TransactionalID, add.ProducerID, add.ProducerEpoch, add.Group = txnID, pid, epoch, g.src.group
	ar, err := add.RequestWith(ctx, s.cl)
	if err != nil {
		return err
	}
	if err := kerr.ErrorForCode(ar.ErrorCode); err != nil {
		return fmt.Errorf("adding the offsets of group '%s' to the transaction: %w", g.src.group, err)
	}
	member, gen := g.src.cl.GroupMetadata()
	req := kmsg.NewPtrTxnOffsetCommitRequest()
	req.TransactionalID, req.Group, req.ProducerID, req.ProducerEpoch = txnID, g.src.group, pid, epoch
	req.Generation, req.MemberID = gen, member
	id, err := g.src.topicID(ctx)
	if err != nil {
		return err
	}
	t := kmsg.NewTxnOffsetCommitRequestTopic()
	t.Topic, t.TopicID = g.src.topic, id // (by ID from TxnOffsetCommit v6)
	for p, o := range g.offs {
		rp := kmsg.NewTxnOffsetCommitRequestTopicPartition()
		rp.Partition, rp.Offset, rp.LeaderEpoch = p, o.off, -1
		if o.meta { // the replay mark (kafkareplay.go)
			m := o.mark.String()
			rp.Metadata = &m
		}
		t.Partitions = append(t.Partitions, rp)
	}
	req.Topics = append(req.Topics, t)
	resp, err := req.RequestWith(ctx, s.cl)
	if err != nil {
		return err
	}
	for _, rt := range resp.Topics {
		for _, rp := range rt.Partitions {
			if err := kerr.ErrorForCode(rp.ErrorCode); err != nil {
				return fmt.Errorf("committing the offsets of group '%s' in the transaction: %w", g.src.group, err)
			}
		}
	}
	return nil
}

// Abort implements Aborter: the open transaction of an exactly-once sink is
// aborted (its records are never seen by read_committed consumers); an
// at-least-once sink keeps what it wrote.
func (s *kafkaSink) Abort() {
	if s.tx == nil || !s.tx.inTxn {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), kafkaSinkClose)
	defer cancel()
	s.job.removeSink(nil, errAborted) // the job's sources commit nothing more
	s.tx.abort(ctx)
}

// Close implements SinkWriter: flush and wait for every record to be
// acknowledged (at most kafkaSinkClose), commit the last transaction, close.
// An exactly-once sink commits nothing when its last transaction was aborted
// (kafkaTxn.aborted: the runner's Abort), and returns the error of an abort
// that failed (kafkaTxn.abortFailed).
func (s *kafkaSink) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), kafkaSinkClose)
	defer cancel()
	if s.hasUB && s.failed() == nil {
		_ = s.settleUB() // (the last change was a -U alone)
	}
	var err error
	switch {
	case s.tx == nil:
		err = s.checkpoint(ctx)
	case !s.tx.aborted:
		// The job's checkpoint: the other sinks flushed, the transaction
		// committed with the group sources' offsets of the rows used.
		err = s.job.checkpoint(ctx, jobEnd)
	}
	if err != nil && s.tx != nil {
		s.tx.abort(ctx)
	}
	if s.tx != nil { // an abort that failed: the runner's Abort, an abandoned checkpoint's, or the one above
		if aerr := s.tx.abortFailed(); aerr != nil && err == nil {
			err = s.fail(aerr)
		} else if aerr != nil {
			err = fmt.Errorf("%w; then %v", err, aerr)
		}
	}
	s.closeClient()
	if s.chunk != nil {
		s.chunk.seal()
		s.chunk = nil
	}
	s.job.removeSink(s, err)
	return err
}
