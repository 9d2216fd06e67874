package executor

import (
	"context"
	"fmt"
	"io"
	"streamql/executor/expr"

	"streamql/catalog"
	"streamql/executor/connector"
	"streamql/executor/rank"
	"streamql/executor/records"
	"streamql/executor/source"
	"streamql/planner/plan"
)

// ErrWaiting is returned by Source.Next when the source has no row ready and is
// about to wait for input; the job flushes its sinks and calls Next again with
// the same batch.
var ErrWaiting = connector.ErrWaiting

// BadRow is a malformed input row (records.BadRow, shared by all decoders).
type BadRow = records.BadRow

// Source produces batches of a stream's rows; the connectors of SPEC 1 live in
// executor/connector, one file each.
type Source = connector.Source

// Unreader is a Source that takes back the rows of its last batch a job did not
// use (connector.Unreader: stdin, SPEC 1). A wrapper (SetSourceHook) passes
// Unread on.
type Unreader = connector.Unreader

// takesBack reports whether src takes back what a job did not use: an
// Unreader over a source that does (stdin, SPEC 1). A wrapper that is an
// Unreader whatever it reads (a derived relation, CROSS JOIN UNNEST, the
// 'watermark.max-future' filter) says so only when what it reads does, so
// that its hand-back account (derivedhandback.go, joinhandback.go,
// unnestSource.origin) costs nothing on the other paths.
func takesBack(src Source) bool {
	switch s := src.(type) {
	case *derivedSource:
		return s.handsBack
	case *unnestSource:
		return s.track
	case *futureUnreader:
		return takesBack(s.Source)
	}
	_, ok := src.(Unreader)
	return ok
}

// Env gives jobs what they open, and keeps what lives longer than one job (the
// connectors' state, connector.State: the session's stdin, the rows inserted
// into values streams). The working directory of relative paths comes from each
// stream's BaseDir. The zero value (with Stdin set) is ready to use.
type Env struct {
	// Stdin is the process's standard input, read by stdin streams.
	Stdin io.Reader
	// Clock paces datagen streams and gives their event time; nil is the wall
	// clock (tests inject a fake one).
	Clock connector.Clock
	// StateMaxBytes bounds the state of each job's stateful operators in bytes
	// (SPEC 1: the session setting 'state.max-bytes'); 0 is the default, 2 GiB.
	StateMaxBytes int64
	// OwnsProcess says the program owns its process (the command line, not a
	// library embedding): each job then sets the Go heap's soft limit from
	// 'state.max-bytes' (HeapLimit), unless GOMEMLIMIT is set, so that the
	// collector keeps the process near its counted state when the state nears
	// the limit (issue 30: the heap could reach twice the live state first).
	OwnsProcess bool
	// ChunkSize is the size in bytes of the chunks a bounded file is cut into
	// by the morsel pipeline (morsel.go, executor/chunked); 0 is
	// chunked.DefaultChunkSize (256 KiB). Tests make it small, so that a small
	// file makes many chunks.
	ChunkSize int64

	state connector.State
	wrap  SourceHook
	live  *Live // the running job's counters for a live status (live.go)
}

// SourceHandles are the handles of the source capabilities a stream
// declares (connector.SourceHandles: partitions, record metadata, replay,
// topic, parallel decoding), bound once when a job opens the stream: the
// engine reads them, never what a source (or a wrapper of it) implements.
type SourceHandles = connector.SourceHandles

// SourceHook wraps the source src a job opened for stream st, whose
// declared capabilities' handles are h, and returns the source the job
// reads and the handles it reads with it: a wrapper that passes src's rows
// and positions on unchanged returns h.Wrapped() (the CLI's progress
// counts); one that reorders them returns handles of its own (`streamql
// test --shuffle`: partitions of its own for a file, none of src's).
type SourceHook func(st *catalog.Stream, src Source, h SourceHandles) (Source, SourceHandles)

// SetSourceHook makes every source a job opens pass through f (nil: none). The
// wrapper's methods are called one at a time, but not always on the job's
// goroutine: a bounded file is decoded ahead on a goroutine of its own
// (prefetch.go). The CLI's progress bar and `streamql test --shuffle` use it.
func (e *Env) SetSourceHook(f SourceHook) { e.wrap = f }

// Open opens the source of st (see open), through the source hook when one is
// set, as a job's probe stream: not a build side, its state unaccounted, and
// no derived relation (a subquery) among what it opens. It returns the
// source and the handles of the capabilities st declares (SourceHandles,
// the hook's when one is set); errors name the stream.
func (e *Env) Open(ctx context.Context, st *catalog.Stream) (Source, SourceHandles, error) {
	o, err := e.openWith(ctx, st, openOpts{})
	return o.src, o.h, err
}

// opened is a source a job opened and the handles of the capabilities its
// stream declares, bound when it opened (connector.BindSource, or the
// source hook's): what the engine reads a source's partitions, replay,
// topic and parallel reader from (issue 22 item 1: no source is unwrapped
// to find them).
type opened struct {
	src Source
	h   SourceHandles
	// left is a swapped join's kept left rows (plan.BothJoin.Swap: the
	// source is the join's), which a thin Top-N after it reads (plan.Rank.Thin,
	// rank.Operator.Thin); nil for any other source
	left rank.SwapLeft
	// tee is the fan-out the source is a reader of (tee.go), nil when the
	// job opened the stream for this read alone
	tee *tee
	// mute: another read of the stream in the job reports its malformed
	// rows, this one skips them uncounted (reportonce.go)
	mute bool
}

// openOpts is what a job gives the sources it opens, at build time (issue 22
// item 4: an operator's configuration is not carried in its context.Context,
// which carries cancellation only).
type openOpts struct {
	// buildSide is set for a join's build side, which its source reads whole
	// (connector.Env.BuildSide: a Kafka source reads every partition, SPEC 2.5).
	buildSide bool
	// account opens an account of the job's state budget for a source that
	// keeps state (connector.Env.Account); nil: no limit.
	account func(operator, what string) connector.StateAccount
	// hub is the reading job's, for the sources of derived relations (SPEC
	// 2.6); nil when the job opens none.
	hub *derivedHub
	// exprs is the job's expression context, in which a computed column's
	// expression is compiled (expr.Context; nil: failed calls dropped)
	exprs *expr.Context
}

// openWith is Open with the job's options o.
func (e *Env) openWith(ctx context.Context, st *catalog.Stream, o openOpts) (opened, error) {
	if o.hub != nil {
		if t := o.hub.tees.of(st); t != nil { // one read of st fanned out to the job's readers (plan.Job.Tees)
			return t.reader(ctx, o.hub.tees, func(ctx context.Context) (opened, error) {
				return e.openOnce(ctx, st, o)
			})
		}
	}
	op, err := e.openOnce(ctx, st, o)
	if err == nil && o.hub != nil {
		op.mute = o.hub.once.mute(st, o.hub.cut)
	}
	return op, err
}

// openOnce is openWith for one read of st.
func (e *Env) openOnce(ctx context.Context, st *catalog.Stream, o openOpts) (opened, error) {
	op, err := e.open(ctx, st, o)
	if err != nil || e.wrap == nil {
		return op, err
	}
	op.src, op.h = e.wrap(st, op.src, op.h)
	return op, nil
}

// open opens the source of st by its connector's Driver (connector.Register)
// and binds the handles of the capabilities st declares
// (connector.BindSource). Errors name the stream, the option and what to do.
func (e *Env) open(ctx context.Context, st *catalog.Stream, o openOpts) (opened, error) {
	if st.Connector == plan.NoFrom {
		return opened{src: &oneRow{}}, nil
	}
	if st.Connector == plan.DerivedConnector { // a subquery, WITH name, view or UNION ALL (SPEC 2.6)
		src, err := newDerivedSource(ctx, st, e, o.hub, o.buildSide)
		if err != nil {
			return opened{}, err
		}
		return opened{src: src}, nil
	}
	d := connector.DriverOf(st.Connector)
	if d == nil || d.Open == nil {
		return opened{}, fmt.Errorf("stream %s: unknown connector '%s'", st.Name, st.Connector.Name)
	}
	env := e.connEnv()
	env.BuildSide, env.Account = o.buildSide, o.account
	phys := st
	if st.HasComputed() { // the connector reads the other columns (executor/source's computed.go)
		phys = st.Physical()
	}
	src, err := d.Open(ctx, phys, env)
	if err != nil {
		return opened{}, err
	}
	h, err := connector.BindSource(st, src)
	if err == nil && phys != st {
		var c Source
		if c, err = source.NewComputed(st, src, o.exprs); err == nil {
			// the computed columns are computed in Next (the planner runs
			// such a job sequentially), and their metadata read there
			src, h.Parallel, h.Meta = c, nil, nil
		}
	}
	if err != nil {
		_ = src.Close()
		return opened{}, err
	}
	return opened{src: src, h: h}, nil
}

// connEnv is what the connectors' drivers get from e.
func (e *Env) connEnv() *connector.Env {
	return &connector.Env{Stdin: e.Stdin, Clock: e.Clock, NewDecoder: source.NewDecoder, NewValueDecoder: source.NewValueDecoder, NewChangeDecoder: source.NewChangeDecoder, State: &e.state}
}

// Insert appends rows to the stream st of a connector that takes INSERT INTO
// ... VALUES rows (values, SPEC 3); a job reading st reads the rows inserted
// before it starts. A stream declared anew under a dropped one's name starts
// empty. The planner has checked st's connector (TakesInsert).
func (e *Env) Insert(ins *plan.Insert) {
	if d := connector.DriverOf(ins.Stream.Connector); d != nil && d.Insert != nil {
		d.Insert(ins.Stream.Physical(), e.connEnv(), ins.Rows)
	}
}

// Feed returns the queue of the Go-fed stream st ('connector'='go'), made at
// the first call and kept for the session; jobs reading st read from it, and
// the streamql package's Session.Push writes to it.
func (e *Env) Feed(st *catalog.Stream) *connector.Feed {
	return connector.FeedOf(st.Physical(), e.connEnv())
}
