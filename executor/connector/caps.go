package connector

import (
	"context"
	"fmt"

	"streamql/catalog"
)

// This file binds a stream's declared capabilities (catalog.Caps, which its
// connector's spec declares: issue 22 item 5) to the typed handles of what
// its driver opened, once per open: the engine reads the handles and never
// asks an opened source or sink what it implements. A declared capability
// the implementation lacks is an error naming the connector (a registration
// bug); Implemented says what an implementation provides, for the tests that
// keep each connector's declaration true.

// Sink is a sink stream's writer (SPEC 2.5) with the handles of the
// capabilities its stream declares (catalog.Stream.Caps); a handle is nil
// when the stream does not declare it, whatever the writer implements.
type Sink struct {
	SinkWriter
	// Kinds writes a row with its kind (catalog.CapSinkKinds: a changelog file
	// or Kafka sink, SPEC 2.8); nil: the sink takes inserts only (Write).
	Kinds KindWriter
	// DeadLetters writes a dead letter its own way (catalog.CapDeadLetters:
	// Kafka's raw bytes as the value); nil: a dead letter is a row of four
	// VARCHARs.
	DeadLetters DeadLetterWriter
	// Aborter takes back what the sink wrote since its last commit when the
	// job fails (catalog.CapAbort: an exactly-once Kafka sink); nil: nothing
	// to take back.
	Aborter Aborter
}

// OpenSink opens st as a sink stream by its connector's Driver.OpenSink and
// binds the capabilities st declares (BindSink). Errors name the stream: a
// connector without a sink opener (the planner refuses such a sink first),
// the opener's own error, or a declared capability the writer lacks.
func OpenSink(ctx context.Context, st *catalog.Stream, env *Env) (*Sink, error) {
	d := DriverOf(st.Connector)
	if d == nil || d.OpenSink == nil {
		return nil, fmt.Errorf("stream %s: its connector '%s' cannot write", st.Name, st.Connector.Name)
	}
	w, err := d.OpenSink(ctx, st, env)
	if err != nil {
		return nil, err
	}
	s, err := BindSink(st, w)
	if err != nil {
		_ = w.Close()
		return nil, err
	}
	return s, nil
}

// BindSink returns w with the handles of the sink capabilities st declares
// (catalog.CapSinkKinds, CapDeadLetters, CapAbort). It fails, naming the
// stream, its connector and the capability, when w lacks one.
func BindSink(st *catalog.Stream, w SinkWriter) (*Sink, error) {
	caps := st.Caps()
	s := &Sink{SinkWriter: w}
	var ok bool
	if caps.Has(catalog.CapSinkKinds) {
		if s.Kinds, ok = w.(KindWriter); !ok {
			return nil, lacks(st, catalog.CapSinkKinds, "its sink has no WriteKind")
		}
	}
	if caps.Has(catalog.CapDeadLetters) {
		if s.DeadLetters, ok = w.(DeadLetterWriter); !ok {
			return nil, lacks(st, catalog.CapDeadLetters, "its sink has no WriteDeadLetter")
		}
	}
	if caps.Has(catalog.CapAbort) {
		if s.Aborter, ok = w.(Aborter); !ok {
			return nil, lacks(st, catalog.CapAbort, "its sink has no Abort")
		}
	}
	return s, nil
}

// SourceHandles are the handles of the source capabilities a stream
// declares (catalog.Stream.Caps), bound once when the job opens the stream
// (BindSource; a source hook gives the handles of its wrapper, Env's
// SetSourceHook in the executor): the engine reads a source's partitions,
// replay, topic and parallel reader here, never by asking the source (or
// what it wraps) what it implements. A handle is nil when the stream does
// not declare it.
type SourceHandles struct {
	// Partitions is the source's partitions (catalog.CapPartitioned: Kafka),
	// each with its own watermark (SPEC 2.5).
	Partitions PartitionedSource
	// Meta is the source's record metadata (catalog.CapRecordMetadata).
	Meta MetaSource
	// Replayer takes the job's state to commit its hold frontier and replay
	// (catalog.CapGroups: a Kafka source, which does so in a consumer group
	// only).
	Replayer Replayer
	// Topic is the source's topic and partition count (catalog.CapGroups:
	// Kafka; a join in a consumer group checks its inputs are
	// co-partitioned, SPEC 2.5).
	Topic TopicSource
	// Parallel decodes the input in chunks on several goroutines
	// (catalog.CapParallelDecode: a bounded file).
	Parallel ParallelSource
	// HandsBack takes the job's account of what it used of the last batch
	// (catalog.CapHandBack: stdin, SPEC 1), which it reads when it closes.
	HandsBack HandsBack
}

// Wrapped returns the handles a source hook's wrapper of a source with
// handles h keeps when it passes the source's rows, positions and
// malformed rows on unchanged through its own Next (the CLI's progress
// counts): all but Parallel, whose reader would bypass the wrapper's Next.
func (h SourceHandles) Wrapped() SourceHandles {
	h.Parallel = nil
	return h
}

// BindSource returns the handles of the source capabilities st declares
// (catalog.CapPartitioned, CapRecordMetadata, CapGroups, CapParallelDecode)
// of src, as its driver opened it. It fails, naming the stream, its
// connector and the capability, when src lacks one.
func BindSource(st *catalog.Stream, src Source) (SourceHandles, error) {
	caps := st.Caps()
	var h SourceHandles
	var ok bool
	if caps.Has(catalog.CapPartitioned) {
		if h.Partitions, ok = src.(PartitionedSource); !ok {
			return SourceHandles{}, lacks(st, catalog.CapPartitioned, "its source has no partitions")
		}
	}
	if caps.Has(catalog.CapRecordMetadata) {
		if h.Meta, ok = src.(MetaSource); !ok {
			return SourceHandles{}, lacks(st, catalog.CapRecordMetadata, "its source has no record metadata")
		}
	}
	if caps.Has(catalog.CapGroups) {
		if h.Replayer, ok = src.(Replayer); !ok {
			return SourceHandles{}, lacks(st, catalog.CapGroups, "its source has no SetReplay")
		}
		if h.Topic, ok = src.(TopicSource); !ok {
			return SourceHandles{}, lacks(st, catalog.CapGroups, "its source has no TopicPartitions")
		}
	}
	if caps.Has(catalog.CapParallelDecode) {
		if h.Parallel, ok = src.(ParallelSource); !ok {
			return SourceHandles{}, lacks(st, catalog.CapParallelDecode, "its source has no Parallel")
		}
	}
	if caps.Has(catalog.CapHandBack) {
		if h.HandsBack, ok = src.(HandsBack); !ok {
			return SourceHandles{}, lacks(st, catalog.CapHandBack, "its source has no SetHandBack")
		}
	}
	return h, nil
}

// lacks is the error of a declared capability an implementation lacks.
func lacks(st *catalog.Stream, c catalog.Caps, what string) error {
	return fmt.Errorf("stream %s: connector '%s' declares the capability '%s' but %s; its registration (executor/connector) must declare what it implements", st.Name, st.Connector.Name, c, what)
}

// Implemented returns the capabilities whose interfaces src and w implement
// (either may be nil): CapPartitioned, CapRecordMetadata,
// CapParallelDecode, CapSinkKinds, CapDeadLetters, CapAbort. The tests compare it with each connector's
// declaration.
func Implemented(src Source, w SinkWriter) catalog.Caps {
	var c catalog.Caps
	if _, ok := src.(PartitionedSource); ok {
		c |= catalog.CapPartitioned
	}
	if _, ok := src.(MetaSource); ok {
		c |= catalog.CapRecordMetadata
	}
	if _, ok := src.(ParallelSource); ok {
		c |= catalog.CapParallelDecode
	}
	if _, ok := w.(KindWriter); ok {
		c |= catalog.CapSinkKinds
	}
	if _, ok := w.(DeadLetterWriter); ok {
		c |= catalog.CapDeadLetters
	}
	if _, ok := w.(Aborter); ok {
		c |= catalog.CapAbort
	}
	return c
}

// ImplementationCaps are the capabilities Implemented can see; the others
// (bounded, sink, updates, hand back, groups) are not interfaces of what a
// driver opens.
const ImplementationCaps = catalog.CapPartitioned | catalog.CapRecordMetadata | catalog.CapParallelDecode | catalog.CapSinkKinds | catalog.CapDeadLetters | catalog.CapAbort
