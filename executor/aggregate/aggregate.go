package aggregate

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"

	"streamql/catalog"
	"streamql/executor/agg"
	"streamql/executor/expr"
	"streamql/executor/flow"
	"streamql/executor/format"
	"streamql/executor/state"
	"streamql/executor/vector"
	"streamql/executor/window"
	"streamql/planner/plan"
)

// aggOp is the window/aggregate operator of one branch (SPEC 2.4): it keeps per
// window × group accumulators (never the rows), fires a window once when the
// watermark of its stream reaches the window's end, right after the row that
// moved it, in (window_end, window_start, group's first row) order, and sends
// rows whose windows all fired to the late output. GROUP BY without a window and
// global aggregates keep one pseudo-window that fires at the stream's end. A
// window TVF without aggregation emits each row once per window as it arrives.
type aggOp struct {
	br      *plan.Branch
	a       *plan.Aggregate
	kind    window.Kind
	latePt  int // index of the late part in the router's Step, -1 without a window
	acct    *state.Account
	seq     int64
	open    []*winState // unsorted; minEnd is at most the smallest end
	minEnd  int64
	byWin   map[window.Win]*winState
	bySess  map[string][]*winState // SESSION: open sessions per partition key
	keyBuf  []byte
	pkBuf   []byte
	keys    []*vector.Vec // per batch: the keys of the taken rows
	args    []*vector.Vec
	pkeys   []*vector.Vec
	row     *vector.Batch // aggregate rows (or windowed rows) to emit
	sel     []int32
	fireBuf []*winState
	bytes   int64 // state charged to acct
	// the chunks of fired rows made in the current batch (Operator)
	outTypes []catalog.Type
	bufs     []*vector.Batch
	bufSel   [][]int32
	used     int
	// packedIn and packedN: the buffer (its index + 1, as used) that
	// chunkPacked fills, and how many of its rows hold chunks so far
	packedIn, packedN int
	// direct is, for an updating aggregate whose projection only picks
	// columns of the aggregate row (of their own types), the row's column of
	// each output column (passChanges); nil otherwise. bufKinds and bufCols
	// are its chunk buffers' kinds and columns, beside bufs and bufSel
	direct   []int
	bufKinds [][]vector.RowKind
	bufCols  [][]*vector.Vec
	strCalls []int // an updating aggregate's VARCHAR aggregate columns of its row (ownStrings)
	lateIdx  int   // index of its late part among the late parts, -1 without
	// late computes a late row's columns when they are a relation's
	// (plan.Aggregate.LateProject; nil: the stream's columns)
	late *expr.Projection
	// freed windows and groups, reused so that the steady state allocates nothing
	freeWins   []*winState
	freeGroups []*aggGroup
	// the slabs new groups come from (allocGroup): the groups (with their
	// accumulator, for one call), the accumulators of other shapes, the
	// groups' ext parts (extOf) and their key bytes (keyBytes)
	cells     []groupCell
	groupSlab []aggGroup
	stateSlab []agg.State
	extSlab   []groupExt
	keyArena  []byte
	lastWs    *winState // the window of the last row (TUMBLE, HOP), nil after a firing
	// for EXPLAIN ANALYZE (Analysis), counted per batch, per window opened and
	// per group made, never per row: the rows the branch took, the most
	// windows open at once, the groups made (new, not reused) and the most in
	// use at once
	rowsIn, maxOpen, made, maxGroups int64
	// rowAt is the job-wide arrival number of the row being added (a new
	// group's firstAt)
	rowAt   int64
	rowsOut int64 // rows emitted (EXPLAIN ANALYZE)
	// tlo and thi are the times whose windows can be represented
	// (window.Range); a row at another time is malformed (errWindowRange)
	tlo, thi int64
	// the kernels of the plan's expressions (executor/expr): the keys, the
	// calls' arguments (nil for COUNT(*)) and SESSION's partition keys over the
	// source batch; HAVING (nil: none) and the projection over the aggregate row
	keyK, argK, pkeyK []*expr.Kernel
	havingK           *expr.Kernel
	projK             []*expr.Kernel
	callOps           []agg.Op // each call's accumulator path (agg.OpOf)
	// specs is the calls' specs (a.Calls[k].Spec), lay where their
	// accumulators are in a group's States (agg.Layout: counts packed)
	specs       []*agg.Spec
	lay         agg.Layout
	statesBytes int // a group's accumulators before they grow (agg.Layout.Bytes)
	// cache holds, by key hash, the last group found of a window (findGroup's
	// single-key paths); cleared whenever a group leaves a window (release,
	// mergeSession), so an entry's group is in its window
	cache [groupCacheSize]groupCacheEntry
	// pend is set in a partial of the parallel aggregate (aggPartial,
	// partial.go): its rows' accumulators are added per batch, addTo keeps
	// each row's group states, row and arrival number there; nil otherwise
	pend *pending
	// a Kafka group source's replay (the executor's replay.go, through
	// Replay; nil: none), and the row being added: its partition, offset and
	// CURRENT_WATERMARK, which a new group (and a new session) keeps for the
	// hold frontier
	rep      Replay
	rowPart  int32
	rowOff   int64
	rowCw    int64
	rowCwSet bool
	sessBuf  []*winState // fire: the sessions to emit
	upd      *updState   // an updating aggregate's changes (groupagg.go), nil for others
}

func newAggOp(br *plan.Branch, budget *state.Budget) *aggOp {
	a := br.Agg
	o := &aggOp{br: br, a: a, latePt: -1, byWin: map[window.Win]*winState{}, bySess: map[string][]*winState{}, minEnd: math.MaxInt64}
	if w := a.Window; w != nil {
		o.kind = window.KindOf(w.Func)
		o.tlo, o.thi = window.Range(o.kind, w.Size, w.Slide, w.Offset, w.Gap)
	}
	what := "groups (GROUP BY without a window)"
	switch {
	case a.Window != nil && o.kind == window.Session:
		what = "open sessions × groups"
	case a.Window != nil:
		what = "open windows × groups"
	}
	o.acct = budget.Account("the aggregate of "+br.Text, what)
	o.row = vector.NewBatch(a.RowTypes)
	o.sel = make([]int32, 0, vector.Cap)
	if a.Updating {
		o.direct = directCols(br.Project, a.RowTypes)
		for c := a.CallBase; c < len(a.RowTypes); c++ {
			if a.RowTypes[c] == catalog.Varchar {
				o.strCalls = append(o.strCalls, c)
			}
		}
	}
	for _, e := range br.Project { // (a Rank's hidden columns too, SPEC 2.9)
		o.outTypes = append(o.outTypes, e.Type)
	}
	o.lateIdx = -1
	for k := range a.Calls {
		o.callOps = append(o.callOps, agg.OpOf(&a.Calls[k].Spec))
		o.specs = append(o.specs, &a.Calls[k].Spec)
	}
	o.lay = agg.NewLayout(o.specs)
	o.statesBytes = o.lay.Bytes(o.specs)
	return o
}

// windowedTypes sets the layout of the windowed batch of a TVF without
// aggregation: the source batch's types, then the three window columns.
func (o *aggOp) windowedTypes(batch []catalog.Type) {
	types := append(append([]catalog.Type{}, batch...), o.a.Window.TimeType, o.a.Window.TimeType, o.a.Window.TimeType)
	o.row = vector.NewBatch(types)
}

// prepare evaluates the keys and arguments for the rows the branch took.
func (o *aggOp) prepare(b *vector.Batch, taken []int32) {
	o.keys = o.keys[:0]
	for _, k := range o.keyK {
		o.keys = append(o.keys, k.Eval(b, taken))
	}
	o.args = o.args[:0]
	for _, k := range o.argK {
		if k == nil {
			o.args = append(o.args, nil)
			continue
		}
		o.args = append(o.args, k.Eval(b, taken))
	}
	o.pkeys = o.pkeys[:0]
	for _, k := range o.pkeyK {
		o.pkeys = append(o.pkeys, k.Eval(b, taken))
	}
}

// Operator is the operator (flow.Operator) that runs a job's aggregates after
// the router: it reads the rows each aggregating branch took (its part's Sel)
// and the watermark marks, lets each aggOp take its rows in input order and fire
// right after the row that moved the watermark, and pushes the router's batch on
// with the late rows routed to their late outputs and the fired rows as Chunks
// at their places (SPEC 2.4, SPEC 4).
type Operator struct {
	job   *plan.Job
	exprs *expr.Context // the job's expression context (Options.Exprs), for the parallel path's partials too
	ops   []*aggOp
	at    []int // the router branch (part) of each operator
	pos   []int // per operator: next index into its taken rows
	taken [][]int32
	main  *aggOp
	// flushMain pushes the main query's rows on as soon as they are made
	// (flush): the chain's LIMIT (stateless.Limit) may end the job at any of them,
	// and nothing after that point is made then (SPEC 2.4); the builder sets
	// it when the main query has a LIMIT
	flushMain bool
	inBatch   bool  // in Push (flush pushes the rows before at1), not in fireAll
	oneChunk  bool  // the batch's changes go out as one chunk per flush (alone)
	stop      error // a flush's push failed, or the LIMIT ended the job there: the operator stops
	counts    []*flow.LateRows
	out       flow.Step
	parts     []flow.Part
	lateSel   [][]int32
	chunks    []flow.Chunk
	down      *flow.Emitter
	ncols     int // the stream's columns (a late row's columns)
	nb        int // the router's parts (its branches)
	at1       int // At of the chunks being made
	// derive: no marks come (behind an event-time join); the watermark after a
	// row is the next released row's stamped CURRENT_WATERMARK, and after the
	// last row of a batch it is known at the next batch (pending)
	derive  bool
	pending bool
	fired   flow.Step // the batch of fireAll
	src     Positions // for the positions of malformed rows (malformed), nil in tests
	// count counts a malformed row of a stream and returns the stream's
	// 'errors' policy (Options.Malformed)
	count func(*catalog.Stream) string
	// pre and preParts are pushBefore's batch; pushed is the number of the
	// batch's input rows it pushed on (taken out of its ports after the push)
	pre      flow.Step
	preParts []flow.Part
	pushed   int
	// row counts the rows the operator saw, job-wide (aggOp.rowAt); fire
	// and fireItems are fireAll's scratch
	row       int64
	fire      []firing
	fireItems []fireItem
}

// ReadsMarks implements flow.MarkReader: windows fire after the row that moved
// the watermark.
func (*Operator) ReadsMarks() {}

// Options is what New needs of the job besides its plan.
type Options struct {
	// Budget is the job's state budget ('state.max-bytes', SPEC 1), which
	// each aggregate is charged to.
	Budget *state.Budget
	// Late receives the count of each windowed query's late rows (SPEC 2.4:
	// the notices), appended in branch order as the operator is built.
	Late *[]*flow.LateRows
	// Malformed counts one malformed row of a stream (a time whose window is
	// not an int64, SPEC 2.4) and returns the stream's 'errors' policy
	// (SPEC 1): "fail", "skip" or "side".
	Malformed func(st *catalog.Stream) string
	// Derive says that the batches come without marks (the rows an
	// event-time join releases, SPEC 2.2): the watermark after each row is
	// then the stamped watermark column of the next row.
	Derive bool
	// Now is the processing-time clock of 'table.exec.state.ttl' (SPEC 2.8)
	// without event time, epoch ms, read once per input batch for all the
	// operator's aggregates (procClock); nil: the system's clock.
	Now func() int64
	// Exprs is the job's expression context, which records the failed
	// calls of the operator's expressions (expr.Context); nil drops them.
	Exprs *expr.Context
}

// Positions gives the text of a row's source position (executor.Source's
// Position), for the malformed rows' messages.
type Positions interface {
	Position(pos int64) string
}

// New returns the operator that runs job's aggregates (SPEC 2.4, 2.8) after
// the router, pushing to down. It reads no source: Wire gives it the
// positions of malformed rows and the main query's LIMIT.
func New(job *plan.Job, opts Options, down *flow.Emitter) *Operator {
	ao := &Operator{job: job, down: down, ncols: len(job.Stream.Columns), nb: len(job.Branches), count: opts.Malformed, derive: opts.Derive, exprs: opts.Exprs}
	branches := job.AllBranches()
	ao.nb = len(branches)
	proc := &procClock{now: ttlNow} // (one reading per batch for every aggregate)
	if opts.Now != nil {
		proc.now = opts.Now
	}
	for k, br := range branches {
		if br.Agg == nil {
			continue
		}
		o := buildAggOp(br, opts.Budget, opts.Exprs)
		if o.upd != nil {
			o.upd.ttl.event = job.WatermarkCol >= 0 && !br.Agg.ProcTimeTTL // ('table.exec.state.ttl': the watermark is its clock, unless the relation it reads had no event time)
			o.upd.ttl.proc = proc
		}
		if !br.Agg.Grouped {
			o.windowedTypes(job.BatchTypes)
		}
		var lr *flow.LateRows
		if br.Agg.Window != nil {
			o.lateIdx = len(ao.lateSel)
			o.latePt = ao.nb + o.lateIdx
			ao.lateSel = append(ao.lateSel, make([]int32, 0, vector.Cap))
			lr = &flow.LateRows{Query: br.Text, Output: br.Agg.Late, Script: br.Script, Line: br.Line, Column: br.Column}
			*opts.Late = append(*opts.Late, lr)
		}
		ao.counts = append(ao.counts, lr)
		ao.ops = append(ao.ops, o)
		ao.at = append(ao.at, k)
		ao.pos = append(ao.pos, 0)
		ao.taken = append(ao.taken, nil)
		if br == job.Main {
			ao.main = o
		}
	}
	return ao
}

// buildAggOp builds the aggregate of branch br (SPEC 2.4) from its plan
// (br.Agg, plan.Aggregate), charged to budget, with its expressions compiled
// into kernels in the job's expression context exprs: the keys, the calls'
// arguments and SESSION's partition keys over the source batch, HAVING and
// the projection over the aggregate row.
func buildAggOp(br *plan.Branch, budget *state.Budget, exprs *expr.Context) *aggOp {
	o, a := newAggOp(br, budget), br.Agg
	o.keyK = exprs.CompileAll(a.Keys)
	for _, c := range a.Calls {
		o.argK = append(o.argK, exprs.Compile(c.Arg))
	}
	if a.Window != nil {
		o.pkeyK = exprs.CompileAll(a.Window.Partition)
	}
	o.havingK = exprs.Compile(a.Having)
	o.projK = exprs.CompileAll(br.Project)
	o.late = exprs.CompileProjection(a.LateProject)
	if a.Updating {
		o.upd = newUpdState(a, false) // (the clock: New)
	}
	return o
}

// Wire gives ao what the chain it ends up in knows: src, the positions of
// malformed rows (nil: their numbers), and limit, whether the chain's LIMIT
// may end the job at any row of an aggregating main query
// (stateless.Limit.CutsChunks): the main query's rows are then pushed on as
// soon as they are made.
func (ao *Operator) Wire(src Positions, limit bool) {
	ao.src, ao.flushMain = src, limit
}

// Counters is what EXPLAIN ANALYZE shows of one aggregate (SPEC 3), counted
// per batch, per window opened and per group made, never per row.
type Counters struct {
	Branch         int   // the router branch (part) the aggregate takes its rows from
	Rows           int64 // the rows the branch took
	RowsOut        int64 // the rows it emitted
	OpenWindowsMax int64 // the most windows open at once
	GroupsMax      int64 // the most groups in use at once
	// Late counts the late rows of a windowed aggregate; nil without a window
	Late *flow.LateRows
}

// Counters returns the counters of each of ao's aggregates, in branch order.
func (ao *Operator) Counters() []Counters {
	var cs []Counters
	for k, o := range ao.ops {
		cs = append(cs, Counters{Branch: ao.at[k], Rows: o.rowsIn, RowsOut: o.rowsOut, OpenWindowsMax: o.maxOpen, GroupsMax: o.maxGroups, Late: ao.counts[k]})
	}
	return cs
}

// Push implements flow.Operator: r is the router's batch.
func (ao *Operator) Push(ctx context.Context, port flow.Port, r *flow.Step) error {
	ao.pushed, ao.inBatch, ao.stop = 0, true, nil
	out := &ao.out
	*out = *r
	ao.parts = append(ao.parts[:0], r.Parts...)
	for k, o := range ao.ops {
		if o.lateIdx >= 0 {
			ao.lateSel[o.lateIdx] = ao.lateSel[o.lateIdx][:0]
		}
		ao.taken[k] = r.Parts[ao.at[k]].Sel
		o.rowsIn += int64(len(ao.taken[k]))
		ao.parts[ao.at[k]].Sel = nil // the rows are the aggregate's, not output rows
		ao.pos[k] = 0
		o.used = 0
		o.prepare(r.In, ao.taken[k])
		if o.upd != nil {
			o.prefind(ao.taken[k])
		}
	}
	ao.chunks = append(ao.chunks[:0], r.Chunks...)
	ao.oneChunk = ao.alone(r)
	b := r.In
	var wmv *vector.Vec
	if c := ao.job.WatermarkCol; c >= 0 {
		wmv = b.Cols[c]
	}
	mi := 0
	count := r.N // every input row in order: the live ones are those some branch took or that moved the watermark
	if ao.derive {
		count = len(r.Sel) // the released rows
		if ao.pending && count > 0 && wmv != nil && !wmv.Null[r.Sel[0]] {
			// the watermark after the previous batch's last row
			ao.pending = false
			ao.at1 = int(r.Sel[0])
			if err := ao.fireStep(ctx, port, wmv.I[r.Sel[0]], false); err != nil {
				return err
			}
		}
	}
	if !ao.derive && len(r.Marks) > 0 && r.Marks[0].At <= 0 {
		// a watermark carried to before the batch's first row (a relation's
		// rows with their input's watermark, plan.Derived.Stamps) fires
		// before it, as over the input
		for mi < len(r.Marks) && r.Marks[mi].At <= 0 {
			mi++
		}
		ao.at1 = 0
		if err := ao.fireStep(ctx, port, r.Marks[mi-1].Value, false); err != nil {
			return err
		}
	}
	for idx := 0; idx < count; idx++ {
		i := idx
		if ao.derive {
			i = int(r.Sel[idx])
		}
		cw, cwSet := int64(0), false
		if wmv != nil {
			cw, cwSet = wmv.I[i], !wmv.Null[i]
		}
		ao.at1 = i + 1
		ao.row++
		for k, o := range ao.ops {
			taken := ao.taken[k]
			if ao.pos[k] >= len(taken) || int(taken[ao.pos[k]]) != i {
				continue
			}
			ao.pos[k]++
			o.rowAt = ao.row
			if !o.a.Grouped {
				if o.rep != nil && o.rep.Replayed(b.Pos[i]) {
					continue // its windowed rows were written already (I3)
				}
				if t := b.Cols[o.a.Window.TimeCol]; !t.Null[i] && (t.I[i] < o.tlo || t.I[i] > o.thi) {
					if err := ao.malformed(o, b, i); err != nil {
						return err
					}
					continue
				}
				n, more := o.windowRows(b, i, 0)
				if n == 0 {
					ao.markLate(o, i)
					continue
				}
				for from := int64(0); ; {
					if ao.emitRows(ctx, port, o, n) {
						return ao.stop
					}
					if !more {
						break
					}
					if o.used >= windowedChunks {
						if err := ao.pushBefore(ctx, port, i, i); err != nil {
							return err
						}
					}
					from += int64(n)
					n, more = o.windowRows(b, i, from)
				}
				continue
			}
			if o.upd != nil { // (SPEC 2.8: GROUP BY without a window over an unbounded or updating input)
				if err := ao.change(o, b, i, cw, cwSet); err != nil {
					return err
				}
				continue
			}
			late, err := o.add(b, i, cw, cwSet)
			if err == errWindowRange {
				err = ao.malformed(o, b, i)
			}
			if err != nil {
				return err
			}
			if late {
				ao.markLate(o, i)
			}
		}
		moved, wm := false, int64(0)
		for mi < len(r.Marks) && r.Marks[mi].At <= i+1 {
			moved, wm = true, r.Marks[mi].Value
			mi++
		}
		if ao.derive && wmv != nil {
			if idx+1 < count {
				j := r.Sel[idx+1]
				moved, wm = !wmv.Null[j], wmv.I[j]
			} else {
				ao.pending = true
			}
		}
		if !moved {
			continue
		}
		if err := ao.fireStep(ctx, port, wm, false); err != nil {
			return err
		}
	}
	ao.flushChanges(r.N)
	ao.finishParts()
	return ao.down.Push(ctx, port, out)
}

// alone reports whether the changes of the batch r can go out as one
// chunk per flush instead of one per input row (SPEC 2.8's order kept): the
// operator is one updating aggregate, not flushed row by row (a LIMIT),
// and r holds nothing else for the outputs (no other part's rows, no
// chunks, no malformed rows), so nothing comes between two changes.
func (ao *Operator) alone(r *flow.Step) bool {
	if len(ao.ops) != 1 || ao.ops[0].upd == nil || ao.flushMain || len(r.Chunks) > 0 || len(r.Errors.Rows) > 0 || ao.ops[0].rep != nil {
		return false // (with a replay each change goes at its row: a Top-N after it notes which row made it, the executor's passReplay)
	}
	for k := range r.Parts {
		if k != ao.at[0] && len(r.Parts[k].Sel) > 0 {
			return false
		}
	}
	return true
}

// errWindowRange is aggOp.add's error for a row whose time has a window that
// cannot be represented (outside aggOp.tlo .. thi): Operator.malformed
// makes the row malformed.
var errWindowRange = errors.New("a window outside int64")

// malformed makes row i of b, taken by o, malformed (SPEC 2.4, issue 30): its
// time has a window whose start or end is not an int64 (a BIGINT of
// milliseconds, or a TIMESTAMP), which would wrap. The stream's 'errors'
// policy applies: the job fails with a *RowError, the row is skipped, or it
// goes to the errors output in its place, with a message that names the
// column and the value and gives the times allowed.
func (ao *Operator) malformed(o *aggOp, b *vector.Batch, i int) error {
	st := ao.job.Stream
	w := o.a.Window
	tv := b.Cols[w.TimeCol]
	col := catalog.Column{Name: "event time", Type: tv.Type}
	if w.TimeCol < len(st.Columns) {
		col = st.Columns[w.TimeCol]
	}
	reason := WindowRangeReason(col.Name, tv.Type, tv.I[i], w.Func, o.tlo, o.thi)
	pos := strconv.FormatInt(b.Pos[i], 10)
	if ao.src != nil {
		pos = ao.src.Position(b.Pos[i])
	}
	name := plan.ErrorsStream(st).Name // (the stream a relation's rows come from, its position naming the relation: SPEC 1's errors output)
	switch ao.count(st) {
	case "fail":
		return &flow.RowError{Stream: name, Position: pos, Reason: reason}
	case "skip":
		return nil
	}
	var raw []byte
	if b.Line != nil && b.Line[i] != nil {
		raw = append(raw, b.Line[i]...)
	} else {
		raw = format.AppendCSVRow(nil, st.Columns, b.Cols[:len(st.Columns)], i, ',')
	}
	e := flow.ErrorRow{Stream: name, Position: pos, Raw: raw, Error: reason, At: i}
	bad := append([]flow.ErrorRow(nil), ao.out.Errors.Rows...) // (the router's: not appended to in place)
	at := sort.Search(len(bad), func(k int) bool { return bad[k].At > i })
	ao.out.Errors.Rows = slices.Insert(bad, at, e)
	return nil
}

// WindowRangeReason is the reason a row is malformed whose time t (of the
// column named col, of type typ: a BIGINT of milliseconds or a TIMESTAMP)
// has a window of the function fn (TUMBLE, HOP, CUMULATE, SESSION) that
// does not fit in an int64 (SPEC 2.4, issue 30): it names the column and
// the value and gives the times allowed, lo to hi (window.Range).
func WindowRangeReason(col string, typ catalog.Type, t int64, fn string, lo, hi int64) string {
	val := func(t int64) string {
		v := vector.NewVec(typ)
		v.I[0] = t
		return string(format.AppendCSVValue(nil, typ, v, 0, ','))
	}
	return fmt.Sprintf("column %s: %s has a %s window that does not fit in a %s (would wrap); its times must be from %s to %s", col, val(t), fn, typ, val(lo), val(hi))
}

// windowedChunks is the most chunks (of vector.Cap rows) of one window TVF
// without aggregation that a batch holds: past it, what is routed so far is
// pushed on (pushBefore), so memory does not depend on how many windows one
// input row has (a HOP of 1 ms over a day has 86,400,000).
const windowedChunks = 8

// pushBefore pushes on, as a batch of its own, what the batch being routed
// holds before its input row i: the rows before i with their marks, the
// malformed rows up to At bad (bad is i when row i's windowed rows are being
// made, i-1 when a firing after row i-1 is: the malformed rows at At i come
// after that firing's rows), the late rows, and every chunk made so far
// (row i's windows, or the firing's rows, among them, which come after the
// rows before i). Those are then taken out of the batch, which goes on with
// row i: the outputs see the same rows in the same order, and row i counts
// as passed only with the rest of the batch.
func (ao *Operator) pushBefore(ctx context.Context, port flow.Port, i, bad int) error {
	ao.finishParts()
	pre := &ao.pre
	*pre = ao.out
	pre.N = i
	ao.preParts = ao.preParts[:0]
	for _, p := range ao.parts {
		n := sort.Search(len(p.Sel), func(k int) bool { return int(p.Sel[k]) >= i })
		p.Sel = p.Sel[:n]
		ao.preParts = append(ao.preParts, p)
	}
	pre.Parts = ao.preParts
	nb := sort.Search(len(ao.out.Errors.Rows), func(k int) bool { return ao.out.Errors.Rows[k].At > bad })
	pre.Errors.Rows = ao.out.Errors.Rows[:nb]
	nm := sort.Search(len(ao.out.Marks), func(k int) bool { return ao.out.Marks[k].At > i })
	pre.Marks = ao.out.Marks[:nm]
	err := ao.down.Push(ctx, port, pre)
	// take it out of the batch (the parts' rows before i, below)
	ao.pushed = i
	for k := range ao.parts[:ao.nb] {
		p := &ao.parts[k]
		p.Sel = p.Sel[sort.Search(len(p.Sel), func(k int) bool { return int(p.Sel[k]) >= i }):]
	}
	for k, sel := range ao.lateSel {
		n := sort.Search(len(sel), func(k int) bool { return int(sel[k]) >= i })
		ao.lateSel[k] = append(sel[:0], sel[n:]...)
	}
	ao.out.Errors.Rows = ao.out.Errors.Rows[nb:]
	ao.out.Marks = ao.out.Marks[nm:]
	ao.chunks = ao.chunks[:0]
	for _, o := range ao.ops {
		o.used = 0
	}
	return err
}

// finishParts sets the pushed batch's parts (the router's, then the late
// parts) and chunks.
func (ao *Operator) finishParts() {
	ao.parts = ao.parts[:ao.nb]
	for _, o := range ao.ops {
		if o.lateIdx >= 0 {
			ao.parts = append(ao.parts, flow.Part{Output: o.a.LateOutput, Sel: ao.lateSel[o.lateIdx], Cols: ao.lateColumns(o)})
		}
	}
	ao.out.Parts = ao.parts
	ao.out.Chunks = ao.chunks
}

// lateColumns returns the columns of o's late rows in the batch being
// pushed: the stream's, or the relation's select list computed for the
// late rows (aggOp.late), once per push, nothing allocated.
func (ao *Operator) lateColumns(o *aggOp) []*vector.Vec {
	if o.late == nil {
		return ao.out.In.Cols[:ao.ncols]
	}
	return o.late.Eval(ao.out.In, ao.lateSel[o.lateIdx])
}

// LateRows returns the count of each late part (flow.LateRows, by its index
// among the late parts, which come after the router's in a pushed Step), for
// the sink to count the late rows that reach it (the executor's
// sinkOp.countLate).
func (ao *Operator) LateRows() []*flow.LateRows {
	var rows []*flow.LateRows
	for k, o := range ao.ops {
		if o.lateIdx >= 0 {
			rows = append(rows, ao.counts[k])
		}
	}
	return rows
}

// markLate routes row i, late for o, to o's late part (counted where it
// reaches the sink: the executor's sinkOp).
func (ao *Operator) markLate(o *aggOp, i int) {
	ao.lateSel[o.lateIdx] = append(ao.lateSel[o.lateIdx], int32(i))
}

// Watermark implements flow.Operator: windows fire at the rows that moved the
// watermark (marks, or the stamped column behind an event-time join, whose
// events come when rows arrive, before they are released), so an event only
// passes on; the Final one (the stream's end) is left to Finish.
func (ao *Operator) Watermark(ctx context.Context, wm flow.Watermark) error {
	return ao.down.Watermark(ctx, wm)
}

// Finish implements flow.Operator: the stream's end (watermark +∞) fires every
// open window, and GROUP BY without a window and global aggregates emit (SPEC
// 2.4).
func (ao *Operator) Finish(ctx context.Context) error {
	if err := ao.fireAll(ctx, flow.Port{}, math.MaxInt64, true); err != nil {
		return err
	}
	return ao.down.Finish(ctx)
}
