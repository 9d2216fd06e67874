package executor

import (
	"iter"
	"math"

	"streamql/executor/vector"
)

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

// Segment is one step of a routed batch in output order (Merger): a chunk of
// rows an operator made (Chunk), a run of malformed rows bound for the errors
// side output (Bad), or the input rows [From, To), each going to the part
// Dest names (or nowhere, -1). Exactly one of the three is set.
type Segment struct {
	Chunk    *Chunk
	Bad      []ErrorRow
	From, To int
}

// Merger walks a routed batch in its output order (SPEC 4: rows keep their
// input order across outputs, an aggregate's rows come right after the row
// that fired them, SPEC 2.4, and malformed rows at their places, SPEC 1). It
// is the one place that order is written: the CLI's line and chunk encoders,
// the library's output callback, the sink streams and a derived relation's
// capture all read a batch through it. At each place i (0 .. N, and past N
// where a chunk or malformed row is placed after the batch's rows) come first
// the chunks placed there (At <= i), then the malformed rows placed there,
// then, below N, the input rows from i up to the next place a chunk or
// malformed row has. The zero value is not usable: see Routed.Merge.
type Merger struct {
	r          *Routed
	i, ch, bad int
}

// Merge returns a Merger over r, from its start.
func (r *Routed) Merge() Merger { return Merger{r: r} }

// Segments returns r's segments in output order (Merger), for a range loop.
func (r *Routed) Segments() iter.Seq[Segment] {
	return func(yield func(Segment) bool) {
		m := r.Merge()
		for {
			seg, ok := m.Next()
			if !ok || !yield(seg) {
				return
			}
		}
	}
}

// Next returns the next segment of the batch, and false after the last one.
// The segment's slices are r's.
func (m *Merger) Next() (Segment, bool) {
	r := m.r
	for {
		if m.ch < len(r.Chunks) && r.Chunks[m.ch].At <= m.i {
			m.ch++
			return Segment{Chunk: &r.Chunks[m.ch-1]}, true
		}
		if m.bad < len(r.Bad) && r.Bad[m.bad].At <= m.i {
			j := m.bad + 1
			for j < len(r.Bad) && r.Bad[j].At <= m.i {
				j++
			}
			s := Segment{Bad: r.Bad[m.bad:j]}
			m.bad = j
			return s, true
		}
		next := math.MaxInt // the next place a chunk or malformed row has
		if m.ch < len(r.Chunks) {
			next = r.Chunks[m.ch].At
		}
		if m.bad < len(r.Bad) {
			next = min(next, r.Bad[m.bad].At)
		}
		if m.i >= r.N {
			if next == math.MaxInt {
				return Segment{}, false
			}
			m.i = next // (past the batch's rows)
			continue
		}
		s := Segment{From: m.i, To: min(r.N, next)} // (next > m.i: what is at m.i came above)
		m.i = s.To
		return s, true
	}
}
