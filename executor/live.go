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
	HeldRows   int64           // probe rows an event-time join holds
	HeldBytes  int64           // bytes those rows hold
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
