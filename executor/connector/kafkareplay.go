package connector

import (
	"fmt"
	"strconv"
	"strings"
)

// The replay of a group source's partitions (the package doc's "Scale-out
// over Kafka partitions, and replay"): the commit metadata, what the job's
// state tells the source at a checkpoint (Replay), and the assignment events
// the source hands the state on the job's goroutine.

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
}

// replayPrefix starts every commit metadata of a replay mark: a metadata
// without it (a stateless job's commit, another tool's) is no mark.
const replayPrefix = "sq1"

// String renders m as commit metadata: "sq1 e=E[ w=W][ f=F]" (w and f left
// out when unset).
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
	Torn() bool
}

// Replayer is a Source that commits a hold frontier and replays (a Kafka
// source in a consumer group): SetReplay gives it the job's state before the
// first Next. A source without a Replay commits U_p, for a stateless job.
type Replayer interface {
	SetReplay(r Replay)
}

// replayEvent is an assignment change of a partition, noted by franz-go's
// group callbacks and handed to the Replay on the job's goroutine
// (kafkaSource.applyEvents) before any row of the partition.
type replayEvent struct {
	p      int32
	assign bool // false: revoked
	from   int64
	mark   ReplayMark
	ok     bool
}

// SetReplay implements Replayer: in a consumer group, the source commits the
// hold frontier of r and its marks, and tells r of its assignments (those
// made before SetReplay too, at the first Next).
func (s *kafkaSource) SetReplay(r Replay) {
	if s.group == "" {
		return
	}
	s.mu.Lock()
	s.replay = r
	s.mu.Unlock()
}

// noteEvent queues an assignment change for the Replay (under s.mu).
func (s *kafkaSource) noteEvent(ev replayEvent) {
	s.events = append(s.events, ev)
}

// applyEvents hands the queued assignment changes to the Replay, in order, on
// the job's goroutine (without a Replay, given before the first Next, they
// are dropped).
func (s *kafkaSource) applyEvents() {
	s.mu.Lock()
	evs, r := s.events, s.replay
	s.events = nil
	s.mu.Unlock()
	if r == nil {
		return
	}
	for _, ev := range evs {
		if ev.assign {
			r.Assign(ev.p, ev.from, ev.mark, ev.ok)
		} else {
			r.Revoke(ev.p)
		}
	}
}

// pendingCommit is what a group source commits for one partition: the offset
// and, with a Replay, the mark as metadata.
type pendingCommit struct {
	off  int64
	mark ReplayMark
	meta bool // carry mark as the commit metadata
}

// toCommit returns, per partition this process holds, what to commit when it
// differs from what was committed last: U_p as today without a Replay; with
// one, H_p (never below the committed offset, I7) and the mark
// "e=max(e_p, e) w=w_p f=max(f_p, f)", e_p the Replay's emitted frontier
// (Replay.Emitted: U_p, or the first probe row an event-time join holds). torn is true when the Replay is torn
// (Replay.Torn): out is then empty, and no offset of the job may commit.
func (s *kafkaSource) toCommit() (out map[int32]pendingCommit, torn bool) {
	s.applyEvents()
	out = map[int32]pendingCommit{}
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.replay
	if r != nil && r.Torn() {
		return out, true
	}
	for p := range s.assigned {
		used, committed := s.used[p], s.committed[p]
		if r == nil {
			if used > committed {
				out[p] = pendingCommit{off: used}
			}
			continue
		}
		last, had := s.marks[p]
		off, wm, wmSet := r.Hold(p, used)
		off = max(off, committed)
		m := ReplayMark{Emitted: max(r.Emitted(p, used), last.Emitted), WM: wm, WMSet: wmSet}
		if f, ok := r.Fired(p); ok {
			m.Fired, m.FiredSet = f, true
		}
		if last.FiredSet && (!m.FiredSet || last.Fired > m.Fired) {
			m.Fired, m.FiredSet = last.Fired, true
		}
		if off != committed || !had || m != last {
			out[p] = pendingCommit{off: off, mark: m, meta: true}
		}
	}
	return out, false
}
