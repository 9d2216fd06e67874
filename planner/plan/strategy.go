package plan

import "fmt"

// Strategy is how the executor runs a job's scan and operators (issue 22 item
// 1; DESIGN, "The engine's third shape": strategies are physical choices that
// planner rules make and EXPLAIN prints). The planner's strategy rule
// (planner/rule_strategy.go, ChooseStrategy) sets Job.Strategy from the plan
// and StrategyEnv; the executor follows it. Where a fact is known only when
// the source is open (a file's size, whether its decoder can restart on a
// chunk), the executor falls back as each constant's doc says, and EXPLAIN
// names that fallback.
type Strategy uint8

// The strategies, from the simplest.
const (
	// Sequential: one goroutine reads, decodes and runs every operator, row
	// batches in arrival order. Live sources (stdin, socket, a followed file,
	// Kafka, go) and one CPU take it.
	Sequential Strategy = iota
	// Prefetch: a producer goroutine decodes a bounded file ahead while the
	// job's goroutine runs the operators (executor/prefetch.go).
	Prefetch
	// ParallelDecode: the file is cut into chunks that GOMAXPROCS-1 workers
	// decode, merged in file order (executor/chunked); a file under two
	// chunks, or in an 'encoding' whose line ends are not found byte-wise,
	// falls back to Prefetch.
	ParallelDecode
	// Morsel: each worker decodes, routes and encodes a chunk, and the chunks'
	// outputs are written in file order (executor/morsel.go). Output in a
	// table format falls back to ParallelDecode, a file that does not split
	// to Prefetch.
	Morsel
	// ParallelAggregate: workers build partial window aggregates per chunk,
	// merged in file order (executor/paragg.go); a file that does not split
	// falls back to Prefetch.
	ParallelAggregate
	// Held: an event-time semi or anti join holds probe rows until the build
	// side's watermark passes them (SPEC 2.2), on the job's goroutine, build
	// sources on goroutines of their own.
	Held
	// ParallelJoinInputs: a lookup join of two streams (BothJoin, SPEC 2.7)
	// whose inputs are bounded files has each such input cut into chunks that
	// JoinInputWorkers workers decode, merged in file order
	// (executor/chunked), while the job's goroutine runs the join and what
	// follows it; each input's rows, positions, malformed and late rows are
	// the sequential path's, so the output is too (SPEC 2.7's determinism).
	// An input under two chunks, in an 'encoding' whose line ends are not
	// found byte-wise, or wrapped (a progress bar) is read sequentially.
	ParallelJoinInputs
	// LookupMorsel: a lookup join (SPEC 2.7) whose right side is read whole
	// first, as ParallelJoinInputs reads it, and whose left input, a bounded
	// file, is then cut into chunks that each of GOMAXPROCS workers decodes,
	// probes against the finished right side (shared, read only, each
	// worker with a probe of its own: executor/op's Join.ProbeCopy), routes
	// and encodes, the chunks' outputs written in file order as the morsel
	// pipeline writes them (executor/lookupmorsel.go): the stateless probe
	// is then one more per-row map, as a filter is, and a row's work stays
	// on the CPU that decoded it. Job.LookupMorselable says which jobs. A
	// table output format or EXPLAIN ANALYZE falls back to
	// ParallelJoinInputs, a left file under two chunks to reading it
	// sequentially.
	LookupMorsel
	// PipelinedJoin: an interval join (SPEC 2.7) of two bounded files runs
	// as a pipeline of four goroutines: each input decoded ahead on one of
	// its own (the batches the sequential path reads, cut where it cuts
	// them), the join on a third (its sequential core: it reads its inputs
	// by turns, by their watermarks, as Sequential does), and routing,
	// encoding and writing on the job's goroutine, which replays the
	// join's malformed and late rows to the sink before the joined batch
	// they came before (executor/joinpipe.go): the outputs are Sequential's,
	// byte for byte, and the order is decided by event time (SPEC 2.7's
	// determinism). Job.JoinPipelinable says which jobs. EXPLAIN ANALYZE
	// falls back to Sequential.
	PipelinedJoin
)

var strategyNames = [...]string{"sequential", "prefetch", "parallel decode", "morsel", "parallel aggregate", "held", "parallel join inputs", "lookup morsel", "pipelined join"}

// String returns the strategy's name as EXPLAIN prints it ("parallel decode").
func (s Strategy) String() string {
	if int(s) < len(strategyNames) {
		return strategyNames[s]
	}
	return fmt.Sprintf("strategy(%d)", s)
}

// Describe returns what EXPLAIN says of the strategy for a job planned for
// procs CPUs: its name, its workers, and its fallback ("a small file": one
// under two chunks, see the constants).
func (s Strategy) Describe(procs int) string {
	switch s {
	case Prefetch:
		return "prefetch (a goroutine decodes ahead)"
	case ParallelDecode:
		return fmt.Sprintf("parallel decode, %s (a small file: prefetch)", workers(procs-1))
	case Morsel:
		return fmt.Sprintf("morsel, %s (table output: parallel decode; a small file: prefetch)", workers(procs))
	case ParallelAggregate:
		return fmt.Sprintf("parallel aggregate, %s (a small file: prefetch)", workers(procs))
	case Held:
		return "held (probe rows wait for the build side's watermark)"
	case ParallelJoinInputs:
		return fmt.Sprintf("parallel join inputs, %s per input file (a small file: sequential)", workers(JoinInputWorkers(procs)))
	case LookupMorsel:
		return fmt.Sprintf("lookup morsel, %s probe and encode the left file (table output: parallel join inputs; a small file: sequential)", workers(procs))
	case PipelinedJoin:
		return "pipelined join (each input decoded ahead on a goroutine, the join on another, routing and encoding on the job's; EXPLAIN ANALYZE: sequential)"
	}
	return s.String()
}

// StrategyEnv is what the strategy rule knows besides the plan: the CPUs the
// process may use (GOMAXPROCS) and the session's 'state.max-bytes' in bytes
// (0: the default, DefaultStateMaxBytes).
type StrategyEnv struct {
	Procs         int
	StateMaxBytes int64
}

// DefaultStateMaxBytes is the default of the session setting 'state.max-bytes'
// (SPEC 1: 2 GiB), in bytes.
const DefaultStateMaxBytes int64 = 2 << 30

// ParallelAggregateStateFloor is the least 'state.max-bytes' (bytes) with which
// a job may take ParallelAggregate: a worker's partial windows are charged only
// when merged, so a lowered budget keeps the sequential path's row-by-row
// accounting. The default; tests lower it.
var ParallelAggregateStateFloor = DefaultStateMaxBytes

// ParallelAggregateMaxWindowsPerRow is the most windows a row may belong to
// (HOP's size/slide, CUMULATE's size/step) in a job on ParallelAggregate: a
// worker's partial holds every (window, group) its chunk's rows touch,
// uncharged until merged, so a row of thousands of windows would make each
// chunk in flight hold thousands of times its rows (and the sequential path is
// not slower there: the windows' work is per row either way).
const ParallelAggregateMaxWindowsPerRow = 16

// PrefetchDeep reports whether j's producer goroutine, when it decodes
// ahead (Prefetch, executor/strategy/prefetch.go), keeps twice the groups
// of batches ahead of the job's goroutine: when a third goroutine is busy
// beside the two, an updating GROUP BY's changelog encoder (EncodeAhead
// over a main query that aggregates without a window: a -U/+U pair of
// lines per input row), whose turns on the CPUs the deeper queue absorbs
// (docs/performance.md, "The unbounded GROUP BY's three goroutines"). Any
// other job, a Top-N's among them, keeps the shallow queue, which costs it
// less memory (issue 22: the Top-10 per key's peak RSS).
func (j *Job) PrefetchDeep() bool {
	m := j.Main
	return j.EncodeAhead && m != nil && m.Agg != nil && m.Agg.Updating && m.Rank == nil
}

// Prefetchable reports whether job's scan may decode ahead of its operators:
// a bounded file (a connector with KnownSize), whose reads never wait for
// input, when the process may use more than one CPU (on one, decoding ahead
// only adds the copying: about 5% slower). Live sources keep the sequential
// loop, so their rows show as soon as they are read.
func (j *Job) Prefetchable(procs int) bool {
	st := j.Stream
	// a changelog (SPEC 2.8) is read in order by one decoder: its records'
	// rows and kinds are not cut into chunks
	return st != nil && st.Connector != nil && st.Connector.KnownSize && st.Bounded() && procs > 1 && st.Updating() == ""
}

// JoinInputWorkers returns how many goroutines decode each bounded file input
// of a join on ParallelJoinInputs, for a process of procs CPUs: one per CPU
// but the job's goroutine (which runs the join), and at least 2 (the least
// executor/chunked cuts a file for). Both inputs' workers share the CPUs: a
// lookup join reads its right side first, then its left, so one input's
// workers are busy at a time.
func JoinInputWorkers(procs int) int { return max(2, procs-1) }

// JoinInputsSplittable reports whether j's join (nil: none) has an input that
// ParallelJoinInputs can cut into chunks, leaving aside the CPUs: a bounded
// file (a connector with KnownSize) read in order by one decoder (not a
// changelog, SPEC 2.8), without computed or METADATA columns (computed by the
// source's wrapper, which the chunked path does not take), and not a derived
// relation (a subquery, view or WITH name, SPEC 2.6). A join with an input
// whose 'errors' is 'fail' is not: the job stops at that input's first
// malformed row (SPEC 1), and the rows joined by then depend on how far the
// other input was read, batch by batch, so such a job keeps the batches of
// the sequential decoder.
func (j *Job) JoinInputsSplittable() bool {
	if j.Both == nil {
		return false
	}
	for _, in := range j.Both.Inputs {
		if in.Stream.Shared().Errors == "fail" {
			return false
		}
	}
	for _, in := range j.Both.Inputs {
		st := in.Stream
		if st != nil && st.Connector != nil && st.Connector.KnownSize && st.Bounded() && st.Updating() == "" && !st.HasComputed() && DerivedOf(st) == nil {
			return true
		}
	}
	return false
}

// LookupMorselable reports whether j may take LookupMorsel: its stream is a
// lookup join (SPEC 2.7, INNER or LEFT, neither temporal nor swapped,
// without other ON terms, state TTL or updating inputs) whose left input
// is a bounded file that ParallelJoinInputs could cut (JoinInputsSplittable's
// conditions, and no input with 'errors' = 'fail') and whose left rows the
// join takes as they are: no WATERMARK (no event time), no pushed-down
// filter, no computed keys, no 'watermark.max-future' or 'errors.stream';
// and whose queries over the joined rows are Morselable, call no function
// (plan.OpFunc: a failed call names the joined row's input rows, which the
// job's goroutine knows), and write no sink stream. Every other job keeps
// ParallelJoinInputs or Sequential.
func (j *Job) LookupMorselable() bool {
	b := j.Both
	if b == nil || !b.Lookup || b.Temporal || b.Swap || len(b.Residual) > 0 || b.StateTTL != 0 || b.Changes[0] || b.Changes[1] || !j.statelessAfterJoin() {
		return false
	}
	for _, in := range b.Inputs {
		if in.Stream.Shared().Errors == "fail" {
			return false
		}
	}
	l := &b.Inputs[0]
	return plainFileInput(l) && l.Watermark == nil
}

// statelessAfterJoin reports whether the queries of j, a job over a join
// (Job.Both), are Morselable, call no function (OpFunc: a failed call names
// the joined row's input rows, which the job's goroutine knows of the batch
// it has, joinSource.RowSource), write no sink stream and read no other
// join, UNNEST, aggregate or Top-N; and j's stream fans out to no branch
// and has no computed column: nothing after the join keeps state or
// records a failed call, so the joined rows may be routed and encoded on
// another goroutine than the join's (LookupMorsel's workers,
// PipelinedJoin's job goroutine).
func (j *Job) statelessAfterJoin() bool {
	if j.Fanout || j.Unnest != nil || j.Stream.HasComputed() || !j.Morselable() {
		return false
	}
	for _, br := range j.AllBranches() {
		if br.Join != nil || br.Unnest != nil || br.Sink != nil || len(br.DeadLetters) > 0 || br.Agg != nil || br.Rank != nil || callsFunc(br.Where) {
			return false
		}
		for _, e := range br.Project {
			if callsFunc(e) {
				return false
			}
		}
	}
	return true
}

// plainFileInput reports whether the join input in is a bounded file (a
// connector with KnownSize) read in order by one decoder (not a changelog,
// SPEC 2.8), without computed columns, not a derived relation (SPEC 2.6),
// whose rows reach the join as they are read: no 'errors.stream', no
// 'watermark.max-future', no pushed-down filter, no computed join keys,
// and no function in its WATERMARK: no expression of the join's own can
// fail on its rows (the job's failed calls are recorded per goroutine).
func plainFileInput(in *JoinInput) bool {
	st := in.Stream
	if st == nil || st.Connector == nil || !st.Connector.KnownSize || !st.Bounded() || st.Updating() != "" || st.HasComputed() || DerivedOf(st) != nil {
		return false
	}
	sh := st.Shared()
	return sh.ErrorsStream == "" && !sh.HasMaxFuture && in.Filter == nil && len(in.KeyExprs) == 0 && !callsFunc(in.Watermark)
}

// JoinPipelinable reports whether j may take PipelinedJoin: its stream is
// an interval join (SPEC 2.7; not a lookup, temporal, window or swapped
// one, without other ON terms or updating inputs) of two bounded files
// each of which plainFileInput accepts, neither with 'errors' = 'fail'
// (the job stops at the first malformed row, which the join's goroutine
// reads ahead of the rows the job's goroutine writes), and whose queries
// over the joined rows are statelessAfterJoin. Every other join keeps its
// strategy.
func (j *Job) JoinPipelinable() bool {
	b := j.Both
	if b == nil || !b.Interval || b.Window || b.Lookup || b.Temporal || b.Swap || len(b.Residual) > 0 || b.Changes[0] || b.Changes[1] || !j.statelessAfterJoin() {
		return false
	}
	for s := range b.Inputs {
		in := &b.Inputs[s]
		if in.Stream.Shared().Errors == "fail" || !plainFileInput(in) {
			return false
		}
	}
	return true
}

// callsFunc reports whether e (nil: none) calls a function of the function
// table (OpFunc), the only operator whose evaluation can fail (SPEC 2.10).
func callsFunc(e *Expr) bool {
	return e.Any(func(x *Expr) bool { return x.Op == OpFunc })
}

// HasAggregates reports whether a branch of job aggregates or reads a window
// TVF (SPEC 2.4): the aggregate operator then follows the router.
func (j *Job) HasAggregates() bool {
	for _, b := range j.AllBranches() {
		if b.Agg != nil {
			return true
		}
	}
	return false
}

// OnlyAggregates reports whether job has branches and every one of them
// aggregates: its batches then need no source texts (vector.Batch.NoText).
func (j *Job) OnlyAggregates() bool {
	bs := j.AllBranches()
	for _, b := range bs {
		if b.Agg == nil {
			return false
		}
	}
	return len(bs) > 0
}

// HasEventTimeJoin reports whether a branch of job has a semi or anti join
// whose build side is unbounded and joined by event time (SPEC 2.2): the job
// then holds probe rows (Held).
func (j *Job) HasEventTimeJoin() bool {
	for _, b := range j.AllBranches() {
		if b.Join != nil && b.Join.EventTime() {
			return true
		}
	}
	return false
}

// ParallelAggregatable reports whether job's aggregates can be built in
// partials per chunk and merged (ParallelAggregate), leaving aside the budget
// and the CPUs: every branch a grouped window aggregate (not SESSION, at most
// ParallelAggregateMaxWindowsPerRow windows a row) without a join, none
// reading CURRENT_WATERMARK, no LIMIT or Rank (SPEC 2.9), and at most 255 branches (a late row's
// aggregate is kept in a byte).
func (j *Job) ParallelAggregatable() bool {
	bs := j.AllBranches()
	if len(bs) == 0 || len(bs) > 255 || j.Main != nil && j.Main.Limit >= 0 || j.HasRank() {
		return false
	}
	for _, b := range bs {
		a := b.Agg
		if a == nil || !a.Grouped || a.Window == nil || b.Join != nil {
			return false
		}
		if a.Window.Func == "SESSION" || a.LateProject != nil { // (a partial's late rows are the stream's: a Kafka job, live, never parallel)
			return false
		}
		if a.Window.Slide > 0 && a.Window.Size/a.Window.Slide > ParallelAggregateMaxWindowsPerRow {
			return false
		}
		if ReadsWatermark(b.Where) || ReadsWatermark(a.Having) {
			return false
		}
		for _, e := range a.Keys {
			if ReadsWatermark(e) {
				return false
			}
		}
		for _, c := range a.Calls {
			if ReadsWatermark(c.Arg) {
				return false
			}
		}
	}
	return true
}

// Morselable reports whether job can run on the morsel pipeline, leaving aside
// the CPUs and the output format: no aggregate, no WATERMARK (late rows need
// the watermark of every row before), no LIMIT (the cut needs rows in order),
// no Rank (SPEC 2.9: one operator sees every row).
func (j *Job) Morselable() bool {
	return !j.HasAggregates() && j.Watermark == nil && (j.Main == nil || j.Main.Limit < 0) && !j.HasRank()
}

// HasRank reports whether a query of job j, the main query or a side
// branch, ends with a Rank (SPEC 2.9).
func (j *Job) HasRank() bool {
	for _, b := range j.AllBranches() {
		if b.Rank != nil {
			return true
		}
	}
	return false
}

// ReadsWatermark reports whether e (nil: none) reads CURRENT_WATERMARK.
func ReadsWatermark(e *Expr) bool {
	return e.Any(func(x *Expr) bool { return x.Op == OpCurrentWatermark })
}

// workers renders n workers: "1 worker", "2 workers".
func workers(n int) string {
	if n == 1 {
		return "1 worker"
	}
	return fmt.Sprintf("%d workers", n)
}
