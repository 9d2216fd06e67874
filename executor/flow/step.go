package flow

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

// Step is what one input batch of a job is at one point of its chain of
// operators (operator.go): before the router its input rows, after it one
// batch per output port. The merge of the ports into one output order is
// no operator's: every sink reads a Step through a Merger (SPEC 4).
//
// Before the router, In is the decoded input batch (of N rows) and Sel its
// live rows, ascending (the good rows before a failing one); Parts is not
// set. Marks are the points where the stream's watermark moved, ascending
// (only filled for a chain with a MarkReader, operator.go); the router passes
// them on, with In and Sel (an aggregate behind an event-time join reads the
// released rows from Sel).
//
// After the router, Parts has one port per side branch in declaration
// order, then one for the main query when there is one, then the late ports
// an operator adds (a window's or a Top-N's late rows, SPEC 2.4): each is that
// output's batch, its rows' arrival ordinals (their input row numbers, below
// N) in Sel, ascending, and their values at those indexes of Cols. A row is
// in at most one port; an operator that takes a port's rows (an aggregate, a
// Top-N) empties it. Chunks are rows an operator made itself (an aggregate's
// fired windows, SPEC 2.4, a join's rows), each placed at an arrival ordinal
// (Chunk.At). Errors is the errors port: the batch's malformed rows bound for
// the errors side output (SPEC 1), each placed at one (ErrorRow.At). The
// value slices are valid until the sink returns.
type Step struct {
	N      int
	Parts  []Part
	Chunks []Chunk
	Errors ErrorPort
	In     *vector.Batch
	Sel    []int32
	Marks  []Mark
}

// ErrorPort is the errors port of a Step (SPEC 1): its malformed rows, in
// input order, bound for the errors side output named Name ('errors' unless
// the stream's 'errors.side' renames it), each placed at the number of good
// input rows before it (ErrorRow.At), so the merge keeps input order (SPEC 4).
// A sink may send them elsewhere instead: a stream's dead-letter stream
// (executor/sinkstream) takes them out of Rows before the frontend sees them.
//
// Read is every malformed row of the batch as its source read it, whatever
// the stream's errors policy does with it ('skip' and 'side' alike; under
// 'side' Read[k] is Rows[k]'s), for an operator that keeps a batch's
// malformed rows with its good rows until they leave it and counts them
// there: the event-time join's hold (issue 22 item 3; its scheduler fills
// it, nothing else does). It holds only the rows that operator keeps: none
// of a batch that failed the job ('errors'='fail'). Sinks never read it.
type ErrorPort struct {
	Name string
	Rows []ErrorRow
	Read []BadAt
}

// BadAt is one malformed row of a Step's batch as its source read it
// (ErrorPort.Read): At is its place among the batch's good rows (the number
// of good rows before it, as ErrorRow.At), and Line its position in the
// source (records.BadRow.Line: a line, or for Kafka the partition and offset
// of connector.KafkaPosition), which a replay's frontiers read.
type BadAt struct {
	At   int
	Line int64
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
func (r *Step) rowsOut() int64 {
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

// SelectRows sets r.In to b and r.Sel to the rows [from, to) of b, in r.Sel's
// own buffer (a source driver's step, before the router).
func (r *Step) SelectRows(b *vector.Batch, from, to int) {
	r.In, r.N = b, b.N
	sel := r.Sel[:0]
	for i := from; i < to; i++ {
		sel = append(sel, int32(i))
	}
	r.Sel = sel
}

// ErrorRow is one malformed row for the errors side output (SPEC 1): the stream,
// position (path:line), raw text without its line end, and the reason.
type ErrorRow struct {
	Stream   string
	Position string
	Raw      []byte
	Error    string
	At       int // in a Step batch: the number of the batch's rows before it
}

// Sink receives a job's output. Calls come from one goroutine, in order.
type Sink interface {
	// Rows receives one routed batch.
	Rows(r *Step) error
	// Errors receives malformed rows of a build side bound for its errors side
	// output, named name ('errors' unless 'errors.side' renames it). The probe
	// stream's malformed rows come with Rows, in Step.Errors.
	Errors(name string, rows []ErrorRow) error
	// Flush is called whenever the source waits for input, so live rows show at once.
	Flush() error
	// Close ends the job's output (renders what is buffered); it is called once,
	// also after a failure, so what was routed before stays.
	Close() error
}

// Segment is one step of a step's output order (Merger): a chunk of rows an
// operator made (Chunk), a run of malformed rows of the errors port (Bad), or
// the input rows [From, To), arrival ordinals, each going to the port
// Port[i] names (an index into Step.Parts), or nowhere (-1). Exactly one of
// the three is set. Port is the Merger's, indexed by arrival ordinal, and
// valid until its next Reset.
type Segment struct {
	Chunk    *Chunk
	Bad      []ErrorRow
	From, To int
	Port     []int16
}

// Merger merges the ports of a step into its output order (SPEC 4: rows
// keep their input order across outputs, an aggregate's rows come right
// after the row that fired them, SPEC 2.4, and malformed rows at their
// places, SPEC 1). It is the one place that order is written: the CLI's line
// and chunk encoders, the library's output callback, the sink streams and a
// derived relation's capture all read a step through it. The order is read
// from the ports themselves: each port's rows carry their arrival ordinals
// (Part.Sel, the input row numbers), each chunk and malformed row its place
// (At); Reset turns the ordinals into each input row's port. At each place i
// (0 .. N, and past N where a chunk or malformed row is placed after the
// step's rows) come first the chunks placed there (At <= i), then the
// malformed rows placed there, then, below N, the input rows from i up to
// the next place a chunk or malformed row has.
//
// A Merger keeps that scratch in itself for a step of up to vector.Cap rows
// (beyond that it allocates once, and reuses it): keep one per consumer, not
// copied after its first Reset, and nothing is allocated per row or per
// step. The zero value is ready to use (Reset or Segments).
type Merger struct {
	r          *Step
	i, ch, bad int
	dest       []int16 // per input row: the index of the part that took it, -1: none
	destBuf    [vector.Cap]int16
}

// noPort is a Merger's dest before its ports are scattered in: no row has a
// port.
var noPort = func() (a [vector.Cap]int16) {
	for i := range a {
		a[i] = -1
	}
	return a
}()

// Reset points m at r, from its start.
func (m *Merger) Reset(r *Step) {
	m.r, m.i, m.ch, m.bad = r, 0, 0, 0
	switch {
	case r.N <= len(m.destBuf):
		m.dest = m.destBuf[:r.N]
	case cap(m.dest) < r.N: // (m.destBuf's cap is below r.N too)
		m.dest = make([]int16, r.N)
	}
	m.dest = m.dest[:r.N]
	for n := copy(m.dest, noPort[:]); n < r.N; n++ { // (copy: a memmove, not a store a row)
		m.dest[n] = -1
	}
	for k := range r.Parts {
		for _, i := range r.Parts[k].Sel {
			if int(i) < r.N { // (as every row's place: none at or past N)
				m.dest[i] = int16(k)
			}
		}
	}
}

// Segments resets m to r and returns r's segments in output order, for a
// range loop.
func (m *Merger) Segments(r *Step) iter.Seq[Segment] {
	m.Reset(r)
	return func(yield func(Segment) bool) {
		for {
			seg, ok := m.Next()
			if !ok || !yield(seg) {
				return
			}
		}
	}
}

// Next returns the next segment of the step, and false after the last one.
// The segment's slices are the step's and m's.
func (m *Merger) Next() (Segment, bool) {
	r := m.r
	for {
		if m.ch < len(r.Chunks) && r.Chunks[m.ch].At <= m.i {
			m.ch++
			return Segment{Chunk: &r.Chunks[m.ch-1]}, true
		}
		if m.bad < len(r.Errors.Rows) && r.Errors.Rows[m.bad].At <= m.i {
			j := m.bad + 1
			for j < len(r.Errors.Rows) && r.Errors.Rows[j].At <= m.i {
				j++
			}
			s := Segment{Bad: r.Errors.Rows[m.bad:j]}
			m.bad = j
			return s, true
		}
		next := math.MaxInt // the next place a chunk or malformed row has
		if m.ch < len(r.Chunks) {
			next = r.Chunks[m.ch].At
		}
		if m.bad < len(r.Errors.Rows) {
			next = min(next, r.Errors.Rows[m.bad].At)
		}
		if m.i >= r.N {
			if next == math.MaxInt {
				return Segment{}, false
			}
			m.i = next // (past the step's rows)
			continue
		}
		s := Segment{From: m.i, To: min(r.N, next), Port: m.dest} // (next > m.i: what is at m.i came above)
		m.i = s.To
		return s, true
	}
}
