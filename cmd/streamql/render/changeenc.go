package render

import (
	"streamql/catalog"
	"streamql/catalog/textconv"
	"streamql/executor/format"
	"streamql/internal/session"
)

// Encoding an updating query's changelog on a goroutine of its own (issue
// 24's GROUP BY goal): an unbounded GROUP BY over a file prints one or two
// changelog lines per input row (-U,key,old / +U,key,new), and encoding and
// writing them cost the job's goroutine about as much as aggregating did
// (docs/performance.md), while the file's decoder ran on the other CPU. So
// the rows of the chunks an operator made for stdout's main output, when
// that prints csv or tsv lines of plain values with their op and nothing
// else (changeEncodable), are copied (their values and kinds, column by
// column, into batches made once: no allocation per row) and handed to the
// encoder goroutine, which builds their lines exactly as lines would and
// writes them to stdout's writer, in order. The job's goroutine goes on
// with the next input batch meanwhile.
//
// Everything else the sink does with a writer waits for the encoder first
// (changeStage.sync: every exported method of the sink and every row Rows
// writes itself), so stdout's bytes are in the order, and are the bytes,
// of the sequential sink; the cut's log (cut.go) is read only then too: a
// chunk goes to the encoder only while no side row waits for its main row's
// end (cutLog.dirty). A write error the encoder met is returned by the next
// call that hands it rows or waits for it.

// encBatches is how many batches of copied rows a changeStage has: one
// the job's goroutine fills while the encoder encodes another, and two
// waiting between them.
const encBatches = 4

// encRows is how many rows an encBatch holds: 32 of the job's batches (a
// GROUP BY's -U/+U rows of 16 input batches), so that the job's goroutine
// and the encoder hand a batch over about every millisecond, not every
// 30 µs. With three goroutines on two CPUs (the file's decoder, the job's,
// the encoder), a hand-off that finds its goroutine's partner waiting for
// a CPU stalls it: small batches stalled the job's goroutine often enough
// that the three ran as if two of them shared one CPU (docs/performance.md,
// "The unbounded GROUP BY's three goroutines"). Memory: 4 batches of
// 32,768 rows, about 0.6 MB each for two BIGINT columns. (A variable: tests
// make it small, so that batches fill up and are waited for.)
var encRows = 32 * session.BatchCap

// changeStage is the encoder goroutine of a sink and its batches.
type changeStage struct {
	todo chan *encBatch // filled batches, in order, to the encoder
	back chan *encBatch // encoded batches (with the write's error), back
	free []*encBatch    // batches the job's goroutine may fill
	out  int            // batches sent to the encoder and not back
	cur  *encBatch      // the batch being filled (nil: none)
	err  error          // the first write error the encoder met
	// proto and types make the batches, made is how many were made: a
	// batch is made when none is free and fewer than encBatches exist (a
	// short output needs one)
	proto encBatch
	types []catalog.Type
	made  int
	// maxLine and one are the encoder's own (sink.maxLine, sink.buf)
	maxLine int
	one     []byte
}

// encBatch is up to encRows rows of stdout's main output, copied:
// their values (one vector per column of t.cols) and kinds.
type encBatch struct {
	t     *target
	d     byte
	rows  *session.Columns
	kinds []session.RowKind
	n     int
	err   error
	ints  bool // every column BIGINT (appendChangeLine)
	// key is the text of the first column of the row appendChangeLine
	// wrote last (ints), which a change's second row (+U after -U) repeats
	key []byte
}

// changeEncodeOff keeps every row on the job's goroutine (tests compare the
// encoder goroutine with it).
var changeEncodeOff bool

// changeEncodable reports whether the rows of part p go to the encoder
// goroutine (the doc above): the plan chose it for the job's main output
// (session.Job.EncodeAhead, the planner's encode-ahead rule, which EXPLAIN
// shows as the main Sink's strategy: an updating main output to stdout of
// flat columns, more than one CPU), and this sink prints them as csv or
// tsv lines (plainLines), not on a terminal, and no side row waits for a
// main row's end in the cut's log.
func (s *sink) changeEncodable(p *session.Part) bool {
	if changeEncodeOff || !s.job.EncodeAhead || !s.job.HasMain || p.Output != 0 || len(p.Sel) == 0 || s.cfg.Terminal || s.cut != nil && s.cut.dirty {
		return false
	}
	return s.plainLines(s.outs[0])
}

// encodeChange hands the rows of p (changeEncodable) to the encoder
// goroutine, counted as written (target.total), and returns the first
// write error the encoder met so far.
func (s *sink) encodeChange(p *session.Part) error {
	e := s.enc
	if e == nil {
		e = &changeStage{todo: make(chan *encBatch, encBatches), back: make(chan *encBatch, encBatches)}
		types := make([]catalog.Type, len(s.outs[0].cols))
		ints := true
		for c, col := range s.outs[0].cols {
			types[c] = col.Type
			ints = ints && col.Type == catalog.BigInt
		}
		e.proto = encBatch{t: s.outs[0], d: s.line.delim(), ints: ints}
		e.types = types
		s.enc = e
		go e.run()
	}
	t := s.outs[0]
	t.total += int64(len(p.Sel))
	for sel := p.Sel; len(sel) > 0; {
		b := e.cur
		if b == nil {
			if b = e.take(); b == nil {
				return e.err
			}
		}
		n := min(len(sel), encRows-b.n)
		b.add(p, sel[:n])
		sel = sel[n:]
		if b.n == encRows {
			e.send()
		}
	}
	return e.err
}

// newEncColumns returns empty columns of types (catalog.Type.IsFlat) with room
// for encRows rows each.
func newEncColumns(types []catalog.Type) *session.Columns {
	return session.NewColumnsRows(types, encRows)
}

// add copies rows sel of p after b's rows, column by column, with their
// kinds: fixed-width values as they are, VARCHAR bytes into b's arenas
// (catalog.Type.IsFlat types only).
func (b *encBatch) add(p *session.Part, sel []int32) {
	at, m := b.n, len(sel)
	if s0 := int(sel[0]); int(sel[m-1])-s0 == m-1 && isRun(sel) && b.addRun(p, s0, m) {
		return
	}
	for c, v := range p.Cols {
		d := b.rows.Cols[c]
		dN := d.Null[at : at+m]
		for k, i := range sel {
			dN[k] = v.Null[i]
		}
		switch d.Type {
		case catalog.BigInt, catalog.Timestamp:
			dI := d.I[at : at+m]
			for k, i := range sel {
				dI[k] = v.I[i]
			}
		case catalog.Double:
			dF := d.F[at : at+m]
			for k, i := range sel {
				dF[k] = v.F[i]
			}
		case catalog.Boolean:
			dB := d.B[at : at+m]
			for k, i := range sel {
				dB[k] = v.B[i]
			}
		case catalog.Varchar: // (the arena may move as it grows: the values are sliced from it after)
			base := len(d.Arena)
			for _, i := range sel {
				if !v.Null[i] {
					d.Arena = append(d.Arena, v.S[i]...)
				}
			}
			for k, i := range sel {
				if !v.Null[i] {
					n := len(v.S[i])
					d.S[at+k] = d.Arena[base : base+n : base+n]
					base += n
				}
			}
		}
	}
	kinds := b.kinds[at : at+m]
	if p.Kinds == nil {
		for k := range kinds {
			kinds[k] = session.Insert
		}
	} else {
		for k, i := range sel {
			kinds[k] = p.Kinds[i]
		}
	}
	b.n += m
}

// isRun reports whether sel is sel[0], sel[0]+1, ... (one after the other).
func isRun(sel []int32) bool {
	for k, i := range sel {
		if i != sel[0]+int32(k) {
			return false
		}
	}
	return true
}

// addRun is add for rows s0 .. s0+m-1 of p (a chunk's rows one after the
// other, as an aggregate's changes are without HAVING), each column and
// the kinds copied at once, when every column is fixed-width; it reports
// whether it did.
func (b *encBatch) addRun(p *session.Part, s0, m int) bool {
	for _, v := range p.Cols {
		if v.Type == catalog.Varchar {
			return false
		}
	}
	at := b.n
	for c, v := range p.Cols {
		d := b.rows.Cols[c]
		copy(d.Null[at:at+m], v.Null[s0:s0+m])
		session.CopyFixedRange(d, at, v, s0, s0+m)
	}
	if p.Kinds == nil {
		kinds := b.kinds[at : at+m]
		for k := range kinds {
			kinds[k] = session.Insert
		}
	} else {
		copy(b.kinds[at:at+m], p.Kinds[s0:s0+m])
	}
	b.n += m
	return true
}

// take returns a batch to fill (made when none is free and fewer than
// encBatches exist), waiting for the encoder to give one back when none is
// free; nil after a write error.
func (e *changeStage) take() *encBatch {
	if len(e.free) == 0 && e.made < encBatches {
		b := e.proto
		b.rows, b.kinds = newEncColumns(e.types), make([]session.RowKind, encRows)
		e.free = append(e.free, &b)
		e.made++
	}
	for len(e.free) == 0 {
		e.done(<-e.back)
	}
	if e.err != nil {
		return nil
	}
	b := e.free[len(e.free)-1]
	e.free = e.free[:len(e.free)-1]
	e.cur = b
	return b
}

// done takes back batch b from the encoder, emptied, noting its error.
func (e *changeStage) done(b *encBatch) {
	e.out--
	if e.err == nil {
		e.err = b.err
	}
	b.n, b.err = 0, nil
	session.ResetColumns(b.rows)
	e.free = append(e.free, b)
}

// send hands the batch being filled to the encoder.
func (e *changeStage) send() {
	if b := e.cur; b != nil {
		e.cur = nil
		e.out++
		e.todo <- b
	}
}

// sync sends the batch being filled and waits until the encoder has written
// every batch; it returns the first write error it met. A sink without an
// encoder (nil) has nothing to wait for.
func (e *changeStage) sync() error {
	if e == nil {
		return nil
	}
	if e.cur != nil && e.cur.n > 0 {
		e.send()
	}
	for e.out > 0 {
		e.done(<-e.back)
	}
	return e.err
}

// stop ends the encoder goroutine (after sync).
func (e *changeStage) stop() {
	if e != nil {
		close(e.todo)
	}
}

// run is the encoder goroutine: each batch's lines written to its target's
// writer, in order, until stop.
func (e *changeStage) run() {
	for b := range e.todo {
		if b.err == nil {
			b.err = e.write(b)
		}
		e.back <- b
	}
}

// write writes b's rows to b.t's writer as lines does: the lines built
// back to back in the writer's free buffer while it has room for twice the
// longest line so far, and handed to it together.
func (e *changeStage) write(b *encBatch) error {
	w := b.t.w
	for i := 0; i < b.n; {
		room := 2*e.maxLine + 64
		if w.Available() < room && (w.Size() < room || w.Flush() != nil) {
			if err := w.Flush(); err != nil && w.Size() >= room {
				return err
			}
			e.one = appendChangeLine(e.one[:0], b, i)
			if _, err := w.Write(e.one); err != nil {
				return err
			}
			e.maxLine = max(e.maxLine, len(e.one))
			i++
			continue
		}
		buf := w.AvailableBuffer()
		for ; i < b.n && cap(buf)-len(buf) >= room; i++ {
			at := len(buf)
			buf = appendChangeLine(buf, b, i)
			if l := len(buf) - at; l > e.maxLine {
				e.maxLine = l
				room = 2*l + 64
			}
		}
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return nil
}

// appendChangeLine appends row i of b as appendLine writes a row of an
// updating output in csv or tsv (no prefix, no nested value): its op, then
// its values, then LF.
func appendChangeLine(dst []byte, b *encBatch, i int) []byte {
	dst = append(append(dst, session.KindText(b.kinds[i])...), b.d)
	if b.ints { // (a count per key: no type to switch on, no text to look for)
		for c, v := range b.rows.Cols {
			if c > 0 {
				dst = append(dst, b.d)
			}
			switch {
			case v.Null[i]:
			case c == 0 && i > 0 && !v.Null[i-1] && v.I[i] == v.I[i-1]:
				dst = append(dst, b.key...) // (the -U row's key again, for its +U)
			case c == 0:
				at := len(dst)
				dst = textconv.AppendInt(dst, v.I[i])
				b.key = append(b.key[:0], dst[at:]...)
			default:
				dst = textconv.AppendInt(dst, v.I[i])
			}
		}
		return append(dst, '\n')
	}
	return append(format.AppendCSVRow(dst, b.t.cols, b.rows.Cols, i, b.d), '\n')
}
