package executor

import (
	"fmt"

	"streamql/executor/expr"
	"streamql/executor/vector"
)

// udfErrors sends the rows of batch b whose user-defined function call failed
// (a WASM trap or a call past its time cap, a Go function's error or panic;
// SPEC 2.10) to the stream's errors output: the row's position and values,
// and "function NAME: reason", after the batch's routed rows. The calls gave
// NULL; the job goes on. scratch
// is reused between batches.
func (p *process) udfErrors(b *vector.Batch, scratch *[]expr.UDFFailure) error {
	*scratch = expr.TakeUDFFailures((*scratch)[:0])
	if len(*scratch) == 0 {
		return nil
	}
	rows := make([]ErrorRow, 0, len(*scratch))
	for _, f := range *scratch {
		e := ErrorRow{Stream: p.st.Name, Error: "function " + f.Func + ": " + f.Reason, At: f.Row}
		if f.Row >= 0 && f.Row < b.N { // a row of the source batch (not of a join's or aggregate's)
			if f.Row < len(b.Pos) {
				e.Position = p.src.Position(b.Pos[f.Row])
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

// funcError is the error that stops the job when a built-in function's call
// in batch b failed as Flink's fails the job (expr.FuncError: ELEMENT of an
// ARRAY of more than one element), naming the function, the stream and, for
// a row of the source batch, its position; nil when none did. b is nil at
// the end of the stream.
func (p *process) funcError(b *vector.Batch) error {
	fe, ok := expr.TakeFuncError()
	if !ok {
		return nil
	}
	if b != nil && fe.Row >= 0 && fe.Row < b.N && fe.Row < len(b.Pos) {
		return fmt.Errorf("stream %s, %s: %w", p.st.Name, p.src.Position(b.Pos[fe.Row]), fe)
	}
	return fmt.Errorf("stream %s: %w", p.st.Name, fe)
}
