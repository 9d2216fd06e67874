package kafkatest

// The smoke test of the real broker (scripts/kafka-broker): topics with
// partitions, keyed records placed as the Java client places them, transactions
// seen by a read_committed consumer, and consumer-group offsets. It needs
// STREAMQL_KAFKA_BROKERS (see Brokers).

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestMurmur2 checks murmur2 against Kafka's own vectors (UtilsTest.testMurmur2
// in apache/kafka clients), so the partition checks below rest on Kafka's rule.
func TestMurmur2(t *testing.T) {
	for key, want := range map[string]int32{
		"21":                         -973932308,
		"foobar":                     -790332482,
		"a-little-bit-long-string":   -985981536,
		"a-little-bit-longer-string": -1486304829,
		"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8": -58897971,
		"abc": 479470107,
	} {
		if got := Murmur2([]byte(key)); got != want {
			t.Errorf("Murmur2(%q) = %d, Kafka's UtilsTest says %d", key, got, want)
		}
	}
	// Key -> partition among 3, as Kafka 4.4.0's own client computes it
	// (Utils.toPositive(Utils.Murmur2(key)) % 3, run in jshell on
	// kafka-clients-4.4.0.jar): one key per partition.
	for key, want := range map[string]int32{
		"sensor-0":  0,
		"sensor-1":  1,
		"sensor-7":  1,
		"sensor-59": 2,
		"foobar":    0,
	} {
		if got := JavaPartition([]byte(key), 3); got != want {
			t.Errorf("partition of %q among 3 = %d, want %d", key, got, want)
		}
	}
}

func TestBrokerKeyedRecordsLandOnJavaPartitions(t *testing.T) {
	topic := CreateTopic(t, 3, nil)
	prod := Client(t, kgo.RecordPartitioner(kgo.StickyKeyPartitioner(nil)))
	var sent []*kgo.Record
	// Kafka's test vectors first, then enough keys to hit every partition.
	keys := []string{"21", "foobar", "abc", "a-little-bit-long-string"}
	for i := 0; i < 60; i++ {
		keys = append(keys, fmt.Sprintf("sensor-%d", i))
	}
	for i, k := range keys {
		sent = append(sent, &kgo.Record{Key: []byte(k), Value: []byte(fmt.Sprintf("v%d", i))})
	}
	Produce(t, prod, topic, sent...)

	got := ReadAll(t, topic, ReadOptions{})
	if len(got) != len(sent) {
		t.Fatalf("read %d records back from %s, produced %d", len(got), topic, len(sent))
	}
	byValue := map[string]*kgo.Record{}
	perPartition := map[int32]int{}
	for _, r := range got {
		byValue[string(r.Value)] = r
		perPartition[r.Partition]++
	}
	for i, k := range keys {
		r, ok := byValue[fmt.Sprintf("v%d", i)]
		if !ok {
			t.Errorf("record v%d (key %q) not read back", i, k)
			continue
		}
		if string(r.Key) != k {
			t.Errorf("record v%d: key %q read back, %q produced", i, r.Key, k)
		}
		if want := JavaPartition([]byte(k), 3); r.Partition != want {
			t.Errorf("key %q stored in partition %d; the Java client puts it in %d", k, r.Partition, want)
		}
	}
	if len(perPartition) != 3 {
		t.Errorf("records landed in partitions %v, want all 3 used", perPartition)
	}
}

func TestBrokerTransactionsReadCommitted(t *testing.T) {
	topic := CreateTopic(t, 3, nil)
	prod := Client(t,
		kgo.TransactionalID(Name(t, "txn")),
		kgo.RecordPartitioner(kgo.StickyKeyPartitioner(nil)))
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()

	txn := func(prefix string, end kgo.TransactionEndTry) {
		t.Helper()
		if err := prod.BeginTransaction(); err != nil {
			t.Fatalf("begin transaction: %v", err)
		}
		var rs []*kgo.Record
		for i := 0; i < 10; i++ {
			rs = append(rs, &kgo.Record{Key: fmt.Appendf(nil, "k%d", i), Value: fmt.Appendf(nil, "%s-%d", prefix, i)})
		}
		Produce(t, prod, topic, rs...)
		if err := prod.EndTransaction(ctx, end); err != nil {
			t.Fatalf("end transaction (%s): %v", prefix, err)
		}
	}
	txn("committed", kgo.TryCommit)
	txn("aborted", kgo.TryAbort)
	txn("committed-again", kgo.TryCommit)

	// count counts records by the transaction prefix of their value.
	count := func(rs []*kgo.Record) map[string]int {
		n := map[string]int{}
		for _, r := range rs {
			v := string(r.Value)
			n[v[:strings.LastIndexByte(v, '-')]]++
		}
		return n
	}
	committed := count(ReadAll(t, topic, ReadOptions{ReadCommitted: true}))
	if want := map[string]int{"committed": 10, "committed-again": 10}; fmt.Sprint(committed) != fmt.Sprint(want) {
		t.Errorf("read_committed read %v, want %v (aborted records must not be seen)", committed, want)
	}
	// The aborted records are in the log: read_uncommitted sees them, so the
	// check above is the isolation level at work, not a lost write.
	all := count(ReadAll(t, topic, ReadOptions{}))
	if want := map[string]int{"aborted": 10, "committed": 10, "committed-again": 10}; fmt.Sprint(all) != fmt.Sprint(want) {
		t.Errorf("read_uncommitted read %v, want %v", all, want)
	}
}

func TestBrokerConsumerGroupCommits(t *testing.T) {
	topic := CreateTopic(t, 3, nil)
	prod := Client(t)
	var rs []*kgo.Record
	for i := 0; i < 30; i++ {
		rs = append(rs, &kgo.Record{Key: fmt.Appendf(nil, "k%d", i), Value: fmt.Appendf(nil, "v%d", i)})
	}
	Produce(t, prod, topic, rs...)
	ends := map[int32]int64{}
	for _, r := range rs {
		ends[r.Partition] = max(ends[r.Partition], r.Offset+1)
	}

	group := Name(t, "group")
	cons := Client(t,
		kgo.ConsumerGroup(group),
		kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.DisableAutoCommit())
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	seen := 0
	for seen < len(rs) {
		fs := cons.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("group %s read %d of %d records within %v", group, seen, len(rs), Timeout)
		}
		if errs := fs.Errors(); len(errs) > 0 {
			t.Fatalf("group %s: fetch %s[%d]: %v", group, errs[0].Topic, errs[0].Partition, errs[0].Err)
		}
		seen += fs.NumRecords()
	}
	if seen != len(rs) {
		t.Errorf("group %s read %d records, produced %d", group, seen, len(rs))
	}
	if err := cons.CommitUncommittedOffsets(ctx); err != nil {
		t.Fatalf("commit offsets of group %s: %v", group, err)
	}

	offsets, err := Admin(t).FetchOffsets(ctx, group)
	if err == nil {
		err = offsets.Error()
	}
	if err != nil {
		t.Fatalf("fetch offsets of group %s: %v", group, err)
	}
	for p, end := range ends {
		o, ok := offsets.Lookup(topic, p)
		if !ok {
			t.Errorf("group %s has no committed offset for %s[%d]", group, topic, p)
			continue
		}
		if o.At != end {
			t.Errorf("group %s committed offset %d for %s[%d], want %d (the next offset to read)", group, o.At, topic, p, end)
		}
	}
	if len(ends) != 3 {
		t.Errorf("the 30 records used partitions %v, want all 3", ends)
	}
}
