package kafka

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sort"
	"strconv"
	"streamql/executor/connector"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"streamql/catalog"
	"streamql/executor/inbuf"
	"streamql/executor/vector"
)

// kafkaSource reads one topic (SPEC 2.5): one record value is one row. Without
// 'properties.group.id' (and always for a join's build side) it reads every
// partition from the startup offsets; with one it joins the consumer group,
// reads the partitions the group gives it and commits, every KafkaCommitEvery
// and at the end, the offsets of the rows the job has written (after the job's
// Kafka sinks made them durable). With a 'scan.bounded.mode' other than
// unbounded it ends once every partition it reads reached its stop offset.
// Next runs on the job's goroutine; franz-go's group callbacks run on its own
// and touch only the fields under mu.
type kafkaSource struct {
	st    *catalog.Stream
	topic string
	ctx   context.Context
	cl    *kgo.Client
	adm   *kadm.Client
	dec   connector.ValueDecoder
	// records, when not nil, reads the records instead of dec (SPEC 2.8: a
	// changelog format, upserts): a record is rows with kinds, or none.
	records recordReader
	opts    *kafkaOpts
	job     *kafkaJob
	group   string // "" when not in a consumer group
	// fellBack: the group balances with 'cooperative-sticky', not
	// CoPartitionProtocol (fallbackBalancer; kafkaJob.mixedGroup)
	fellBack atomic.Bool
	nparts   int // the topic's partitions when the source opened (TopicPartitions)
	idle     time.Duration

	id      [16]byte // the topic's ID, once idKnown (topicID)
	idKnown bool

	bounded bool
	stop    map[int32]int64 // bounded: the first offset not read, per partition

	mu       sync.Mutex
	next     map[int32]int64 // the next offset to read, per partition read
	assigned map[int32]bool  // group: the partitions the group gave this process
	seen     map[int32]bool  // group: partitions assigned once already in this job
	gotParts bool            // group: a first assignment happened
	cbErr    error           // group: an error of the offsets callback
	// an outage of the brokers (outage): its start, its last error and when
	// it came; zero while they answer
	downSince, downLast time.Time
	downErr             error
	// group: the job's state when it holds rows (SetReplay; nil: a stateless
	// job, which commits U_p), the assignment changes it has not been told of
	// yet (applyEvents), and per partition the mark last committed or read
	// with the committed offset (kafkareplay.go)
	replay connector.Replay
	events []replayEvent
	marks  map[int32]connector.ReplayMark

	recs []*kgo.Record // the last poll's records, recs[ri:] not yet used
	ri   int

	// The rows of the last batch in batch order (good and bad), for Unread;
	// what the last batch gave per partition (the offset after its last
	// record), what the job has used, and what was committed.
	batch      []kafkaRow
	meta       []connector.RecordMeta // per good row of the last batch, with metadata columns
	wantMeta   bool
	given      map[int32]int64
	used       map[int32]int64
	committed  map[int32]int64
	lastCommit time.Time
	ended      bool // Next returned io.EOF: every row given was used
	read       int64
	doneParts  map[int32]bool
}

type kafkaRow struct {
	p    int32
	off  int64
	good bool
}

// OpenKafka opens the 'kafka' connector's source of st: it checks that the
// topic exists, resolves the startup (and stop) offsets of its partitions,
// and starts the client, in the consumer group 'properties.group.id' when set
// (not for a join's build side, which reads every partition:
// env.BuildSide). Errors name the stream, the topic and the brokers and say what
// to do.
func OpenKafka(ctx context.Context, st *catalog.Stream, env *connector.Env) (connector.Source, error) {
	return openKafka(ctx, st, env, nil)
}

// recordReader reads one Kafka record, key and value, as any number of rows
// with kinds (SPEC 2.8): a changelog format's records (changeRecords), an
// upsert-kafka stream's upserts (upsertReader). Its contract is
// ChangeDecoder.Append's.
type recordReader interface {
	appendRecord(b *vector.Batch, key, value []byte, pos int64) (reason string, full bool)
	// failure is the error that stops the job (the state budget's), or nil.
	failure() error
}

// changeRecords reads a changelog format's record values (the key is not read).
type changeRecords struct{ connector.ChangeDecoder }

func (c changeRecords) appendRecord(b *vector.Batch, _, value []byte, pos int64) (string, bool) {
	return c.Append(b, value, pos)
}

func (changeRecords) failure() error { return nil }

// openKafka is OpenKafka with rr reading the records instead of the value
// decoder of st's format, when not nil.
func openKafka(ctx context.Context, st *catalog.Stream, env *connector.Env, rr recordReader) (connector.Source, error) {
	o, err := kafkaClientOpts(st.Options)
	if err != nil {
		return nil, fmt.Errorf("stream %s: %v", st.Name, err)
	}
	var dec connector.ValueDecoder
	if f := catalog.LookupFormat(st.Shared().Format); f != nil && f.Changelog && rr == nil {
		// a changelog format (catalog's FormatSpec.Changelog, as the format
		// declares, SPEC 2.8): a record is rows with kinds, which its
		// change decoder appends
		cd, err := env.NewChangeDecoder(st)
		if err != nil {
			return nil, err
		}
		rr = changeRecords{cd}
	} else if dec, err = env.NewValueDecoder(st); err != nil {
		return nil, err
	}
	s := &kafkaSource{
		st: st, topic: st.Options["topic"], ctx: ctx, dec: dec, opts: o, job: kafkaJobOf(env),
		bounded: st.Options["scan.bounded.mode"] != "" && st.Options["scan.bounded.mode"] != "unbounded",
		next:    map[int32]int64{}, assigned: map[int32]bool{}, seen: map[int32]bool{},
		given: map[int32]int64{}, used: map[int32]int64{}, committed: map[int32]int64{}, doneParts: map[int32]bool{},
		marks:      map[int32]connector.ReplayMark{},
		lastCommit: time.Now(),
	}
	s.records = rr
	if v, ok := st.Options["scan.watermark.idle-timeout"]; ok {
		s.idle, _ = ParseFlinkDuration(v)
	}
	if !env.BuildSide {
		s.group = st.Options["properties.group.id"]
	}
	s.job.start()
	base := kafkaConsumerOpts(st, o)
	// The control records (transaction markers) take offsets: kept, they show
	// a bounded read reaching its stop offset; they are never rows.
	base = append(base, kgo.KeepControlRecords(), kgo.WithPools(&kafkaPools{}))
	admCl, err := kgo.NewClient(seeds(st, o)...)
	if err != nil {
		return nil, s.clientErr(err)
	}
	s.adm = kadm.NewClient(admCl)
	fail := func(err error) (connector.Source, error) {
		s.adm.Close()
		if cerr := ctx.Err(); cerr != nil {
			// the job was stopped (Ctrl-C, a signal) while the brokers had
			// not answered: that is the reason, not their silence
			return nil, fmt.Errorf("stream %s: %w", s.st.Name, cerr)
		}
		return nil, err
	}
	octx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	ends, err := s.listEnds(octx)
	if err != nil {
		return fail(err)
	}
	if err := s.checkSpecificPartitions(ends); err != nil {
		return fail(err)
	}
	s.nparts = len(ends)
	if s.bounded {
		if s.stop, err = s.stopOffsets(octx, ends); err != nil {
			return fail(err)
		}
	}
	if s.group == "" {
		parts := make([]int32, 0, len(ends))
		for p := range ends {
			parts = append(parts, p)
		}
		start, _, serr := s.startOffsets(octx, parts, false)
		if serr != nil {
			return fail(serr)
		}
		from := map[int32]kgo.Offset{}
		for p, off := range start {
			from[p] = kgo.NewOffset().At(off)
			s.next[p] = off
		}
		s.cl, err = kgo.NewClient(append(base, kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{s.topic: from}))...)
	} else {
		s.cl, err = kgo.NewClient(append(base,
			kgo.ConsumerGroup(s.group), kgo.ConsumeTopics(s.topic),
			// partition i of every topic of the job to one process, so
			// a join's co-partitioned inputs move together (SPEC 2.5),
			// cooperative and sticky: a rebalance moves only the
			// partitions that change owner, the others keep flowing;
			// cooperative-sticky for a group of older members
			kgo.Balancers(CoPartitionBalancer(s.job.processKey()), fallbackBalancer{kgo.CooperativeStickyBalancer(), &s.fellBack}),
			kgo.DisableAutoCommit(), kgo.BlockRebalanceOnPoll(),
			kgo.AdjustFetchOffsetsFn(s.adjustOffsets),
			kgo.OnPartitionsRevoked(s.lose), kgo.OnPartitionsLost(s.lose),
		)...)
	}
	if err != nil {
		return fail(s.clientErr(err))
	}
	if s.group != "" {
		s.job.addGroupSource(s)
	}
	return s, nil
}

func (s *kafkaSource) clientErr(err error) error {
	return fmt.Errorf("stream %s: Kafka client for 'properties.bootstrap.servers' = '%s': %v", s.st.Name, s.st.Options["properties.bootstrap.servers"], err)
}

// listEnds returns the end offsets of every partition of the topic (the last
// stable offsets with isolation.level = read_committed), failing with a
// message when the topic does not exist or the brokers do not answer.
func (s *kafkaSource) listEnds(ctx context.Context) (map[int32]int64, error) {
	var lo kadm.ListedOffsets
	var err error
	if s.opts.readCommitted {
		lo, err = s.adm.ListCommittedOffsets(ctx, s.topic)
	} else {
		lo, err = s.adm.ListEndOffsets(ctx, s.topic)
	}
	if err == nil {
		err = lo.Error()
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("stream %s: no answer from the Kafka brokers '%s' within 30 s: check 'properties.bootstrap.servers' and that the broker runs (scripts/kafka-broker status DIR)", s.st.Name, s.st.Options["properties.bootstrap.servers"])
		}
		if errors.Is(err, kerr.UnknownTopicOrPartition) {
			return nil, fmt.Errorf("stream %s: topic '%s' does not exist on %s; check 'topic', or write it first (a kafka sink's topic is created by the broker)", s.st.Name, s.topic, s.st.Options["properties.bootstrap.servers"])
		}
		return nil, fmt.Errorf("stream %s: topic '%s' on %s: %v%s", s.st.Name, s.topic, s.st.Options["properties.bootstrap.servers"], err, refusedHint(err))
	}
	out := map[int32]int64{}
	for p, x := range lo[s.topic] {
		out[p] = x.Offset
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("stream %s: topic '%s' does not exist on %s; create it first (kafka-topics.sh --create --topic %s), or check 'topic'", s.st.Name, s.topic, s.st.Options["properties.bootstrap.servers"], s.topic)
	}
	return out, nil
}

// checkSpecificPartitions returns an error when 'scan.startup.specific-offsets'
// (with 'scan.startup.mode' = 'specific-offsets') names a partition the
// topic does not have (ends holds every partition), instead of ignoring it.
func (s *kafkaSource) checkSpecificPartitions(ends map[int32]int64) error {
	if s.st.Options["scan.startup.mode"] != "specific-offsets" {
		return nil
	}
	spec, _ := parseSpecificOffsets(s.st.Options["scan.startup.specific-offsets"])
	var missing []int
	for p := range spec {
		if _, ok := ends[p]; !ok {
			missing = append(missing, int(p))
		}
	}
	if len(missing) == 0 {
		return nil
	}
	sort.Ints(missing)
	return fmt.Errorf("stream %s: 'scan.startup.specific-offsets' names partition %d, but topic '%s' has %d partition(s), 0 to %d: give offsets of its partitions only", s.st.Name, missing[0], s.topic, len(ends), len(ends)-1)
}

// stopOffsets returns, per partition, the first offset a bounded read does not
// read ('scan.bounded.mode'): the end offsets when the job starts, or the
// first offset at or after 'scan.bounded.timestamp-millis'.
func (s *kafkaSource) stopOffsets(ctx context.Context, ends map[int32]int64) (map[int32]int64, error) {
	if s.st.Options["scan.bounded.mode"] != "timestamp" {
		return ends, nil
	}
	ms, _ := strconv.ParseInt(s.st.Options["scan.bounded.timestamp-millis"], 10, 64)
	return s.afterMilli(ctx, ms, ends)
}

// afterMilli returns per partition the first offset whose record's timestamp
// is at or after ms, or the end offset when there is none.
func (s *kafkaSource) afterMilli(ctx context.Context, ms int64, ends map[int32]int64) (map[int32]int64, error) {
	lo, err := s.adm.ListOffsetsAfterMilli(ctx, ms, s.topic)
	if err == nil {
		err = lo.Error()
	}
	if err != nil {
		return nil, fmt.Errorf("stream %s: offsets of topic '%s' at timestamp %d: %v", s.st.Name, s.topic, ms, err)
	}
	out := map[int32]int64{}
	for p, end := range ends {
		out[p] = end
		if x, ok := lo.Lookup(s.topic, p); ok && x.Offset >= 0 && x.Offset < end {
			out[p] = x.Offset
		}
	}
	return out, nil
}

// startOffsets resolves where each of parts starts ('scan.startup.mode',
// SPEC 1): earliest, latest, by timestamp, specific offsets (other partitions
// at their earliest), or the group's committed offsets (partitions without one
// by 'properties.auto.offset.reset', default earliest). With a group id, a
// partition that has a committed offset always continues from it, whatever
// the mode (as Kafka's auto.offset.reset: the mode decides only where none is
// committed), so a restarted job does not read again what it wrote (issue
// 30: an exactly-once job restarted with 'earliest-offset' wrote rows twice);
// again (a partition assigned again within one job) changes nothing more. The marks are
// the replay marks read with the committed offsets (commit metadata,
// ParseReplayMark), for the partitions that have one.
func (s *kafkaSource) startOffsets(ctx context.Context, parts []int32, again bool) (map[int32]int64, map[int32]connector.ReplayMark, error) {
	listed := func(lo kadm.ListedOffsets, err error) (map[int32]int64, error) {
		if err == nil {
			err = lo.Error()
		}
		if err != nil {
			return nil, fmt.Errorf("stream %s: offsets of topic '%s': %v", s.st.Name, s.topic, err)
		}
		out := map[int32]int64{}
		for p, x := range lo[s.topic] {
			out[p] = x.Offset
		}
		return out, nil
	}
	earliest, err := listed(s.adm.ListStartOffsets(ctx, s.topic))
	if err != nil {
		return nil, nil, err
	}
	ends, err := listed(s.adm.ListEndOffsets(ctx, s.topic))
	if err != nil {
		return nil, nil, err
	}
	mode := s.st.Options["scan.startup.mode"]
	if mode == "" {
		mode = "earliest-offset"
		if s.st.Options["properties.group.id"] != "" {
			mode = "group-offsets"
		}
	}
	var committed map[int32]int64
	marks := map[int32]connector.ReplayMark{}
	if s.group != "" { // (again or not: a committed offset always wins, issue 30)
		or, err := s.stableOffsets(ctx)
		if err != nil {
			return nil, nil, fmt.Errorf("stream %s: committed offsets of group '%s': %v", s.st.Name, s.group, err)
		}
		committed = map[int32]int64{}
		var merr error
		or.Each(func(o kadm.OffsetResponse) {
			if o.Topic == s.topic && o.At >= 0 {
				committed[o.Partition] = o.At
				if m, ok, err := connector.ParseReplayMark(o.Metadata); ok {
					marks[o.Partition] = m
				} else if err != nil && merr == nil {
					merr = fmt.Errorf("stream %s: group '%s', topic '%s' partition %d: %v (a replay mark is written by streamql only); reset the group's offsets of the topic (kafka-consumer-groups.sh --reset-offsets), or use another 'properties.group.id'", s.st.Name, s.group, s.topic, o.Partition, err)
				}
			}
		})
		if merr != nil {
			return nil, nil, merr
		}
	}
	var byMode map[int32]int64
	switch mode {
	case "earliest-offset":
		byMode = earliest
	case "latest-offset":
		byMode = ends
	case "timestamp":
		ms, _ := strconv.ParseInt(s.st.Options["scan.startup.timestamp-millis"], 10, 64)
		if byMode, err = s.afterMilli(ctx, ms, ends); err != nil {
			return nil, nil, err
		}
	case "specific-offsets":
		spec, _ := parseSpecificOffsets(s.st.Options["scan.startup.specific-offsets"])
		byMode = map[int32]int64{}
		for p, off := range earliest {
			byMode[p] = off
			if x, ok := spec[p]; ok {
				byMode[p] = min(max(x, off), ends[p])
			}
		}
	case "group-offsets":
		byMode = earliest
		if s.opts.resetLatest {
			byMode = ends
		}
	}
	out := map[int32]int64{}
	for _, p := range parts {
		off, ok := committed[p]
		if !ok {
			off = byMode[p]
			delete(marks, p)
		}
		out[p] = off
	}
	return out, marks, nil
}

// kafkaStableWait bounds how long a partition's new owner waits for the
// transaction of its previous owner, holding offsets of the partition, to be
// committed or aborted (a crashed owner's: until the broker aborts it after
// its transaction.timeout.ms).
var kafkaStableWait = 3 * time.Minute

// stableOffsets fetches the group's committed offsets of the topic, waiting
// (at most kafkaStableWait) while a transaction that commits offsets of it is
// still open (KIP-447's require_stable: Kafka answers UNSTABLE_OFFSET_COMMIT).
// Read before that transaction ends, an offset would be the one before it,
// and the rows it covers would be written twice.
func (s *kafkaSource) stableOffsets(ctx context.Context) (kadm.OffsetResponses, error) {
	deadline := time.Now().Add(kafkaStableWait)
	for {
		or, err := s.adm.FetchOffsetsForTopics(kadm.RequireStable(ctx), s.group, s.topic)
		if err == nil {
			err = or.Error()
		}
		if !errors.Is(err, kerr.UnstableOffsetCommit) || time.Now().After(deadline) {
			if errors.Is(err, kerr.UnstableOffsetCommit) {
				err = fmt.Errorf("%w: a transaction holding offsets of the topic stayed open %v; lower the writer's 'properties.transaction.timeout.ms'", err, kafkaStableWait)
			}
			return or, err
		}
		select {
		case <-ctx.Done():
			return or, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// adjustOffsets is the group's kgo.AdjustFetchOffsetsFn: the partitions just
// assigned start where startOffsets says, and are read from then on; the
// job's state is told (replayEvent) before any of their rows.
func (s *kafkaSource) adjustOffsets(ctx context.Context, m map[string]map[int32]kgo.Offset) (map[string]map[int32]kgo.Offset, error) {
	var fresh, again []int32
	s.mu.Lock()
	for p := range m[s.topic] {
		if s.seen[p] {
			again = append(again, p)
		} else {
			fresh = append(fresh, p)
		}
	}
	s.mu.Unlock()
	out := map[int32]kgo.Offset{}
	for k, parts := range [][]int32{fresh, again} {
		if len(parts) == 0 {
			continue
		}
		offs, marks, err := s.startOffsets(ctx, parts, k == 1)
		if err != nil && ctx.Err() != nil {
			// The group session began revoking while the offsets were
			// read (a rebalance, or this client leaving the group on a
			// stop): franz-go drops this assignment and, given its own
			// context's error, revokes and joins again, assigning the
			// partitions anew; not the job's error (a process stopped
			// or rebalanced during its start exited 1 with "context
			// canceled").
			return nil, ctx.Err()
		}
		if err != nil {
			s.mu.Lock()
			s.cbErr = err
			s.mu.Unlock()
			return nil, err
		}
		s.mu.Lock()
		for p, off := range offs {
			out[p] = kgo.NewOffset().At(off)
			s.next[p] = off
			// What this process used or committed of p before it lost p
			// is history: another owner may have committed past it, and
			// committing it again would move the group's offset back.
			s.used[p], s.committed[p] = off, off
			m, ok := marks[p]
			if ok {
				s.marks[p] = m
			} else {
				delete(s.marks, p)
			}
			s.noteEvent(replayEvent{p: p, assign: true, from: off, mark: m, ok: ok})
			s.assigned[p] = true
			s.seen[p] = true
			delete(s.doneParts, p)
		}
		s.mu.Unlock()
	}
	s.mu.Lock()
	s.gotParts = true
	s.mu.Unlock()
	return map[string]map[int32]kgo.Offset{s.topic: out}, nil
}

// lose is the group's revoke and lost callback: the partitions are no longer
// this process's (their offsets were committed before the rebalance was
// allowed, in commit); the job's state drops them (replayEvent).
func (s *kafkaSource) lose(_ context.Context, _ *kgo.Client, m map[string][]int32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range m[s.topic] {
		delete(s.assigned, p)
		s.noteEvent(replayEvent{p: p})
	}
}

// Next implements Source: the records of the last poll, then a new poll of at
// most kafkaPoll; ErrWaiting when a poll brought nothing. Every assignment
// change the group's callbacks noted (adjustOffsets, lose) reaches the
// job's state (Replay.Assign, Revoke) before it returns: the job goes on
// after any return, and must not hold rows of a partition it lost.
func (s *kafkaSource) Next(b *vector.Batch, bad *[]connector.BadRow) error {
	b.Reset()
	s.useGiven()
	s.applyEvents()
	badStart := len(*bad)
	for {
		if err := s.ctx.Err(); err != nil {
			return err
		}
		if s.fellBack.Load() {
			if err := s.job.mixedGroup(s.group); err != nil {
				return err
			}
		}
		// Commit (and let a rebalance go on) only between polls: no record
		// of a partition the group may take away is left to give.
		if s.group != "" && s.ri == len(s.recs) && time.Since(s.lastCommit) >= KafkaCommitEvery {
			if err := s.commit(s.ctx); err != nil {
				return err
			}
		}
		s.applyEvents() // (a poll may have run the group's callbacks)
		s.fill(b, bad)
		if s.records != nil {
			if err := s.records.failure(); err != nil {
				return err
			}
		}
		if b.N > 0 || len(*bad) > badStart {
			return nil
		}
		if s.bounded && s.allDone() {
			s.ended = true // (its rebalances go on at the job's checkpoints: rebalanceWindow)
			return io.EOF
		}
		if err := s.poll(); err != nil {
			return err
		}
		// The group's callbacks run between the commit's AllowRebalance
		// and the poll's return (kgo.BlockRebalanceOnPoll), so this is the
		// last point where a change can be queued: the job's state hears
		// of it before Next returns, also when the poll brought nothing.
		// The job goes on after ErrWaiting (an event-time join releases
		// held rows as its build side's watermark moves): a revoked
		// partition's rows still in state would go to the sinks and commit
		// in the next transaction, while its next owner reads them again
		// from the commit (a row twice, TestKafkaScaleOutJoinCrashesExactlyOnce).
		s.applyEvents()
		if s.ri == len(s.recs) {
			return connector.ErrWaiting // the job flushes its sinks, a table renders
		}
	}
}

// rebalanceWindow lets the group's rebalance of a bounded source in a
// consumer group that reached its end (Next returned io.EOF) go on, then
// blocks it again and hands the assignment changes its callbacks noted to the
// job's state (Replay.Revoke, Assign). Its job polls it no more while its
// other sources go on, so its commits between polls, which let a rebalance go
// on, no longer come: a rebalance that another member of the group starts
// (the other stream of a join in the same group joining, or leaving, or
// another process of the script) would wait for this member until the
// group's rebalance timeout ('properties.max.poll.interval.ms', 60 s)
// removed it, holding the other member's partitions, and the job, back that
// long. So the job opens this window at each checkpoint of another group
// source (kafkaSource.commit, every KafkaCommitEvery), right after its
// outputs and offsets committed, on the job's goroutine.
//
// The rebalance must not go on at any other time. The job's state may still
// hold rows of the ended source's partitions (an event-time join's probe
// rows, open windows), which the other sources' progress releases into the
// open transaction. A revoke that came while rows of partition p were
// released (franz-go's callbacks run on its own goroutine once
// AllowRebalance was called) would reach the state only at the next
// checkpoint: the transaction would commit p's rows without p's offsets and
// mark (toCommit takes owned partitions only), and p's next owner, reading
// again from p's last commit, would write them again (a row twice). Inside
// the window no row is written: the transaction just committed, and the
// callbacks have run (the poll that blocks the rebalance again waits for
// those the window let go) and their changes reached the state before the
// job writes on (TestKafkaEndedSourceRebalancesAtCheckpoints). A rebalance
// that reaches the gate after the window waits for the next one.
//
// A job whose group sources have all ended opens no window until it ends
// (its last checkpoint, then Close leaves the group): a member that joins
// the group meanwhile waits until then, or until the rebalance timeout
// removed this member, whose later commits the group then refuses (the
// transaction aborts; at-least-once repeats rows, never loses one).
func (s *kafkaSource) rebalanceWindow() {
	if s.group == "" || !s.ended {
		return
	}
	s.cl.AllowRebalance()
	// A poll with an ended context fetches nothing: it waits for the
	// callbacks that AllowRebalance let go, and blocks the rebalance again
	// (kgo.BlockRebalanceOnPoll: "rebalances take priority").
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	s.cl.PollFetches(ended)
	s.applyEvents()
}

// Meta implements MetaSource.
func (s *kafkaSource) Meta(i int) connector.RecordMeta { return s.meta[i] }

// WantMeta makes the source keep each row's metadata (MetaSource): a stream
// with METADATA columns asks for it.
func (s *kafkaSource) WantMeta() { s.wantMeta = true }

// fill decodes the records left from the last poll into b and *bad.
func (s *kafkaSource) fill(b *vector.Batch, bad *[]connector.BadRow) {
	nbad := 0
	s.batch = s.batch[:0]
	s.meta = s.meta[:0]
	// A poll's records come partition by partition: the partition's stop
	// offset is looked up, and what was given of it noted, once per run of
	// its records instead of once per record.
	runP, runGiven, runStop, runHasStop := int32(-1), int64(-1), int64(0), false
	for s.ri < len(s.recs) && b.N < vector.Cap && nbad < vector.Cap {
		r := s.recs[s.ri]
		s.ri++
		if r.Topic != s.topic {
			continue
		}
		p := r.Partition
		if p != runP {
			if runGiven >= 0 {
				s.given[runP] = runGiven
			}
			runP, runGiven = p, -1
			if s.bounded {
				runStop, runHasStop = s.stop[p]
			}
		}
		if s.bounded && (!runHasStop || r.Offset >= runStop) {
			s.markDone(p)
			continue
		}
		runGiven = r.Offset + 1
		if s.bounded && r.Offset+1 >= runStop {
			s.markDone(p)
		}
		if r.Attrs.IsControl() {
			continue
		}
		pos := connector.KafkaPosition(p, r.Offset)
		if s.records != nil { // SPEC 2.8: a record is rows with kinds, or none
			at := b.N
			reason, full := s.records.appendRecord(b, r.Key, r.Value, pos)
			if full {
				s.ri-- // read again into the next batch
				runGiven = r.Offset
				break
			}
			s.read += int64(len(r.Value))
			if reason != "" {
				*bad = append(*bad, connector.BadRow{Index: b.N, Line: pos, Raw: rawPrefix(r.Value), Reason: reason})
				s.batch = append(s.batch, kafkaRow{p, r.Offset, false})
				nbad++
				continue
			}
			if b.N == at {
				s.batch = append(s.batch, kafkaRow{p, r.Offset, false}) // (a tombstone: no row)
			}
			for ; at < b.N; at++ {
				s.batch = append(s.batch, kafkaRow{p, r.Offset, true})
			}
			continue
		}
		s.read += int64(len(r.Value))
		if reason := s.dec.DecodeValue(b, r.Value); reason != "" {
			*bad = append(*bad, connector.BadRow{Index: b.N, Line: pos, Raw: rawPrefix(r.Value), Reason: reason})
			s.batch = append(s.batch, kafkaRow{p, r.Offset, false})
			nbad++
			continue
		}
		b.Pos[b.N] = pos
		b.N++
		s.batch = append(s.batch, kafkaRow{p, r.Offset, true})
		if s.wantMeta {
			s.meta = append(s.meta, connector.RecordMeta{Timestamp: r.Timestamp.UnixMilli(), Partition: p, Offset: r.Offset, Key: r.Key, Headers: r.Headers})
		}
	}
	if runGiven >= 0 {
		s.given[runP] = runGiven
	}
	s.mu.Lock() // once per batch: the group's callbacks read next
	for p, off := range s.given {
		s.next[p] = max(s.next[p], off)
	}
	s.mu.Unlock()
}

// rawPrefix is a record value as a malformed row's raw text: its first
// inbuf.RawPrefix bytes (SPEC 1).
func rawPrefix(v []byte) []byte {
	if len(v) > inbuf.RawPrefix {
		return v[:inbuf.RawPrefix:inbuf.RawPrefix]
	}
	return v
}

// markDone pauses a partition that reached its stop offset.
func (s *kafkaSource) markDone(p int32) {
	if s.doneParts[p] {
		return
	}
	s.doneParts[p] = true
	s.cl.PauseFetchPartitions(map[string][]int32{s.topic: {p}})
}

// allDone reports whether every partition read has reached its stop offset
// (in a group: every partition assigned, once the group assigned them).
func (s *kafkaSource) allDone() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	parts := s.next
	if s.group != "" {
		if !s.gotParts {
			return false
		}
		parts = map[int32]int64{}
		for p := range s.assigned {
			parts[p] = s.next[p]
		}
	}
	for p, next := range parts {
		if next < s.stop[p] {
			return false
		}
	}
	return true
}

// kafkaOutageQuiet is how long after the last connection error the brokers
// count as back (polls that bring nothing do not say they answer).
var kafkaOutageQuiet = 5 * time.Second

// kafkaTransient reports whether err is one that a broker's restart or a
// network break gives (a refused or broken connection, a group session that
// cannot be joined, a retriable Kafka error): franz-go retries, and the job
// rides it out (issue 30).
func kafkaTransient(err error) bool {
	var ge *kgo.ErrGroupSession
	var ne net.Error
	return errors.As(err, &ge) || errors.As(err, &ne) || kerr.IsRetriable(err) || kgo.IsRetryableBrokerErr(err) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		strings.Contains(err.Error(), "unable to dial") // (wrapped as text on some paths)
}

// outageLimit is how long the brokers may not answer before the job fails:
// twice 'properties.request.timeout.ms' (Kafka's default 30 s: 60 s).
func (s *kafkaSource) outageLimit() time.Duration {
	ms, err := strconv.ParseInt(strings.TrimSpace(s.st.Options["properties.request.timeout.ms"]), 10, 64)
	if err != nil || ms <= 0 {
		ms = 30_000
	}
	return 2 * time.Duration(ms) * time.Millisecond
}

// outage notes the connection error err of a poll or commit (nil: none): the
// outage starts at the first, shows on the live status (Outage) and ends
// kafkaOutageQuiet after the last; past outageLimit the job fails with an
// error naming the stream, the topic and the brokers.
func (s *kafkaSource) outage(err error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	if err == nil {
		if !s.downSince.IsZero() && now.Sub(s.downLast) > kafkaOutageQuiet {
			s.downSince, s.downErr = time.Time{}, nil
		}
		return nil
	}
	if s.downSince.IsZero() {
		s.downSince = now
	}
	s.downLast, s.downErr = now, err
	if lim := s.outageLimit(); now.Sub(s.downSince) > lim {
		return fmt.Errorf("stream %s: topic '%s': the Kafka brokers '%s' have not answered for %v (twice 'properties.request.timeout.ms'): %v%s", s.st.Name, s.topic, s.st.Options["properties.bootstrap.servers"], lim, err, refusedHint(err))
	}
	return nil
}

// Outage implements connector.Outager: "" while the brokers answer, else
// how long they have not and the last error, for the live status.
func (s *kafkaSource) Outage() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.downSince.IsZero() {
		return ""
	}
	return fmt.Sprintf("topic '%s': brokers not answering for %ds, retrying (%v)", s.topic, int(time.Since(s.downSince).Seconds()), s.downErr)
}

// poll waits up to kafkaPoll for records into s.recs.
func (s *kafkaSource) poll() error {
	ctx, cancel := context.WithTimeout(s.ctx, kafkaPoll)
	defer cancel()
	// Every row decoded from the last poll's records has been used (Next
	// polls only with an empty batch): their memory goes back to the pools.
	for _, r := range s.recs {
		r.Recycle()
	}
	fs := s.cl.PollFetches(ctx)
	s.recs, s.ri = s.recs[:0], 0
	var ferr, down error
	fs.EachError(func(t string, p int32, err error) {
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
			return
		}
		if kafkaTransient(err) {
			down = err
			return
		}
		if ferr == nil {
			if t == "" { // (a group's error comes without a topic)
				ferr = fmt.Errorf("stream %s: reading topic '%s': %v", s.st.Name, s.topic, err)
			} else {
				ferr = fmt.Errorf("stream %s: reading topic '%s' partition %d: %v", s.st.Name, t, p, err)
			}
		}
	})
	if err := s.ctx.Err(); err != nil {
		return err
	}
	if ferr == nil {
		if err := s.outage(down); err != nil {
			return err
		}
		if down != nil {
			select { // (franz-go retries with its backoff; no busy loop here)
			case <-s.ctx.Done():
			case <-time.After(200 * time.Millisecond):
			}
		}
	}
	s.mu.Lock()
	cbErr := s.cbErr
	s.mu.Unlock()
	if cbErr != nil {
		return cbErr
	}
	if ferr != nil {
		return ferr
	}
	fs.EachRecord(func(r *kgo.Record) { s.recs = append(s.recs, r) })
	return nil
}

// useGiven notes that the job used every row Next gave last time (it calls
// Next again only after routing and writing the batch).
func (s *kafkaSource) useGiven() {
	if len(s.given) == 0 {
		return
	}
	s.mu.Lock() // (adjustOffsets resets used of a partition assigned again)
	for p, off := range s.given {
		s.used[p] = max(s.used[p], off)
		delete(s.given, p)
	}
	s.mu.Unlock()
}

// Unread implements Unreader: only the first rows good rows of the last batch
// were used (a LIMIT ended the job); their offsets only are committed.
func (s *kafkaSource) Unread(rows int) { s.UnreadAfter(rows, 0) }

// UnreadAfter implements Unreader: the first rows good rows of the last
// batch (and the malformed rows before the last of them) were used. A
// malformed row that stopped the job ('errors'='fail') is not committed: a
// job run again stops at it again instead of passing it silently.
func (s *kafkaSource) UnreadAfter(rows, _ int) {
	clear(s.given)
	for _, r := range s.batch {
		if rows <= 0 {
			break
		}
		if r.good {
			rows--
		}
		s.given[r.p] = max(s.given[r.p], r.off+1)
	}
	s.useGiven()
}

// commit makes the job's Kafka sinks durable and commits the group offsets
// of the rows used (kafkaJob.checkpoint), then lets a waiting rebalance go on:
// its own (until its next poll returns), and those of the job's group sources
// that reached their end (kafkaJob.rebalanceEnded).
func (s *kafkaSource) commit(ctx context.Context) error {
	s.lastCommit = time.Now()
	if err := s.job.checkpoint(ctx, midJob); err != nil {
		if kafkaTransient(err) && !s.job.transactional() {
			// the brokers are away: the offsets are committed at a later
			// commit (each commits the latest), within the outage's limit
			return s.outage(err)
		}
		if !errors.Is(err, errRebalanced) {
			return err
		}
		// The transaction was aborted and the partitions rewound: the job
		// goes on, and the rebalance that refused the commit may proceed.
	}
	s.cl.AllowRebalance()
	s.job.rebalanceEnded()
	return nil
}

// rewind sets every partition this process holds back to its last committed
// offset after the transaction that held the offsets of the rows read since
// was aborted (errRebalanced): those rows are read again, so their outputs are
// written once, in a later transaction. Records polled but not yet given are
// dropped; a partition that reached its stop offset is read again to it. The
// job's state rebuilds each partition from its committed offset and mark, as
// at an assignment.
func (s *kafkaSource) rewind() {
	set := map[int32]kgo.EpochOffset{}
	s.mu.Lock()
	for p := range s.assigned {
		off := s.committed[p]
		set[p] = kgo.EpochOffset{Epoch: -1, Offset: off}
		s.used[p], s.next[p] = off, off
		delete(s.doneParts, p)
		m, ok := s.marks[p]
		s.noteEvent(replayEvent{p: p, assign: true, from: off, mark: m, ok: ok})
	}
	s.mu.Unlock()
	clear(s.given)
	s.ri = len(s.recs)
	s.cl.SetOffsets(map[string]map[int32]kgo.EpochOffset{s.topic: set})
}

// topicID returns the topic's ID (fetched once), which Kafka's newer
// transactional offset commits name topics by.
func (s *kafkaSource) topicID(ctx context.Context) ([16]byte, error) {
	if s.idKnown {
		return s.id, nil
	}
	md, err := s.adm.Metadata(ctx, s.topic)
	if err == nil {
		if td, ok := md.Topics[s.topic]; ok && td.Err == nil {
			s.id, s.idKnown = td.ID, true
			return s.id, nil
		} else if ok {
			err = td.Err
		} else {
			err = fmt.Errorf("no metadata")
		}
	}
	return s.id, fmt.Errorf("stream %s: the ID of topic '%s': %w", s.st.Name, s.topic, err)
}

// committedAt notes offsets (and marks) committed, by a transaction or
// commitOffsets.
func (s *kafkaSource) committedAt(offs map[int32]pendingCommit) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for p, o := range offs {
		s.committed[p] = max(s.committed[p], o.off)
		if o.meta {
			s.marks[p] = o.mark
		}
	}
}

// commitOffsets commits offs for the group (at-least-once), with the marks
// as metadata: franz-go's CommitOffsetsSync carries no metadata, so this is
// Kafka's OffsetCommit with the member and generation (a stale generation is
// refused, as a zombie's must be).
func (s *kafkaSource) commitOffsets(ctx context.Context, offs map[int32]pendingCommit) error {
	member, gen := s.cl.GroupMetadata()
	req := kmsg.NewPtrOffsetCommitRequest()
	req.Group, req.Generation, req.MemberID = s.group, gen, member
	if inst := s.st.Options["properties.group.instance.id"]; inst != "" {
		req.InstanceID = &inst
	}
	id, err := s.topicID(ctx)
	if err != nil {
		return err
	}
	t := kmsg.NewOffsetCommitRequestTopic()
	t.Topic, t.TopicID = s.topic, id // (by ID from OffsetCommit v10)
	for p, o := range offs {
		rp := kmsg.NewOffsetCommitRequestTopicPartition()
		rp.Partition, rp.Offset, rp.LeaderEpoch = p, o.off, -1
		if o.meta {
			m := o.mark.String()
			rp.Metadata = &m
		}
		t.Partitions = append(t.Partitions, rp)
	}
	req.Topics = append(req.Topics, t)
	resp, err := req.RequestWith(ctx, s.cl)
	if err == nil {
		for _, rt := range resp.Topics {
			for _, rp := range rt.Partitions {
				if e := kerr.ErrorForCode(rp.ErrorCode); e != nil && err == nil {
					err = e
				}
			}
		}
	}
	if err != nil {
		return s.commitError(err)
	}
	s.committedAt(offs)
	return nil
}

// commitError names the stream, group and topic of a failed offset commit,
// keeping err (Kafka's error code) for rebalanced: kafkaJob.checkpoint goes
// on after a commit the group refused.
func (s *kafkaSource) commitError(err error) error {
	return fmt.Errorf("stream %s: committing the offsets of group '%s' on topic '%s': %w", s.st.Name, s.group, s.topic, err)
}

// Position implements Source: topic:partition:offset (SPEC 2.5).
func (s *kafkaSource) Position(pos int64) string {
	p, off := connector.KafkaPartitionOf(pos)
	var b strings.Builder
	b.WriteString(s.topic)
	b.WriteByte(':')
	b.WriteString(strconv.FormatInt(int64(p), 10))
	b.WriteByte(':')
	b.WriteString(strconv.FormatInt(off, 10))
	return b.String()
}

// Partition implements PartitionedSource.
func (s *kafkaSource) Partition(pos int64) int32 { p, _ := connector.KafkaPartitionOf(pos); return p }

// Partitions implements PartitionedSource.
func (s *kafkaSource) Partitions(dst []int32) []int32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	for p, next := range s.next {
		if s.group != "" && !s.assigned[p] {
			continue
		}
		if s.bounded && next >= s.stop[p] {
			continue
		}
		dst = append(dst, p)
	}
	return dst
}

// TopicPartitions implements TopicSource.
func (s *kafkaSource) TopicPartitions() (string, int) { return s.topic, s.nparts }

// IdleTimeout implements PartitionedSource.
func (s *kafkaSource) IdleTimeout() time.Duration { return s.idle }

// Progress implements Source: the value bytes read; the total is unknown.
func (s *kafkaSource) Progress() (int64, int64) { return s.read, 0 }

// Close implements Source: in a group, the offsets of the rows used are
// committed (unless a sink of the job failed: its rows may not be written),
// then the client leaves the group.
func (s *kafkaSource) Close() error {
	var err error
	if s.group != "" {
		s.closeUsed()
		if s.job.failure() == nil {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			err = s.job.checkpoint(ctx, jobEnd)
			cancel()
		}
	}
	if s.group != "" {
		s.job.removeGroupSource(s)
		s.cl.CloseAllowingRebalance() // (Close waits for a rebalance BlockRebalanceOnPoll holds)
	} else {
		s.cl.Close()
	}
	s.adm.Close()
	return err
}

// closeUsed notes, when the job ends, the rows of the last batch as used
// when the job is known to have used them: the source ended (Next returned
// io.EOF after they were written), or the job's state took them and their
// outputs reached the sinks (a Replay, not torn). The state's watermarks and
// fire frontiers then include that batch, so committing U_p before it with
// them would seed the next owner with a watermark past its rows, which it
// would drop as late (and lose their windows). A batch cut by cancellation
// was given back (Unread) or left the state torn (nothing is committed); a
// stateless job without a Replay keeps U_p before it (its rows are read
// again).
func (s *kafkaSource) closeUsed() {
	s.mu.Lock()
	r := s.replay
	s.mu.Unlock()
	if s.ended || r != nil && !r.Torn() {
		s.useGiven()
	}
}

// kafkaFetchPartitionBytes and kafkaFetchBytes are a Kafka source's default
// 'properties.max.partition.fetch.bytes' and 'properties.fetch.max.bytes'
// (bytes): what one fetch brings per partition and in all (a record batch
// larger than either still comes whole, as Kafka returns it).
const (
	kafkaFetchPartitionBytes = 256 << 10
	kafkaFetchBytes          = 16 << 20
)

// kafkaConsumerOpts returns the options of a source's consumer client: the
// seeds, fetch sizes smaller than franz-go's (1 MiB per partition, 50 MiB per
// fetch) and then the stream's own 'properties.*', which override them. A
// fetch's records are held until the job used them, and one fetch per broker
// is held in advance, so the fetch size is most of the source's heap (about
// 20 times the fetched bytes of small rows, in records and decompressed
// values); the smaller one costs no throughput (README, Development: the
// split between Kafka topics).
func kafkaConsumerOpts(st *catalog.Stream, o *kafkaOpts) []kgo.Opt {
	base := append(seeds(st, o), kgo.FetchMaxPartitionBytes(kafkaFetchPartitionBytes), kgo.FetchMaxBytes(kafkaFetchBytes))
	return append(base, o.consumer...)
}

// kafkaPools lets franz-go reuse the fetched records and their decompressed
// bytes (kgo.WithPools): the source recycles a poll's records once the job
// has used every row decoded from them (the next poll), so reading a topic
// does not allocate per fetch in the steady state.
type kafkaPools struct {
	recs, bytes sync.Pool
}

func (p *kafkaPools) GetRecords(n int) []kgo.Record {
	if r, ok := p.recs.Get().(*[]kgo.Record); ok && cap(*r) >= n {
		return (*r)[:0:n]
	}
	return make([]kgo.Record, 0, n)
}

func (p *kafkaPools) PutRecords(r []kgo.Record) { p.recs.Put(&r) }

func (p *kafkaPools) GetDecompressBytes(compressed []byte, _ kgo.CompressionCodecType) []byte {
	if b, ok := p.bytes.Get().(*[]byte); ok && cap(*b) >= 2*len(compressed) {
		return (*b)[:0]
	}
	return make([]byte, 0, 4*len(compressed))
}

func (p *kafkaPools) PutDecompressBytes(b []byte) { p.bytes.Put(&b) }
