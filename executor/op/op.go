// Package op owns the engine's operators as nodes of an operator graph (issue
// 22 item 3; DESIGN, "The engine's third shape"): an operator takes batches on
// numbered input ports (Push), the watermark of each input (Watermark) and the
// end of each input (Finish), and gives its rows and its own watermark to an
// Emitter, on numbered output ports. Every operator here can be run and tested
// without files, terminals or a planner.
//
// Its first members are the pieces of SPEC 2.7's joins:
//   - Aligner: the one scheduler of a two-input operator's rows, which holds
//     each row until both inputs' watermarks have passed its event time and
//     releases rows in event-time order (equal times: the left input first,
//     then each input in arrival order), so that a join's output does not
//     depend on how its inputs interleave (SPEC 2.7, "Determinism");
//   - Rows: a columnar store of rows copied out of batches (state, held rows),
//     its VARCHAR values in arenas of 64 KiB chunks; a row can be
//     overwritten in place (Set), so that the ranking operators reuse the
//     slots of the rows they release (liveRows, order.go);
//   - Join: the keyed two-input join, INNER, LEFT, RIGHT and FULL, regular or
//     interval, whose output has both sides' columns; a regular one also over
//     updating inputs, whose -U/-D rows retract what they joined (SPEC 2.8,
//     joinretract.go), and an outer one with the other terms of its ON
//     (JoinSpec.Residual); its state keeps only the columns the planner
//     marks (JoinSpec.Keep, keep.go), its joined rows only those the
//     planner passes on (JoinSpec.Pass), and it releases held rows a few
//     batches per call when paced (SetPace, Drain). A key pair matches by
//     SQL's = (a NULL matches nothing), or, marked null-safe
//     (JoinSpec.NullSafe: IS NOT DISTINCT FROM), with NULL matching NULL;
//     so do Temporal's and the MARK join's (MarkLayout.NullSafe).
//   - SemiJoin: SPEC 2.2's semi and anti join (NOT EXISTS, NOT IN), keyed
//     and two-input like Join and sharing its watermark state and output,
//     whose output is left rows in left order, each held until the right
//     watermark has passed it; in its Hold mode (SemiSpec.Hold) it holds
//     the probe rows of the executor's event-time strategy, and the
//     malformed rows between them on an errors port of their own
//     (HoldErrors, each at its ordinal), whose branches' joins the router
//     decides (the executor's semijoin.go), and in its
//     Mark mode (SemiSpec.Mark, semimark.go) it is such a branch's join,
//     DuckDB's MARK join: its build side pushed on port 1 as the columns
//     the executor evaluated, its state the distinct build keys, and the
//     marks ("has a partner") of the rows the router offers the branch
//     (Marks).
//
// and SPEC 2.9's ranking, deduplication and OVER operators (issue 24):
//   - TopN: the updating Top-N (ROW_NUMBER, RANK, DENSE_RANK, with or
//     without the rank column; deduplication keeping the last row), whose
//     batches carry Flink's row kinds (vector.RowKind);
//   - Dedup: deduplication keeping the first row by event time,
//     append-only, emitted as the watermark passes;
//   - WindowTopN: window Top-N and window deduplication, emitted at firing;
//   - Over: OVER aggregation with ROWS and RANGE frames;
//   - Sort and TimeSort: ORDER BY at the end of a query, over bounded input
//     and by the event time over unbounded input.
//
// Each keeps its state in Rows, charged to an Account ('state.max-bytes').
//
// The executor's builder maps plan nodes to these operators. Package op
// imports catalog, executor/vector and executor/agg (the accumulators of
// SPEC 2.4) only: never the planner, the parser, the executor package or a
// connector.
package op

import (
	"context"

	"streamql/executor/vector"
)

// Operator is one node of the running graph. Its methods are called on one
// goroutine, one at a time. A batch given to Push is valid until Push
// returns; the operator copies what it keeps. Errors stop the job.
type Operator interface {
	// Push gives the operator rows 0..b.N-1 of input port.
	Push(ctx context.Context, port int, b *vector.Batch) error
	// Watermark says that input port's watermark is now wm (epoch ms): no
	// row of that input with an event time below wm is on time any more
	// (SPEC 2.3). Watermarks of one port never go down.
	Watermark(ctx context.Context, port int, wm int64) error
	// Finish says that input port has ended.
	Finish(ctx context.Context, port int) error
}

// Emitter receives what an operator gives on its output ports.
type Emitter interface {
	// Emit gives rows 0..b.N-1 on output port; b is valid until Emit
	// returns.
	Emit(ctx context.Context, port int, b *vector.Batch) error
	// EmitWatermark gives the operator's own watermark (epoch ms).
	EmitWatermark(ctx context.Context, wm int64) error
}

// Account is the state budget's account of one operator (executor's
// *StateAccount: 'state.max-bytes', SPEC 1): Grow charges n bytes (negative:
// a release) and returns an error once the job's state passes its budget.
type Account interface {
	Grow(n int64) error
}

// noAccount is the Account of an operator without a budget.
type noAccount struct{}

func (noAccount) Grow(int64) error { return nil }
