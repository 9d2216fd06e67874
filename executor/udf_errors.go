package executor

import (
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
