package executor

import "streamql/executor/vector"

// Part is what one branch (or the main query) produced from one input batch:
// the input rows it took, ascending, and its projected columns, which hold row
// Sel[k]'s values at index Sel[k] (no compaction). Output indexes Job.Outputs.
//
// Kinds is the changelog contract of every output (SPEC 2.8): row Sel[k]'s
// change kind (+I, -U, +U, -D) is Kinds[Sel[k]], indexed like Cols; nil means
// every row is an insert. An operator whose output is updating (the planner
// marks it: plan.Output.Updating) sets Kinds on the parts and chunks it
// makes, an operator that passes rows through (route, filter, project,
// limit) passes its input batch's vector.Batch.Kinds on unchanged, and every
// sink reads a row's kind with KindAt. Whether an output prints its kinds
// (an `op` column, `+I[...]`) is decided at planning by
// plan.Output.Updating, never by whether a batch happens to carry Kinds.
type Part struct {
	Output int
	Sel    []int32
	Cols   []*vector.Vec
	Kinds  []vector.RowKind
}

// KindAt returns the change kind of row i of p (an index of Sel's): Insert
// when p carries no kinds.
func (p *Part) KindAt(i int) vector.RowKind {
	if p.Kinds == nil {
		return vector.Insert
	}
	return p.Kinds[i]
}

// Routed is one batch of a job on its way through the operators (operator.go):
// first the input rows, then, once the router has routed it, the outputs' rows.
//
// Before the router, In is the decoded input batch and Sel its live rows,
// ascending (the good rows before a failing one); Parts and Dest are not set.
// Marks are the points where the stream's watermark moved, ascending (only
// filled for a chain with a MarkReader, operator.go); the router passes them
// on.
//
// After the router, Parts has one entry per side branch in declaration order,
// then one for the main query when there is one. N is the number of input rows
// and Dest[i] the index into Parts of the part that took input row i, or -1 when
// no output took it; a sink that walks i in order sees rows in input order
// (SPEC 4). Chunks are rows an operator built itself (an aggregate's fired
// windows, SPEC 2.4), in output order: chunk c comes before input row c.At,
// after the rows before it, and before the malformed rows whose At is c.At. The
// value slices are valid until the sink returns.
//
// Bad holds the batch's malformed rows bound for the errors side output named
// ErrorSide, each with At = the number of good rows before it, so a sink can keep
// input order (SPEC 4).
type Routed struct {
	N         int
	Dest      []int16
	Parts     []Part
	Chunks    []Chunk
	Bad       []ErrorRow
	ErrorSide string
	In        *vector.Batch
	Sel       []int32
	Marks     []Mark
}

// Chunk is rows an operator made itself (not input rows), for output
// Part.Output: its rows are Part.Sel, ascending indexes into Part.Cols, in
// output order. At is where they go in the routed batch: the number of its
// input rows before them (as ErrorRow.At), so 0 puts them first and N after
// every input row (SPEC 2.4: a window's rows right after the row that fired it).
type Chunk struct {
	At int
	Part
}

// rowsOut is the number of rows r holds for the outputs (its parts' and
// chunks' rows) once routed, or its live input rows before that.
func (r *Routed) rowsOut() int64 {
	if r.Parts == nil && r.Chunks == nil {
		return int64(len(r.Sel))
	}
	n := 0
	for k := range r.Parts {
		n += len(r.Parts[k].Sel)
	}
	for k := range r.Chunks {
		n += len(r.Chunks[k].Sel)
	}
	return int64(n)
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
