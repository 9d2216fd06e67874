package session

import (
	"slices"

	"streamql/catalog"
	"streamql/executor"
	"streamql/executor/vector"
	"streamql/planner"
	"streamql/planner/plan"
)

// The frontend's side of a job (issue 22 item 6, DESIGN "Layering"): what a
// client that renders a job's outputs needs of it, so that cmd/ reaches the
// engine through this package and imports no executor or planner package.
//
//   - Job is the job as data: its outputs (name, columns, updating, late,
//     sink stream), the streams it reads and what `streamql test --shuffle`
//     and the progress bar ask of its plan. The plan itself stays inside.
//   - The output contract: a frontend gives the runner a Sink, which
//     receives each Batch of output rows (one Part per output port, the
//     Chunks operators made, each row's RowKind, its malformed ErrorRows),
//     reads it in SPEC 4's order with a Merger, and may encode chunks of a
//     bounded file apart from writing them (ChunkSink, EncodedChunk). Sink,
//     Batch, Merger, ChunkSink and EncodedChunk are this package's own
//     types; the runner's sink is an adapter (EngineSink) that hands each
//     executor batch on as a Batch, a few slice headers copied per batch. A
//     batch's values are typed column vectors (Vec), the very ones the
//     encoders of executor/format (which cmd/ may import) write: the
//     renderers read them where they are, with no copy and no allocation
//     per row.
//   - The run's counters: Stats (the notices are worded by JobNotices and
//     PendingNotice), the live counters the progress bar reads (Live,
//     LiveSnapshot, FormatBytes).
//   - The source hook (SetSourceHook, SourceHook) with which the progress
//     bar counts rows read and `streamql test --shuffle` reorders a bounded
//     input: Source, its Columns batches and BadRows, and the handles of the
//     capabilities its stream declares, which the hook returns for its
//     wrapper (SourceHandles, WrappedHandles).
//
// The per-port batches and rows inside a Batch are the executor's own,
// named here (aliases, as the executor names its connectors' Source): one
// definition, no conversion on the hot path. Their methods that a frontend
// calls are functions here (KindAt, ...): the compiler inlines them, and
// with them the executor's methods, where a method of a package the caller
// does not import stays a call (layering_test.go's
// TestCmdCallsNoEngineMethod).

// Part is one output port's rows of a Batch (executor.Part): Output indexes
// Job.Outputs, Sel the rows' arrival ordinals (input row numbers,
// ascending), Cols their values at those indexes; KindAt a row's kind.
type Part = executor.Part

// Segment is one step of a Batch in output order (executor.Segment): a
// Chunk, a run of malformed rows (Bad), or the input rows [From, To), row
// i going to the port Port[i] (an index into Batch.Parts; -1: none).
type Segment = executor.Segment

// Chunk is rows an operator made, placed At a point of its Batch
// (executor.Chunk).
type Chunk = executor.Chunk

// ErrorRow is one row of an errors side output (SPEC 1: stream, position,
// raw, error; executor.ErrorRow).
type ErrorRow = executor.ErrorRow

// ErrorPort is a Batch's errors port (executor.ErrorPort): Rows, its
// malformed rows, bound for the errors side output called Name.
type ErrorPort = executor.ErrorPort

// Vec is one typed column of a batch (vector.Vec): Type, Null[i], the
// value in I, F, B or S by type, Text[i] a number's source text when its
// decoder kept it.
type Vec = vector.Vec

// Columns is a batch of decoded rows column by column (vector.Batch), as a
// Source fills it and a Batch's In holds it.
type Columns = vector.Batch

// BatchCap is the most rows a Columns batch holds (vector.Cap).
const BatchCap = vector.Cap

// NewColumns returns an empty batch of columns of types (vector.NewBatch).
func NewColumns(types []catalog.Type) *Columns { return vector.NewBatch(types) }

// NewColumnsRows returns empty columns of types with room for n rows each
// (vector.NewVecRows; NewColumns holds BatchCap): a buffer of many rows,
// as the changelog encoder's (cmd/streamql/render).
func NewColumnsRows(types []catalog.Type, n int) *Columns {
	b := &Columns{Cols: make([]*vector.Vec, len(types))}
	for c, t := range types {
		b.Cols[c] = vector.NewVecRows(t, n)
	}
	return b
}

// RowKind is the change kind of an output row (SPEC 2.8, Flink's RowKind:
// +I, -U, +U, -D; its String is that text).
type RowKind = vector.RowKind

// The row kinds (vector.Insert ...).
const (
	Insert       = vector.Insert
	UpdateBefore = vector.UpdateBefore
	UpdateAfter  = vector.UpdateAfter
	Delete       = vector.Delete
)

// AppendValue appends the text of row i of v, of type t and not NULL, as
// SPEC 4's plain and table formats show it (vector.AppendValue).
func AppendValue(dst []byte, t catalog.Type, v *Vec, i int) []byte {
	return vector.AppendValue(dst, t, v, i)
}

// The methods of the contract's types as functions of this package: the
// compiler inlines a method of a package that its caller does not import
// only through a function of one it does, so the renderers' hot path calls
// these (the same machine code as the executor's own methods).

// KindAt returns the change kind of row i of p (Part.KindAt: Insert when p
// carries no kinds).
func KindAt(p *Part, i int) RowKind { return p.KindAt(i) }

// KindText is k's text: +I, -U, +U or -D (RowKind.String).
func KindText(k RowKind) string { return k.String() }

// Retracts reports whether k takes a row back: -U or -D (RowKind.Retracts).
func Retracts(k RowKind) bool { return k.Retracts() }

// AppendRows appends rows [from, to) of src to dst, whose columns have
// src's types (vector.Batch.AppendRows).
func AppendRows(dst, src *Columns, from, to int) { dst.AppendRows(src, from, to) }

// CopyFixedRange copies the fixed-width values of rows [from, to) of column
// src into column d's rows from at on and reports whether they were
// fixed-width (vector.Vec.CopyFixedRange: NULL flags, text and nested
// values are the caller's).
func CopyFixedRange(d *vector.Vec, at int, src *vector.Vec, from, to int) bool {
	return d.CopyFixedRange(at, src, from, to)
}

// ResetColumns empties b for reuse, keeping its memory (vector.Batch.Reset).
func ResetColumns(b *Columns) { b.Reset() }

// SetSourceHook makes env wrap every source a job opens with f (nil: none;
// executor.Env.SetSourceHook, SourceHook): the progress bar's counts, `test
// --shuffle`.
func SetSourceHook(env *Env, f SourceHook) { env.SetSourceHook(f) }

// WrappedHandles returns the handles a source hook's wrapper keeps of its
// source's h when it passes the source's rows and positions on unchanged
// through its own Next (SourceHandles.Wrapped: all but the parallel
// reader, which would bypass the wrapper).
func WrappedHandles(h SourceHandles) SourceHandles { return h.Wrapped() }

// SetLive gives env the counters its jobs update for a status line (nil:
// none; executor.Env.SetLive).
func SetLive(env *Env, l *Live) { env.SetLive(l) }

// Snapshot reads l's counters (Live.Snapshot).
func Snapshot(l *Live) LiveSnapshot { return l.Snapshot() }

// Stats is what a job reports when it ends (executor.Stats); JobNotices and
// PendingNotice word it.
type Stats = executor.Stats

// Live is the counters a running job updates for its status line
// (executor.Live, given with Env.SetLive); LiveSnapshot is one reading.
type (
	Live         = executor.Live
	LiveSnapshot = executor.LiveSnapshot
)

// FormatBytes renders n bytes as the status line and the state notices do
// (executor.FormatBytes: 512 B, 1.5 KiB, 3.2 MiB).
func FormatBytes(n int64) string { return executor.FormatBytes(n) }

// Env is the job environment of a Session (executor.Env): stdin, the source
// hook, the live counters.
type Env = executor.Env

// Source is a stream's reader as the source hook sees it (executor.Source);
// BadRow is one malformed row it read; Unreader is a source that can give
// back rows it read (executor.Unreader), which a wrapper passes on;
// SourceHandles are the handles of the capabilities its stream declares,
// which a hook returns for its wrapper (executor.SourceHandles: Wrapped
// for a wrapper that passes rows on unchanged, partitions of its own for
// one that reorders them); SourceHook is the hook (executor.SourceHook).
type (
	Source        = executor.Source
	BadRow        = executor.BadRow
	Unreader      = executor.Unreader
	SourceHandles = executor.SourceHandles
	SourceHook    = executor.SourceHook
)

// RunFunc runs a job into the sinks newSink makes (one per run) and returns
// its Stats: what Frontend.RunJob must call once.
type RunFunc = func(newSink func() (Sink, error)) (Stats, error)

// Job is a job about to run as its frontend sees it: data read from its plan
// when the session hands it over (Frontend.RunJob), not the plan.
type Job struct {
	// Outputs are the job's outputs: the main query's first when HasMain,
	// then the side outputs in declaration order (plan.Job.Outputs). A
	// Part's Output indexes them.
	Outputs []Output
	HasMain bool
	// HasSides: the job has side outputs, which decides how line formats
	// prefix rows and tables are titled (SPEC 4, plan.Job.HasSides).
	HasSides bool
	// Bounded: every stream the job reads is bounded, so its result is
	// final at the end (SPEC 2.8's "bounded inputs"; true for a job without
	// a stream).
	Bounded bool
	// Stream is the job's FROM stream (nil for a job made without one).
	Stream *catalog.Stream
	// BuildSides are the build sides of its queries' semi and anti joins,
	// each once, in branch order. HeldJoin says that the job has a join
	// that holds rows, which its live status shows (LiveSnapshot.HeldRows):
	// an event-time semi or anti join (SPEC 2.2: its probe rows), or a join
	// of two streams (SPEC 2.7: the rows of both inputs in its state).
	BuildSides []*catalog.Stream
	HeldJoin   bool
	// Reads are every stream the job reads directly: its stream, the inputs
	// of its join of two streams (SPEC 2.7), its build sides.
	Reads []*catalog.Stream
	// Relations are the derived relations among Reads (SPEC 2.6: a
	// subquery, WITH name, view or UNION ALL), whose rows are their parts'
	// output, not rows read; RelationInputs the declared streams their
	// parts read (a part's stream or its join's inputs, through nested
	// relations), each once, in plan order: the live status counts their
	// rows as the rows read (SPEC 4, Progress).
	Relations, RelationInputs []*catalog.Stream
	// Volatile are the clock and random functions it calls
	// (plan.Job.Volatile: PROCTIME(), NOW(), RAND(), …).
	Volatile []string
	// OrderBound: its result depends on the order in which rows arrive
	// beyond their event time: a LIMIT, a join, an aggregate of the arrival
	// order (LISTAGG, FIRST_VALUE, LAST_VALUE).
	OrderBound bool
	// EncodeAhead: the main output's changelog lines may be encoded on a
	// goroutine of the frontend's own (plan.Job.EncodeAhead, which EXPLAIN
	// shows as the main Sink's strategy): the frontend does so when it
	// prints them as csv or tsv lines, not on a terminal.
	EncodeAhead bool
	// SidePos is the offset of the side name of the job's first side
	// branch (0 when none): where a planning error about its side files
	// points.
	SidePos int

	plan *planner.Job
}

// Output is one output of a Job.
type Output struct {
	Name    string
	Columns []catalog.Column
	// Updating: its rows carry change kinds (SPEC 2.8, plan.Output.Updating).
	Updating bool
	// Late: the default late output of windowed queries (SPEC 2.4), shown
	// from its first row.
	Late bool
	// Sink: its rows go to a sink stream (SPEC 2.5), never printed.
	Sink bool
	// SidePos is the offset of the side name of the first branch that
	// writes it (0 when none: the main query).
	SidePos int
	// Order is the order of an updating output's final table, by its
	// columns: a Top-N over the whole input's (SPEC 2.9: ORDER BY … LIMIT,
	// or ROW_NUMBER() without PARTITION BY, over changes), whose table keeps
	// its rows where their changes put them; nil when none, or when an
	// ORDER BY key is not among the output's columns.
	Order []OrderKey
}

// OrderKey is a key of Output.Order: column Col (an index in
// Output.Columns), descending when Desc (SPEC 2.9: NULLs first ascending,
// last descending, as Flink sorts).
type OrderKey struct {
	Col  int
	Desc bool
}

// topNOrder returns the order of the final table of b's output (Output.Order):
// its Top-N's over the whole input when b's result is one, by its visible
// columns; nil otherwise.
func topNOrder(b *planner.Branch) []OrderKey {
	if b == nil || b.Rank == nil || b.Rank.Kind != plan.RankTopN || len(b.Rank.Keys) > 0 || !b.Rank.Updating {
		return nil
	}
	var order []OrderKey
	for _, k := range b.Rank.Order {
		col := slices.Index(b.Rank.Output, k.Col)
		if col < 0 && k.Col < len(b.Project) { // (a hidden copy of a shown column: ORDER BY c over a subquery's c)
			col = slices.IndexFunc(b.Rank.Output, func(o int) bool { return o < len(b.Project) && sameColumn(b.Project[o], b.Project[k.Col]) })
		}
		if col < 0 || col >= len(b.Columns) {
			return nil // (a key not shown: the table cannot be sorted by it)
		}
		order = append(order, OrderKey{Col: col, Desc: k.Desc})
	}
	return order
}

// sameColumn reports whether x and y are the same column of the batch.
func sameColumn(x, y *plan.Expr) bool {
	return x != nil && y != nil && x.Op == plan.OpCol && y.Op == plan.OpCol && x.Col == y.Col
}

// Schema is the output's columns as text (SchemaText).
func (o Output) Schema() string { return plan.SchemaText(o.Columns) }

// SchemaText is columns as text, "name TYPE, ..." (plan.SchemaText): what a
// --side-dir file is compared by when a later job appends to it (SPEC 4).
func SchemaText(cols []catalog.Column) string { return plan.SchemaText(cols) }

// NewJob returns the frontend's view of job (nil for nil).
func NewJob(job *planner.Job) *Job {
	if job == nil {
		return nil
	}
	j := &Job{plan: job, HasMain: job.Main != nil, HasSides: job.HasSides(), Stream: job.Stream, Volatile: job.Volatile(), EncodeAhead: job.EncodeAhead}
	for k, o := range job.Outputs {
		out := Output{Name: o.Name, Columns: o.Columns, Updating: o.Updating, Late: o.Late, Sink: o.Sink != nil}
		if k == 0 && job.Main != nil && o.Updating {
			out.Order = topNOrder(job.Main)
		}
		for _, b := range job.Branches {
			if b.Output == k {
				out.SidePos = b.SidePos
				break
			}
		}
		j.Outputs = append(j.Outputs, out)
	}
	j.Bounded = true
	if job.Stream != nil {
		for _, st := range job.Streams() {
			if !st.Bounded() {
				j.Bounded = false
				break
			}
		}
	}
	if len(job.Branches) > 0 {
		j.SidePos = job.Branches[0].SidePos
	}
	for _, b := range append(append([]*planner.Branch{}, job.Branches...), job.Main) {
		if b == nil || b.Join == nil {
			continue
		}
		j.HeldJoin = j.HeldJoin || b.Join.EventTime()
		if b.Join.Build != job.Stream && !slices.Contains(j.BuildSides, b.Join.Build) {
			j.BuildSides = append(j.BuildSides, b.Join.Build)
		}
	}
	j.Reads = append(j.Reads, job.Stream)
	if job.Both != nil {
		j.OrderBound, j.HeldJoin = true, true
		for _, in := range job.Both.Inputs {
			j.Reads = append(j.Reads, in.Stream)
		}
	}
	for _, st := range j.Reads {
		if plan.DerivedOf(st) != nil && !slices.Contains(j.Relations, st) {
			j.Relations = append(j.Relations, st)
			j.RelationInputs = relationInputs(st, j.RelationInputs)
		}
	}
	for _, b := range job.AllBranches() {
		if b.Join != nil {
			j.Reads = append(j.Reads, b.Join.Build)
		}
		if b.Limit >= 0 || b.Join != nil || b.Both != nil {
			j.OrderBound = true
		}
		if b.Agg == nil {
			continue
		}
		for _, call := range b.Agg.Calls {
			switch call.Spec.Func {
			case plan.AggFirst, plan.AggLast, plan.AggListAgg:
				j.OrderBound = true
			}
		}
	}
	return j
}

// Plan returns the job's plan, for the engine's own clients (the root
// package, internal/export); a frontend renders from the Job's data.
func (j *Job) Plan() *planner.Job { return j.plan }

// SideNamePos returns the offset of the side name of the first branch that
// writes an output named name, 0 when none does.
func (j *Job) SideNamePos(name string) int {
	for _, b := range j.plan.Branches {
		if b.Output >= 0 && b.Output < len(j.Outputs) && j.Outputs[b.Output].Name == name {
			return b.SidePos
		}
	}
	return 0
}

// ReplayNotice returns the line a frontend prints on stderr before the job
// runs when a crash in a consumer group would lose its state (SPEC 2.5,
// plan.Job.ReplayNotice), "" when none would.
func (j *Job) ReplayNotice() string { return j.plan.ReplayNotice() }

// Files returns the files the job reads and writes through its streams
// (planner.JobFiles), for CheckFiles with the frontend's own files.
func (j *Job) Files() []JobFile { return planner.JobFiles(j.plan) }

// relationInputs appends to into, each once, the declared streams derived
// relation st's parts read as their stream or their join's inputs, through
// the relations they read in turn (Job.RelationInputs); st itself when it
// is a declared stream.
func relationInputs(st *catalog.Stream, into []*catalog.Stream) []*catalog.Stream {
	if st == nil || st.Connector == nil || st.Connector == plan.NoFrom {
		return into
	}
	d := plan.DerivedOf(st)
	if d == nil {
		if st.Connector != plan.JoinConnector && !slices.Contains(into, st) {
			into = append(into, st)
		}
		return into
	}
	for _, part := range d.Parts {
		into = relationInputs(part.Stream, into)
		if part.Both != nil {
			for _, in := range part.Both.Inputs {
				into = relationInputs(in.Stream, into)
			}
		}
	}
	return into
}
