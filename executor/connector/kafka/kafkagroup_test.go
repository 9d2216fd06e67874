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
