package executor

import (
	"context"
	"errors"
	"fmt"
	"io"

	"streamql/catalog"
	"streamql/executor/aggregate"
	"streamql/executor/connector"
	"streamql/executor/expr"
	"streamql/executor/flow"
	"streamql/executor/sinkstream"
	"streamql/executor/strategy"
	"streamql/executor/vector"
	"streamql/planner/plan"
)

// Stats counts what a job did.
type Stats struct {
	Rows int64 // rows decoded from the probe (FROM) stream
	// Streams counts malformed rows per stream read (the FROM stream first, then
	// build sides), for the stderr summary of SPEC 1.
	Streams []*StreamErrors
	// Late counts the late rows of each windowed query (SPEC 2.4), in branch order.
	Late []*LateRows
	// Analysis is what each operator did (EXPLAIN ANALYZE, SPEC 3; analyze.go),
	// set once the job has ended, also after a failure; nil when the job
	// failed before it started (a source that could not be opened).
	Analysis *Analysis
	// timed: the operators time their calls (OpStats.Nanos, EXPLAIN
	// ANALYZE's ms); a job that only runs skips the clock, two reads a call
	timed bool
	// Parts are the stats of the jobs of the derived relations the job
	// read (SPEC 2.6: subqueries, WITH names, views, UNION ALL parts, and
	// the relations they read in turn), by part, each taken when the part
	// ended, for EXPLAIN ANALYZE's lines of them (plan.Line.Part); nil
	// when the job read none
	Parts map[*plan.Job]*Stats
}

// StreamErrors is the count of malformed rows of one stream in a job, with the
// stream's errors policy and errors side output name.
type StreamErrors struct {
	Stream    string
	Malformed int64
	Policy    string // side, skip or fail
	Side      string
	// DeadLetter is the sink stream that gets the malformed rows instead of
	// the errors side output ('errors.stream', SPEC 2.5), "" when none.
	DeadLetter string
}

// malformed counts one malformed row of stream st and returns the stream's
// 'errors' policy (SPEC 1), for the aggregate (aggregate.Options.Malformed).
func (s *Stats) malformed(st *catalog.Stream) string {
	es := s.stream(st)
	es.Malformed++
	return es.Policy
}

func (s *Stats) stream(st *catalog.Stream) *StreamErrors {
	es := plan.ErrorsStream(st) // (a relation's refusals go by the errors options of the stream its rows come from, and are counted as its)
	for _, e := range s.Streams {
		if e.Stream == es.Name {
			return e
		}
	}
	c := es.Shared()
	e := &StreamErrors{Stream: es.Name, Policy: c.Errors, Side: c.ErrorsSide, DeadLetter: c.ErrorsStream}
	s.Streams = append(s.Streams, e)
	return e
}

// errorsName is the stream an errors row or a job's row error names for a
// row of st (SPEC 1: the errors output's stream column): st itself when
// declared; for a row of a derived relation (SPEC 2.6) that the relation's
// reader refuses or fails on, the stream the relation's rows come from
// (plan.ErrorsStream, whose errors options the row goes by), the row's
// position then naming the relation ("v row 2", derivedSource.Position).
func errorsName(st *catalog.Stream) string { return plan.ErrorsStream(st).Name }

// handleBad applies the errors policy (SPEC 1: side, skip or fail) to the
// malformed rows of a batch of n good rows and returns how many good rows to
// route: all of them, or for 'fail' those before the first bad row, with a
// *RowError. For 'side' it appends the rows for the errors side output to
// *out. It counts nothing: the caller counts the malformed rows it used
// (countBad), once it knows which.
func handleBad(st *catalog.Stream, src Source, bad []BadRow, n int, policy string, out *[]ErrorRow) (int, error) {
	switch policy {
	case "fail":
		return bad[0].Index, &RowError{Stream: errorsName(st), Position: src.Position(bad[0].Line), Reason: bad[0].Reason}
	case "skip":
		return n, nil
	}
	for _, x := range bad {
		*out = append(*out, ErrorRow{Stream: errorsName(st), Position: src.Position(x.Line), Raw: x.Raw, Error: x.Reason, At: x.Index})
	}
	return n, nil
}

// admitBad is what every source driver does with the malformed rows bad
// of a batch of n good rows that its source read (process.batch, the
// event-time join's heldScheduler.push): it drops those a replay reads
// again (rep, nil: none; I3: they went to their errors output already,
// replay.filterBad), applies the errors policy to the rest (handleBad,
// appending the 'side' rows to *out) and returns the rest, how many good
// rows to route, and the *RowError of 'errors'='fail'.
func admitBad(rep *replay, st *catalog.Stream, src Source, bad []BadRow, n int, policy string, out *[]ErrorRow) ([]BadRow, int, error) {
	bad = rep.filterBad(bad)
	if len(bad) == 0 {
		return bad, n, nil
	}
	n, failure := handleBad(st, src, bad, n, policy, out)
	return bad, n, failure
}

// countBad returns how many of n malformed rows of a batch a job that read
// them all met under its errors policy: every one, or for 'fail' the first
// (the rows after it are not read).
func countBad(policy string, n int) int64 {
	if policy == "fail" {
		return int64(min(n, 1))
	}
	return int64(n)
}

// RowError is flow.RowError: the failure of a job whose stream has
// 'errors'='fail' (SPEC 1).
type RowError = flow.RowError

// Run runs job: it opens every source first (so a source that cannot be opened
// fails the job before any output is printed), then creates the sink with
// newSink, reads the build sides whole (SPEC 2.2), and pushes routed batches to the
// sink until the source ends, the main query's LIMIT is reached, ctx is cancelled
// (ctx.Err() is returned), or an error occurs (*RowError for 'errors'='fail', or a
// source's read error, or a *StateLimitError when the state of its joins passes
// env.StateMaxBytes). Once created, the sink is always closed, so what was
// routed before a failure stays.
func Run(ctx context.Context, job *plan.Job, env *Env, newSink func() (Sink, error)) (Stats, error) {
	return runWith(ctx, job, env, newSink, runMode{sinks: true})
}

// runMode is how runWith runs a job.
type runMode struct {
	// sinks false: the job's sink streams and dead-letter streams are not
	// opened (Analyze: outputs discarded)
	sinks bool
	// timed: the operators time their calls (Stats.timed)
	timed bool
	// inner: the job is a part of a derived relation (derived.go), which
	// does not take the session's live status (the reading job has it)
	inner bool
	// buildSide: the job is a part of a derived relation read as a join's
	// build side, so its own sources are too (openOpts.buildSide)
	buildSide bool
	// budget is the 'state.max-bytes' budget of the job this one is a part
	// of (derived.go: a derived relation's jobs charge the reading job's
	// budget, so one statement's state is bounded once, SPEC 1); nil: the
	// job opens its own
	budget *StateBudget
	// tees are the fan-outs of the job this one is a part of (tee.go: its
	// reads of a stream that can be read once are readers of that job's
	// tee); nil: the job makes its own of its plan.Job.Tees
	tees *teeSet
	// once is the malformed rows' reporter of the job this one is a part
	// of (reportonce.go); a job not inner makes its own
	once *reportOnce
	// marks: the job's sink reads Step.Marks, where its stream's watermark
	// moved (a derived relation's part whose rows carry the stream's
	// watermark beside their partitions', plan.Derived.StreamWatermarks)
	marks bool
	// gate is the gate of the derived relation's part this job is
	// (derivedhandback.go), which its main source goes under when it hands
	// back (stdin); nil for any other job
	gate *derivedGate
	// cut: the job is a part of a derived relation that a LIMIT of a
	// relation around it may stop before its end (plan.Opens.Cut); its own
	// LIMIT, when it is a part, cuts its reads too (reportonce.go)
	cut bool
}

// opContext is what a job's operators get when the job is built (issue 22
// item 4, DESIGN "operator context at build time"), not through the
// context.Context, which carries cancellation only.
type opContext struct {
	// live is the session's live status the job updates (nil: none)
	live *Live
	// chunkSize is the bytes of a chunk of the parallel paths over a
	// bounded file (Env.ChunkSize; 0: chunked.DefaultChunkSize)
	chunkSize int64
	// exprs is the job's expression context: its record of failed calls
	// (expr.Context), taken after each batch and at the stream's end
	exprs *expr.Context
	// marks: the watermark assigner fills Step.Marks for the sink
	// (runMode.marks)
	marks bool
}

// runWith is Run, run as mode says.
func runWith(ctx context.Context, job *plan.Job, env *Env, newSink func() (Sink, error), mode runMode) (Stats, error) {
	st := job.Stream
	sinks, timed := mode.sinks, mode.timed
	stats := Stats{timed: timed}
	max := env.StateMaxBytes
	if max == 0 {
		max = DefaultStateMaxBytes
	}
	budget := mode.budget
	if budget == nil {
		setHeapLimit(env, max)
		budget = NewStateBudget(max)
	}
	tees, once := mode.tees, mode.once
	if tees == nil {
		tees = newTeeSet(ctx, job, budget)
		defer tees.close() // (after the sources' Close below: the readers have ended)
	}
	if !mode.inner {
		once = newReportOnce(job, tees)
	}
	cut := mode.cut || mode.inner && job.Main != nil && job.Main.Limit >= 0                                     // (plan.Opens.Cut)
	hub := &derivedHub{job: job, stats: &stats, budget: budget, tees: tees, once: once, timed: timed, cut: cut} // for the sources of derived relations (SPEC 2.6)
	oc := opContext{live: env.live, chunkSize: env.ChunkSize, exprs: expr.NewContext(), marks: mode.marks}
	opens := openOpts{hub: hub, buildSide: mode.buildSide, exprs: oc.exprs} // how the job opens its sources
	if mode.inner {
		oc.live = nil // (a derived relation's job: the reading job has the live status)
	}
	an := newAnalysis(job)
	stats.stream(st)
	var joins []*plan.Branch
	for _, b := range job.AllBranches() {
		if b.Join != nil {
			joins = append(joins, b)
		}
	}
	var srcs []opened
	closeSources := func() {
		for _, s := range srcs {
			s.src.Close()
		}
		srcs = nil
	}
	defer closeSources()
	for _, b := range joins {
		bo := opens
		bo.buildSide = true
		o, err := env.openWith(ctx, b.Join.Build, bo) // read whole (SPEC 2.5: every partition)
		if err != nil {
			return stats, err
		}
		srcs = append(srcs, o)
	}
	var src opened     // the probe stream's (a composite source, a join's or an UNNEST's, declares no capability)
	var js *joinSource // the job reads a join of two streams (SPEC 2.7)
	if job.Main == nil || job.Main.Limit != 0 {
		var err error
		switch {
		case job.Both != nil:
			if js, err = newJoinSource(ctx, job, env, &stats, budget, opens); err == nil {
				src.src, src.left = js, js.swapLeft()
				js.liveAt(oc.live)
			}
		case job.Unnest != nil: // CROSS JOIN UNNEST (SPEC 2.10)
			var us *unnestSource
			if us, err = newUnnestSource(ctx, job, env, opens); err == nil {
				src.src = us
				src.h.Partitions = us.partitions() // (its watermark per partition of its input, SPEC 2.5: stampPartsSel carries the rows' stamps)
			}
		default:
			// a source that keeps state (upsert-kafka's rows per key, SPEC 2.8) charges the job's budget
			po := opens
			po.account = func(op, what string) connector.StateAccount { return budget.Account(op, what) }
			src, err = env.openWith(ctx, st, po)
		}
		if err != nil {
			return stats, err
		}
		src = mode.gate.gate(src) // (a derived relation's part over stdin hands back what its reader did not use)
		srcs = append(srcs, src)
	}
	sink, err := newSink()
	if err != nil {
		return stats, err
	}
	if sinks {
		all, err := sinkstream.Open(ctx, job, env.connEnv(), sink)
		if err != nil {
			sink.Close()
			return stats, err
		}
		sink = all
	}
	if js != nil {
		js.sink = sink
		newJoinReplays(js) // (joinreplay.go: a join over Kafka topics in a consumer group)
		if timed {
			an.setBoth(js)
		}
	}
	hub.sink = sink
	stats.Analysis = an
	err = runJob(ctx, oc, job, src, srcs, joins, sink, &stats, budget)
	an.finish(job)
	if err != nil {
		sinkstream.Abort(sink) // an exactly-once sink drops the failed job's open transaction
	}
	if cerr := sink.Close(); err == nil {
		err = cerr
	}
	// The sources close after the sink: a Kafka sink's transaction (its
	// sources' offsets in it) is aborted or committed while the consumer
	// still holds its partitions (executor/connector/kafka). They close
	// before stats is returned: a derived relation's parts stopped at a
	// LIMIT's cut add their counts as they close (derivedSource.Close).
	closeSources()
	return stats, err
}

// runJob runs job over its opened sources (src the probe stream, srcs the build
// sides of joins, in order) into sink; budget bounds the state of its operators
// (SPEC 1: 'state.max-bytes'); oc is what its operators get at build time.
func runJob(ctx context.Context, oc opContext, job *plan.Job, src opened, srcs []opened, joins []*plan.Branch, sink Sink, stats *Stats, budget *StateBudget) error {
	if src.src == nil { // LIMIT 0 reads nothing (SPEC 2.2)
		return nil
	}
	keysets := map[*plan.Branch]*semiBuild{}
	var timed []*timedBuild
	lv := oc.live
	lv.start(job, budget) // the FROM stream's watermark first
	for k, b := range joins {
		acct := budget.Account(joinName(b.Join), "distinct build keys of stream "+b.Join.Build.Name)
		ks := newSemiBuild(b.Join, acct, oc.exprs)
		keysets[b] = ks
		stats.Analysis.addJoin(job, b, ks)
		srcs[k] = futureBuild(stats.Analysis, b, srcs[k], oc.exprs) // 'watermark.max-future' (maxfuture.go)
		es := readErrors(stats, b.Join.Build, srcs[k])
		if b.Join.EventTime() {
			ks.live = lv.watermark(b.Join.Build.Name, b.Join.Build.Columns[b.Join.BuildTime].Type)
			timed = append(timed, &timedBuild{j: b.Join, port: Port{Input: k + 1}, src: srcs[k].src, mb: ks, es: es})
			continue
		}
		emit := func(rows []ErrorRow) error { return sink.Errors(es.Side, rows) }
		if err := readBuild(ctx, b.Join, Port{Input: k + 1}, srcs[k].src, ks, es, emit); err != nil {
			return err
		}
	}
	if len(timed) > 0 {
		held := budget.Account("the event-time join "+timed[0].j.Text, "held rows of stream "+job.Stream.Name)
		if lv != nil {
			lv.held.Store(held)
		}
		src = futureProbe(stats.Analysis, job, src, oc.exprs) // 'watermark.max-future' (maxfuture.go)
		return runEventJoin(ctx, oc, job, src, sink, stats, keysets, timed, held)
	}
	return runBudget(ctx, oc, job, src, sink, stats, keysets, budget)
}

// runBudget is run with the state budget of the job's aggregate operators.
func runBudget(ctx context.Context, oc opContext, job *plan.Job, src opened, sink Sink, stats *Stats, joins map[*plan.Branch]*semiBuild, budget *StateBudget) error {
	p := &process{}
	opts := chainOpts{}
	if job.HasAggregates() { // SPEC 2.4: the aggregate operator after the router
		opts = aggChain(job, budget, stats, &p.agg, false, oc.live, oc.exprs)
	}
	opts.budget, opts.stats, opts.exprs, opts.marks = budget, stats, oc.exprs, oc.marks
	p.init(job, src, sink, stats, joins, opts)
	p.rep = newReplay(src.h.Replayer, p.c, p.agg, job) // a group source rebuilds the aggregate's state by reading again
	if js, ok := src.src.(*joinSource); ok && js.rewrite {
		switch {
		case p.agg != nil:
			p.rep = newJoinAggReplay(js, p.c, p.agg) // (joinreplay.go: the aggregate after a replayed join)
		case p.c.rank != nil:
			p.rep = newJoinRankReplay(js, p.c, p.c.rank) // (joinreplay.go: the Top-N after a replayed join)
		}
	}
	if m := p.c.assign.max; m != nil {
		m.rep = p.rep // (a replayed row refused again is not sent again)
	}
	stats.Analysis.setChain(p.c, p.agg)
	p.c.assign.live = oc.live.probe(job)
	if job.Strategy == plan.LookupMorsel {
		if ran, err := runLookupMorsel(ctx, oc, job, src, sink, p); ran { // lookupmorsel.go
			return err
		}
	}
	if js, ok := src.src.(*joinSource); ok && job.Strategy == plan.PipelinedJoin {
		if ran, err := runJoinPipe(ctx, job, js, p); ran { // joinpipe.go
			return err
		}
	}
	// The planner's strategy (plan.Strategy, planner.ChooseStrategy), with
	// each one's fallback when the source cannot be cut into chunks.
	switch job.Strategy {
	case plan.ParallelAggregate, plan.Morsel, plan.ParallelDecode, plan.Prefetch:
		if job.Strategy == plan.ParallelAggregate {
			if ran, err := runParagg(ctx, oc, job, src, p); ran { // paragg.go
				return err
			}
		}
		if job.Strategy == plan.Morsel {
			if ran, err := runMorsel(ctx, oc, job, src, sink, p, joins); ran { // morsel.go
				return err
			}
		}
		if job.Strategy != plan.Prefetch {
			if cr := strategy.ParallelReader(job.BatchTypes, job.OnlyAggregates(), src.h.Parallel); cr != nil {
				return strategy.Chunked(ctx, cr, p.batch)
			}
		}
		return strategy.Prefetch(ctx, job.BatchTypes, job.OnlyAggregates(), job.PrefetchDeep(), src.src, p.batch)
	}
	b := vector.NewBatch(job.BatchTypes)
	b.NoText = job.OnlyAggregates()
	if js, ok := src.src.(*joinSource); ok {
		// the join's scheduler reads its inputs' ports and pushes the
		// joined rows into the chain (joinSource.run: the push shape)
		return js.run(ctx, b, p.batch)
	}
	var bad []BadRow
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		bad = bad[:0]
		err := src.src.Next(b, &bad)
		if end, err := p.batch(ctx, b, bad, err); end {
			return err
		}
	}
}

// process is the source driver of run on the job's goroutine: it applies the
// errors policy to what the source gave and pushes the batch into the job's
// chain of operators (build.go: watermark, routing, the sink).
type process struct {
	st   *catalog.Stream
	src  Source
	sink Sink
	c    *chain
	es   *StreamErrors
	in   *Step // the batch pushed into the chain
	rows *int64
	agg  *aggregate.Operator // the aggregate operator (SPEC 2.4), nil when none
	rep  *replay             // a Kafka group source's replay of the aggregate's state (replay.go), nil when none
	// exprs is the job's expression context (opContext.exprs), and fails
	// the failed calls taken from it after a batch (reused)
	exprs *expr.Context
	fails []expr.Failure
}

// init sets p up to push src's batches into the chain of job built with opts
// (build.go), whose watermark assigner keeps one watermark per partition when
// src is partitioned (Kafka, SPEC 2.5).
func (p *process) init(job *plan.Job, src opened, sink Sink, stats *Stats, joins map[*plan.Branch]*semiBuild, opts chainOpts) {
	p.st, p.src, p.sink, p.exprs = job.Stream, src.src, sink, opts.exprs
	opts.src, opts.parts, opts.left, opts.timed = src.src, src.h.Partitions, src.left, stats.timed
	p.c = buildChain(job, joins, sink, opts)
	p.es = readErrors(stats, job.Stream, src)
	if job.Both != nil { // (a window over a join planned as one job: its refusals go by the left input's errors options)
		c := job.ErrorsConfig()
		p.es.Policy, p.es.Side, p.es.DeadLetter = c.Errors, c.ErrorsSide, c.ErrorsStream
	}
	if p.c.assign.max != nil {
		p.c.assign.max.es = p.es
	}
	p.in = newStep(p.es.Side) // (the errors output of the stream the rows come from: a relation has none of its own, plan.ErrorsStream)
	p.rows = &stats.Rows
}

// batch handles what one call of the source's Next gave: the batch b with its
// malformed rows bad, and Next's error err. It reports whether the job ends,
// and with which error (nil: the source ended or the LIMIT was reached).
//
// The batch's rows are counted here, once, after the chain has taken them
// (SPEC 3, EXPLAIN ANALYZE's "read"; SPEC 1's malformed rows): the rows used,
// which are every row of the batch, or those up to the row where the main
// query's LIMIT ended the job (stateless.Limit.EndedAt), or those up to the row that
// failed the job ('errors'='fail').
func (p *process) batch(ctx context.Context, b *vector.Batch, bad []BadRow, err error) (bool, error) {
	if err == io.EOF {
		err := p.c.head.Finish(ctx)
		if errors.Is(err, errLimitReached) { // (the windows fired at the stream's end gave the main query its LIMIT)
			err = nil
		}
		if ferr := p.failures(nil); ferr != nil && (err == nil || errors.Is(err, errCallFailed)) { // (calls in the windows fired at the end)
			err = ferr
		}
		return true, err
	}
	if errors.Is(err, ErrWaiting) {
		if ferr := p.sink.Flush(); ferr != nil {
			return true, ferr
		}
		return false, nil
	}
	if err != nil {
		return true, err
	}
	in := p.in
	in.Errors.Rows = in.Errors.Rows[:0]
	bad, limitRows, failure := admitBad(p.rep, p.st, p.src, bad, b.N, p.es.Policy, &in.Errors.Rows)
	in.SelectRows(b, 0, limitRows)
	perr := p.c.head.Push(ctx, Port{}, in)
	if ferr := p.failures(b); ferr != nil && (perr == nil || errors.Is(perr, errCallFailed)) {
		perr = ferr
	}
	if cerr := ctx.Err(); cerr != nil && errors.Is(perr, cerr) {
		// cancelled before the batch was routed: none of it was used (its
		// rows count as read, its malformed rows do not)
		*p.rows += int64(b.N + len(bad))
		if u, ok := p.src.(Unreader); ok {
			u.Unread(0)
		}
		return true, perr
	}
	done := errors.Is(perr, errLimitReached) // (the LIMIT's, or a Top-N's own, rank.go)
	if done {
		perr = nil
	}
	last, ended := p.c.limit.EndedAt()
	rows, malformed := int64(b.N+len(bad)), countBad(p.es.Policy, len(bad))
	switch {
	case done && ended && last >= 0:
		// the LIMIT's last row is the last row used, with the malformed
		// rows before it
		nb := 0
		for nb < len(bad) && bad[nb].Index <= last {
			nb++
		}
		if nb == 0 {
			failure = nil // (the failing row comes after the LIMIT's end)
		}
		rows, malformed = int64(last+1+nb), countBad(p.es.Policy, nb)
		if u, ok := p.src.(Unreader); ok {
			u.Unread(last + 1) // the next job reading stdin starts after the last row used
		}
	case failure != nil && perr == nil:
		rows = int64(bad[0].Index + 1)
	}
	*p.rows += rows
	p.es.Malformed += malformed
	if perr != nil {
		return true, perr
	}
	if failure != nil {
		if u, ok := p.src.(Unreader); ok {
			u.UnreadAfter(bad[0].Index, 1) // the next job reading stdin starts after the failing row
		}
		return true, failure
	}
	return done, nil
}

// oneRow is the source of a SELECT without FROM (SPEC 2: it gives one row): one
// row of no columns, then io.EOF.
type oneRow struct{ done bool }

func (s *oneRow) Next(b *vector.Batch, _ *[]BadRow) error {
	if s.done {
		return io.EOF
	}
	s.done = true
	b.Reset()
	b.N, b.Pos[0] = 1, 1
	return nil
}

func (s *oneRow) Position(line int64) string { return fmt.Sprintf("row %d", line) }

func (s *oneRow) Progress() (int64, int64) { return 0, 0 }

func (s *oneRow) Close() error { return nil }
