package planner

import "streamql/planner/plan"

// ruleEncodeAhead reports whether job's main output gets an encoder
// goroutine of its own (plan.Job.EncodeAhead; issue 24's GROUP BY goal,
// docs/performance.md "The unbounded GROUP BY's three goroutines"): an
// updating main output (SPEC 2.8: an unbounded GROUP BY, a Top-N, an outer
// join's changes) printed to stdout, not a late output, whose columns are
// all flat (catalog.Type.IsFlat: copied value by value into the encoder's
// batches), when env.Procs >= 2 (on one CPU the goroutine would only add
// the copy, as decoding ahead would: plan.Job.Prefetchable). Its changelog
// then costs the job's goroutine about as much as aggregating did, so the
// lines are encoded and written on another. The frontend applies it when it
// prints csv or tsv lines, not on a terminal, and keeps the rows on the
// job's goroutine while a side row waits for a main row's end (the
// command line's cut log): what the plan cannot know.
func ruleEncodeAhead(job *Job, env plan.StrategyEnv) bool {
	if env.Procs < 2 || job.Main == nil || len(job.Outputs) == 0 {
		return false
	}
	o := job.Outputs[0]
	if !o.Updating || o.Late || o.Sink != nil {
		return false
	}
	for _, c := range o.Columns {
		if !c.Type.IsFlat() {
			return false
		}
	}
	return true
}
