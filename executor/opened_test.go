package executor

import (
	"context"

	"streamql/executor/connector"
	"streamql/planner/plan"
)

// testOpened is src opened as the stream of a test, whose source is no
// registered connector's: its handles are what src implements, as a
// connector declaring those capabilities would have them bound
// (connector.BindSource).
func testOpened(src Source) opened {
	if src == nil {
		return opened{}
	}
	var h SourceHandles
	h.Partitions, _ = src.(connector.PartitionedSource)
	h.Meta, _ = src.(connector.MetaSource)
	h.Replayer, _ = src.(connector.Replayer)
	h.Topic, _ = src.(connector.TopicSource)
	h.Parallel, _ = src.(connector.ParallelSource)
	h.HandsBack, _ = src.(connector.HandsBack)
	return opened{src: src, h: h}
}

// testOpeneds is testOpened of each of srcs.
func testOpeneds(srcs ...Source) []opened {
	var out []opened
	for _, s := range srcs {
		out = append(out, testOpened(s))
	}
	return out
}

// run runs job over src into sink with no state limit (runBudget), src's
// handles what it implements (testOpened).
func run(ctx context.Context, job *plan.Job, src Source, sink Sink, stats *Stats, joins map[*plan.Branch]*semiBuild) error {
	return runBudget(ctx, opContext{}, job, testOpened(src), sink, stats, joins, NewStateBudget(0))
}
