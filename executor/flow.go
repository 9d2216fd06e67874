package executor

import "streamql/executor/flow"

// The contracts between operators live in executor/flow (issue 22 item 6);
// these names are theirs, kept here for the executor's code and its clients
// (internal/session, the root package), which read a job's output as
// executor.Step, Part, Chunk, Sink and Merger.
type (
	// Port is flow.Port: an input of an operator.
	Port = flow.Port
	// Watermark is flow.Watermark: a watermark event of one port.
	Watermark = flow.Watermark
	// Operator is flow.Operator: one step of a running job.
	Operator = flow.Operator
	// MarkReader is flow.MarkReader: an operator that needs the watermark after each row.
	MarkReader = flow.MarkReader
	// Mark is flow.Mark: a point of a batch where its watermark moved.
	Mark = flow.Mark
	// OpStats is flow.OpStats: one operator's counters (EXPLAIN ANALYZE).
	OpStats = flow.OpStats
	// OpError is flow.OpError: an operator's error, with the operator's name.
	OpError = flow.OpError
	// Emitter is flow.Emitter: an operator's downstream.
	Emitter = flow.Emitter
	// Step is flow.Step: one input batch at one point of the chain.
	Step = flow.Step
	// Part is flow.Part: one output port's rows of a Step.
	Part = flow.Part
	// Chunk is flow.Chunk: rows an operator made, placed at an arrival ordinal.
	Chunk = flow.Chunk
	// ErrorPort is flow.ErrorPort: a Step's malformed rows (SPEC 1).
	ErrorPort = flow.ErrorPort
	// ErrorRow is flow.ErrorRow: one malformed row.
	ErrorRow = flow.ErrorRow
	// BadAt is flow.BadAt: a malformed row's place and source position.
	BadAt = flow.BadAt
	// Sink is flow.Sink: what receives a job's output.
	Sink = flow.Sink
	// Segment is flow.Segment: one step of a Step's output order.
	Segment = flow.Segment
	// Merger is flow.Merger: the one reader of a Step in SPEC 4's order.
	Merger = flow.Merger
	// LateRows is flow.LateRows: the late rows of one windowed query.
	LateRows = flow.LateRows
	// Frontier is flow.Frontier: what a replay needs of one partition's rows in an operator.
	Frontier = flow.Frontier
	// Checkpoint is flow.Checkpoint: a stateful operator's side of a replay.
	Checkpoint = flow.Checkpoint
)

// errLimitReached is flow.ErrLimitReached: the main query's LIMIT ended the job.
var errLimitReached = flow.ErrLimitReached
