package flow

// Operators (DESIGN: executor; issue 10 item 1). The chain these types make,
// and the watermark events and marks that run along it, are described in the
// package doc (doc.go).

import (
	"context"
	"errors"
	"time"
)

// Port names an input of an operator: Input 0 is the job's probe (FROM)
// stream, 1, 2, ... the build sides of its joins in order (plan.Job's
// branches with a Join, sides first); Partition is the source partition the
// rows or the event come from (always 0 until a partitioned source).
type Port struct {
	Input     int
	Partition int
}

// Watermark is a watermark event (SPEC 2.3) of one port: the stream's watermark
// after the rows pushed so far. Value is epoch ms (BIGINT event time) or
// TIMESTAMP ms, valid when Set; Final means the stream ended and its watermark
// is +∞ (Value and Set are then unused).
type Watermark struct {
	Port  Port
	Value int64
	Set   bool
	Final bool
}

// Operator is one step of a running job. Calls come from one goroutine, in
// order: batches and watermark events as they happen, then Finish once when
// every input ended (not after a failure, a cancellation, or a LIMIT that
// ended the job). Errors are returned synchronously; an operator that passes
// its downstream's error on returns it unchanged.
type Operator interface {
	// Push hands the operator batch r from input port. r and its slices are
	// valid until Push returns.
	Push(ctx context.Context, port Port, r *Step) error
	// Watermark tells the operator that wm's port has reached wm (SPEC 2.3).
	Watermark(ctx context.Context, wm Watermark) error
	// Finish tells the operator its inputs ended; it emits what it still holds.
	Finish(ctx context.Context) error
}

// MarkReader is an operator that needs the watermark after each row (a window
// aggregate, SPEC 2.4): a chain holding one gets Step.Marks filled by the
// watermark assigner. ReadsMarks is only a marker.
type MarkReader interface {
	ReadsMarks()
}

// Mark is a point of a batch where its stream's watermark moved (SPEC 2.3):
// after At input rows (the row that moved it is row At-1), the watermark became
// Value (ms).
type Mark struct {
	At    int
	Value int64
}

// OpStats are the counters of one operator, kept by its wrapper for EXPLAIN
// ANALYZE: rows pushed in and emitted (Step rows: live input rows before the
// router, the outputs' rows after it), batches pushed in, watermark events
// received, and the nanoseconds spent in the operator itself (its downstream's
// time excluded). They are updated on the job's goroutine; read them after
// the job or from that goroutine.
type OpStats struct {
	Name       string
	RowsIn     int64
	RowsOut    int64
	Batches    int64
	Watermarks int64
	Nanos      int64
}

// OpError is an operator's error, with the name of the operator that returned
// it. Error is the cause's message unchanged (the messages users see stay as
// SPEC gives them); Unwrap returns the cause, so errors.Is and errors.As see
// through it.
type OpError struct {
	Op  string
	Err error
}

// Error returns the cause's message.
func (e *OpError) Error() string { return e.Err.Error() }

// Unwrap returns the cause.
func (e *OpError) Unwrap() error { return e.Err }

// Instrumented is the one wrapper around every operator call (Instrument).
type Instrumented struct {
	op    Operator
	stats *OpStats
	down  *Emitter // the operator's downstream emitter, whose time is not the operator's own
	timed bool     // time the calls (the executor's chainOpts.timed)
}

// Instrument wraps op, named name (as EXPLAIN names it), with down the
// emitter op pushes into (nil for a sink). With timed the wrapper and down
// time their calls (EXPLAIN ANALYZE: OpStats.Nanos); without it Nanos stays 0.
func Instrument(op Operator, name string, down *Emitter, timed bool) *Instrumented {
	w := &Instrumented{op: op, stats: &OpStats{Name: name}, down: down, timed: timed}
	if down != nil {
		down.stats, down.timed = w.stats, timed
	}
	return w
}

// Stats returns w's counters, which w updates on the job's goroutine.
func (w *Instrumented) Stats() *OpStats { return w.stats }

// wrap returns err as an *OpError of w's operator, unless it is nil, already
// one, the LIMIT's end or the context's.
func (w *Instrumented) wrap(err error) error {
	if err == nil {
		return nil
	}
	return wrapOp(w.stats.Name, err)
}

func wrapOp(name string, err error) error {
	var oe *OpError
	if errors.As(err, &oe) || errors.Is(err, ErrLimitReached) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &OpError{Op: name, Err: err}
}

// call runs f (one call into the operator) and adds its own time to the counters.
func (w *Instrumented) call(f func() error) error {
	if !w.timed {
		return w.wrap(f())
	}
	var down0 int64
	if w.down != nil {
		down0 = w.down.nanos
	}
	t := time.Now()
	err := f()
	ns := time.Since(t).Nanoseconds()
	if w.down != nil {
		ns -= w.down.nanos - down0
	}
	w.stats.Nanos += ns
	return w.wrap(err)
}

// Push implements Operator: it checks ctx, counts the rows and times the call.
func (w *Instrumented) Push(ctx context.Context, port Port, r *Step) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	w.stats.Batches++
	w.stats.RowsIn += r.rowsOut()
	if !w.timed {
		return w.wrap(w.op.Push(ctx, port, r))
	}
	var down0 int64
	if w.down != nil {
		down0 = w.down.nanos
	}
	t := time.Now()
	err := w.op.Push(ctx, port, r)
	ns := time.Since(t).Nanoseconds()
	if w.down != nil {
		ns -= w.down.nanos - down0
	}
	w.stats.Nanos += ns
	return w.wrap(err)
}

// Watermark implements Operator. Cancellation is checked on Push only (once
// per batch), so an event never cuts a batch that was already pushed.
func (w *Instrumented) Watermark(ctx context.Context, wm Watermark) error {
	w.stats.Watermarks++
	return w.call(func() error { return w.op.Watermark(ctx, wm) })
}

// Finish implements Operator.
func (w *Instrumented) Finish(ctx context.Context) error {
	return w.call(func() error { return w.op.Finish(ctx) })
}

// Emitter is an operator's downstream: what the operator pushes, the events it
// passes on and its Finish go to the next operator (itself wrapped), counted as
// the operator's rows out. The zero Emitter (no next operator) drops everything.
type Emitter struct {
	next  Operator
	stats *OpStats // the emitting operator's counters
	nanos int64    // time spent downstream, excluded from the emitter's own
	timed bool     // time it (Instrument's timed)
}

// NewEmitter returns an emitter that pushes into next (an operator's
// wrapper, Instrument), which counts and times it once it is next's
// operator's down.
func NewEmitter(next Operator) *Emitter { return &Emitter{next: next} }

// Push pushes r on to the next operator, counting its rows as rows out.
func (e *Emitter) Push(ctx context.Context, port Port, r *Step) error {
	if e.next == nil {
		return nil
	}
	if e.stats != nil {
		e.stats.RowsOut += r.rowsOut()
	}
	if !e.timed {
		return e.next.Push(ctx, port, r)
	}
	t := time.Now()
	err := e.next.Push(ctx, port, r)
	e.nanos += time.Since(t).Nanoseconds()
	return err
}

// Watermark passes the event wm on.
func (e *Emitter) Watermark(ctx context.Context, wm Watermark) error {
	if e.next == nil {
		return nil
	}
	if !e.timed {
		return e.next.Watermark(ctx, wm)
	}
	t := time.Now()
	err := e.next.Watermark(ctx, wm)
	e.nanos += time.Since(t).Nanoseconds()
	return err
}

// Finish passes Finish on.
func (e *Emitter) Finish(ctx context.Context) error {
	if e.next == nil {
		return nil
	}
	if !e.timed {
		return e.next.Finish(ctx)
	}
	t := time.Now()
	err := e.next.Finish(ctx)
	e.nanos += time.Since(t).Nanoseconds()
	return err
}

// ErrLimitReached is returned up the chain by the LIMIT operator
// (executor/stateless.Limit) when the main query's LIMIT is reached (SPEC 2:
// the job ends), and by a Top-N at its own LIMIT (executor/rank);
// the source driver ends the job without an error.
var ErrLimitReached = errors.New("the main query's LIMIT is reached")
