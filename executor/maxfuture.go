package executor

import (
	"math"

	"streamql/catalog"
	"streamql/executor/format"
	"streamql/executor/vector"
	"streamql/planner/plan"
)

// maxFuture is the watermark assigner's part for the stream option
// 'watermark.max-future' (SPEC 4, "Finding out why"; catalog.MaxFutureOption):
// a row whose event time is more than ms above the watermark before it (once
// there is one) is taken out of the batch's live rows, does not move the
// watermark, and goes where the stream's errors policy sends malformed rows
// (SPEC 1: the errors output with the reason catalog.MaxFutureReason, skipped,
// or the job fails). For a partitioned source (Kafka, SPEC 2.5) the watermark
// is the row's partition's, so the decision does not depend on how the
// partitions interleave.
type maxFuture struct {
	ms  int64
	col int     // the batch column of the event time
	rej []int32 // scratch: the rows refused in the batch being stamped
	src Source  // for the refused rows' positions
	es  *StreamErrors
	// refused counts the rows refused (EXPLAIN ANALYZE, Analysis.Refused)
	refused int64
	rep     *replay // a Kafka group source's replay (replay.go): its rows went to their outputs already; nil: none
}

// newMaxFuture returns the option's state for job, nil when the stream has no
// WATERMARK or not the option.
func newMaxFuture(job *plan.Job) *maxFuture {
	ms, ok := job.Stream.MaxFuture()
	if !ok || job.Watermark == nil || job.Stream.EventTime < 0 {
		return nil
	}
	return &maxFuture{ms: ms, col: job.Stream.EventTime, rej: make([]int32, 0, vector.Cap)}
}

// tooFar reports whether row i of b is refused under the watermark wm (set:
// there is one); a NULL event time is not (the decoder made it malformed).
func (m *maxFuture) tooFar(b *vector.Batch, i int32, wm int64, set bool) bool {
	c := b.Cols[m.col]
	if !set || c.Null[i] {
		return false
	}
	limit := wm + m.ms
	if wm > math.MaxInt64-m.ms {
		limit = math.MaxInt64
	}
	return c.I[i] > limit
}

// advance is watermarker.advance with the option: it stamps the rows sel of
// b, moves the watermark over the rows it keeps, records the refused ones in
// m.rej, and returns the kept rows (sel, compacted in place) and marks.
func (m *maxFuture) advance(w *watermarker, b *vector.Batch, sel []int32, marks []Mark, keep bool) ([]int32, []Mark) {
	col := b.Cols[w.job.WatermarkCol]
	vals := w.expr.Eval(b, sel)
	m.rej = m.rej[:0]
	kept := sel[:0]
	for _, i := range sel {
		col.Null[i] = !w.set
		col.I[i] = w.wm
		if m.tooFar(b, i, w.wm, w.set) {
			m.rej = append(m.rej, i)
			continue
		}
		kept = append(kept, i)
		if !vals.Null[i] && (!w.set || vals.I[i] > w.wm) {
			w.wm, w.set = vals.I[i], true
			if keep {
				marks = append(marks, Mark{At: int(i) + 1, Value: w.wm})
			}
		}
	}
	return kept, marks
}

// drop removes the refused rows m.rej from sel (both ascending), in place.
func (m *maxFuture) drop(sel []int32) []int32 {
	if len(m.rej) == 0 {
		return sel
	}
	kept, k := sel[:0], 0
	for _, i := range sel {
		if k < len(m.rej) && m.rej[k] == i {
			k++
			continue
		}
		kept = append(kept, i)
	}
	return kept
}

// refuse sends the refused rows of r's batch where the stream's errors policy
// says (SPEC 1), in input order among r.Bad; with 'errors'='fail' it cuts
// r.Sel before the first and returns the job's *RowError.
func (m *maxFuture) refuse(st *catalog.Stream, r *Routed) error {
	if m.rep != nil && m.rep.active {
		kept := m.rej[:0]
		for _, i := range m.rej {
			if !m.rep.replayed(r.In.Pos[i]) {
				kept = append(kept, i)
			}
		}
		m.rej = kept
	}
	if len(m.rej) == 0 {
		return nil
	}
	m.refused += int64(len(m.rej))
	policy := "side"
	if m.es != nil {
		policy = m.es.Policy
		m.es.Malformed += countBad(policy, len(m.rej))
	}
	b := r.In
	switch policy {
	case "skip":
		return nil
	case "fail":
		first := m.rej[0]
		k := 0
		for k < len(r.Sel) && r.Sel[k] < first {
			k++
		}
		r.Sel = r.Sel[:k]
		return &RowError{Stream: st.Name, Position: m.position(b, first), Reason: catalog.MaxFutureReason}
	}
	for _, i := range m.rej {
		e := ErrorRow{Stream: st.Name, Position: m.position(b, i), Raw: rawRow(st, b, i), Error: catalog.MaxFutureReason, At: int(i)}
		// after the malformed rows that came before row i
		k := len(r.Bad)
		for k > 0 && r.Bad[k-1].At > int(i) {
			k--
		}
		r.Bad = append(r.Bad, ErrorRow{})
		copy(r.Bad[k+1:], r.Bad[k:])
		r.Bad[k] = e
	}
	return nil
}

// position is row i's position in its source (path:line, topic:partition:offset).
func (m *maxFuture) position(b *vector.Batch, i int32) string {
	if m.src == nil {
		return ""
	}
	return m.src.Position(b.Pos[i])
}

// rawRow is row i of b as the errors output's raw text: the decoder's record
// text when it kept it, otherwise its values as a csv line (SPEC 4).
func rawRow(st *catalog.Stream, b *vector.Batch, i int32) []byte {
	if b.Line != nil && b.Line[i] != nil && b.LineCols == len(st.Columns) {
		return append([]byte(nil), b.Line[i]...)
	}
	return format.AppendCSVRow(nil, st.Columns, b.Cols[:len(st.Columns)], int(i), ',')
}
