// Package rank runs the operator a main query or a side branch ends with
// (SPEC 2.9, plan.Rank; a side branch's over the rows it took by first
// match, SPEC 2.1): Top-N, deduplication, window Top-N, OVER aggregation or ORDER
// BY, as one flow.Operator between the projections and the sink that feeds
// the executor/op operator and hands what it emits on as chunks; and the
// operator's side of a Kafka group source's replay (replay.go: its
// flow.Checkpoint, and the rows a replay does not write again).
//
// It imports executor/flow, executor/state, executor/op (the operators it
// runs), executor/expr (the kernels of a deduplication's late rows that
// are a relation's, plan.Rank.LateProject), the connector contract (Kafka
// positions), vector, catalog and planner/plan, and must never import the executor that builds it and
// drives the replay (it reaches the replay through its Replay interface),
// the planner or the parser (layering_test.go).
package rank

import (
	"context"
	"fmt"
	"slices"

	"streamql/catalog"
	"streamql/executor/connector"
	"streamql/executor/expr"
	"streamql/executor/flow"
	"streamql/executor/op"
	"streamql/executor/state"
	"streamql/executor/vector"
	"streamql/planner/plan"
)

// Operator runs the operator a main query or a side branch ends with (SPEC
// 2.9, plan.Rank; NewFor):
// Top-N, deduplication, window Top-N, OVER aggregation or ORDER BY. It sits
// between the projections and the sink: it takes the main query's projected
// rows (its part of each routed batch, and the rows an aggregate made for
// it), feeds them to the executor/op operator, and hands what that emits to
// the sink as rows it made (flow.Step.Chunks), after the batch's own rows;
// an event-time one's (Dedup, Over, TimeSort without a LIMIT) right after
// the row that moved the watermark past them (flow.Step.Marks: readsMarks).
// flow.Watermark events reach the operator as they pass; the end of the input is
// the operator's Finish.
//
// Rows below the watermark (CURRENT_WATERMARK, SPEC 2.3) of a query whose
// operator goes by event time (Dedup, Over, TimeSort) go, as their input
// rows, to the late output (plan.Rank.LateOutput).
//
// An updating Top-N over a bounded input (plan.Rank.Updating, Bounded) gives
// its final result at the input's end (op.TopN.Final), the materialized
// table of its changelog (SPEC 2.8); the planner refuses one over an
// unbounded input until the outputs print changelogs.
type Operator struct {
	r       *plan.Rank
	main    int // the part it takes: the main query's or its side branch's (NewFor)
	out     int // its output
	op      op.Operator
	top     *op.TopN        // an updating Top-N
	final   *op.RetractTopN // a Top-N over an updating input (plan.Rank.Retract)
	in      *vector.Batch
	view    vector.Batch
	zeroPos []int64
	madePos []int64 // the positions of rows a window TVF made, for a replay (addMade)
	coll    rankCollector
	late    []int32
	ncols   int // the stream's columns (a late row's)
	// lateProj computes a late row's columns when they are a relation's
	// (plan.Rank.LateProject; nil: the stream's columns)
	lateProj *expr.Projection
	parts    []flow.Part
	chunks   []flow.Chunk
	made     flow.Step
	colSets  [][]*vector.Vec // emit's chunks' columns, one per chunk of a step
	// placed is where the gathered rows (coll) not yet placed in the step
	// start: batch placedB, row placedRow (place); sets counts colSets used
	placedB, placedRow, sets int
	// atMarks are the chunks placed at marks during a Push (markAt), added
	// to its step after the step's own chunks were read as input
	atMarks []flow.Chunk
	emitted int64
	took    *int64 // the sink's count of the main query's rows (EXPLAIN ANALYZE), nil: none
	// lateRows counts the rows sent to the late output (the end-of-job
	// notice, SPEC 2.4), nil when not counted
	lateRows *flow.LateRows
	down     *flow.Emitter
	// rep is a Kafka group source's replay of the operator's state
	// (the executor's replay.go, newReplay; replay.go; nil: none): first holds the
	// offset and stamp of the first row of each Kafka partition the
	// operator took since the partition came to this process (a hold
	// frontier), and inReplayed says that the rows gathered in in are read
	// again below their partition's emitted frontier (their changes are in
	// committed outputs: I3)
	rep        Replay
	first      map[int32]stamp
	inReplayed bool
	// narrow (an updating Top-N's, nil: none) lists the input's columns
	// the operator takes, by the operator's column: a hidden PARTITION BY
	// or ORDER BY column that is another column's value again (the
	// planner's $rankN of a column the query shows: sameColumns) is not
	// stored twice; viewCols is the narrowed view's columns, reused, and
	// output is plan.Rank.Output in the operator's columns
	narrow   []int
	viewCols []*vector.Vec
	output   []int
	// thin: the Top-N's columns (by the operator's column) it stores NULL
	// when the swapped join before it finds its left keys unique
	// (plan.Rank.Thin; SwapLeft, Thin), each the join's left column
	// thinFrom[x]; nulls are NULL columns of their types, put in their
	// place in the view; thinOn: 0 not chosen yet, 1 thin, -1 every column
	// stored (decided at the first rows, which come after the join's left
	// input has ended)
	thin, thinFrom []int
	nulls          []*vector.Vec
	left           SwapLeft
	thinOn         int
	// keyed is op when it keeps its state per PARTITION BY key (a Top-N,
	// top or final), set when it is built; nil otherwise
	keyed partitioned
}

// SwapLeft is the join before a Top-N with plan.Rank.Thin: an op.Join with
// op.JoinSpec.Swap, which keeps its left rows for the Top-N's final result
// (op.Join's KeepLeft, LeftUnique, LeftColumns and Forget say how).
type SwapLeft interface {
	KeepLeft()
	LeftUnique() bool
	LeftColumns(b *vector.Batch, i int, pos int64, cols, from []int)
	Forget() error
}

// Thin links the operator, an updating Top-N with plan.Rank.Thin, to the
// swapped join j before it: j keeps its left rows past its end, and when
// its left keys are unique (j.LeftUnique, asked when the first rows come)
// the Top-N stores the Thin columns NULL and its final result takes them
// from j's left rows (op.TopN.Fill), after which j lets its state go. It
// does nothing for another operator or plan; call it before the first Push.
func (o *Operator) Thin(j SwapLeft) {
	if o.top == nil || !o.r.Bounded || len(o.thin) == 0 || j == nil {
		return
	}
	o.left = j
	j.KeepLeft()
}

// ThinLeft says what a thin Top-N (Thin) did with the swapped join's left
// columns, for EXPLAIN ANALYZE (SPEC 4, "Finding out why"): 1 when the
// join's left keys were unique and the Top-N stored the columns NULL,
// filling its final result from the join's kept left rows; -1 when two
// left rows shared a key and it stored every column; 0 when it is not
// linked to such a join (Thin) or no row came.
func (o *Operator) ThinLeft() int { return o.thinOn }

// thinning decides, when rows first come (rows: there are some), whether
// the Top-N stores the Thin columns NULL (Thin).
func (o *Operator) thinning(rows bool) {
	if o.thinOn == 0 && o.left != nil && rows {
		o.thinOn = -1
		if o.left.LeftUnique() {
			o.thinOn = 1
			o.top.Fill(func(b *vector.Batch, i int, pos int64) { o.left.LeftColumns(b, i, pos, o.thin, o.thinFrom) })
			if o.viewCols == nil {
				o.viewCols = make([]*vector.Vec, len(o.in.Cols))
			}
		}
	}
}

// sameColumns returns, for each of the main query's projected columns
// (the Rank's input), the first column computing the same value: an
// identical expression without a clock or a random draw (plan.Expr's
// tree), for a column the query does not output (a hidden one); else the
// column itself. Nil when the projection does not match the Rank's input.
func sameColumns(b *plan.Branch, r *plan.Rank) []int {
	if len(b.Project) != len(r.Types) {
		return nil
	}
	shown := make([]bool, len(r.Types))
	for _, c := range r.Output {
		if c >= 0 && c < len(shown) {
			shown[c] = true
		}
	}
	trees := make([]string, len(r.Types))
	same := make([]int, len(r.Types))
	for c, e := range b.Project {
		same[c] = c
		if e == nil || e.Type != r.Types[c] || !e.Steady() {
			continue
		}
		trees[c] = e.Tree()
		if shown[c] {
			continue
		}
		for j := range c {
			if trees[j] != "" && trees[j] == trees[c] {
				same[c] = j
				break
			}
		}
	}
	return same
}

// rankCollector gathers an operator's output rows in batches of the
// operator's output layout.
type rankCollector struct {
	types   []catalog.Type
	batches []*vector.Batch
	n       int // batches in use
	discard bool
	// flush, when set, hands the batches gathered on once there are
	// flushAt of them (Operator.Finish: a bounded Top-N's final result goes
	// out as it is made, not gathered whole)
	flush func(context.Context) error
	late  gathered // the late port's rows (a window Top-N's: its input's layout)
	// replayed says that the rows pushed are read again below their
	// partition's emitted frontier (Operator.inReplayed): their late rows
	// went to the late output already (I3), and are not gathered again
	replayed bool
	// written, when set, says which output rows a replay's run before wrote
	// (Operator.writtenRow): they are not gathered again
	written func(b *vector.Batch, i int) bool
}

// gathered is rows gathered in batches of one layout.
type gathered struct {
	types   []catalog.Type
	batches []*vector.Batch
	n       int // batches in use
}

func (g *gathered) add(b *vector.Batch) { g.addRange(b, 0, b.N) }

// addRange adds rows [from, to) of b.
func (g *gathered) addRange(b *vector.Batch, from, end int) {
	for from < end {
		if g.n == 0 || g.batches[g.n-1].N == vector.Cap {
			if g.n == len(g.batches) {
				g.batches = append(g.batches, vector.NewBatch(g.types))
			}
			g.batches[g.n].Reset()
			g.n++
		}
		dst := g.batches[g.n-1]
		to := min(end, from+vector.Cap-dst.N)
		dst.AppendRows(b, from, to)
		from = to
	}
}

// Emit implements op.Emitter.
func (c *rankCollector) Emit(ctx context.Context, port int, b *vector.Batch) error {
	switch {
	case port == op.TimedLate:
		if c.replayed {
			return nil // (a replayed row's late output was written by the run that committed e)
		}
		c.late.add(b) // (Dedup's, Over's and TimeSort's late rows are routed before them: a window Top-N's only)
	case !c.discard:
		g := gathered{types: c.types, batches: c.batches, n: c.n}
		if c.written != nil {
			g.addUnwritten(b, c.written)
		} else {
			g.add(b)
		}
		c.batches, c.n = g.batches, g.n
		if c.flush != nil && c.n >= flushAt {
			return c.flush(ctx)
		}
	}
	return nil
}

// flushAt is the number of batches a rankCollector with a flush gathers
// before it hands them on.
const flushAt = 4

// EmitWatermark implements op.Emitter.
func (c *rankCollector) EmitWatermark(context.Context, int64) error { return nil }

// New builds the operator of job's main query (job.Main.Rank), its state
// charged to budget (nil: no budget), its late rows counted in a LateRows
// appended to *late (nil: not counted) for the end-of-job notice (SPEC 2.4),
// the relation's select list its late rows take (plan.Rank.LateProject)
// compiled in the job's expression context exprs (expr.Context; nil drops
// their failed calls). It fails when the plan's operator cannot be made (a
// bug of the plan). The builder then wires it (Wire).
func New(job *plan.Job, budget *state.Budget, late *[]*flow.LateRows, exprs *expr.Context) (*Operator, error) {
	return NewFor(job, len(job.Branches), budget, late, exprs)
}

// NewFor is New for the operator of part k of job's routed rows (k <
// len(job.Branches): side branch k, whose Rank runs over the rows it took
// by first match, SPEC 2.1 with 2.9; len(job.Branches): the main query).
func NewFor(job *plan.Job, k int, budget *state.Budget, late *[]*flow.LateRows, exprs *expr.Context) (*Operator, error) {
	b := job.AllBranches()[k]
	r := b.Rank
	o := &Operator{r: r, main: k, out: b.Output, in: vector.NewBatch(r.Types), zeroPos: make([]int64, vector.Cap), ncols: len(job.Stream.Columns)}
	o.lateProj = exprs.CompileProjection(r.LateProject)
	if r.LateOutput >= 0 && late != nil {
		o.lateRows = &flow.LateRows{Query: b.Text, Output: job.Outputs[r.LateOutput].Name, Script: b.Script, Line: b.Line, Column: b.Column}
		*late = append(*late, o.lateRows)
	}
	var acct op.Account
	var sa *state.Account
	if budget != nil {
		sa = budget.Account(fmt.Sprintf("%s %s", r.Kind.NodeKind(), r.Text), "the state of "+b.Text)
		acct = sa
	}
	var keys []op.SortKey
	for _, k := range r.Order {
		keys = append(keys, op.SortKey{Col: k.Col, Desc: k.Desc})
	}
	outTypes := r.Types
	var err error
	switch r.Kind {
	case plan.RankTopN:
		types, tkeys := r.Types, r.Keys
		var m []int // (each input column's operator column; nil: the same)
		if same := sameColumns(b, r); same != nil {
			m = make([]int, len(same)) // (an input column's operator column)
			for c, j := range same {
				if j == c {
					m[c] = len(o.narrow)
					o.narrow = append(o.narrow, c)
				} else {
					m[c] = m[j]
				}
			}
			if len(o.narrow) == len(same) {
				o.narrow = nil // (no column twice)
			} else {
				types, tkeys = nil, nil
				for _, c := range o.narrow {
					types = append(types, r.Types[c])
				}
				for _, k := range r.Keys {
					tkeys = append(tkeys, m[k])
				}
				for j := range keys {
					keys[j].Col = m[keys[j].Col]
				}
				m = append(m, len(types)) // (the rank column, after the input's)
				for _, c := range r.Output {
					o.output = append(o.output, m[c])
				}
				o.in = vector.NewBatch(types)
				o.viewCols = make([]*vector.Vec, len(o.narrow))
			}
		}
		o.thinCols(r, m)
		spec := op.TopNSpec{Types: types, Keys: tkeys, Order: keys, N: r.N, Func: op.RankFunc(r.Func), RankNumber: r.RankNumber, NewerFirst: r.NewerFirst, TTL: r.StateTTL.Milliseconds(), PosOrder: r.PosOrder}
		if r.Retract { // (over an updating input: its -U and -D rows take rows back)
			var rt *op.RetractTopN
			if rt, err = op.NewRetractTopN(spec, &o.coll, acct); err == nil {
				o.op, o.final, o.keyed = rt, rt, rt
				o.coll.discard = r.Bounded // (the final result at the end)
				rt.Quiet(r.Bounded)
			}
		} else if o.top, err = op.NewTopN(spec, &o.coll, acct); err == nil {
			o.op, o.keyed = o.top, o.top
			o.coll.discard = r.Bounded // (the final result at the end)
			o.top.Quiet(r.Bounded)     // (so the changes are not even made)
		}
		outTypes = types
		if r.RankNumber {
			outTypes = append(slices.Clip(types), catalog.BigInt)
		}
	case plan.RankDedup:
		o.op, err = op.NewDedup(op.DedupSpec{Types: r.Types, Keys: r.Keys, Time: r.Time, Stamp: -1, TTL: r.StateTTL.Milliseconds()}, &o.coll, acct)
	case plan.RankWindowTopN:
		o.op, err = op.NewWindowTopN(op.WindowTopNSpec{Types: r.Types, Start: r.Start, End: r.End, Keys: r.Keys, Order: keys, N: r.N, Func: op.RankFunc(r.Func), RankNumber: r.RankNumber, Stamp: r.Stamp}, &o.coll, acct)
		if r.RankNumber {
			outTypes = append(append([]catalog.Type{}, r.Types...), catalog.BigInt)
		}
	case plan.RankOver:
		spec := op.OverSpec{Types: r.Types, Keys: r.Keys, Time: r.Time, Stamp: -1, Range: r.Range, Preceding: r.Preceding, Arrival: r.Arrival}
		outTypes = append([]catalog.Type{}, r.Types...)
		for _, c := range r.Calls {
			spec.Aggs = append(spec.Aggs, op.OverAgg{Spec: c.Spec, Arg: c.Arg})
			outTypes = append(outTypes, c.Spec.ResultType())
		}
		o.op, err = op.NewOver(spec, &o.coll, acct)
	case plan.RankSort:
		o.op, err = op.NewSort(op.SortSpec{Types: r.Types, Order: keys, Limit: r.Limit, NewerFirst: r.NewerFirst}, &o.coll, acct)
	case plan.RankTimeSort:
		o.op, err = op.NewTimeSort(op.TimeSortSpec{Types: r.Types, Time: r.Time, Stamp: -1}, &o.coll, acct)
	}
	if err != nil {
		return nil, err
	}
	o.coll.types = outTypes
	o.coll.late.types = r.Types
	if p := o.keyed; p != nil && sa != nil {
		// (the 'state.max-bytes' message names the partitions held: issue
		// 23 item 5's key count)
		sa.Detail = func() string { return state.CountText(p.Partitions(), "partition") }
	}
	return o, nil
}

// partitioned is an operator that keeps its state per PARTITION BY key
// (op.TopN, op.RetractTopN): Partitions is how many keys it holds, for the
// 'state.max-bytes' message (Operator.keyed).
type partitioned interface {
	op.Operator
	Partitions() int
}

// thinCols sets the operator's thin columns (plan.Rank.Thin) in its own
// columns (m: each input column's, nil: the same), each once, none that is
// also a partition key or ORDER BY column there, and their NULL columns.
func (o *Operator) thinCols(r *plan.Rank, m []int) {
	at := func(c int) int {
		if m == nil {
			return c
		}
		return m[c]
	}
	used := map[int]bool{}
	for _, c := range r.Keys {
		used[at(c)] = true
	}
	for _, k := range r.Order {
		used[at(k.Col)] = true
	}
	for x, c := range r.Thin {
		if c = at(c); !used[c] {
			used[c] = true
			v := vector.NewVec(r.Types[r.Thin[x]])
			for i := range v.Null {
				v.Null[i] = true
			}
			o.thin, o.thinFrom, o.nulls = append(o.thin, c), append(o.thinFrom, r.ThinFrom[x]), append(o.nulls, v)
		}
	}
}

// Wire makes down the operator's downstream and took (nil: none) the sink's
// count of the main query's rows (EXPLAIN ANALYZE), which the operator adds
// to before it takes them.
func (o *Operator) Wire(down *flow.Emitter, took *int64) { o.down, o.took = down, took }

// Main returns the index of the part the operator takes in a step's Parts
// (the main query's, or its side branch's: NewFor).
func (o *Operator) Main() int { return o.main }

// Narrow returns the input columns an updating Top-N stores (nil: all of
// them): a hidden column that is another's value again is stored once.
func (o *Operator) Narrow() []int { return o.narrow }

// Push implements flow.Operator: the main query's rows go to the operator.
func (o *Operator) Push(ctx context.Context, port flow.Port, r *flow.Step) error {
	o.in.Reset()
	o.late = o.late[:0]
	if o.main < len(r.Parts) {
		p := &r.Parts[o.main]
		if o.took != nil {
			*o.took += int64(len(p.Sel))
		}
		o.thinning(len(p.Sel) > 0)
		o.view = vector.Batch{Cols: o.narrowed(p.Cols), N: r.N, Pos: r.In.Pos, Kinds: p.Kinds} // (an updating input's kinds: a RetractTopN reads them)
		if len(p.Sel) == r.N && len(p.Sel) > 0 && !o.anyLate(p) && o.rep == nil {              // every row, in place: no copy
			p.Sel = p.Sel[:0]
			if err := o.op.Push(ctx, 0, &o.view); err != nil {
				return err
			}
		}
		for _, i := range p.Sel {
			if o.isLate(p, i) {
				o.late = append(o.late, i)
				continue
			}
			if err := o.addAs(ctx, &o.view, int(i), o.noteRow(p, i, r.In.Pos[i])); err != nil {
				return err
			}
		}
		p.Sel = p.Sel[:0]
	}
	if len(r.Chunks) > 0 {
		kept := o.chunks[:0]
		for k := range r.Chunks {
			c := &r.Chunks[k]
			if c.Output != o.out {
				kept = append(kept, *c)
				continue
			}
			o.view = vector.Batch{Cols: o.narrowed(c.Cols), N: vector.Cap, Pos: o.zeroPos, Kinds: c.Kinds}
			if o.rep != nil && c.At > 0 && r.In != nil { // (a replayed window Top-N: each row is the TVF's of input row At-1)
				if err := o.addMade(ctx, c, r.In.Pos[c.At-1]); err != nil {
					return err
				}
				continue
			}
			for _, i := range c.Sel {
				if err := o.add(ctx, &o.view, int(i)); err != nil {
					return err
				}
			}
		}
		o.chunks = kept
		r.Chunks = kept
	}
	if err := o.flushIn(ctx); err != nil {
		return err
	}
	if o.readsMarks(r) {
		// the batch's rows are in; each mark's watermark releases what it
		// passes, placed after the row that moved it. Taking the rows first
		// changes nothing: a row is late by its own CURRENT_WATERMARK, and
		// one that is not has a time no mark before it passes, so it is
		// neither released nor read (a frame, a key's first row) by a mark
		// before it
		for _, m := range r.Marks {
			if err := o.markAt(ctx, m); err != nil {
				return err
			}
		}
	}
	if len(o.late) > 0 {
		if o.lateRows != nil { // (the rows this run writes: a replayed one's late output was written by the run before, SPEC 2.4's notices)
			o.lateRows.Rows += int64(o.written(o.late, r.In))
		}
		o.parts = append(o.parts[:0], r.Parts...)
		o.parts = append(o.parts, flow.Part{Output: o.r.LateOutput, Sel: o.late, Cols: o.lateColumns(r.In)})
		in := r.Parts
		r.Parts = o.parts
		defer func() { r.Parts = in }() // (the router reuses its Step: a late part left in it would come again with the next batch)
	}
	return o.emit(ctx, port, r)
}

// lateColumns returns the columns of the late rows o.late of source batch
// in: the stream's, or the relation's select list computed for them
// (Operator.lateProj), once per push, nothing allocated.
func (o *Operator) lateColumns(in *vector.Batch) []*vector.Vec {
	if o.lateProj == nil {
		return in.Cols[:o.ncols]
	}
	return o.lateProj.Eval(in, o.late)
}

// written returns how many of the rows sel of in this run writes: all but
// those a replay reads again below their partition's emitted frontier.
func (o *Operator) written(sel []int32, in *vector.Batch) int {
	if o.rep == nil || in == nil {
		return len(sel)
	}
	n := 0
	for _, i := range sel {
		if !o.rep.Replayed(in.Pos[i]) {
			n++
		}
	}
	return n
}

// narrowed returns the main query's projected columns as the operator
// takes them (narrow; all of them without), the thin ones NULL when the
// Top-N stores them so (thinning).
func (o *Operator) narrowed(cols []*vector.Vec) []*vector.Vec {
	switch {
	case o.narrow != nil:
		for j, c := range o.narrow {
			o.viewCols[j] = cols[c]
		}
	case o.thinOn == 1:
		copy(o.viewCols, cols)
	default:
		return cols
	}
	if o.thinOn == 1 {
		for x, c := range o.thin {
			o.viewCols[c] = o.nulls[x]
		}
	}
	return o.viewCols
}

// isLate reports whether row i of part p is below the watermark (SPEC 2.3:
// its time below its CURRENT_WATERMARK) for an operator that routes late
// rows.
func (o *Operator) isLate(p *flow.Part, i int32) bool {
	if o.r.LateOutput < 0 || o.r.Stamp < 0 {
		return false
	}
	s, t := p.Cols[o.r.Stamp], p.Cols[o.r.Time]
	return !s.Null[i] && !t.Null[i] && t.I[i] < s.I[i]
}

// anyLate reports whether a row of part p is late (isLate).
func (o *Operator) anyLate(p *flow.Part) bool {
	if o.r.LateOutput < 0 || o.r.Stamp < 0 {
		return false
	}
	for _, i := range p.Sel {
		if o.isLate(p, i) {
			return true
		}
	}
	return false
}

// add copies row i of b into the operator's input, pushing it when full.
func (o *Operator) add(ctx context.Context, b *vector.Batch, i int) error {
	return o.addAs(ctx, b, i, false)
}

// addAs is add of a row read again below its partition's emitted frontier
// (replayed: its changes go into state only) or not; the rows gathered are
// pushed first when they are the other kind.
func (o *Operator) addAs(ctx context.Context, b *vector.Batch, i int, replayed bool) error {
	if replayed != o.inReplayed {
		if err := o.flushIn(ctx); err != nil {
			return err
		}
		o.inReplayed = replayed
	}
	o.in.AppendRows(b, i, i+1)
	if o.in.N < vector.Cap {
		return nil
	}
	return o.flushIn(ctx)
}

func (o *Operator) flushIn(ctx context.Context) error {
	if o.in.N == 0 {
		return nil
	}
	kept := o.coll.discard
	o.coll.discard = kept || o.inReplayed // (a replayed row's changes were written by the run that committed e)
	o.coll.replayed = o.inReplayed
	err := o.op.Push(ctx, 0, o.in)
	o.coll.discard, o.coll.replayed = kept, false
	o.in.Reset()
	return err
}

// noteRow notes the Kafka partition, offset and stamp (CURRENT_WATERMARK)
// of row i of part pt at source position pos, a row the operator takes,
// with a replay (the first of each partition is its hold frontier), and
// reports whether the row is read again below its partition's emitted
// frontier; false without a replay.
func (o *Operator) noteRow(pt *flow.Part, i int32, pos int64) bool {
	if o.rep == nil {
		return false
	}
	p, off := connector.KafkaPartitionOf(pos)
	if _, ok := o.first[p]; !ok {
		x := stamp{off: off}
		if c := o.r.Stamp; c >= 0 && !pt.Cols[c].Null[i] {
			x.wm, x.set = pt.Cols[c].I[i], true
		}
		o.first[p] = x
	}
	return o.rep.Replayed(pos)
}

// readsMarks reports whether the operator emits at the marks of step r
// (flow.Step.Marks, the rows that moved the watermark): an event-time one
// (Dedup, Over, TimeSort without a LIMIT, whose cut keeps the step's late
// rows whole) without a replay, whose rows the watermark
// releases, so that they come out right after the row that moved it, between
// the batch's rows of the other outputs and its own late rows, as a window's
// rows do (SPEC 4: the line formats write rows in the order the routing
// produced them, whatever the batch sizes).
func (o *Operator) readsMarks(r *flow.Step) bool {
	return len(r.Marks) > 0 && o.rep == nil && ReadsMarks(o.r)
}

// ReadsMarks reports whether the operator of r emits at the marks of a step
// (readsMarks), so that its chain must fill flow.Step.Marks (the builder's
// MarkReader rule).
func ReadsMarks(r *plan.Rank) bool {
	k := r.Kind
	return k == plan.RankDedup || k == plan.RankOver || k == plan.RankTimeSort && r.Limit < 0
}

// markAt gives the operator the watermark of mark m and places what it
// emitted right after the row that moved the watermark (m.At).
func (o *Operator) markAt(ctx context.Context, m flow.Mark) error {
	if err := o.op.Watermark(ctx, 0, m.Value); err != nil {
		return err
	}
	o.place(&o.atMarks, m.At) // (no LIMIT: readsMarks)
	return nil
}

// place appends the rows the operator emitted since the last place to
// chunks, placed at arrival ordinal at, and reports whether they reach a
// TimeSort's LIMIT (the rows past it are left out).
func (o *Operator) place(chunks *[]flow.Chunk, at int) (done bool) {
	for ; o.placedB < o.coll.n && !done; o.placedB, o.placedRow = o.placedB+1, 0 {
		b := o.coll.batches[o.placedB]
		from, n := o.placedRow, b.N-o.placedRow
		if o.r.Limit >= 0 && o.r.Kind == plan.RankTimeSort && o.emitted+int64(n) >= o.r.Limit {
			n = int(o.r.Limit - o.emitted)
			done = true
		}
		if n > 0 {
			o.emitted += int64(n)
			if o.sets == len(o.colSets) {
				o.colSets = append(o.colSets, make([]*vector.Vec, len(o.r.Output)))
			}
			output := o.r.Output
			if o.output != nil {
				output = o.output
			}
			cols := o.colSets[o.sets] // (reused: the sink is done with a flow.Step when Push returns)
			o.sets++
			for j, c := range output {
				cols[j] = b.Cols[c]
			}
			var kinds []vector.RowKind // (a Top-N's changes, SPEC 2.8; indexed like Cols)
			if b.Kinds != nil {
				kinds = b.Kinds[:from+n]
			}
			*chunks = append(*chunks, flow.Chunk{At: at, Part: flow.Part{Output: o.out, Sel: identity[from : from+n], Cols: cols, Kinds: kinds}})
		}
		if !done && o.placedB == o.coll.n-1 && b.N < vector.Cap {
			o.placedRow = b.N // (the last batch may take more rows: they start there)
			return false
		}
	}
	return done
}

// emit appends what the operator emitted to r as chunks after r's rows (r
// nil: a batch of them alone; rows placed at marks before are in r) and
// pushes r on; a LIMIT reached ends the job.
func (o *Operator) emit(ctx context.Context, port flow.Port, r *flow.Step) error {
	done := false
	if o.coll.n > 0 || o.sets > 0 {
		if r == nil {
			o.made = flow.Step{Errors: flow.ErrorPort{Name: o.made.Errors.Name}}
			r = &o.made
		}
		r.Chunks = append(r.Chunks, o.atMarks...) // (placed at marks: markAt)
		done = o.place(&r.Chunks, r.N)
		o.coll.n, o.placedB, o.placedRow, o.sets, o.atMarks = 0, 0, 0, 0, o.atMarks[:0]
	}
	if g := &o.coll.late; g.n > 0 {
		if r == nil {
			o.made = flow.Step{Errors: flow.ErrorPort{Name: o.made.Errors.Name}}
			r = &o.made
		}
		for _, b := range g.batches[:g.n] {
			if o.r.LateOutput < 0 {
				break // (a plan without a late output: none come)
			}
			cols := make([]*vector.Vec, len(o.r.LateCols))
			for j, c := range o.r.LateCols {
				cols[j] = b.Cols[c]
			}
			r.Chunks = append(r.Chunks, flow.Chunk{At: r.N, Part: flow.Part{Output: o.r.LateOutput, Sel: identity[:b.N], Cols: cols}})
			if o.lateRows != nil {
				o.lateRows.Rows += int64(b.N)
			}
		}
		g.n = 0
	}
	if r == nil {
		return nil
	}
	if err := o.down.Push(ctx, port, r); err != nil {
		return err
	}
	if done {
		return flow.ErrLimitReached
	}
	return nil
}

// identity is the selection 0, 1, …, vector.Cap-1.
var identity = func() []int32 {
	s := make([]int32, vector.Cap)
	for i := range s {
		s[i] = int32(i)
	}
	return s
}()

// flow.Watermark implements Operator: the operator sees the watermark (the end
// of the input is Finish), then what it emitted goes on, then the event.
func (o *Operator) Watermark(ctx context.Context, wm flow.Watermark) error {
	if wm.Set && !wm.Final {
		o.fired(wm.Value)
		if err := o.op.Watermark(ctx, 0, wm.Value); err != nil {
			return err
		}
		if err := o.emit(ctx, wm.Port, nil); err != nil {
			return err
		}
	}
	return o.down.Watermark(ctx, wm)
}

// Finish implements flow.Operator: the input ended; the operator emits what it
// holds (a bounded updating Top-N its final result).
func (o *Operator) Finish(ctx context.Context) error {
	if err := o.op.Finish(ctx, 0); err != nil {
		return err
	}
	if o.top != nil && o.r.Bounded || o.final != nil && o.r.Bounded {
		o.coll.discard = false
		o.coll.flush = func(ctx context.Context) error { return o.emit(ctx, flow.Port{}, nil) }
		var err error
		if o.top != nil {
			err = o.top.Final(ctx)
		} else {
			err = o.final.Final(ctx)
		}
		o.coll.flush = nil
		if err != nil {
			return err
		}
		if o.left != nil {
			if err := o.left.Forget(); err != nil { // (the join's left rows: Final has taken the thin columns from them)
				return err
			}
		}
	}
	if err := o.emit(ctx, flow.Port{}, nil); err != nil && err != flow.ErrLimitReached { // (the rows up to the LIMIT are out)
		return err
	}
	return o.down.Finish(ctx)
}
