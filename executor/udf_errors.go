package executor

import (
	"errors"
	"fmt"

	"streamql/executor/expr"
	"streamql/executor/vector"
)

// errCallFailed is what the sink gives instead of writing a batch in which
// a call failed the job (expr.Failure.FailsJob): the job stops before its
// sink sees the batch, as Flink's fails before its sink gets the row.
// process.failures turns it into the error that names the call.
var errCallFailed = errors.New("a call failed the job")

// failures takes the calls of the job's expressions that failed while it
// computed batch b (nil at the stream's end, or for rows not of a source
// batch) from the job's record (expr.Context), and returns the error that
// stops the job, or nil:
//   - the first call that fails the job (expr.Failure.FailsJob: ELEMENT of
//     an ARRAY of more than one element, as Flink's) is the error, naming
//     the function, the stream and, for a row of the source batch, its
//     position; nothing else of the batch is written (the sink refused it,
//     errCallFailed);
//   - otherwise each user function's failed call (a WASM trap or a call past
//     its time cap, a Go function's error or panic; SPEC 2.10) sends its row
//     to the stream's errors output: its position and values, and "function
//     NAME: reason", after the batch's routed rows. Those calls gave NULL;
//     the job goes on.
func (p *process) failures(b *vector.Batch) error {
	p.fails = p.exprs.Take(p.fails[:0])
	if len(p.fails) == 0 {
		return nil
	}
	if f, ok := jobFailure(p.fails); ok {
		if stream, pos, ok := p.rowOf(b, f); ok {
			return fmt.Errorf("stream %s, %s: %w", stream, pos, f)
		}
		return fmt.Errorf("stream %s: %w", p.st.Name, f)
	}
	rows := make([]ErrorRow, 0, len(p.fails))
	for _, f := range p.fails {
		e := ErrorRow{Stream: p.st.Name, Error: f.Error(), At: f.Row}
		if b != nil && f.Row >= 0 && f.Row < b.N { // a row of the source batch (not of a join's or aggregate's)
			if stream, pos, ok := p.rowOf(b, f); ok {
				e.Stream, e.Position = stream, pos
			}
			for k := range p.st.Columns {
				if k > 0 {
					e.Raw = append(e.Raw, ',')
				}
				if k < len(b.Cols) {
					e.Raw = vector.AppendValue(e.Raw, p.st.Columns[k].Type, b.Cols[k], f.Row)
				}
			}
		}
		rows = append(rows, e)
		p.es.Malformed++
	}
	side := p.es.Side
	if side == "" {
		side = "errors"
	}
	return p.sink.Errors(side, rows)
}

// rowSourcer is a Source whose rows are made of other inputs' rows (a join
// of two streams: joinSource): RowSource names the input row of row i of
// the batch its Next gave last that the columns cols read (expr.Failure.Cols),
// as its stream and its position in that input; ok false when it has none.
type rowSourcer interface {
	RowSource(i int, cols []int) (stream, position string, ok bool)
}

// rowOf returns the stream and position that failure f's row of the source
// batch b is named by (SPEC 1's errors output, 2.10): the job's stream and
// the row's position, or, for a join of two streams, the input row whose
// value the call read (rowSourcer: its stream, its file and line); ok false
// when f's row is not one of b's (a row of an aggregate's, or none).
func (p *process) rowOf(b *vector.Batch, f expr.Failure) (stream, position string, ok bool) {
	if b == nil || f.Row < 0 || f.Row >= b.N || f.Row >= len(b.Pos) {
		return "", "", false
	}
	if rs, is := p.src.(rowSourcer); is {
		return rs.RowSource(f.Row, f.Cols)
	}
	return p.st.Name, p.src.Position(b.Pos[f.Row]), true
}

// callFailed is err, a worker's chain's error (morsel.go, paragg.go), with
// errCallFailed (the worker's sink refused a batch in which a call failed
// the job) made the error that names the call.
func (p *process) callFailed(err error) error {
	if errors.Is(err, errCallFailed) {
		if ferr := p.failures(nil); ferr != nil {
			return ferr
		}
	}
	return err
}

// jobFailure returns the first of fs that fails the job, if any.
func jobFailure(fs []expr.Failure) (expr.Failure, bool) {
	for _, f := range fs {
		if f.FailsJob {
			return f, true
		}
	}
	return expr.Failure{}, false
}
