package kafka

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"streamql/catalog"
	"streamql/executor/connector"
	"streamql/executor/vector"
	"streamql/tests/kafkatest"
)

// valueRows decodes a record's value as the row's one VARCHAR column.
type valueRows struct{}

func (valueRows) DecodeValue(b *vector.Batch, rec []byte) string {
	b.Cols[0].SetString(b.N, rec)
	return ""
}

// TestKafkaEndedGroupSourceLetsTheGroupRebalance (a real broker): a bounded
// source in a consumer group that reached its end, and is polled no more
// while its job goes on, does not hold back a rebalance another member of
// the group starts. Here the two streams of a job (as a join's) read two
// topics in one group: o reads to its end, then p joins the group and must
// be assigned its partitions while o stays open. Before, o blocked the
// rebalance (kgo.BlockRebalanceOnPoll, lifted only by its commits between
// polls) until the group's rebalance timeout removed it: 60 s with the
// default 'properties.max.poll.interval.ms', 10 min as set here, so p never
// got its partitions within kafkatest.Timeout.
func TestKafkaEndedGroupSourceLetsTheGroupRebalance(t *testing.T) {
	group := kafkatest.Name(t, "group")
	env := &connector.Env{State: &connector.State{}, NewValueDecoder: func(*catalog.Stream) (connector.ValueDecoder, error) { return valueRows{}, nil }}
	ctx, cancel := context.WithTimeout(context.Background(), kafkatest.Timeout)
	defer cancel()
	producer := kafkatest.Client(t, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	read := func(name string) (connector.Source, int) {
		t.Helper()
		topic := kafkatest.CreateTopic(t, 2, nil)
		for i := range 10 {
			kafkatest.Produce(t, producer, topic, &kgo.Record{Partition: int32(i % 2), Value: fmt.Appendf(nil, "%s%d", name, i)})
		}
		st := brokerStream(t, name, topic, "properties.group.id", group, "scan.bounded.mode", "latest-offset",
			"properties.max.poll.interval.ms", "600000")
		src, err := OpenKafka(ctx, st, env)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = src.Close() })
		b := vector.NewBatch([]catalog.Type{catalog.Varchar})
		var bad []connector.BadRow
		rows := 0
		for {
			err := src.Next(b, &bad)
			rows += b.N
			if err == io.EOF {
				return src, rows
			}
			if err != nil && !errors.Is(err, connector.ErrWaiting) {
				t.Fatalf("stream %s: %v after %d rows (with o ended and open: its member held the group's rebalance back)", name, err, rows)
			}
		}
	}
	if _, n := read("o"); n != 10 {
		t.Fatalf("stream o: %d rows, want 10", n)
	}
	if _, n := read("p"); n != 10 {
		t.Fatalf("stream p: %d rows, want 10", n)
	}
}

// TestKafkaRevokedOffsetsCallbackIsNoJobError (a real broker): the group's
// offsets callback (adjustOffsets) reads the topic's and the group's offsets
// with a context franz-go cancels when the group session begins revoking (a
// rebalance, or this client leaving the group on a stop). A read cut short
// so is not the job's error: the callback gives franz-go its context's error
// (so that it revokes and joins again rather than reporting a lost session)
// and the source's next Next does not fail. Before, the cut read became
// the source's error, and a process rebalanced or stopped while starting
// exited 1 with "committed offsets of group ...: context canceled" or
// "ListOffsets ...: context canceled" (the scale-out crash tests, once in
// a while).
func TestKafkaRevokedOffsetsCallbackIsNoJobError(t *testing.T) {
	group := kafkatest.Name(t, "group")
	env := &connector.Env{State: &connector.State{}, NewValueDecoder: func(*catalog.Stream) (connector.ValueDecoder, error) { return valueRows{}, nil }}
	ctx, cancel := context.WithTimeout(context.Background(), kafkatest.Timeout)
	defer cancel()
	topic := kafkatest.CreateTopic(t, 2, nil)
	src, err := OpenKafka(ctx, brokerStream(t, "o", topic, "properties.group.id", group), env)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = src.Close() })
	s, ok := src.(*kafkaSource)
	if !ok {
		t.Fatalf("OpenKafka gave %T, want *kafkaSource", src)
	}
	revoked, stop := context.WithCancel(ctx)
	stop()
	for _, parts := range []map[int32]kgo.Offset{{0: kgo.NewOffset()}, {0: kgo.NewOffset(), 1: kgo.NewOffset()}} {
		_, err := s.adjustOffsets(revoked, map[string]map[int32]kgo.Offset{topic: parts})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("adjustOffsets under a revoked session gave %v, want context.Canceled (franz-go then revokes and joins again)", err)
		}
		s.mu.Lock()
		cbErr := s.cbErr
		s.mu.Unlock()
		if cbErr != nil {
			t.Fatalf("adjustOffsets under a revoked session left the source's error %v; want none (not the job's error)", cbErr)
		}
	}
	// a live session's callback still gives the partitions' starts
	out, err := s.adjustOffsets(ctx, map[string]map[int32]kgo.Offset{topic: {0: kgo.NewOffset()}})
	if err != nil || len(out[topic]) != 1 {
		t.Fatalf("adjustOffsets under a live session: %v, %v; want partition 0's start", out, err)
	}
}
