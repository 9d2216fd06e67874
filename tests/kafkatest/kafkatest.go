// Package kafkatest is the test side of the real Kafka broker that
// scripts/kafka-broker starts for streamql's tests and CI (issue 12 item 5).
// It owns: finding the broker (STREAMQL_KAFKA_BROKERS, with the skip/fail rule
// below), unique topic, group and transactional-id names per test, and the
// helpers a Kafka connector test needs around the engine: create topics with N
// partitions, produce records, read every record of a topic back (optionally
// read_committed) and delete topics.
//
// It talks to Kafka only through franz-go (kgo, kadm) and imports no engine
// package, so engine tests can use it without import cycles and it never
// tests the engine through the engine's own Kafka code.
//
// Start a broker and run the Kafka tests:
//
//	export "$(scripts/kafka-broker start /tmp/streamql-kafka)"
//	go test ./tests/kafkatest/
//	scripts/kafka-broker stop /tmp/streamql-kafka
package kafkatest

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// EnvBrokers is the environment variable holding the broker address list
// (host:port[,host:port...]) that scripts/kafka-broker start prints.
const EnvBrokers = "STREAMQL_KAFKA_BROKERS"

// Timeout bounds every helper call against the broker (create, produce, read,
// delete): a broker that stops answering fails the test instead of hanging it.
const Timeout = 60 * time.Second

// Brokers returns the seed brokers of the test broker, from STREAMQL_KAFKA_BROKERS.
// When the variable is unset it skips the test with a message saying how to
// start a broker, except under CI=true, where a missing broker fails the test
// (issue 12 item 5: the Kafka tests may skip on a laptop, never in CI).
func Brokers(t testing.TB) string {
	t.Helper()
	if b := strings.TrimSpace(os.Getenv(EnvBrokers)); b != "" {
		return b
	}
	msg := missingBrokerMessage(exec.LookPath)
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s (CI=true: the Kafka tests must run in CI; .ci/run starts the broker)", msg)
	}
	t.Skip(msg)
	return ""
}

// missingBrokerMessage says that no broker is set and how to start one, naming
// java or mvn when lookPath does not find them.
func missingBrokerMessage(lookPath func(string) (string, error)) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s is not set, so there is no Kafka broker to test against: start one with\n"+
		"\texport \"$(scripts/kafka-broker start /tmp/streamql-kafka)\"\n"+
		"and stop it afterwards with scripts/kafka-broker stop /tmp/streamql-kafka", EnvBrokers)
	for _, tool := range []string{"java", "mvn"} {
		if _, err := lookPath(tool); err != nil {
			fmt.Fprintf(&b, "\n(%s is not on PATH: the broker script needs it)", tool)
		}
	}
	return b.String()
}

var seq atomic.Int64

// Name returns a name unique to this test and call, made of kind, the test's
// name and a process-unique suffix, using only characters valid in Kafka topic,
// group and transactional-id names ([a-zA-Z0-9._-]) and at most 200 bytes.
func Name(t testing.TB, kind string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("streamql-")
	b.WriteString(kind)
	b.WriteByte('-')
	for _, r := range t.Name() {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	name := b.String()
	suffix := fmt.Sprintf("-%d-%d-%d", os.Getpid(), time.Now().UnixNano()%1e9, seq.Add(1))
	if len(name)+len(suffix) > 200 {
		name = name[:200-len(suffix)]
	}
	return name + suffix
}

// Client returns a franz-go client seeded with Brokers(t) and the given
// options, closed when the test ends.
func Client(t testing.TB, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	opts = append([]kgo.Opt{kgo.SeedBrokers(strings.Split(Brokers(t), ",")...)}, opts...)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		t.Fatalf("kafkatest: new Kafka client for %s: %v", Brokers(t), err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// Admin returns a kadm admin client on Brokers(t), closed when the test ends.
func Admin(t testing.TB) *kadm.Client {
	t.Helper()
	return kadm.NewClient(Client(t))
}

// CreateTopic creates a topic with a unique name (Name(t, "topic")), the given
// number of partitions (at least 1), replication 1 and the given topic configs
// (nil for none), and deletes it when the test ends unless
// STREAMQL_KAFKA_KEEP_TOPICS is set (to look at it after a failure). It
// returns the topic name once every partition has a leader.
func CreateTopic(t testing.TB, partitions int, configs map[string]*string) string {
	t.Helper()
	if partitions < 1 {
		t.Fatalf("kafkatest: CreateTopic with %d partitions: need at least 1", partitions)
	}
	adm := Admin(t)
	topic := Name(t, "topic")
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	if _, err := adm.CreateTopic(ctx, int32(partitions), 1, configs, topic); err != nil {
		t.Fatalf("kafkatest: create topic %s with %d partitions on %s: %v", topic, partitions, Brokers(t), err)
	}
	if os.Getenv("STREAMQL_KAFKA_KEEP_TOPICS") == "" {
		t.Cleanup(func() { DeleteTopics(t, topic) })
	}
	for {
		md, err := adm.Metadata(ctx, topic)
		if err == nil {
			td, ok := md.Topics[topic]
			if ok && td.Err == nil && len(td.Partitions) == partitions && allLed(td.Partitions) {
				return topic
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("kafkatest: topic %s has no leader for all %d partitions after %v (last error: %v)", topic, partitions, Timeout, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func allLed(ps kadm.PartitionDetails) bool {
	for _, p := range ps {
		if p.Err != nil || p.Leader < 0 {
			return false
		}
	}
	return true
}

// DeleteTopics deletes the given topics, failing the test on an error other
// than "unknown topic" (deleting twice is fine).
func DeleteTopics(t testing.TB, topics ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	// A fresh client: this also runs from Cleanup, after Admin's client closed.
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(Brokers(t), ",")...))
	if err != nil {
		t.Errorf("kafkatest: delete topics %v: %v", topics, err)
		return
	}
	defer cl.Close()
	resp, err := kadm.NewClient(cl).DeleteTopics(ctx, topics...)
	if err != nil {
		t.Errorf("kafkatest: delete topics %v: %v", topics, err)
		return
	}
	for _, r := range resp {
		if r.Err != nil && !strings.Contains(r.Err.Error(), "UNKNOWN_TOPIC_OR_PARTITION") {
			t.Errorf("kafkatest: delete topic %s: %v", r.Topic, r.Err)
		}
	}
}

// Produce writes the records with cl (a client from Client; records with an
// empty Topic go to topic) and waits until the broker acknowledged each one,
// failing the test on the first error. The records get their Partition and
// Offset filled in. A transactional client must be inside a transaction.
func Produce(t testing.TB, cl *kgo.Client, topic string, records ...*kgo.Record) {
	t.Helper()
	for _, r := range records {
		if r.Topic == "" {
			r.Topic = topic
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	if err := cl.ProduceSync(ctx, records...).FirstErr(); err != nil {
		t.Fatalf("kafkatest: produce %d records to %s: %v", len(records), topic, err)
	}
}

// markerWait bounds how long readEnds waits for a partition's last stable
// offset to reach its high watermark.
const markerWait = 10 * time.Second

// readEnds returns the offsets where ReadAll stops reading topic: the high
// watermarks, or with committed the last stable offsets. A transaction's
// EndTransaction returns once its coordinator has logged the decision; the
// commit or abort markers reach the partitions after that, and until they
// do the last stable offset stays before the transaction. So with committed
// it waits, up to markerWait, for every partition's last stable offset to
// reach its high watermark (no transaction open), and then returns the last
// stable offsets as they are (a transaction a test leaves open stays
// unread).
func readEnds(ctx context.Context, adm *kadm.Client, topic string, committed bool) (kadm.ListedOffsets, error) {
	deadline := time.Now().Add(markerWait)
	for {
		ends, err := adm.ListEndOffsets(ctx, topic)
		if err == nil {
			err = ends.Error()
		}
		if err != nil || !committed {
			return ends, err
		}
		stable, err := adm.ListCommittedOffsets(ctx, topic)
		if err == nil {
			err = stable.Error()
		}
		if err != nil {
			return nil, err
		}
		open := false
		for p, end := range ends[topic] {
			if s, ok := stable.Lookup(topic, p); !ok || s.Offset < end.Offset {
				open = true
			}
		}
		if !open || time.Now().After(deadline) {
			return stable, nil
		}
		select {
		case <-ctx.Done():
			return stable, nil
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// ReadOptions says how ReadAll reads.
type ReadOptions struct {
	// ReadCommitted reads with isolation level read_committed: records of
	// open or aborted transactions are not returned, and the read stops at
	// the last stable offset. Otherwise read_uncommitted, up to the high
	// watermark.
	ReadCommitted bool
}

// ReadAll returns every record of topic, from the start of each partition up
// to its end when ReadAll is called (high watermark, or last stable offset
// with ReadCommitted, once the markers of transactions already ended are
// written: readEnds), sorted by partition and then offset. Transaction
// markers are not returned. It fails the test when the end is not reached
// within Timeout.
func ReadAll(t testing.TB, topic string, o ReadOptions) []*kgo.Record {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	adm := Admin(t)
	starts, err := adm.ListStartOffsets(ctx, topic)
	if err == nil {
		err = starts.Error()
	}
	if err != nil {
		t.Fatalf("kafkatest: list start offsets of %s: %v", topic, err)
	}
	ends, err := readEnds(ctx, adm, topic, o.ReadCommitted)
	if err != nil {
		t.Fatalf("kafkatest: list end offsets of %s: %v", topic, err)
	}
	from := map[int32]kgo.Offset{}
	want := map[int32]int64{} // partition -> end offset still to reach
	for p, end := range ends[topic] {
		start, _ := starts.Lookup(topic, p)
		if end.Offset > start.Offset {
			from[p] = kgo.NewOffset().At(start.Offset)
			want[p] = end.Offset
		}
	}
	if len(want) == 0 {
		return nil
	}
	opts := []kgo.Opt{
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: from}),
		// Control records (transaction markers) take offsets too: keep them
		// to see the consumer reach the end, and drop them below.
		kgo.KeepControlRecords(),
	}
	if o.ReadCommitted {
		opts = append(opts, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	}
	cl := Client(t, opts...)
	var out []*kgo.Record
	for len(want) > 0 {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("kafkatest: read %s: the end of partitions %v not reached within %v", topic, want, Timeout)
		}
		if errs := fs.Errors(); len(errs) > 0 {
			t.Fatalf("kafkatest: read %s partition %d: %v", errs[0].Topic, errs[0].Partition, errs[0].Err)
		}
		fs.EachRecord(func(r *kgo.Record) {
			end, ok := want[r.Partition]
			if !ok || r.Offset >= end {
				return
			}
			if !r.Attrs.IsControl() {
				out = append(out, r)
			}
			if r.Offset+1 >= end {
				delete(want, r.Partition)
			}
		})
		// Aborted records are dropped by the client: the abort marker
		// after them still arrives as a control record, so the loop ends.
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Partition != out[j].Partition {
			return out[i].Partition < out[j].Partition
		}
		return out[i].Offset < out[j].Offset
	})
	return out
}

// Murmur2 is Kafka's murmur2 hash (org.apache.kafka.common.utils.Utils.murmur2,
// seed 0x9747b28c), written here independently of franz-go so that the test
// checks franz-go's partitioner against Kafka's rule rather than against itself.
func Murmur2(data []byte) int32 {
	const (
		seed uint32 = 0x9747b28c
		m    uint32 = 0x5bd1e995
		r           = 24
	)
	h := seed ^ uint32(len(data))
	n := len(data) / 4 * 4
	for i := 0; i < n; i += 4 {
		k := binary.LittleEndian.Uint32(data[i:])
		k *= m
		k ^= k >> r
		k *= m
		h *= m
		h ^= k
	}
	switch len(data) % 4 {
	case 3:
		h ^= uint32(data[n+2]) << 16
		fallthrough
	case 2:
		h ^= uint32(data[n+1]) << 8
		fallthrough
	case 1:
		h ^= uint32(data[n])
		h *= m
	}
	h ^= h >> 13
	h *= m
	h ^= h >> 15
	return int32(h)
}

// JavaPartition is the partition the Java client's default partitioner gives a
// non-null key: toPositive(Murmur2(key)) % numPartitions.
func JavaPartition(key []byte, partitions int) int32 {
	return int32(uint32(Murmur2(key))&0x7fffffff) % int32(partitions)
}

// WaitAssigned polls the broker (every 100 ms, at most Timeout) until
// consumer group is Stable with exactly members members, none of them one of
// the member ids in gone (the members of a killed process the group has not
// evicted yet), and every one of topic's partitions partitions assigned to
// one of them; it returns the members' ids, and fails the test with the
// group's last state otherwise. A test waits with it for processes to join
// a group instead of sleeping a fixed time: rows produced from then on are
// read by the group's members (a consumer at 'latest-offset' may still be
// resolving that offset for a few milliseconds).
func WaitAssigned(t testing.TB, group, topic string, members, partitions int, gone ...string) []string {
	t.Helper()
	adm := Admin(t)
	deadline := time.Now().Add(Timeout)
	last := "no answer"
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		dg, err := adm.DescribeGroups(ctx, group)
		cancel()
		if err != nil {
			last = err.Error()
		} else if g, ok := dg[group]; ok {
			parts := map[int32]bool{}
			var ids []string
			old := 0
			for _, m := range g.Members {
				ids = append(ids, m.MemberID)
				for _, id := range gone {
					if m.MemberID == id {
						old++
					}
				}
				if c, ok := m.Assigned.AsConsumer(); ok {
					for _, at := range c.Topics {
						if at.Topic == topic {
							for _, p := range at.Partitions {
								parts[p] = true
							}
						}
					}
				}
			}
			if g.State == "Stable" && len(g.Members) == members && old == 0 && len(parts) == partitions {
				return ids
			}
			last = fmt.Sprintf("state %s, %d member(s) (%d of them gone), %d of %d partition(s) assigned", g.State, len(g.Members), old, len(parts), partitions)
		}
		if time.Now().After(deadline) {
			t.Fatalf("kafkatest: group %s did not get %d member(s) sharing the %d partition(s) of %s within %v: %s", group, members, partitions, topic, Timeout, last)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// WaitCommittedAt polls the broker (every 100 ms, at most Timeout) until
// consumer group has committed, for each partition of topic, an offset at or
// past the partition's end offset as it is when WaitCommittedAt is called
// (read require_stable: offsets of a transaction still open do not count),
// and fails the test otherwise. For a job that commits its input offsets with
// its output (an exactly-once sink) this says every row read so far has its
// output committed: a test waits with it instead of sleeping "until anything
// read twice is written".
func WaitCommittedAt(t testing.TB, group, topic string) {
	t.Helper()
	adm := Admin(t)
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	ends, err := adm.ListEndOffsets(ctx, topic)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		t.Fatalf("kafkatest: list end offsets of %s: %v", topic, err)
	}
	last := "no answer"
	for {
		or, err := adm.FetchOffsetsForTopics(kadm.RequireStable(ctx), group, topic)
		if err == nil {
			behind := 0
			ends.Each(func(e kadm.ListedOffset) {
				if o, ok := or.Lookup(topic, e.Partition); !ok || o.Err != nil || o.At < e.Offset {
					behind++
				}
			})
			if behind == 0 {
				return
			}
			last = fmt.Sprintf("%d partition(s) behind their end", behind)
		} else {
			last = err.Error()
		}
		select {
		case <-ctx.Done():
			t.Fatalf("kafkatest: group %s did not commit the end of %s within %v: %s", group, topic, Timeout, last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
