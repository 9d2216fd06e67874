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
// got its partitions within kafkatest.Timeout. (o lets the rebalance go on
// at p's checkpoints: kafkaSource.rebalanceWindow.)
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
		return src, readToEnd(t, src, name, " (with o ended and open: its member held the group's rebalance back)")
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
	s := openGroupSource(ctx, t, env, "o", topic, group)
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

// ownReplay is a job's state that holds nothing and notes which partitions
// its group source handed it (Assign) and took back (Revoke).
type ownReplay struct{ owned map[int32]bool }

func (r *ownReplay) Hold(_ int32, used int64) (int64, int64, bool)           { return used, 0, false }
func (r *ownReplay) Emitted(_ int32, used int64) int64                       { return used }
func (r *ownReplay) Fired(int32) (int64, bool)                               { return 0, false }
func (r *ownReplay) Windows(int32) (int64, bool)                             { return 0, false }
func (r *ownReplay) Assign(p int32, _ int64, _ connector.ReplayMark, _ bool) { r.owned[p] = true }
func (r *ownReplay) Revoke(p int32)                                          { delete(r.owned, p) }
func (r *ownReplay) Torn() bool                                              { return false }

// TestKafkaRevokeReachesTheStateBeforeNextReturns (a real broker; the
// connector package doc, "Scale-out over Kafka partitions, and replay"):
// the group's callbacks run between a checkpoint's AllowRebalance and the
// return of the next poll, and a group source hands the assignment changes
// they note to the job's state (Replay.Revoke, Assign) before its Next
// returns, also when the poll brought nothing (ErrWaiting). The job goes on
// after an ErrWaiting: an event-time join releases its held rows as the
// build side's watermark moves. Before, a revoke noted in a poll that
// brought nothing reached the state only at the next Next, so the join
// released rows of the revoked partition into a transaction that then
// committed, while the partition's next owner read them again from the
// commit: a row twice in the read_committed output
// (TestKafkaScaleOutJoinCrashesExactlyOnce, under load). Here a second
// member joins the group of a source that holds both partitions of an
// empty topic (every poll brings nothing): after each Next, the state owns
// no partition the source no longer holds, until the revoke came.
func TestKafkaRevokeReachesTheStateBeforeNextReturns(t *testing.T) {
	group := kafkatest.Name(t, "group")
	env := &connector.Env{State: &connector.State{}, NewValueDecoder: func(*catalog.Stream) (connector.ValueDecoder, error) { return valueRows{}, nil }}
	ctx, cancel := context.WithTimeout(context.Background(), kafkatest.Timeout)
	defer cancel()
	topic := kafkatest.CreateTopic(t, 2, nil)
	open := func(name string) (*kafkaSource, *ownReplay) {
		t.Helper()
		// (an Env, a job's, for each member: two processes, which the
		// group's CoPartitionBalancer tells apart)
		e := &connector.Env{State: &connector.State{}, NewValueDecoder: env.NewValueDecoder}
		s := openGroupSource(ctx, t, e, name, topic, group)
		r := &ownReplay{owned: map[int32]bool{}}
		s.SetReplay(r)
		return s, r
	}
	b := vector.NewBatch([]catalog.Type{catalog.Varchar})
	var bad []connector.BadRow
	// next calls s.Next and returns the partitions the state owns that the
	// source no longer holds
	next := func(s *kafkaSource, r *ownReplay) []int32 {
		t.Helper()
		if err := s.Next(b, &bad); err != nil && !errors.Is(err, connector.ErrWaiting) {
			t.Fatalf("Next: %v", err)
		}
		return staleParts(s, r)
	}
	s1, r1 := open("first")
	for len(r1.owned) < 2 {
		if ctx.Err() != nil {
			t.Fatalf("the first member's state owns %v, want both partitions", r1.owned)
		}
		next(s1, r1)
	}
	// The second member polls on its own goroutine (its join needs its
	// polls), until the first member's state gave up a partition.
	s2, _ := open("second")
	defer pollApart(s2)()
	for len(r1.owned) == 2 {
		if ctx.Err() != nil {
			t.Fatalf("no rebalance took a partition from the first member within %v", kafkatest.Timeout)
		}
		if stale := next(s1, r1); len(stale) > 0 {
			t.Fatalf("Next returned with partitions %v revoked from the source and still in the job's state: the job would go on with their rows (an event-time join releasing them into the next transaction) while their next owner reads them again", stale)
		}
	}
}

// openGroupSource opens stream name over topic as a member of group (closed
// when t ends) and returns its *kafkaSource.
func openGroupSource(ctx context.Context, t *testing.T, env *connector.Env, name, topic, group string) *kafkaSource {
	t.Helper()
	src, err := OpenKafka(ctx, brokerStream(t, name, topic, "properties.group.id", group), env)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = src.Close() })
	s, ok := src.(*kafkaSource)
	if !ok {
		t.Fatalf("OpenKafka gave %T, want *kafkaSource", src)
	}
	return s
}

// TestKafkaEndedSourceRebalancesAtCheckpoints (a real broker;
// kafkaSource.rebalanceWindow): a bounded group source that reached its end,
// polled no more while its job goes on, lets the group's rebalance go on only
// at the job's checkpoints (another group source's commit), and its job's
// state hears of each revoke before the job writes on. Before, the source
// let the rebalance go on at any time once it ended, and a revoke reached the
// state only at the next checkpoint: meanwhile the other sources' progress
// released the state's rows of the revoked partition (an event-time join's
// held rows, open windows) into the open transaction, which then committed
// them without the partition's offsets, while its next owner read them again
// from its last commit (a row twice). Here o reads a topic of two partitions
// to its end, q (another group source of the job) goes on over an empty
// topic, and a member of another process joins o's group: after each of q's
// Nexts (the points where the job writes), o's state owns no partition o no
// longer holds, and the rebalance still goes through (the new member takes a
// partition) long before the group's rebalance timeout.
func TestKafkaEndedSourceRebalancesAtCheckpoints(t *testing.T) {
	group := kafkatest.Name(t, "group")
	newEnv := func() *connector.Env {
		return &connector.Env{State: &connector.State{}, NewValueDecoder: func(*catalog.Stream) (connector.ValueDecoder, error) { return valueRows{}, nil }}
	}
	env := newEnv()
	ctx, cancel := context.WithTimeout(context.Background(), kafkatest.Timeout)
	defer cancel()
	producer := kafkatest.Client(t, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	topic := kafkatest.CreateTopic(t, 2, nil)
	for i := range 10 {
		kafkatest.Produce(t, producer, topic, &kgo.Record{Partition: int32(i % 2), Value: fmt.Appendf(nil, "o%d", i)})
	}
	src, err := OpenKafka(ctx, brokerStream(t, "o", topic, "properties.group.id", group, "scan.bounded.mode", "latest-offset",
		"properties.max.poll.interval.ms", "600000"), env)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = src.Close() })
	o := src.(*kafkaSource)
	r := &ownReplay{owned: map[int32]bool{}}
	o.SetReplay(r)
	if rows := readToEnd(t, o, "o", ""); rows != 10 || len(r.owned) != 2 {
		t.Fatalf("stream o ended with %d rows and its state owning %v, want 10 rows and both partitions", rows, r.owned)
	}
	q := openGroupSource(ctx, t, env, "q", kafkatest.CreateTopic(t, 1, nil), kafkatest.Name(t, "qgroup"))

	// the member of another process polls on its own goroutine (its join
	// needs its polls)
	defer pollApart(openGroupSource(ctx, t, newEnv(), "other", topic, group))()
	b := vector.NewBatch([]catalog.Type{catalog.Varchar})
	var bad []connector.BadRow
	for len(r.owned) == 2 {
		if ctx.Err() != nil {
			t.Fatalf("no rebalance took a partition from the ended source o within %v: it held the group's rebalance back", kafkatest.Timeout)
		}
		if err := q.Next(b, &bad); err != nil && !errors.Is(err, connector.ErrWaiting) {
			t.Fatalf("stream q: %v", err)
		}
		if stale := staleParts(o, r); len(stale) > 0 {
			t.Fatalf("partitions %v were revoked from the ended source o while the job went on, and are still in its state: the job would release their rows into the open transaction, which commits them without their offsets, while their next owner reads them again", stale)
		}
	}
}

// readToEnd reads src until Next returns io.EOF and returns the rows it
// gave; any other error (but ErrWaiting) fails t, naming stream name and
// adding hint.
func readToEnd(t *testing.T, src connector.Source, name, hint string) int {
	t.Helper()
	b := vector.NewBatch([]catalog.Type{catalog.Varchar})
	var bad []connector.BadRow
	rows := 0
	for {
		err := src.Next(b, &bad)
		rows += b.N
		if err == io.EOF {
			return rows
		}
		if err != nil && !errors.Is(err, connector.ErrWaiting) {
			t.Fatalf("stream %s: %v after %d rows%s", name, err, rows, hint)
		}
	}
}

// pollApart calls src's Next on a goroutine of its own (another member of
// a group: its join of the group needs its polls) until the function it
// returns is called, which waits for the goroutine's end.
func pollApart(src connector.Source) (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		b := vector.NewBatch([]catalog.Type{catalog.Varchar})
		var bad []connector.BadRow
		for {
			select {
			case <-quit:
				return
			default:
			}
			_ = src.Next(b, &bad)
		}
	}()
	return func() { close(quit); <-done }
}

// staleParts returns the partitions the job's state r owns that the group
// source s no longer holds (revoked, the state not told yet).
func staleParts(s *kafkaSource, r *ownReplay) []int32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	var stale []int32
	for p := range r.owned {
		if !s.assigned[p] {
			stale = append(stale, p)
		}
	}
	return stale
}
