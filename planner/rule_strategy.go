package planner

import (
	"runtime"

	"streamql/planner/plan"
)

// ChooseStrategy is the planner's strategy rule (issue 22 item 1): it sets
// job.Strategy, how the executor runs the job, from the plan and env (the
// CPUs and 'state.max-bytes'), so that EXPLAIN prints the strategy the job
// will take. The first that fits, in this order:
//   - Held: a branch has an event-time semi or anti join (SPEC 2.2);
//   - for a join of two streams (SPEC 2.7): LookupMorsel for a lookup join
//     when env.Procs >= 2 and plan.Job.LookupMorselable (its left input a
//     bounded file whose rows the probe takes as they are, its queries
//     stateless); else ParallelJoinInputs for a lookup
//     join when env.Procs >= 2 and plan.Job.JoinInputsSplittable (an input
//     is a bounded file); PipelinedJoin for an interval join when env.Procs
//     >= 2 and plan.Job.JoinPipelinable (two bounded files, nothing after
//     the join that keeps state or calls a function): its inputs decoded
//     ahead, the join and the encoding on goroutines of their own, the
//     batches Sequential's (decoding the inputs in chunks, in parallel, cost
//     about 10% more CPU and 10 MiB for no gain in wall time while the
//     join's goroutine also encoded: docs/performance.md); Sequential
//     otherwise (the joined rows are the join's, made on the job's
//     goroutine; a regular or temporal join);
//   - Sequential: the source is live (not a bounded file), env.Procs < 2,
//     the stream has computed columns (SPEC 1), or its rows fan out to
//     every branch (plan.Job.Fanout: a Kafka stream in a consumer group,
//     which is live anyway);
//   - ParallelAggregate: plan.Job.ParallelAggregatable, with 'state.max-bytes'
//     at least plan.ParallelAggregateStateFloor;
//   - Morsel: plan.Job.Morselable;
//   - ParallelDecode otherwise.
//
// A job whose stream has 'watermark.max-future' takes ParallelDecode instead
// of ParallelAggregate or Morsel (maxFutureStrategy).
//
// The executor's run-time fallbacks (a file under two chunks, a table output
// format) are the strategies' own (plan.Strategy's constants).
//
// It also sets job.EncodeAhead (ruleEncodeAhead), the main sink's strategy.
func ChooseStrategy(job *Job, env plan.StrategyEnv) {
	job.Strategy, job.Procs = maxFutureStrategy(job, strategyOf(job, env)), env.Procs
	job.EncodeAhead = ruleEncodeAhead(job, env)
}

func strategyOf(job *Job, env plan.StrategyEnv) plan.Strategy {
	switch {
	case job.HasEventTimeJoin():
		return plan.Held
	case job.Both != nil:
		switch {
		case job.Both.Lookup && env.Procs >= 2 && job.LookupMorselable():
			return plan.LookupMorsel
		case job.Both.Lookup && env.Procs >= 2 && job.JoinInputsSplittable():
			return plan.ParallelJoinInputs
		case env.Procs >= 2 && job.JoinPipelinable():
			return plan.PipelinedJoin
		}
		return plan.Sequential
	case job.Unnest != nil: // the unnesting source reads the stream row by row (executor/unnest.go)
		return plan.Sequential
	case !job.Prefetchable(env.Procs) || job.Stream.HasComputed() || job.Fanout:
		// (computed columns are computed by the source's wrapper, which the
		// parallel paths, decoding chunks of a file themselves, do not take)
		return plan.Sequential
	case job.ParallelAggregatable() && (env.StateMaxBytes <= 0 || env.StateMaxBytes >= plan.ParallelAggregateStateFloor):
		return plan.ParallelAggregate
	case job.Morselable():
		return plan.Morsel
	}
	return plan.ParallelDecode
}

// DefaultStrategyEnv is the StrategyEnv of a process as it runs now: its
// GOMAXPROCS and the default 'state.max-bytes'.
func DefaultStrategyEnv() plan.StrategyEnv {
	return plan.StrategyEnv{Procs: runtime.GOMAXPROCS(0)}
}
