package catalog

import "strings"

// Caps is a set of capabilities a connector declares in its ConnectorSpec
// (issue 22 item 5): what its streams can do, which the engine, the
// planner and the session read instead of discovering them by a type
// assertion on what the connector opened (or by the connector's name).
// executor/connector binds each declared capability of an opened source or
// sink to its typed handle once (connector.BindSource, BindSink), failing
// when the implementation lacks one; its tests check that every registered
// connector's declaration matches what its implementation provides.
type Caps uint32

// The capabilities. CapBounded, CapSink and CapUpdates are a stream's
// (Stream.Caps: its Bounded rule, its sink opener, Upserts); the others a
// connector declares in ConnectorSpec.Caps.
const (
	// CapBounded: the stream ends by itself (ConnectorSpec.Bounded of its
	// options; SPEC 1, the connector table).
	CapBounded Caps = 1 << iota
	// CapSink: the stream can be a sink (SPEC 2.5; ConnectorSpec.Writes).
	CapSink
	// CapUpdates: the stream reads and writes upserts keyed by its PRIMARY
	// KEY (SPEC 2.8; ConnectorSpec.Upserts, Stream.Updating).
	CapUpdates
	// CapPartitioned: the source's rows come from partitions, each in its
	// own order: per-partition watermarks (SPEC 2.5;
	// connector.PartitionedSource).
	CapPartitioned
	// CapGroups: the stream may be read in a consumer group
	// (KafkaConfig.GroupID): the processes running one script share its
	// partitions, and a restarted one resumes from the group's committed
	// offsets (SPEC 2.5; EXPLAIN's scale-out lines).
	CapGroups
	// CapRecordMetadata: the source's rows carry Kafka record metadata,
	// which METADATA columns read (SPEC 1; connector.MetaSource).
	CapRecordMetadata
	// CapHandBack: what a job does not use of the source's input goes back
	// to the session's next job reading it (stdin, SPEC 1): its decoder keeps
	// the input's bytes to give back.
	CapHandBack
	// CapSinkKinds: the sink writes each row's kind (SPEC 2.8: a changelog
	// file or an upsert-kafka sink; connector.KindWriter).
	CapSinkKinds
	// CapDeadLetters: the sink writes a dead letter ('errors.stream', SPEC
	// 2.5) its own way, not as a row of four VARCHARs (Kafka: the raw bytes as
	// the value; connector.DeadLetterWriter).
	CapDeadLetters
	// CapAbort: the sink can take back what it wrote since its last commit
	// when the job fails (an exactly-once Kafka sink's open transaction;
	// connector.Aborter).
	CapAbort
	// CapParallelDecode: the source can decode its input in chunks on
	// several goroutines, merged in input order (a bounded file, issue 15
	// item 3; connector.ParallelSource), which the planner's strategies
	// (plan.ParallelDecode, Morsel, ParallelAggregate, ParallelJoinInputs,
	// LookupMorsel)
	// run on; its Parallel says at run time whether this input can be cut
	// (nil: the job reads it by Next). A stream has it only when it is also
	// bounded (Stream.Caps: a followed file is read as it grows, by Next).
	CapParallelDecode
	// CapReread: two opens of the stream in one job each read all its rows,
	// independently of each other (a file, values, nexmark, datagen, a Kafka
	// topic read outside a consumer group), so a job may read it twice: a
	// self-join, a UNION ALL of two queries over it, a view or WITH name
	// read twice, a semi/anti join whose build side is its own probe
	// stream (SPEC 2.6, 2.7). Without it (stdin, a 'go' stream's pushed
	// queue, a socket) a second open would wait forever or share the rows,
	// so the planner opens such a stream once and fans its rows out to its
	// readers (planner/rule_tee.go, executor/tee.go); a Kafka consumer
	// group, whose reads in the group split its partitions, reads whole
	// instead (CapReadWhole) or is refused (planner/rule_read_once.go).
	// A connector whose streams lose it by their options says so in
	// ConnectorSpec.ReadOnce.
	CapReread
	// CapReadWhole: a read of the stream as a join's build side (every
	// partition, outside its consumer group: connector.Env.BuildSide) reads
	// all its rows independently of the stream's other opens, even when it
	// lacks CapReread (a Kafka stream with 'properties.group.id': only two
	// reads in the group split its partitions; a derived relation over it
	// is read whole too, SPEC 2.5).
	CapReadWhole
	capEnd
)

// capNames are the capabilities' names, in bit order (Caps.String).
var capNames = [...]string{"bounded", "sink", "updates", "partitioned", "groups", "record metadata", "hand back", "sink kinds", "dead letters", "abort", "parallel decode", "reread", "read whole"}

// Has reports whether c holds every capability of x.
func (c Caps) Has(x Caps) bool { return c&x == x }

// String returns c's capabilities' names, comma-separated in a fixed order
// ("bounded, sink"); "" for none.
func (c Caps) String() string {
	var names []string
	for i, n := range capNames {
		if c&(1<<i) != 0 {
			names = append(names, n)
		}
	}
	return strings.Join(names, ", ")
}

// AllCaps returns every capability, one per bit, in String's order.
func AllCaps() []Caps {
	var all []Caps
	for c := Caps(1); c < capEnd; c <<= 1 {
		all = append(all, c)
	}
	return all
}

// streamCaps returns the capabilities of a stream over s with options opts: the
// connector's declared ConnectorSpec.Caps, with CapBounded by its Bounded
// rule, CapSink when it Writes and CapUpdates when it Upserts; a declared
// CapParallelDecode only when bounded, a declared CapReread only when its
// ReadOnce rule does not hold for opts.
func (s *ConnectorSpec) streamCaps(opts map[string]string) Caps {
	c := s.Caps &^ (CapBounded | CapSink | CapUpdates)
	if s.Bounded != nil && s.Bounded(opts) {
		c |= CapBounded
	} else {
		c &^= CapParallelDecode
	}
	if s.ReadOnce != nil && s.ReadOnce(opts) {
		c &^= CapReread
	}
	if s.Writes {
		c |= CapSink
	}
	if s.Upserts {
		c |= CapUpdates
	}
	return c
}

// Caps returns the capabilities of stream s, fixed when it is declared (its
// options do not change after, but through SetOption): its connector's
// declared ConnectorSpec.Caps with CapBounded by the connector's Bounded rule
// of s's options (and CapParallelDecode only with it), CapSink when the
// connector Writes and CapUpdates when it Upserts. A stream without a connector has none.
func (s *Stream) Caps() Caps {
	if s.Connector == nil {
		return 0
	}
	return s.Connector.streamCaps(s.Options)
}
