package plan

import (
	"time"

	"streamql/catalog"
)

// RankKind is which of SPEC 2.9's operators a Rank is.
type RankKind uint8

// The operators of SPEC 2.9, as the executor's executor/op builds them.
const (
	RankTopN       RankKind = iota // Top-N, and deduplication keeping the last row: updating
	RankDedup                      // deduplication keeping the first row by event time: append-only
	RankWindowTopN                 // window Top-N / window deduplication: append-only, at firing
	RankOver                       // OVER aggregation: append-only
	RankSort                       // ORDER BY [LIMIT] over a bounded input: sorted at its end
	RankTimeSort                   // ORDER BY the event time over an unbounded input
)

// NodeKind is the kind of the plan tree's node for the operator (EXPLAIN).
func (k RankKind) NodeKind() NodeKind {
	switch k {
	case RankDedup:
		return NodeDedup
	case RankWindowTopN:
		return NodeWindowTopN
	case RankOver:
		return NodeOver
	case RankSort, RankTimeSort:
		return NodeSort
	}
	return NodeTopN
}

// The ranking functions (Rank.Func), as executor/op's RankFunc numbers them.
const (
	RankRowNumber = 0
	RankRank      = 1
	RankDense     = 2
)

// RankKey is one ORDER BY item of a Rank: a column of its input, and DESC.
type RankKey struct {
	Col  int
	Desc bool
}

// OverCall is one aggregate of an OVER aggregation: a function of SPEC 2.4
// and the input column of its argument (-1 for COUNT(*)).
type OverCall struct {
	Spec AggSpec
	Arg  int
}

// Rank is the operator of SPEC 2.9 that a main query ends with (Branch.Rank):
// Top-N, deduplication, window Top-N, OVER aggregation or ORDER BY. Its input
// is the branch's projected row (Branch.Project, which then holds, after the
// query's own columns, the hidden columns the operator reads: partition and
// order keys, the event time, CURRENT_WATERMARK); its output is that row,
// then the rank (RankNumber) or the OVER aggregates; Output picks the query's
// columns (Branch.Columns) from it.
type Rank struct {
	Kind      RankKind
	Types     []catalog.Type   // the input's columns (Branch.Project's types)
	InColumns []catalog.Column // their names (hidden ones start with $)
	Keys      []int            // PARTITION BY columns (window Top-N: the others than the window's)
	Order     []RankKey
	N         int64 // Top-N: the largest rank kept
	Func      int   // RankRowNumber, RankRank or RankDense
	// RankNumber: the output has the rank as a column (Flink's no-ranking-
	// number optimisation otherwise). NewerFirst: ties go newest first
	// (deduplication keeping the last row).
	RankNumber, NewerFirst bool
	// Time is the event-time column, Stamp the CURRENT_WATERMARK column
	// (-1 when none: the rows of a window aggregate); Start and End the
	// window Top-N's window columns.
	Time, Stamp, Start, End int
	// Range and Preceding are an OVER frame: RANGE of Preceding ms, or ROWS
	// of Preceding rows; Calls its aggregates. Arrival: the OVER is ordered
	// by a processing-time column (Flink's proctime OVER): each row is
	// handled as it arrives, its frame the rows of its partition before it
	// in arrival order (op.OverSpec.Arrival); Time is then that column.
	Range     bool
	Preceding int64
	Calls     []OverCall
	Arrival   bool
	// Limit is ORDER BY's LIMIT (-1: none).
	Limit int64
	// Output maps the query's columns to the operator's output columns.
	Output []int
	// Updating: the operator's result changes (SPEC 2.8); Bounded: its input
	// ends, so the executor gives the final result at the end.
	Updating, Bounded bool
	// Retract: a Top-N whose input is updating (an unbounded GROUP BY, a
	// CDC or upsert stream, SPEC 2.8): its -U and -D rows take back rows
	// it holds, so it keeps every live input row, not only the top N
	// (op.RetractTopN, as Flink's RetractableTopNFunction); over a
	// bounded input too (a CDC file), whose final result it gives at the
	// end.
	Retract bool
	// LateOutput indexes Job.Outputs: where rows below the watermark go
	// (Dedup, Over, TimeSort; SPEC 2.9), set by the planner; -1 when none.
	LateOutput int
	// LateCols are the input columns that hold the stream's row, for the
	// late rows of a window Top-N over a window TVF (rows of a window that
	// fired); nil otherwise.
	LateCols []int
	// LateProject, when not nil, makes each late row of a deduplication
	// the row of the relation the query read (SPEC 2.4, 2.9: the
	// operator's input row, as SELECT *, of a view, subquery or WITH
	// relation that only filters and projects the job's stream, planned
	// over the stream by the planner's ruleInlineView): the relation's
	// select list over the job's source batch, one expression per column
	// of LateColumns, which are the relation's columns and the late
	// output's (as Aggregate.LateProject). nil: a late row is the batch's
	// stream columns as they are.
	LateProject []*Expr
	LateColumns []catalog.Column
	// Text is EXPLAIN's line for the operator; State what its state holds.
	Text, State string
	// StateTTL is 'table.exec.state.ttl' (SPEC 2.8) for a Top-N over an
	// unbounded input, append-only or updating (a partition no row touched
	// while processing time advanced by it is dropped: op.TopN,
	// op.RetractTopN) and for deduplication keeping the first row (a key
	// is forgotten once the watermark is that far past its row); 0 keeps
	// state for ever.
	StateTTL time.Duration
	// PosOrder, on a bounded Top-N after a BothJoin.Swap, gives the final
	// result's partitions in the order of their first rows' positions
	// (op.TopNSpec.PosOrder), the lookup join's order of its left rows.
	PosOrder bool
	// Thin, with PosOrder, are the input columns the Top-N does not store
	// when the join before it (BothJoin.Swap) finds its left keys unique:
	// each a copy of the join's left input column ThinFrom[x] (its index
	// in JoinInput.Types), neither a partition key nor an ORDER BY column;
	// the final result takes them from the join's kept left rows
	// (op.TopN.Fill, op.Join.LeftColumns). nil: every column is stored.
	Thin, ThinFrom []int
	// Where and Calc are the query over the operator fused into its job
	// (the planner's ruleFuseRankCalc: a condition beside the rank's bound,
	// WHERE rn <= 3 AND n > 5, or an expression in the select list over a
	// Top-N, Flink's Calc over a Rank), each over Output's columns (the
	// relation the query read: OpCol k is its column k): Where keeps a
	// change when true (a filter passes each row's kind, SPEC 2.8), Calc
	// computes the branch's columns (Branch.Columns) from the kept ones.
	// Both nil when no query is fused: Output's columns are the branch's.
	Where *Expr
	Calc  []*Expr
}

// Fused reports whether a query over the operator is fused into its job
// (Where, Calc).
func (r *Rank) Fused() bool { return r.Where != nil || r.Calc != nil }
