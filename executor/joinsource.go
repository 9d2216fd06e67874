package executor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"streamql/catalog"
	"streamql/executor/chunked"
	"streamql/executor/connector"
	"streamql/executor/expr"
	"streamql/executor/op"
	"streamql/executor/rank"
	"streamql/executor/state"
	"streamql/executor/strategy"
	"streamql/executor/vector"
	"streamql/planner/plan"
)

// joinSource is the Source of a job whose stream is a join of two streams
// (plan.BothJoin, SPEC 2.7): it reads both inputs, applies each input's errors
// policy and watermark (stamping CURRENT_WATERMARK as the assigner does), feeds
// them to the keyed two-input join operator (op.Join), and gives the joined
// rows as its batches, so the job's branches, aggregates and sinks run over
// them as over any stream's rows.
//
// This is the bridge from today's one-source job to the operator graph of
// issue 22: the join is an op.Operator; its inputs are the polled ports of
// the scheduling core (portScheduler, whose rule is accepts), each read by
// its port reader (joinInput.r) and pushed through its port stage (intake)
// into the join: from the input whose watermark is behind (the left one on
// a tie), so held rows stay few when both inputs are in event-time order.
// A live input that has no row ready (ErrWaiting) makes the job wait for
// it (the other input is read meanwhile). On the job's goroutine the
// scheduler pushes the joined rows into the job's chain (run); a job that
// reads the join on a goroutine of its own pulls them (Next).
// Malformed rows of an input go to its errors output (Sink.Errors), late rows
// to the join's late outputs (as rows the operator made, Step.Chunks).
type joinSource struct {
	ctx   context.Context
	both  *plan.BothJoin
	in    [2]*joinInput
	j     joinOperator
	sink  Sink // set once the job's sink exists, before the first Next
	stats *Stats
	acct  *StateAccount

	queue []joined // joined rows not yet given, in order
	free  []joined
	at    int // rows of queue[0] already given
	// ports is the scheduling core of the two inputs (port 0 the left, 1
	// the right), both polled: read here (read) when the core's rule,
	// accepts, takes them
	ports *portScheduler
	// turns is the input Next read last when it reads two unbounded
	// inputs, one of them without event time, by turns (behind)
	turns int
	// waits is the input whose read said ErrWaiting in this call of Next,
	// the read since being none (-1: none): accepts takes the other input
	// meanwhile
	waits int
	// from are the input rows' positions of the rows Next gave last
	// (op.Join.Sources, valid as they are): what RowSource reads
	from  [2][]int64
	fail  error
	lateR Step
	sel   []int32
	late  [2]*LateRows      // each input's late rows, for the end-of-job notice (Stats.Late)
	an    *BothJoinAnalysis // EXPLAIN ANALYZE's measures (analyzejoin.go), nil when not analyzing
	// rep are the inputs' replays (joinreplay.go; nil: none), given the
	// joined rows Next gave last, which the job has not come back for
	// (Torn)
	rep     [2]*joinReplay
	given   bool
	grouped bool // the inputs are read in their consumer group (joinReplayable)
	// rewrite: the job's aggregate after the join is replayed with it
	// (plan.Job.JoinAggReplayed, newJoinReplays): the join emits again, in
	// batches of their own, the pairs the run before wrote (op.Join.Old),
	// and givenOld says the rows Next gave last are such (joinOldReplay);
	// dropAgg drops the aggregate's groups (or the Top-N's rows) of a revoked partition of the
	// left input (newJoinAggReplay)
	aggAfter bool // the job's aggregate or Top-N may be replayed with the join (plan.Job.JoinAggReplayed, JoinRankReplayed)
	rewrite  bool
	givenOld bool
	dropAgg  func(p int32)
	// aggFired, for a window aggregate after the join
	// (plan.Job.JoinWindowReplayed, newJoinAggReplay), is the watermark
	// over the joined rows that its windows fired by (the chain's
	// assigner's): the inputs' replays commit it as f (as g beside side
	// branches: sides), and a window of a replayed partition ending at or
	// below the mark's f (g) fired (I4); nil otherwise (f is then the
	// join's watermark)
	aggFired func() (int64, bool)
	// sides: that window aggregate is beside side branches, which write
	// each pair when the join emits it, so f stays the join's watermark
	// (which pairs went out) and the window's is g (ReplayMark.Windows)
	sides bool
	// win, for a window aggregate after the join (newJoinAggReplay), is
	// the aggregate's watermark assigner, which a partition coming once it
	// has a watermark makes follow the join's watermark down and up
	// (joinwincap.go); nil otherwise
	win *watermarker
	// epoch counts the partitions that came while win was capped
	// (joinReplay.came); givenEpoch and givenFloor are the epoch and floor
	// of the joined rows Next gave last (joined), stampedEpoch the epoch
	// of the last such rows win stamped
	epoch, givenEpoch, stampedEpoch int
	givenFloor                      int64
	givenFloorSet                   bool
	// floor is the join's watermark before the call into it that is
	// running (noteFloor), the floor of the batches it emits (joined)
	floor    int64
	floorSet bool
	// apart is since when the inputs of a join in a consumer group have
	// held different partitions (zero: the same; joinapart.go)
	apart time.Time
	// exprs is the job's expression context, whose failed calls of the
	// join's own expressions ownFailures takes
	exprs *expr.Context
	fails []expr.Failure
	// pairs are the failed calls of the ON condition's other terms
	// (op.JoinSpec.Residual) on pairs of held rows, each with the pair's
	// rows' positions and values, until ownFailures reports them
	pairs []pairFailure
	// cols is the joined layout's columns (plan.JoinedStream); userCols
	// those of them that are the inputs' declared columns (not the
	// watermark stamps or computed keys): an errors row's raw text
	cols     []catalog.Column
	userCols []int
	// swapped is the join when it runs swapped (op.JoinSpec.Swap), which
	// keeps its left rows for a thin Top-N (swapLeft); nil otherwise
	swapped *op.Join
	// live is the live status's count of the rows the join holds
	// (liveAt; nil without a status)
	live *liveJoin
	// pipe, on plan.PipelinedJoin (joinpipe.go), records the sink calls
	// Next makes on the join's goroutine for the job's to replay; nil on
	// every other path
	pipe *joinPipe
	// parts is rewind's scratch: an input's partitions
	parts []int32
	// hand is the account of the inputs' last batches by which a LIMIT's
	// cut hands back what the job did not use (joinhandback.go: stdin)
	hand joinHandBack
}

// swapLeft returns the handle by which a thin Top-N after the join reads
// its left rows (plan.Rank.Thin, rank.Operator.Thin): the join when it runs
// swapped (plan.BothJoin.Swap), else nil.
func (js *joinSource) swapLeft() rank.SwapLeft {
	if js.swapped == nil {
		return nil
	}
	return js.swapped
}

// joinInput is one input of a joinSource: its port (r, the reader of
// port s of the join's scheduling core) and its port stage (intake).
type joinInput struct {
	in  *plan.JoinInput
	src Source
	h   SourceHandles // src's declared capabilities (partitions, replay, topic, parallel reader)
	// route, for an input read through its stream's side branches
	// (plan.RoutedKind), routes each batch through them in the port stage
	// (joinroute.go), the join taking the rows none took; nil otherwise.
	// Its source (src) is the stream's, read in the branches' job's
	// layout, and h is empty (a derived relation declares no capability)
	route *joinRoute
	// r is the input's port reader: it reads src's Next into its own batch
	// (r.b), or hands the batches of par or ahead (portReader.from)
	r *portReader
	// b and bad are the batch the intake works on and its malformed rows:
	// the reader's last batch (valid until its next read), or, once
	// refuseFuture or filterPushed took rows out, kept or filtered, which
	// the reader never writes into
	b    *vector.Batch
	bad  []BadRow
	errs []ErrorRow
	// held: errs, the errors rows of the input's last batch, wait for the
	// job to be past them (joinHandBack.hold: an input that takes back)
	held bool
	es   *StreamErrors
	wmk  *watermarker   // nil without a WATERMARK
	keys []*expr.Kernel // the computed join keys (plan.JoinInput.KeyExprs)
	// filter is the input's pushed-down condition (plan.JoinInput.Filter),
	// nil without one: filterPushed applies it, keeping the rows in
	// filtered (then b)
	filter   *expr.Kernel
	filtered *vector.Batch
	dropped  int64 // the rows filter took out (EXPLAIN ANALYZE)
	// malformed: the malformed and refused rows this input read (EXPLAIN
	// ANALYZE; es counts its stream's, which a self-join's two reads share)
	malformed int64
	kept      *vector.Batch // 'watermark.max-future': the rows kept (then b: refuseFuture)
	done      bool
	bounded   bool // the input ends by itself (catalog.Stream.Bounded): pick reads it whole first when an input has no event time
	// par is the input's parallel reader (plan.ParallelJoinInputs,
	// joinInputReader), nil when src gives the rows itself: the port
	// reader hands its batches (readBy), each valid until its next Next,
	// as a Source's is.
	par *chunked.Reader
	// parLater: the first read makes par (plan.LookupMorsel's left input,
	// when runLookupMorsel did not take it), its chunks of chunk bytes
	parLater bool
	chunk    int64
	// ahead, on plan.PipelinedJoin (startPipe), reads src on a goroutine
	// of its own: the port reader hands its batches, each valid until its
	// next Next
	ahead *strategy.Ahead
	// prep is the batch's key hashes and time order the ahead reader
	// computed with it (op.Join.Preparer; nil: none), which Push takes
	// instead of computing them on the join's goroutine
	prep *op.HoldPrep
}

// readBy makes the input's port reader hand the batches of cr, its
// parallel reader (par), when there is one (nil: src's Next gives them).
func (ji *joinInput) readBy(cr *chunked.Reader) {
	if cr != nil {
		ji.par, ji.r.from = cr, cr
	}
}

// newJoinSource opens the two inputs of job.Both (each read whole, as a
// build side is: SPEC 2.5) and makes the join, its state charged to budget.
// The caller closes the Source it returns (both inputs), also on error.
func newJoinSource(ctx context.Context, job *plan.Job, env *Env, stats *Stats, budget *StateBudget, opens openOpts) (*joinSource, error) {
	exprs := opens.exprs
	both := job.Both
	// (a join read as a build side, as a part of a derived relation over
	// streams of a group is, reads its inputs whole and commits nothing:
	// the relation's reader does not commit with it, derived.go)
	grouped := joinReplayable(job) && !opens.buildSide
	js := &joinSource{ctx: ctx, both: both, stats: stats, grouped: grouped, exprs: exprs, aggAfter: grouped && (job.JoinAggReplayed() || job.JoinRankReplayed()), waits: -1}
	js.ports = newPortScheduler(2, js.accepts) // (its ports' readers: the inputs', below)
	spec := op.JoinSpec{Kind: op.JoinKind(both.Type), Keys: both.Keys, NullSafe: both.NullSafe, Interval: both.Interval, Lo: both.Lo, Hi: both.Hi, Lookup: both.Lookup, TTL: both.StateTTL.Milliseconds(), Changes: both.Changes,
		Extreme: op.JoinExtreme(both.Extreme), Swap: both.Swap && !js.grouped}
	if len(both.Residual) > 0 {
		var ks []*expr.Kernel
		for _, e := range both.Residual {
			ks = append(ks, exprs.Compile(e))
		}
		sel := make([]int32, 1)
		spec.Residual = func(b *vector.Batch, i int, from [2]int64) bool { // (SPEC 2.7: each term TRUE)
			sel[0] = int32(i)
			ok := true
			for _, k := range ks {
				if v := k.Eval(b, sel); v.Null[i] || !v.B[i] {
					ok = false
					break
				}
			}
			js.takePairFailures(b, i, from)
			return ok
		}
	}
	js.cols = plan.JoinedStream(both).Columns
	off := 0
	for s := range both.Inputs {
		for c := range both.Inputs[s].Stream.Columns {
			js.userCols = append(js.userCols, off+c)
		}
		off += len(both.Inputs[s].Types)
	}
	for s := range both.Inputs {
		in := &both.Inputs[s]
		spec.Types[s], spec.Time[s], spec.Stamp[s], spec.Keep[s], spec.Pass[s] = in.Types, in.TimeCol(), in.WatermarkCol, in.Keep, in.Pass
		// an input not replayed (newJoinReplays: only one read in its
		// consumer group is) whose stamp no reader of the joined rows
		// reads: the state need not hold the stamp (op.JoinSpec.DropStamp)
		spec.DropStamp[s] = !js.grouped && in.WatermarkCol >= 0 && in.WatermarkCol < len(in.Pass) && !in.Pass[in.WatermarkCol]
		// grouped: each process its partitions, replayed; a lookup join's
		// bounded side is read whole by every process
		if part := routedPart(in); part != nil {
			// the stream's side branches route its rows in the input's
			// port stage (joinroute.go): the port reader reads the
			// stream, in the branches' job's layout; the input declares
			// no capability, as the derived relation it reads did
			rt, o, err := newJoinRoute(ctx, js, s, part, env, budget, opens)
			if err != nil {
				if o.src != nil {
					o.src.Close()
				}
				js.Close()
				return nil, err
			}
			ji := &joinInput{in: in, src: o.src, route: rt, r: newPortReader(s, o.src, part.BatchTypes, true), es: readErrors(stats, part.Stream, o), bounded: in.Stream.Bounded()}
			ji.b = ji.r.b
			rt.errorsBy(ji.es)
			js.ports.add(s, ji.r, true)
			js.in[s] = ji
			js.inputExprs(ji, exprs)
			continue
		}
		o, err := env.openWith(ctx, in.Stream, openOpts{buildSide: !js.grouped || both.Lookup && s == 1, hub: opens.hub, exprs: exprs})
		if err != nil {
			js.Close()
			return nil, err
		}
		ji := &joinInput{in: in, src: o.src, h: o.h, r: newPortReader(s, o.src, in.Types, true), es: readErrors(stats, in.Stream, o), bounded: in.Stream.Bounded()}
		ji.b = ji.r.b
		ji.r.b.NoText = true // (joinInputReader)
		// a lookup join's probe rows reach its output as they are read
		// (op.Join's gather keeps their marks): the csv decoder marks
		// their plain texts, so the csv encoder need not look at them
		ji.r.b.PlainMarks = both.Lookup && s == 0
		js.ports.add(s, ji.r, true) // (polled: read on the job's goroutine, read)
		switch {
		case job.Strategy == plan.ParallelJoinInputs || job.Strategy == plan.LookupMorsel && s == 1:
			ji.readBy(joinInputReader(o.h.Parallel, in.Types, env.ChunkSize, ji.r.b.PlainMarks))
		case job.Strategy == plan.LookupMorsel:
			// (the left input: the lookup morsel pipeline cuts it, or, when
			// it cannot run, the first read makes its parallel reader)
			ji.parLater, ji.chunk = true, env.ChunkSize
		}
		js.in[s] = ji
		js.inputExprs(ji, exprs)
	}
	if js.grouped && !both.Lookup {
		// each input's watermark waits for the partitions the other reads
		// (partWatermarks.peer): partition i of both topics is one pair
		for s, ji := range js.in {
			if o := js.in[1-s]; ji.wmk != nil && ji.wmk.parts != nil && o.h.Partitions != nil {
				ji.wmk.parts.peer = o.h.Partitions
			}
		}
	}
	if err := checkCoPartitioned(both, js.grouped, [2]connector.TopicSource{js.in[0].h.Topic, js.in[1].h.Topic}); err != nil {
		js.Close()
		return nil, err
	}
	var q *plan.Branch // the query the join belongs to, for the notice
	for _, b := range job.AllBranches() {
		if b.Both == both {
			q = b
			break
		}
	}
	for s := range both.Inputs {
		js.late[s] = &LateRows{Output: both.Late[s]}
		if q != nil {
			js.late[s].Query, js.late[s].Script, js.late[s].Line, js.late[s].Column = q.Text, q.Script, q.Line, q.Column
		}
		stats.Late = append(stats.Late, js.late[s])
	}
	js.acct = budget.Account(fmt.Sprintf("the %s %s", both.Type, both.Kind()), "rows of "+both.Inputs[0].Name+" and "+both.Inputs[1].Name)
	var err error
	if both.Temporal {
		js.j, err = op.NewTemporal(op.TemporalSpec{Kind: spec.Kind, Types: spec.Types, Keep: spec.Keep, Keys: spec.Keys, NullSafe: spec.NullSafe, Time: spec.Time, Stamp: spec.Stamp, KeepVersions: both.KeepVersions, Residual: spec.Residual}, js, js.acct)
	} else {
		var jo *op.Join
		if jo, err = op.NewJoin(spec, js, js.acct); err == nil {
			jo.SetPace(joinPace)
			js.j = jo
			if spec.Swap {
				js.swapped = jo
			}
		}
	}
	if err == nil {
		js.acct.Detail = func() string { return sideStateText(both, js.j.SideState) }
	}
	if err != nil {
		js.Close()
		return nil, err
	}
	return js, nil
}

// inputExprs compiles, in exprs, input ji's pushed-down filter, computed
// keys and watermark (its assigner keeps a watermark per partition of a
// Kafka input, ji.h.Partitions, the input's their minimum, SPEC 2.5).
func (js *joinSource) inputExprs(ji *joinInput, exprs *expr.Context) {
	in := ji.in
	if in.Filter != nil {
		ji.filter = exprs.Compile(in.Filter)
	}
	for _, e := range in.KeyExprs {
		ji.keys = append(ji.keys, exprs.Compile(e))
	}
	if in.Watermark != nil {
		ji.wmk = newWatermarker(&plan.Job{Stream: in.Stream, Watermark: in.Watermark, WatermarkCol: in.WatermarkCol, BatchTypes: in.Types}, exprs)
		ji.wmk.partitionBy(ji.h.Partitions)
	}
}

// sideStateText says what each input of a join holds in its state, for
// the 'state.max-bytes' error (issue 23 item 5: the operator, the side and
// the key count): "l: 1,204 rows under 310 keys; r: 98 rows under 40 keys"
// (held, a join's SideState; a side without indexed keys gives its rows
// only).
func sideStateText(both *plan.BothJoin, held func(int) (int, int)) string {
	var parts []string
	for s := range both.Inputs {
		rows, keys := held(s)
		p := fmt.Sprintf("%s: %s", both.Inputs[s].Name, state.CountText(rows, "row"))
		if keys > 0 {
			p += " under " + state.CountText(keys, "key")
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, "; ")
}

// joinPace is the most batches of joined rows the join releases before the
// job reads them (op.Join.SetPace): an input's end releases every row held
// for the watermark (the last seconds of a stream, tens of thousands of
// rows), which would otherwise all be queued, joined, at once. One batch
// (it was 4): the queue then holds at most two batches of joined rows (the
// one released and the rows gathered when the call began), each reused
// (joinSource.free) with its arenas; Nexmark q23's peak RSS went down by
// 4-7 MiB (issue 26), its output and CPU the same.
const joinPace = 1

// joinOperator is the two-input operator a joinSource feeds: the keyed join
// (op.Join) or the temporal join (op.Temporal), with what it did with each
// input's rows (EXPLAIN ANALYZE).
type joinOperator interface {
	op.Operator
	Counts() op.JoinCounts
	// SideState is an input's rows and keys in the join's state, for the
	// 'state.max-bytes' message (sideStateText)
	SideState(side int) (rows, keys int)
	// Held is an input's rows in the join's state, in O(1) (the live
	// status's count, noteLive)
	Held(side int) int
	Sources() (l, r []int64)
}

// joined is a batch of joined rows queued by joinSource.Emit, with each
// row's input rows' positions (op.Join.Sources).
type joined struct {
	b    *vector.Batch
	from [2][]int64
	old  bool // pairs the run before wrote (op.Join.Old; joinSource.rewrite)
	// floor is the join's watermark when the batch was emitted (op.Join.
	// Watermarked; floorSet false: none): no output emitted from then on
	// is earlier (joinwincap.go); epoch is joinSource.epoch then
	floor    int64
	floorSet bool
	epoch    int
}

// Next implements Source: the next joined rows, io.EOF once both inputs have
// ended and every held row is out. It is the pull shape of the join's
// scheduler (run is its push shape), for a job that reads the join on a
// goroutine of its own, the pipelined join's (joinpipe.go), or through a
// source that wraps it (a derived relation's part over stdin, gated:
// derivedhandback.go).
func (js *joinSource) Next(b *vector.Batch, _ *[]BadRow) error {
	js.handled()
	for len(js.queue) == 0 {
		if err := js.step(); err != nil {
			return err
		}
	}
	js.give(b)
	return nil
}

// run is the join's scheduler on the job's goroutine in the push shape
// (issue 22 item 3, one scheduler): it reads the input the core's rule
// takes (step: portScheduler.next, accepts), pushes the batch through the
// input's port stage into the join (read, intake), and pushes the joined
// rows the join emitted, queued in order, into the job's chain (push,
// process.batch: the chain's head), one batch at a time (give), before it
// reads again; an input that has no row ready (ErrWaiting), the inputs'
// end (io.EOF) or an error is pushed as process.batch takes them (the sink
// flushed; the chain finished; the job's error). A group source's
// checkpoint, which runs inside its read, so falls between the pushes,
// after the rows given went through (joinReplay.Torn). ctx is checked
// before each push, as the pull shape's job checks it before each Next.
// It reports the job's error (nil: the inputs ended or the LIMIT was
// reached).
func (js *joinSource) run(ctx context.Context, b *vector.Batch, push func(context.Context, *vector.Batch, []BadRow, error) (bool, error)) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		js.handled()
		var err error
		for len(js.queue) == 0 && err == nil {
			err = js.step()
		}
		if err == nil {
			js.give(b)
		}
		if end, err := push(ctx, b, nil, err); end {
			return err
		}
	}
}

// handled notes that the job handled the joined rows given last: none is
// given (Torn), the late rows the next read pushes are no old pairs
// (replay.filter), and an input that waited is read first again (accepts).
func (js *joinSource) handled() {
	js.given, js.givenOld, js.waits = false, false, -1
}

// step is one step of the join's scheduler while no joined row is queued:
// a failure met after rows joined before it is returned; held rows are
// released a few batches at a time (op.Join.Deferred, joinPace); else the
// input the core's rule takes is read (read), and when it has no row
// ready (ErrWaiting) the other one meanwhile when the rule takes it
// (accepts). It returns io.EOF once both inputs ended, ErrWaiting, or an
// error, which, when joined rows were queued before it, waits for them to
// be given (fail); nil when it did a step.
func (js *joinSource) step() error {
	if js.fail != nil {
		return js.fail
	}
	if !js.apart.IsZero() { // (the inputs of a join in a group holding different partitions: joinapart.go)
		if err := js.checkApart(); err != nil {
			return err
		}
	}
	if jo, ok := js.j.(*op.Join); ok && jo.Deferred() { // (held rows released a few batches at a time: joinPace)
		js.noteFloor()
		err := jo.Drain(js.ctx)
		js.noteLive()
		if err != nil {
			js.fail = err
		} else if err := js.ownFailures(-1, nil); err != nil { // (the pairs released: JoinSpec.Residual)
			js.fail = err
		}
		return nil
	}
	s := js.ports.next() // (the input behind: accepts)
	if s < 0 {
		if !js.in[0].done || !js.in[1].done {
			return fmt.Errorf("the %s of %s and %s: no input to read while one has not ended (an engine fault: please report it)", js.both.Kind(), js.both.Inputs[0].Name, js.both.Inputs[1].Name)
		}
		return io.EOF
	}
	js.turns = s
	err := js.read(s)
	if o := 1 - s; errors.Is(err, ErrWaiting) && js.ports.readable(o) {
		// the input behind has no row ready: the other one is read
		// meanwhile (accepts)
		err = js.read(o)
	}
	if err != nil {
		if errors.Is(err, ErrWaiting) || len(js.queue) == 0 {
			return err
		}
		js.fail = err // (the rows joined before it first)
	}
	return nil
}

// give fills b with the first joined rows queued (at most vector.Cap of
// the first queued batch), with their input rows' positions (from, which
// RowSource and Unread read), and notes them given (Torn).
func (js *joinSource) give(b *vector.Batch) {
	e := js.queue[0]
	q := e.b
	qn := q.N
	n := min(qn-js.at, vector.Cap)
	switch {
	case js.at == 0 && n == qn && sameLayout(b, q):
		b.SwapRows(q) // (q's vectors are the job's until the next Next; b's old ones wait in q for an Emit)
	case js.at == 0 && n == qn:
		shareQueued(b, q)
		if js.pipe != nil {
			b.OwnStrings() // (q is reused while the job's goroutine has b: joinpipe.go)
		}
	default:
		b.Reset()
		b.AppendRows(q, js.at, js.at+n)
	}
	js.from = [2][]int64{e.from[0][js.at : js.at+n], e.from[1][js.at : js.at+n]} // (q is reused by an Emit after the next call of Next)
	js.at += n
	js.givenOld = e.old
	js.givenFloor, js.givenFloorSet, js.givenEpoch = e.floor, e.floorSet, e.epoch
	if js.at == qn {
		// (moved down, not resliced from the front: a queue of a
		// few batches whose array a later append would outgrow,
		// an allocation every few batches)
		js.queue, js.at = js.queue[:copy(js.queue, js.queue[1:])], 0
		js.free = append(js.free, e)
	}
	js.given = true
	if js.pipe != nil {
		js.pipe.given++
	}
}

// shareQueued fills b with the rows of q, values copied and strings
// pointing into q's memory (vector.Batch.ShareRows), with their change kinds
// as AppendRows takes them. Next gives a queued batch q whole so when b's
// layout is not q's (else it swaps their rows, vector.Batch.SwapRows: no
// copy): q's arenas stay as they are until an Emit reuses q, not before
// the next call of Next (a Source's batch is valid until then).
func shareQueued(b, q *vector.Batch) {
	b.ShareRows(q, q.N)
	switch {
	case q.Kinds != nil:
		if b.Kinds == nil {
			b.Kinds = make([]vector.RowKind, vector.Cap)
		}
		copy(b.Kinds[:q.N], q.Kinds[:q.N])
	case b.Kinds != nil:
		clear(b.Kinds[:q.N])
	}
}

// behind returns the input to read next by SPEC 2.7's order: the one whose
// watermark is behind (unset counts as behind; the left one on a tie), or
// the one not ended; -1 when both have ended. When an input has no event
// time (SPEC 2.7: "a bounded input is read whole first; two unbounded
// inputs without event time are processed in arrival order"), a bounded
// input not ended is read first (the left one when both are), and two
// unbounded inputs are read by turns (the one Next did not read last,
// turns), so that one that always has rows ready (a datagen without
// 'rows-per-second') does not keep the other from ever being read. A
// lookup join reads its right side whole first, a swapped one
// (op.JoinSpec.Swap) its left side.
func (js *joinSource) behind() int {
	l, r := js.in[0], js.in[1]
	switch {
	case l.done && r.done:
		return -1
	case js.both.Swap && !js.grouped && !l.done: // the left side whole first (op.JoinSpec.Swap)
		return 0
	case js.both.Lookup && !r.done: // the right side whole first (SPEC 2.7)
		return 1
	case l.done:
		return 1
	case r.done:
		return 0
	case l.wmk == nil || r.wmk == nil:
		switch {
		case l.bounded:
			return 0
		case r.bounded:
			return 1
		}
		return 1 - js.turns
	case !l.wmk.set || l.wmk.held():
		return 0
	case !r.wmk.set || r.wmk.held() || l.wmk.wm > r.wmk.wm:
		return 1 // (the right input is behind: no watermark yet (or none the join takes: rewind), or a smaller one)
	}
	return 0
}

// accepts is the join's rule in the scheduling core of its inputs
// (portScheduler.accepts; the event-time join job's scheduler acks its
// readers by heldScheduler.accepts): whether input s, not ended, may read
// its next batch now: when it is the input behind (behind), or when the
// input behind had no row ready in this call of Next (waits): the other
// one is then read meanwhile (the join's order does not depend on it), so
// that a source that commits from inside Next (a Kafka group's) gets
// called and takes its last batch as used, except in a lookup join, whose
// right side is read whole first.
func (js *joinSource) accepts(s int) bool {
	if js.in[s].done {
		return false
	}
	b := js.behind()
	return s == b || b >= 0 && js.waits == b && !js.both.Lookup
}

// joinChunkSize is the chunk size of a join's parallel inputs when the
// Env's is not set: a quarter of chunked.DefaultChunkSize, since the two
// inputs' readers each hold their chunks in flight, every one with the
// batches of a chunk of short rows made up front (chunked.New): the heap of
// the benchmark suite's interval join grew from 12 to 44 MiB with 256 KiB
// chunks.
const joinChunkSize = 64 << 10

// joinParallelInputs counts the join inputs read by a parallel reader
// (joinInputReader), for tests: which path a job took.
var joinParallelInputs atomic.Int64

// joinInputReader returns the parallel reader of ps, the parallel decoding
// a join's input declares (SourceHandles.Parallel; a join on
// plan.ParallelJoinInputs), decoding batches of types (the input's layout:
// its columns, then the join's computed ones, which the reader leaves to the
// join) in chunks of chunk bytes (0: joinChunkSize), with
// vector.Batch.PlainMarks when marks is set, on
// plan.JoinInputWorkers goroutines; nil when src cannot be cut (not a
// bounded file, a file under two chunks, another 'encoding', or wrapped by
// a source hook): the join then reads it by Next.
//
// Its batches, as the input's own (joinInput.b), are vector.Batch.NoText:
// no joined row carries its input's record or number texts (op.Join and
// op.Temporal write the joined values, Vec.Text cleared but a lookup
// join's probe side's VARCHAR marks, vector.Batch.PlainMarks), and a late row is
// printed from its values (the same bytes, SPEC 4), so the decoders keep
// neither and the reader copies only the VARCHAR values out of each
// decoder's buffer (chunked's detach: the record texts and number texts
// were two thirds of the bytes it copied for the benchmark suite's lookup
// join).
func joinInputReader(ps connector.ParallelSource, types []catalog.Type, chunk int64, marks bool) *chunked.Reader {
	if ps == nil {
		return nil
	}
	if chunk <= 0 {
		chunk = joinChunkSize
	}
	cr := ps.Parallel(types, plan.JoinInputWorkers(runtime.GOMAXPROCS(0)), chunked.Options{ChunkSize: chunk, NoText: true, PlainMarks: marks})
	if cr != nil {
		joinParallelInputs.Add(1)
	}
	return cr
}

// read reads one batch of input s, by its port reader (the core's
// portScheduler.read), and pushes it through the input's port stage into
// the join (intake), counting the malformed and refused rows it met as
// input s's (joinInput.malformed). The scheduling core is told (taken),
// and acks the inputs the join accepts then (ackAccepted): input s when it
// is still the one behind, the other one when it is now, or when s had no
// row ready (waits).
func (js *joinSource) read(s int) error {
	ji := js.in[s]
	before := ji.es.Malformed
	if ji.parLater {
		ji.parLater = false
		ji.readBy(joinInputReader(ji.h.Parallel, ji.in.Types, ji.chunk, ji.r.b.PlainMarks))
	}
	js.waits = -1
	if err := js.flushHeld(s); err != nil { // (the job reads on: it used the last batch whole, joinhandback.go; before the read, which reuses the decoder's buffer its rows' texts are in)
		return err
	}
	err := js.intake(s, js.ports.read(s))
	if errors.Is(err, ErrWaiting) {
		js.waits = s
	}
	js.ports.taken(s, !ji.done)
	js.ports.ackAccepted(js.ctx) // (polled ports: never false)
	ji.malformed += ji.es.Malformed - before
	js.noteLive()
	return err
}

// liveAt makes the join update l (nil: none), the session's live status
// (SPEC 4, Progress): the rows each input holds in the join's state and
// their bytes, and each input's watermark under the input's name, once a
// batch, as an event-time semi join's held rows and build watermark are.
func (js *joinSource) liveAt(l *Live) {
	if l == nil {
		return
	}
	js.live = l.joinHolds([2]string{js.both.Inputs[0].Name, js.both.Inputs[1].Name}, js.acct)
	for _, ji := range js.in {
		if tc := ji.in.TimeCol(); ji.wmk != nil && tc >= 0 {
			ji.wmk.live = l.watermark(ji.in.Name, ji.in.Types[tc])
		}
	}
}

// noteLive stores the rows the join holds per input in the live status
// (liveAt): two atomic stores, once a batch.
func (js *joinSource) noteLive() {
	if js.live != nil {
		js.live.store(js.j.Held(0), js.j.Held(1))
	}
}

// intake is input s's port stage: what its port reader read (m: a batch
// with its malformed rows, ErrWaiting, io.EOF or an error), pushed into
// the join's port s. At the end the join is told (op.Join.Finish). A
// batch goes through the input's errors policy, after the replay's
// malformed rows read before are dropped (unread: their errors output is
// written), its watermark (stamping CURRENT_WATERMARK, refusing the rows
// past 'watermark.max-future': refuseFuture), the replay's note of its
// partitions' first rows (noteBatch), the pushed-down filter
// (filterPushed) and the computed keys, into op.Join, followed by the
// input's watermark. The batch stays the reader's: the rows refuseFuture
// or filterPushed keep go to batches of the input's own (kept, filtered),
// never into the one the reader writes its next batch into. Its error is
// the read's, a failed call's, the join's (a *StateLimitError), or, after
// the rows before it were pushed, a malformed or refused row's under
// 'errors'='fail'.
func (js *joinSource) intake(s int, m portMsg) error {
	ji := js.in[s]
	err := m.err
	switch {
	case err == io.EOF:
		if ji.route != nil {
			if err := ji.route.finish(js.ctx, s); err != nil {
				return err
			}
		}
		ji.done = true
		js.noteFloor()
		if err := js.j.Finish(js.ctx, s); err != nil {
			return err
		}
		return js.ownFailures(-1, nil) // (the pairs the end released: JoinSpec.Residual)
	case err != nil:
		return err
	}
	ji.b, ji.bad = m.b, m.bad
	var ap *aheadPrep
	read := m.b.N + len(m.bad)
	if ji.ahead != nil { // (the key hashes and time order its reader computed with the batch: holdPreparer)
		ap, _ = ji.ahead.Prepared().(*aheadPrep)
		ji.prep = nil
		if ap != nil {
			ji.prep = ap.hold
		}
	}
	js.hand.note(js, s) // (joinhandback.go)
	n := ji.b.N
	var failure error
	ji.errs = ji.errs[:0]
	ji.bad = js.unread(s, ji.bad) // (a replay's malformed rows went to their output already)
	if len(ji.bad) > 0 {
		ji.es.Malformed += countBad(ji.es.Policy, len(ji.bad))
		n, failure = handleBad(ji.in.Stream, ji.src, ji.bad, ji.b.N, ji.es.Policy, &ji.errs)
		ji.b.N = n
	}
	if ji.route != nil { // (the side branches take their rows; the join the rest: joinroute.go)
		out, err := ji.route.route(js.ctx, s, ji.b, n, read)
		if err != nil {
			return err
		}
		ji.b, n = out, out.N
		ap, ji.prep = nil, nil // (computed for the rows as read, not the ones the branches left)
	}
	js.sel = appendPrefix(js.sel[:0], n)
	if ji.wmk != nil && n > 0 {
		switch {
		case ji.wmk.max != nil:
			if err := js.refuseFuture(ji); err != nil && failure == nil {
				failure = err
			}
		case ap != nil && ap.stamped && ap.n == n: // (its reader stamped the rows: holdPreparer)
			ji.wmk.wm, ji.wmk.set = ap.wm, ap.set
			ji.wmk.live.store(ap.wm, ap.set)
		default:
			ji.wmk.stamp(ji.b, js.sel)
		}
	}
	if len(ji.errs) > 0 {
		switch {
		case js.pipe != nil:
			js.pipe.recordErrors(ji.es.Side, ji.errs) // (joinpipe.go: the job's goroutine writes them)
		case js.hand.hold[s]:
			ji.held = true // (joinhandback.go: reported once the job is past them, or up to its LIMIT's cut)
		default:
			if err := js.sink.Errors(ji.es.Side, ji.errs); err != nil {
				return err
			}
		}
	}
	js.noteBatch(s, ji.b, js.sel, ji.in.WatermarkCol) // (joinreplay.go)
	if ji.filter != nil && ji.b.N > 0 {
		if err := js.filterPushed(s, ji); err != nil {
			return err
		}
	}
	base := len(ji.in.Types) - len(ji.keys)
	for k, kern := range ji.keys { // the computed keys, into their columns
		col := ji.b.Cols[base+k]
		col.ResetArena()
		col.CopyRows(kern.Eval(ji.b, js.sel), js.sel) // (sel is 0..n-1)
	}
	if err := js.ownFailures(s, ji.b); err != nil {
		return err
	}
	js.noteFloor()
	if err := js.push(s, ji); err != nil {
		return err
	}
	if err := js.ownFailures(-1, nil); err != nil { // (the ON condition's other terms: JoinSpec.Residual)
		return err
	}
	if ji.wmk != nil && ji.wmk.set && js.takesWatermark(ji) {
		js.noteFloor()
		if err := js.j.Watermark(js.ctx, s, ji.wmk.wm); err != nil {
			return err
		}
		if err := js.ownFailures(-1, nil); err != nil { // (the pairs the watermark released)
			return err
		}
	}
	return failure
}

// prefixSel is 0, 1, ..., vector.Cap-1: a batch's every row (appendPrefix).
var prefixSel = func() (p [vector.Cap]int32) {
	for i := range p {
		p[i] = int32(i)
	}
	return p
}()

// appendPrefix appends 0, 1, ..., n-1 to sel and returns it: a batch's
// rows as a selection, copied from prefixSel (one copy, not a store a
// row: intake's, on the join's goroutine, issue 23).
func appendPrefix(sel []int32, n int) []int32 {
	m := min(n, vector.Cap)
	sel = append(sel, prefixSel[:m]...)
	for i := m; i < n; i++ {
		sel = append(sel, int32(i))
	}
	return sel
}

// push gives the join input s's batch: with its HoldPrep when the ahead
// reader computed one (joinpipe.go) and the batch's rows are still the
// ones it was computed for (no filter, no computed key; op.Join.PushPrepared
// checks their count, which the errors policy may have cut).
func (js *joinSource) push(s int, ji *joinInput) error {
	if jo, ok := js.j.(*op.Join); ok && ji.prep != nil && ji.filter == nil && len(ji.keys) == 0 {
		return jo.PushPrepared(js.ctx, s, ji.b, ji.prep)
	}
	return js.j.Push(js.ctx, s, ji.b)
}

// rewind gives the join each input's watermark again after partition p
// came to or left input s in its consumer group (joinReplay.Assign,
// Revoke; issue 23 item 6), also when lower (op.Join.Rewind): an input's
// watermark goes down to the minimum with the partition that came
// (partWatermarks.seed, lower), and an input that has a partition counted
// without a watermark of its own (one it was just given and has read no
// row of, or one only the other input reads: partWatermarks.peer) gives
// the join none (held) until it has (takesWatermark). So the join holds
// every row while the two inputs of one process read different
// partitions: partition i of the two topics comes and goes in two group
// members' callbacks, at different moments (kafka's CoPartitionBalancer),
// and a row of i the join handled meanwhile would miss the other input's
// rows of i, or be padded, and its partition's commit would say so.
// Before, the join's watermark is noted as the floor of the f of each
// partition the inputs read but p of s (joinReplay.fired).
func (js *joinSource) rewind(s int, p int32) {
	rj, ok := js.j.(replayedJoin)
	if !ok {
		return
	}
	if wm, ok := rj.Watermarked(); ok {
		for t, ji := range js.in {
			if r := js.rep[t]; r != nil && ji.h.Partitions != nil {
				js.parts = ji.h.Partitions.Partitions(js.parts[:0])
				for _, q := range js.parts {
					if f, had := r.fired[q]; (t != s || q != p) && (!had || wm > f) {
						r.fired[q] = wm
					}
				}
			}
		}
	}
	now := time.Now()
	for t, ji := range js.in {
		if ji == nil || ji.done || ji.wmk == nil || ji.wmk.parts == nil {
			continue
		}
		w := ji.wmk
		w.parts.held = !w.parts.ready(w, now)
		rj.Rewind(t, w.wm, !w.parts.held)
	}
}

// takesWatermark reports whether the join takes the watermark of input ji
// (rewind): not while it is held, until its partitions are ready again.
func (js *joinSource) takesWatermark(ji *joinInput) bool {
	pw := ji.wmk.parts
	if pw == nil || !pw.held {
		return true
	}
	pw.held = !pw.ready(ji.wmk, time.Now())
	return !pw.held
}

// filterPushed takes out of input s's batch (ji.b, with js.sel its rows
// 0..N-1) the rows for which its pushed-down condition (ji.filter,
// planner/rule_pushdown.go) is not TRUE, keeping those the join sends to
// its late output: a row with event time whose time is NULL or below its
// CURRENT_WATERMARK stamp, as op.Join and op.Temporal decide it (SPEC 2.7:
// a late row goes out as it reaches the join, whatever the query's WHERE
// would keep), except a lookup join's right rows, which are never late (a
// table read whole: op.NewJoin).
// js.sel is then the kept rows 0..N-1 again.
func (js *joinSource) filterPushed(s int, ji *joinInput) error {
	v := ji.filter.Eval(ji.b, js.sel)
	if err := js.ownFailures(s, ji.b); err != nil {
		return err
	}
	tc, sc := ji.in.TimeCol(), ji.in.WatermarkCol
	if js.both.Lookup && s == 1 {
		tc = -1
	}
	n := ji.b.N
	keep := js.sel[:0] // (in place: row i is read before keep[len] <= i is written)
	for _, i := range js.sel[:n] {
		ok := !v.Null[i] && v.B[i]
		if !ok && tc >= 0 {
			t := ji.b.Cols[tc]
			ok = t.Null[i] || sc < 0 || !ji.b.Cols[sc].Null[i] && t.I[i] < ji.b.Cols[sc].I[i]
		}
		if ok {
			keep = append(keep, i)
		}
	}
	ji.dropped += int64(n - len(keep))
	if len(keep) == n {
		js.sel = keep
		return nil
	}
	if ji.filtered == nil {
		ji.filtered = vector.NewBatch(ji.in.Types)
	}
	f := ji.filtered // (not kept, which b may be after refuseFuture)
	f.Reset()
	for k := 0; k < len(keep); { // (runs of kept rows at once)
		e := k + 1
		for e < len(keep) && keep[e] == keep[e-1]+1 {
			e++
		}
		f.AppendRows(ji.b, int(keep[k]), int(keep[e-1])+1)
		k = e
	}
	ji.b = f // (the reader's batch stays the reader's, kept refuseFuture's)
	js.sel = js.sel[:0]
	for i := range ji.b.N {
		js.sel = append(js.sel, int32(i))
	}
	return nil
}

// pairFailure is a failed call of the ON condition's other terms on a pair
// of held rows (op.JoinSpec.Residual): the call, the pair's rows' positions
// in their inputs, and the pair's values as an errors row's raw text.
type pairFailure struct {
	f    expr.Failure
	from [2]int64
	raw  []byte
}

// takePairFailures takes the calls that failed while the ON condition's
// other terms were computed on the pair in row i of b (from: its rows'
// positions) from the job's record into js.pairs, so that none is read
// later as a call on a joined row of the same index, and each is named by
// the pair (ownFailures). It costs one atomic load when none failed.
func (js *joinSource) takePairFailures(b *vector.Batch, i int, from [2]int64) {
	n := len(js.fails)
	js.fails = js.exprs.Take(js.fails)
	for _, f := range js.fails[n:] {
		js.pairs = append(js.pairs, pairFailure{f: f, from: from, raw: appendRowCols(nil, js.cols, js.userCols, b, i)})
	}
	js.fails = js.fails[:n]
}

// ownFailures takes the failed calls of the join's own expressions (SPEC
// 2.10) from the job's record, as they are computed, so that none is read
// later as a call on a joined row of the same index (udf_errors.go): input
// s's pushed-down condition and computed keys on its batch b (s >= 0: each
// failed call is named by b's row, as its input's: the stream, its
// path:line, its values), or, with s < 0, the ON condition's other terms
// on pairs of held rows (op.JoinSpec.Residual, taken as they are computed:
// takePairFailures), each named "left JOIN right" at both rows' positions
// ("a.csv:2, b.csv:3"; a position not known is left out), with the pair's
// values. A call that fails the job is the error it returns; the others go
// to the errors output of input s (of the left input for the ON
// condition), their calls NULL.
//
// On plan.PipelinedJoin it takes nothing: the join has no expression of its
// own that can fail (plan.Job.JoinPipelinable), and the job's record is
// the job's goroutine's.
func (js *joinSource) ownFailures(s int, b *vector.Batch) error {
	if js.pipe != nil {
		return nil
	}
	js.fails = js.exprs.Take(js.fails[:0])
	if s < 0 {
		if len(js.pairs) == 0 {
			return nil
		}
		return js.pairFailures()
	}
	if len(js.fails) == 0 {
		return nil
	}
	in := js.in[s]
	name := errorsName(in.in.Stream)
	return reportFailures(js.fails, name, func(k int) (ErrorRow, bool) {
		f := js.fails[k]
		e := ErrorRow{Stream: name, Error: f.Error()}
		if f.Row < 0 || f.Row >= b.N {
			return e, false
		}
		e.Position = in.src.Position(b.Pos[f.Row])
		e.Raw = appendRowText(e.Raw, in.in.Stream.Columns, b, f.Row)
		return e, true
	}, in.es, js.sink)
}

// pairFailures reports js.pairs (ownFailures, s < 0) and forgets them.
func (js *joinSource) pairFailures() error {
	name := errorsName(js.both.Inputs[0].Stream) + " JOIN " + errorsName(js.both.Inputs[1].Stream)
	js.fails = js.fails[:0]
	for _, p := range js.pairs {
		js.fails = append(js.fails, p.f)
	}
	err := reportFailures(js.fails, name, func(k int) (ErrorRow, bool) {
		p := js.pairs[k]
		e := ErrorRow{Stream: name, Error: p.f.Error(), Raw: p.raw}
		var pos []string
		for s, at := range p.from {
			if at >= 0 {
				pos = append(pos, js.in[s].src.Position(at))
			}
		}
		e.Position = strings.Join(pos, ", ")
		return e, len(pos) > 0
	}, js.in[0].es, js.sink)
	js.pairs = js.pairs[:0]
	return err
}

// refuseFuture stamps input ji's batch under its 'watermark.max-future'
// (SPEC 4, "Finding out why"; maxfuture.go): a row whose event time is more
// than the option above the input's watermark does not move it, goes where the
// input's errors policy says (added to ji.errs in input order, or the job's
// *RowError with 'errors'='fail'), and is taken out of the batch before the
// join sees it, so one row stamped in the future cannot make the other rows
// of its input late for the join.
func (js *joinSource) refuseFuture(ji *joinInput) error {
	m := ji.wmk.max
	m.src, m.es = ji.src, ji.es
	sel, _ := m.advance(ji.wmk, ji.b, js.sel, nil, false)
	ji.wmk.live.store(ji.wmk.wm, ji.wmk.set)
	if len(m.rej) == 0 {
		return nil
	}
	r := Step{In: ji.b, Sel: sel, Errors: ErrorPort{Rows: ji.errs}}
	err := m.refuse(ji.in.Stream, &r)
	ji.errs = r.Errors.Rows
	if ji.kept == nil {
		ji.kept = vector.NewBatch(ji.in.Types)
	}
	ji.kept.Reset()
	for _, i := range r.Sel {
		ji.kept.AppendRows(ji.b, int(i), int(i)+1)
	}
	ji.b = ji.kept      // (the reader's batch stays the reader's; its next one replaces b)
	js.sel = js.sel[:0] // (advance compacted it in place)
	for i := range ji.b.N {
		js.sel = append(js.sel, int32(i))
	}
	return err
}

// Emit implements op.Emitter: joined rows join the queue, taken from the
// operator's batch by vector.Batch.SwapRows (no value copied: the operator
// goes on in the queue slot's old vectors), their strings copied unless the
// batch is a lookup join's probe's (op.Join.Borrowed); late rows go to their
// input's late output.
func (js *joinSource) Emit(_ context.Context, port int, b *vector.Batch) error {
	if port == op.JoinOut {
		var e joined
		if k := len(js.free); k > 0 {
			e, js.free = js.free[k-1], js.free[:k-1]
		} else {
			e = joined{b: vector.NewBatch(js.typesOut()), from: [2][]int64{make([]int64, vector.Cap), make([]int64, vector.Cap)}}
		}
		q := e.b
		l, r := js.j.Sources()
		copy(e.from[0], l)
		copy(e.from[1], r)
		if r, ok := js.j.(replayedJoin); ok {
			e.old = r.Old()
		}
		e.floor, e.floorSet = js.floor, js.floorSet
		e.epoch = js.epoch
		// the rows change hands, not a value copied (vector.Batch.SwapRows:
		// the join goes on in q's old vectors, which its flush resets);
		// the kinds travel with them, so q gets a slice when b has one
		if b.Kinds != nil && q.Kinds == nil {
			q.Kinds = make([]vector.RowKind, vector.Cap)
		}
		q.SwapRows(b)
		b.Reset() // (q's old rows: the operator's batch is empty for its next rows, as after its flush)
		if jo, ok := js.j.(*op.Join); !ok || !jo.Borrowed() && !jo.Owned() {
			// the strings point into the operator's state (op.Temporal's),
			// which may change before Next gives q; op.Join's are q's own
			// (Owned), or a lookup join's probed rows', which point into the
			// left input's batch, unchanged until the next read, which
			// comes after Next has given every queued row, and into the
			// right side, which no longer changes (Borrowed)
			q.OwnStrings()
		}
		js.queue = append(js.queue, e)
		return nil
	}
	s := port - op.JoinLateLeft
	if js.pipe != nil { // (joinpipe.go: the job's goroutine writes them)
		js.late[s].Rows += int64(b.N)
		js.pipe.recordLate(s, b)
		return nil
	}
	js.sel = js.sel[:0]
	for i := range b.N {
		js.sel = append(js.sel, int32(i))
	}
	js.unreadLate(s, b) // (a replay's late rows went to their output already)
	js.late[s].Rows += int64(len(js.sel))
	if js.an != nil {
		js.an.measureLate(js, s, b)
	}
	js.hand.sentLate(s, b, js.sel) // (joinhandback.go: a LIMIT's cut hands back none of them)
	return js.lateOut(s, b, js.sel)
}

// lateOut writes input s's late rows, the rows sel of b, to the input's
// late output (SPEC 2.7), without the CURRENT_WATERMARK column.
func (js *joinSource) lateOut(s int, b *vector.Batch, sel []int32) error {
	cols := b.Cols[:len(js.both.Inputs[s].Stream.Columns)] // (without the CURRENT_WATERMARK column)
	js.lateR = Step{Chunks: []Chunk{{At: 0, Part: Part{Output: js.both.LateOutput[s], Sel: sel, Cols: cols}}}, In: b}
	return js.sink.Rows(&js.lateR)
}

// sameLayout reports whether batches a and b have the same columns' types,
// which vector.Batch.SwapRows needs.
func sameLayout(a, b *vector.Batch) bool {
	if len(a.Cols) != len(b.Cols) {
		return false
	}
	for c, v := range a.Cols {
		if v.Type != b.Cols[c].Type {
			return false
		}
	}
	return true
}

// EmitWatermark implements op.Emitter: the joined relation has no watermark
// of its own yet (plan.JoinedStream).
func (js *joinSource) EmitWatermark(context.Context, int64) error { return nil }

// typesOut is the joined batch's layout.
func (js *joinSource) typesOut() []catalog.Type {
	return append(append([]catalog.Type{}, js.both.Inputs[0].Types...), js.both.Inputs[1].Types...)
}

// Position implements Source for a position of the joined relation's own
// (vector.Batch.Pos): its left row's line, named in the left input (also,
// wrongly, the right row's line of a row whose left side is padded), or,
// under op.JoinSpec.Swap, an ordinal, which names no line: the number
// alone. The errors output and a job's failure name a joined row's input
// rows by RowSource instead. No source wraps a joinSource today: an UNNEST
// after a join reads it as a derived relation (derivedSource, whose rows
// are named "v row N"), and the planner refuses a join followed by CROSS
// JOIN UNNEST in one FROM; a source that wraps it must name its rows by
// RowSource too.
func (js *joinSource) Position(line int64) string {
	if js.in[0] == nil || js.both.Swap && !js.grouped {
		return fmt.Sprint(line)
	}
	return js.in[0].src.Position(line)
}

// RowSource implements rowSourcer: the input row of row i of the batch Next
// gave last whose values the columns cols (expr.Failure.Cols, of the joined
// layout: the left input's columns, then the right's) read, as its stream's
// name and its position in that input (its file's path:line, SPEC 1): the
// right input's row when every column is the right's, the left's when
// every one is the left's; when they are both sides' (or none), both rows,
// named "left JOIN right" at "left position, right position". A side padded
// with NULLs has no row: the other side's is named. ok is false when
// neither side has one (no row i).
func (js *joinSource) RowSource(i int, cols []int) (stream, position string, ok bool) {
	if i < 0 || i >= len(js.from[0]) {
		return "", "", false
	}
	nl := len(js.both.Inputs[0].Types)
	var reads [2]bool
	for _, c := range cols {
		reads[min(c/nl, 1)] = true
	}
	has := [2]bool{js.from[0][i] >= 0, js.from[1][i] >= 0}
	side := func(s int) (string, string, bool) {
		return js.both.Inputs[s].Stream.Name, js.in[s].src.Position(js.from[s][i]), true
	}
	switch {
	case !has[0] && !has[1]:
		return "", "", false
	case !has[0] || reads[1] && !reads[0] && has[1]:
		return side(1)
	case !has[1] || reads[0] && !reads[1]:
		return side(0)
	}
	_, l, _ := side(0)
	_, r, _ := side(1)
	return js.both.Inputs[0].Stream.Name + " JOIN " + js.both.Inputs[1].Stream.Name, l + ", " + r, true
}

// UserCols implements rowSourcer: the joined layout's columns that are the
// inputs' declared ones (the left input's, then the right's), without the
// watermark stamps and computed keys.
func (js *joinSource) UserCols() []int { return js.userCols }

// Progress implements Source: the inputs' bytes read and total, added.
func (js *joinSource) Progress() (int64, int64) {
	var done, total int64
	for _, ji := range js.in {
		if ji != nil {
			d, t := ji.src.Progress()
			done, total = done+d, total+t
		}
	}
	return done, total
}

// Close implements Source: it closes both inputs.
func (js *joinSource) Close() error {
	var first error
	for _, ji := range js.in {
		if ji != nil && ji.ahead != nil {
			ji.ahead.Close() // (its goroutine stopped before the source closes)
		}
	}
	for _, ji := range js.in {
		if ji != nil && ji.route != nil {
			ji.route.done() // (the job ended before the stream did: a LIMIT, a failure)
		}
	}
	for _, ji := range js.in {
		if ji != nil {
			if err := ji.src.Close(); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}

// checkCoPartitioned refuses a join (not a lookup one, nor a temporal one
// whose inputs are read whole: grouped false, joinReplayable) of two Kafka
// streams in a consumer group ('properties.group.id' on both) whose topics
// have different partition counts: co-partitioned topics (SPEC 2.5,
// EXPLAIN's scale-out line) have the same count, each keyed by the join key
// (a temporal join's right topic by its PRIMARY KEY), so that partition p of
// both holds the same keys. topics are the opened inputs' topics
// (SourceHandles.Topic; nil: none).
func checkCoPartitioned(both *plan.BothJoin, grouped bool, topics [2]connector.TopicSource) error {
	if both.Lookup || both.Temporal && !grouped {
		return nil
	}
	var topic [2]string
	var n [2]int
	for s, ts := range topics {
		st := both.Inputs[s].Stream
		if k := st.Kafka(); k == nil || k.GroupID == "" {
			return nil
		}
		if ts == nil {
			return nil
		}
		topic[s], n[s] = ts.TopicPartitions()
	}
	if n[0] == n[1] {
		return nil
	}
	l, r := both.Inputs[0], both.Inputs[1]
	return fmt.Errorf("the %s of %s and %s in consumer group '%s': topic '%s' (stream %s) has %d partition(s) and topic '%s' (stream %s) has %d; "+
		"the inputs of a join in a consumer group must be co-partitioned (SPEC 2.5): give both topics the same partition count, each keyed by the join key, or remove 'properties.group.id' from both streams",
		both.Kind(), l.Name, r.Name, l.Stream.Kafka().GroupID, topic[0], l.Stream.Name, n[0], topic[1], r.Stream.Name, n[1])
}
