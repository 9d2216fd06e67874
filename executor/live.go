package executor

import (
	"sync"
	"sync/atomic"

	"streamql/catalog"
	"streamql/executor/vector"
	"streamql/planner/plan"
)

// Live holds the counters of one running job that a live status reads while the
// job runs (SPEC 4, Progress): each stream's watermark, the rows an event-time
// join holds and the job's state bytes. The job updates them once per batch with
// atomic stores, never per row; Snapshot may be called from any goroutine at any
// time. Install one with Env.SetLive for the job's duration.
type Live struct {
	mu      sync.Mutex // guards streams (appended when the job starts)
	streams []*liveWatermark

	budget   atomic.Pointer[StateBudget]
	held     atomic.Pointer[StateAccount]
	heldRows atomic.Int64
	join     atomic.Pointer[liveJoin] // the job's join of two streams, nil without one

	// Late counts the rows windowed queries sent to their late outputs (SPEC
	// 2.4, executor/aggregate), once per batch; a status shows it only when
	// it is not zero.
	Late atomic.Int64
}

// liveWatermark is one stream's watermark in a Live.
type liveWatermark struct {
	stream string
	typ    catalog.Type
	set    atomic.Bool
	wm     atomic.Int64
}

func (w *liveWatermark) store(wm int64, set bool) {
	if w == nil || !set {
		return
	}
	w.wm.Store(wm)
	w.set.Store(true)
}

// watermark returns the watermark counter of stream (of column type typ), new
// or already registered; nil on a nil Live.
func (l *Live) watermark(stream string, typ catalog.Type) *liveWatermark {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, w := range l.streams {
		if w.stream == stream {
			return w
		}
	}
	w := &liveWatermark{stream: stream, typ: typ}
	l.streams = append(l.streams, w)
	return w
}

// liveJoin is the rows the job's join of two streams (SPEC 2.7) holds in
// its state per input, stored once per batch (joinSource.noteLive).
type liveJoin struct {
	names [2]string // the inputs' names (aliases) in FROM order
	rows  [2]atomic.Int64
}

// store sets the rows each input holds; nil-safe.
func (lj *liveJoin) store(l, r int) {
	if lj == nil {
		return
	}
	lj.rows[0].Store(int64(l))
	lj.rows[1].Store(int64(r))
}

// joinHolds registers the job's join of two streams, whose inputs are
// named names, and acct, the account its state is charged to: a snapshot's
// HeldRows are then the rows the join holds (each input's in HeldInputs)
// and HeldBytes the account's bytes. nil on a nil Live.
func (l *Live) joinHolds(names [2]string, acct *StateAccount) *liveJoin {
	if l == nil {
		return nil
	}
	lj := &liveJoin{names: names}
	l.join.Store(lj)
	l.held.Store(acct)
	return lj
}

// LiveHeld is the rows one input of a join of two streams holds in the
// join's state (held for the watermarks, or kept for later partners), in a
// LiveSnapshot.
type LiveHeld struct {
	Input string // the input's name in FROM (its alias)
	Rows  int64
}

// LiveWatermark is one stream's watermark in a LiveSnapshot: Text is the
// watermark as its column's type prints (BIGINT digits, TIMESTAMP text), or
// "unset" before the stream's first row with an event time.
type LiveWatermark struct {
	Stream string
	Set    bool
	Value  int64 // ms, as the column holds it; valid when Set
	Text   string
}

// LiveSnapshot is a copy of a Live's counters at one moment.
type LiveSnapshot struct {
	Watermarks []LiveWatermark // the FROM stream first, then event-time build sides
	HeldRows   int64           // rows an event-time semi/anti join holds (its probe rows), or a join of two streams (both inputs')
	HeldBytes  int64           // bytes those rows hold
	HeldInputs []LiveHeld      // a join of two streams' held rows per input, in FROM order (nil otherwise)
	StateBytes int64           // bytes of all the job's state ('state.max-bytes' counts them)
	Late       int64           // rows sent to the late outputs of windows (SPEC 2.4)
}

// Snapshot returns the counters now; it allocates (it is for a status drawn a
// few times a second, not for the job's path). It is safe on a nil *Live.
func (l *Live) Snapshot() LiveSnapshot {
	var s LiveSnapshot
	if l == nil {
		return s
	}
	l.mu.Lock()
	for _, w := range l.streams {
		x := LiveWatermark{Stream: w.stream, Text: "unset"}
		if w.set.Load() {
			x.Set, x.Value = true, w.wm.Load()
			v := vector.NewVec(w.typ)
			v.I[0] = x.Value
			x.Text = string(vector.AppendValue(nil, w.typ, v, 0))
		}
		s.Watermarks = append(s.Watermarks, x)
	}
	l.mu.Unlock()
	if b := l.budget.Load(); b != nil {
		s.StateBytes = b.Used()
	}
	if a := l.held.Load(); a != nil {
		s.HeldBytes = a.Bytes()
	}
	s.HeldRows = l.heldRows.Load()
	if lj := l.join.Load(); lj != nil {
		s.HeldRows = 0
		for i, name := range lj.names {
			n := lj.rows[i].Load()
			s.HeldInputs = append(s.HeldInputs, LiveHeld{Input: name, Rows: n})
			s.HeldRows += n
		}
	}
	s.Late = l.Late.Load()
	return s
}

// SetLive makes the jobs Run runs update l (nil: none) until it is set again.
func (e *Env) SetLive(l *Live) { e.live = l }

// start registers the job's FROM stream watermark (when it has one) and its
// state budget; nil-safe.
func (l *Live) start(job *plan.Job, budget *StateBudget) {
	if l == nil {
		return
	}
	l.probe(job)
	l.budget.Store(budget)
}

// probe returns the watermark counter of job's FROM stream, nil when the stream
// has no watermark or l is nil.
func (l *Live) probe(job *plan.Job) *liveWatermark {
	if l == nil || job.Watermark == nil || job.WatermarkCol < 0 {
		return nil
	}
	return l.watermark(job.Stream.Name, job.BatchTypes[job.WatermarkCol])
}

// holding stores the number of probe rows an event-time join holds, not yet
// routed; nil-safe.
func (l *Live) holding(n int) {
	if l == nil {
		return
	}
	l.heldRows.Store(int64(n))
}
