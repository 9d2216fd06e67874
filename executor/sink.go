package executor

import "streamql/executor/vector"

// Part is what one branch (or the main query) produced from one input batch:
// the input rows it took, ascending, and its projected columns, which hold row
// Sel[k]'s values at index Sel[k] (no compaction). Output indexes Job.Outputs.
type Part struct {
	Output int
	Sel    []int32
	Cols   []*vector.Vec
}

// Routed is one routed input batch. Parts has one entry per side branch in
// declaration order, then one for the main query when there is one. Dest[i] is
// the index into Parts of the part that took input row i, or -1 when no output
// took it; a sink that walks i in order sees rows in input order (SPEC 4). The
// value slices are valid until the sink returns.
//
// Bad holds the batch's malformed rows bound for the errors side output named
// ErrorSide, each with At = the number of good rows before it, so a sink can keep
// input order (SPEC 4).
type Routed struct {
	N         int
	Dest      []int16
	Parts     []Part
	Bad       []ErrorRow
	ErrorSide string
}

// ErrorRow is one malformed row for the errors side output (SPEC 1): the stream,
// position (path:line), raw text without its line end, and the reason.
type ErrorRow struct {
	Stream   string
	Position string
	Raw      []byte
	Error    string
	At       int // in a Routed batch: the number of the batch's rows before it
}

// Sink receives a job's output. Calls come from one goroutine, in order.
type Sink interface {
	// Rows receives one routed batch.
	Rows(r *Routed) error
	// Errors receives malformed rows of a build side bound for its errors side
	// output, named name ('errors' unless 'errors.side' renames it). The probe
	// stream's malformed rows come with Rows, in Routed.Bad.
	Errors(name string, rows []ErrorRow) error
	// Flush is called whenever the source waits for input, so live rows show at once.
	Flush() error
	// Close ends the job's output (renders what is buffered); it is called once,
	// also after a failure, so what was routed before stays.
	Close() error
}
