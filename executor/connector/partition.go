package connector

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"streamql/catalog"
	"streamql/executor/chunked"
)

// ReplayMark is what a group source commits for a partition p with its
// offset H_p, in the offset commit's metadata (package doc: "sq1 e=U_p w=w_p
// f=f_p"), and what the next owner of p reads back with the offset.
type ReplayMark struct {
	// Emitted is e: every row of p with an offset below it has had its direct
	// outputs written (in committed outputs); rows of [H_p, e) read again go
	// into state only (I3).
	Emitted int64
	// WM is w: p's watermark (epoch ms) before the row at offset H_p;
	// WMSet is false when p had none yet.
	WM    int64
	WMSet bool
	// Fired is f: every window (or session) of p's groups with end <= f (epoch
	// ms) has fired and is in committed outputs (I4); FiredSet is false when
	// none has fired.
	Fired    int64
	FiredSet bool
	// Windows is g, written only by a window aggregate after a join of two
	// streams beside side branches (the package doc's "A window aggregate
	// over a join"), whose f is the join's watermark: every window of p's
	// groups with end <= g (epoch ms: the aggregate's watermark over the
	// joined rows) has fired and is in committed outputs (I4), while f says
	// which pairs were written (I3). Such a job always writes g
	// (math.MinInt64 before a window fired), every other job never
	// (WindowsSet false); a mark of such a job without g was written by a
	// streamql before it (the executor then keeps that version's rule:
	// joinReplay.Assign, joinSource.oldRule).
	Windows    int64
	WindowsSet bool
}

// KeepFired raises m's f and g to last's where last's are larger or m has
// none: the commit writes the larger of the Replay's and the mark's read
// at the assignment (I7: they never go back). An unset f or g is zeroed
// first, so that marks compare equal by their fields that are set.
func (m *ReplayMark) KeepFired(last ReplayMark) {
	if !m.FiredSet {
		m.Fired = 0
	}
	if !m.WindowsSet {
		m.Windows = 0
	}
	if last.FiredSet && (!m.FiredSet || last.Fired > m.Fired) {
		m.Fired, m.FiredSet = last.Fired, true
	}
	if last.WindowsSet && (!m.WindowsSet || last.Windows > m.Windows) {
		m.Windows, m.WindowsSet = last.Windows, true
	}
}

// replayPrefix starts every commit metadata of a replay mark: a metadata
// without it (a stateless job's commit, another tool's) is no mark.
const replayPrefix = "sq1"

// String renders m as commit metadata: "sq1 e=E[ w=W][ f=F][ g=G]" (w, f
// and g left out when unset).
func (m ReplayMark) String() string {
	b := make([]byte, 0, 64)
	b = append(b, replayPrefix+" e="...)
	b = strconv.AppendInt(b, m.Emitted, 10)
	if m.WMSet {
		b = append(b, " w="...)
		b = strconv.AppendInt(b, m.WM, 10)
	}
	if m.FiredSet {
		b = append(b, " f="...)
		b = strconv.AppendInt(b, m.Fired, 10)
	}
	if m.WindowsSet {
		b = append(b, " g="...)
		b = strconv.AppendInt(b, m.Windows, 10)
	}
	return string(b)
}

// ParseReplayMark parses commit metadata written by ReplayMark.String. It
// returns ok false for an empty metadata or one of another writer (no "sq1"
// prefix), and an error naming the field for a malformed "sq1" one.
func ParseReplayMark(s string) (m ReplayMark, ok bool, err error) {
	f := strings.Fields(s)
	if len(f) == 0 || f[0] != replayPrefix {
		return m, false, nil
	}
	seenE := false
	for _, kv := range f[1:] {
		k, v, found := strings.Cut(kv, "=")
		n, perr := strconv.ParseInt(v, 10, 64)
		if !found || perr != nil {
			return m, false, fmt.Errorf("commit metadata %q: field %q is not name=integer", s, kv)
		}
		switch k {
		case "e":
			m.Emitted, seenE = n, true
		case "w":
			m.WM, m.WMSet = n, true
		case "f":
			m.Fired, m.FiredSet = n, true
		case "g":
			m.Windows, m.WindowsSet = n, true
		default:
			return m, false, fmt.Errorf("commit metadata %q: unknown field %q", s, k)
		}
	}
	if !seenE {
		return m, false, fmt.Errorf("commit metadata %q: no e= field", s)
	}
	return m, true, nil
}

// Replay is the job's open state as a group source sees it (the package doc's
// frontiers): the executor gives it to the source (Replayer.SetReplay) when
// the job holds rows in state (an aggregate, or the probe rows an event-time
// join holds). Every method is called on the job's goroutine, between
// batches (a job with an event-time join calls Next there too).
type Replay interface {
	// Hold returns p's hold frontier H_p, given used = U_p: the smallest
	// offset of a row of p held in open state and p's watermark before that
	// row (wmSet false: none yet); with no row held, used and p's current
	// watermark (the one before the row at used).
	Hold(p int32, used int64) (off, wm int64, wmSet bool)
	// Emitted returns p's emitted frontier e_p, given used = U_p: the
	// offset of the first row of p read with no output yet (an event-time
	// join's held probe row, or its held malformed row: held rows are
	// released in order, so every row of p before it has had its outputs
	// handed to the sinks), used when the state holds none.
	Emitted(p int32, used int64) int64
	// Fired returns how far the windows of p's groups have fired in this
	// process (f_p, epoch ms; ok false: none). The source commits the larger of
	// it and the f it read at the assignment.
	Fired(p int32) (f int64, ok bool)
	// Windows returns g_p (ReplayMark.Windows), how far the windows of a
	// window aggregate after a join beside side branches have fired for p's
	// groups, when Fired is the join's watermark (ok false: no such
	// aggregate, or none fired). The source commits the larger of it and
	// the g it read at the assignment.
	Windows(p int32) (g int64, ok bool)
	// Assign tells the state that p is (again) this process's from offset
	// from on, with the mark read with that offset (ok false: none, p starts
	// with no watermark and nothing to suppress). The state first drops what
	// it held of p.
	Assign(p int32, from int64, m ReplayMark, ok bool)
	// Revoke tells the state that p is no longer this process's: its groups
	// and its watermark are dropped (they hold only p's rows, SPEC 2.5).
	Revoke(p int32)
	// Torn reports that the state went ahead of the outputs handed to the
	// sinks: a batch moved the watermarks or fired windows and was cut
	// before its outputs were written (the job cancelled between two
	// operators). Hold and Fired then describe outputs nobody wrote: the
	// source commits nothing more (kafkaJob.checkpoint aborts the open
	// transaction), and the partitions' next owner reads again from the
	// offsets committed before (I1, I4).
	//
	// Invariant: Torn is false whenever the job may go on, so only the
	// job's last checkpoint can see it true. Every other checkpoint runs on
	// the job's goroutine inside a group source's Next (the periodic
	// commit), or in a sink's Flush when the job has no group source (no
	// Replay is asked); Next is called only after the previous batch's push
	// returned nil, and any push that fails ends the job (the executor's
	// process.batch, probeHold.release). Within a push that succeeds,
	// each change that tears the state is followed by the sinks taking the
	// push or by the event going through: the executor's replay (replay.go)
	// is torn by the watermark assigner's stamping (then every operator
	// pushes its step on to the sink, which calls handed), by an aggregate's
	// firing inside its Push (before its own push on) and by an event-time
	// rank operator's Firing inside the watermark event (watermarker.Push
	// calls through after it), and an event-time join's release is handed
	// when it went through; a join of two streams (joinreplay.go) is torn
	// from the Next that gave joined rows to the job's next call of Next,
	// which clears it before it reads an input (whose Next commits). A
	// torn state the job goes on after would lose rows (the aborted
	// transaction's rows would not be written again while a later commit
	// moves past them): kafkaJob.checkpoint fails the job instead
	// (errTornMidJob), so a change that breaks the invariant fails its tests.
	Torn() bool
}

// Replayer is a Source that commits a hold frontier and replays (a Kafka
// source in a consumer group): SetReplay gives it the job's state before the
// first Next. A source without a Replay commits U_p, for a stateless job.
type Replayer interface {
	SetReplay(r Replay)
}

// A Kafka row's position (vector.Batch.Pos, BadRow.Line) packs its partition
// and offset into one int64: the partition in the bits above kafkaOffsetBits.
const (
	kafkaOffsetBits = 44
	kafkaOffsetMask = 1<<kafkaOffsetBits - 1
)

// KafkaPosition returns the position a Kafka source gives a record of
// partition p at offset off (vector.Batch.Pos; Position renders it as
// topic:partition:offset, SPEC 2.5). Offsets up to 2^44 and partitions up to
// 2^19 fit.
func KafkaPosition(p int32, off int64) int64 { return int64(p)<<kafkaOffsetBits | off&kafkaOffsetMask }

// KafkaPartitionOf returns the partition and offset of a position made by
// KafkaPosition.
func KafkaPartitionOf(pos int64) (partition int32, offset int64) {
	return int32(pos >> kafkaOffsetBits), pos & kafkaOffsetMask
}

// PartitionedSource is a Source whose rows come from partitions, each with
// its own order (Kafka, SPEC 2.5): the row with position pos (vector.Batch.Pos)
// belongs to partition Partition(pos). Per-partition watermarks key on it.
type PartitionedSource interface {
	Source
	// Partition returns the partition of the row at position pos.
	Partition(pos int64) int32
	// Partitions appends to dst the partitions whose rows are still to come
	// (read by this process and not at their stop offset) and returns it:
	// the stream's watermark is the minimum of theirs (SPEC 2.5).
	Partitions(dst []int32) []int32
	// IdleTimeout is 'scan.watermark.idle-timeout': a partition without rows
	// for this long is left out of the minimum (0: never).
	IdleTimeout() time.Duration
}

// TopicSource is a Kafka source: its topic and the partition count the
// topic had when the source opened (the executor checks that a join's
// co-partitioned inputs have the same count, SPEC 2.5).
type TopicSource interface {
	TopicPartitions() (topic string, partitions int)
}

// ParallelSource is a source that can decode its input on several
// goroutines (catalog.CapParallelDecode: the file connector's bounded
// file). Parallel returns a reader of batches of types decoded by workers
// goroutines, merged in input order (executor/chunked), which gives the
// rows instead of Next and which the source's Close stops; nil when this
// input cannot be cut (see the file connector's).
type ParallelSource interface {
	Parallel(types []catalog.Type, workers int, opts chunked.Options) *chunked.Reader
}

// RecordMeta is the Kafka metadata of one row (SPEC 1: METADATA FROM
// 'timestamp', 'partition', 'offset', 'key', 'headers'): the record's
// timestamp in epoch ms, its partition and offset, its key (nil: none) and
// headers, valid until the source's next Next.
type RecordMeta struct {
	Timestamp int64
	Partition int32
	Offset    int64
	Key       []byte
	Headers   []kgo.RecordHeader
}

// MetaSource is a source whose rows carry Kafka metadata
// (catalog.CapRecordMetadata).
type MetaSource interface {
	// WantMeta makes the source keep each row's metadata (a stream with
	// METADATA columns calls it before its first Next).
	WantMeta()
	// Meta returns the metadata of good row i of the batch the last Next gave.
	Meta(i int) RecordMeta
}

// StateAccount is an operator's share of the job's 'state.max-bytes' (the
// executor's StateAccount), for the state a source keeps (upsert-kafka's
// last row per key).
type StateAccount interface {
	// Grow charges n bytes (negative: a release); an error stops the job.
	Grow(n int64) error
}
