package kafka

import (
	"streamql/executor/connector"
)

// The replay of a group source's partitions (the package doc's "Scale-out
// over Kafka partitions, and replay"): the commit metadata, what the job's
// state tells the source at a checkpoint (Replay), and the assignment events
// the source hands the state on the job's goroutine.

// replayEvent is an assignment change of a partition, noted by franz-go's
// group callbacks and handed to the Replay on the job's goroutine
// (kafkaSource.applyEvents) before any row of the partition.
type replayEvent struct {
	p      int32
	assign bool // false: revoked
	from   int64
	mark   connector.ReplayMark
	ok     bool
}

// SetReplay implements Replayer: in a consumer group, the source commits the
// hold frontier of r and its marks, and tells r of its assignments (those
// made before SetReplay too, at the first Next).
func (s *kafkaSource) SetReplay(r connector.Replay) {
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
	mark connector.ReplayMark
	meta bool // carry mark as the commit metadata
}

// toCommit returns, per partition this process holds, what to commit when it
// differs from what was committed last: U_p as today without a Replay; with
// one, H_p (never below the committed offset, I7) and the mark
// "e=max(e_p, e) w=w_p f=max(f_p, f) g=max(g_p, g)", e_p the Replay's emitted frontier
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
		m := connector.ReplayMark{Emitted: max(r.Emitted(p, used), last.Emitted), WM: wm, WMSet: wmSet}
		m.Fired, m.FiredSet = r.Fired(p)
		m.Windows, m.WindowsSet = r.Windows(p)
		m.KeepFired(last)
		if off != committed || !had || m != last {
			out[p] = pendingCommit{off: off, mark: m, meta: true}
		}
	}
	return out, false
}
