package executor

import (
	"errors"
	"fmt"

	"streamql/catalog"

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
	name := errorsName(p.st)
	return reportFailures(p.fails, name, func(k int) (ErrorRow, bool) {
		f := p.fails[k]
		e := ErrorRow{Stream: name, Error: f.Error(), At: f.Row}
		if b == nil || f.Row < 0 || f.Row >= b.N { // not a row of the source batch (a join's or aggregate's)
			return e, false
		}
		stream, pos, ok := p.rowOf(b, f)
		if ok {
			e.Stream, e.Position = stream, pos
		}
		if rs, is := p.src.(rowSourcer); is { // (the user's columns of a joined row, not the join's stamps and keys)
			e.Raw = appendRowCols(e.Raw, p.st.Columns, rs.UserCols(), b, f.Row)
		} else {
			e.Raw = appendRowText(e.Raw, p.st.Columns, b, f.Row)
		}
		return e, ok
	}, p.es, p.sink)
}

// reportFailures is what the job does with the failed calls fs of one
// batch (SPEC 2.10): the first that fails the job is the error, naming the
// stream and position named gives it (named(k) for fs[k]; the stream alone
// when named's ok is false); otherwise each one's row, as named makes it,
// goes to the errors output of es (counted there), and the job goes on.
func reportFailures(fs []expr.Failure, stream string, named func(k int) (ErrorRow, bool), es *StreamErrors, sink Sink) error {
	if k := jobFailure(fs); k >= 0 {
		if e, ok := named(k); ok {
			return fmt.Errorf("stream %s, %s: %w", e.Stream, e.Position, fs[k])
		}
		return fmt.Errorf("stream %s: %w", stream, fs[k])
	}
	rows := make([]ErrorRow, 0, len(fs))
	for k := range fs {
		e, _ := named(k)
		rows = append(rows, e)
		es.Malformed++
	}
	side := es.Side
	if side == "" {
		side = "errors"
	}
	return sink.Errors(side, rows)
}

// appendRowText appends row i of b's columns cols (the first len(cols)
// of b's) as an errors row's raw text: the values as csv fields unquoted,
// separated by ',', a NULL an empty field.
func appendRowText(dst []byte, cols []catalog.Column, b *vector.Batch, i int) []byte {
	for k := range cols {
		dst = appendRowField(dst, k > 0, cols, k, b, i)
	}
	return dst
}

// appendRowCols is appendRowText of b's columns which only (indices into
// cols and b's columns, in order): a joined row's user columns
// (rowSourcer.UserCols).
func appendRowCols(dst []byte, cols []catalog.Column, which []int, b *vector.Batch, i int) []byte {
	for n, k := range which {
		dst = appendRowField(dst, n > 0, cols, k, b, i)
	}
	return dst
}

// appendRowField appends column k of row i of b (of type cols[k]) as a
// field of an errors row's raw text, after a ',' when sep.
func appendRowField(dst []byte, sep bool, cols []catalog.Column, k int, b *vector.Batch, i int) []byte {
	if sep {
		dst = append(dst, ',')
	}
	if k < len(cols) && k < len(b.Cols) && !b.Cols[k].Null[i] {
		dst = vector.AppendValue(dst, cols[k].Type, b.Cols[k], i)
	}
	return dst
}

// rowSourcer is a Source whose rows are made of other inputs' rows (a join
// of two streams: joinSource): RowSource names the input row of row i of
// the batch its Next gave last that the columns cols read (expr.Failure.Cols),
// as its stream and its position in that input; ok false when it has none.
// UserCols are the columns of its batches that are its inputs' declared
// columns, in order (not a join's watermark stamps or computed keys): an
// errors row's raw text.
type rowSourcer interface {
	RowSource(i int, cols []int) (stream, position string, ok bool)
	UserCols() []int
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
	return errorsName(p.st), p.src.Position(b.Pos[f.Row]), true
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

// jobFailure returns the index of the first of fs that fails the job, -1
// if none does.
func jobFailure(fs []expr.Failure) int {
	for k, f := range fs {
		if f.FailsJob {
			return k
		}
	}
	return -1
}
