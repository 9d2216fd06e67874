package render

import (
	"bufio"

	"streamql/executor"
	"streamql/internal/termtext"
)

// Encoding apart from writing (executor.ChunkSink; the executor's morsel
// pipeline, issue 15 item 3): a worker encodes the rows of one input chunk
// into a chunk's own buffers, one per destination (stdout, each side file),
// with the same line encoder as Rows (appendLine), and the job's goroutine
// writes the chunks in input order (WriteChunk). What depends on the rows
// before the chunk is left to the writer, at its place in the buffers (a
// mark): the header line each output prints before its first row when the
// outputs share stdout (SPEC 4, csv and tsv with side outputs), and the
// malformed rows (SPEC 1), whose position needs the chunk's line base and
// whose target opens at its first row. Line formats only: a table is
// rendered whole (NewChunk returns nil).

// NewChunk implements executor.ChunkSink: an empty chunk for the line
// formats, nil for table and markdown (and for an output shown only once a
// row reaches it, a windowed query's late rows). Each destination's buffer
// starts with room for size bytes and a quarter (an output's lines are
// about its input's size or less, but for json): made here, when the job
// starts, not while it runs.
func (s *sink) NewChunk(size int) executor.EncodedChunk {
	if s.tabular || s.line == lineNone {
		return nil
	}
	c := &encChunk{s: &sink{cfg: s.cfg, line: s.line}, errDest: -1, totals: make([]int64, len(s.outs))}
	dest := func(w *bufio.Writer) int {
		for d, x := range c.dests {
			if x == w {
				return d
			}
		}
		c.dests = append(c.dests, w)
		c.bufs = append(c.bufs, chunkBuf{b: make([]byte, 0, size+size/4)})
		return len(c.dests) - 1
	}
	for _, t := range s.outs {
		o := chunkOut{t: target{name: t.name, cols: t.cols, prefix: t.prefix}, dest: -1}
		switch {
		case t.late:
			return nil
		case !t.sink:
			o.dest = dest(t.w)
		}
		c.outs = append(c.outs, o)
	}
	for k := range c.outs { // (copyLines and fieldLines read the outputs' columns)
		c.s.outs = append(c.s.outs, &c.outs[k].t)
	}
	c.copies, c.fields = make([]bool, 0, 2*len(c.outs)+4), make([]uint64, 0, 2*len(c.outs)+4) // (a part per output and branch: made here, not while it runs)
	if s.cfg.SideDir == "" && s.cfg.Format == "json" {                                        // the errors objects go to stdout, between the rows
		c.errDest = dest(s.cfg.Stdout)
	}
	return c
}

// encChunk is the encoded rows of one input chunk (executor.EncodedChunk).
type encChunk struct {
	s       *sink // appendLine's format; it never writes
	outs    []chunkOut
	dests   []*bufio.Writer // the sink's writers, each once
	bufs    []chunkBuf      // per destination: the chunk's encoded lines
	marks   []chunkMark     // in encoding order
	totals  []int64         // rows per output
	nbad    int             // malformed rows so far
	errName string          // the errors side output's name (Routed.ErrorSide)
	errDest int             // the destination of the malformed rows' lines, -1: not one of dests
	esc     []byte
	copies  []bool   // per part of a batch: its rows' lines are the kept record texts (sink.copyLines)
	fields  []uint64 // per part: the values that are their fields' texts (sink.fieldLines)
}

// chunkBuf is one destination's encoded lines in a chunk, padded to a cache
// line of its own: the buffer's slice header is stored after every row, and
// two workers encoding two chunks would otherwise write to one cache line.
type chunkBuf struct {
	b []byte
	_ [64 - 24]byte
}

// chunkOut is one output of the job as a chunk encodes it.
type chunkOut struct {
	t    target // name, columns and prefix of the sink's target; no header, no writer
	dest int    // index of its writer in dests; -1: counted, not written (a sink stream)
	seen bool   // it has a row in this chunk (its header mark is placed)
}

// chunkMark is something the writer writes itself at offset off of
// destination dest's buffer: output k's header when it is still due
// (header), else the chunk's k-th malformed row (dest -1: in order, on its
// own target).
type chunkMark struct {
	dest, off, k int
	header       bool
}

// Rows implements executor.EncodedChunk: r's rows in input order, as
// sink.Rows writes them, with the places of its malformed rows.
func (c *encChunk) Rows(r *executor.Routed) error {
	c.errName = r.ErrorSide
	for k := range r.Parts { // the rows each output gets (Dest points at each part's rows)
		c.totals[r.Parts[k].Output] += int64(len(r.Parts[k].Sel))
	}
	for k := range r.Chunks {
		c.totals[r.Chunks[k].Output] += int64(len(r.Chunks[k].Sel))
	}
	c.copies, c.fields = c.s.lineModes(r, c.copies[:0], c.fields[:0]) // as sink.Rows
	var lines [][]byte
	if r.In != nil {
		lines = r.In.Line
	}
	bad, ch := 0, 0
	for i := 0; i < r.N; i++ {
		for ; ch < len(r.Chunks) && r.Chunks[ch].At <= i; ch++ {
			c.chunk(&r.Chunks[ch])
		}
		for ; bad < len(r.Bad) && r.Bad[bad].At <= i; bad++ {
			c.badMark()
		}
		if k := r.Dest[i]; k >= 0 {
			var line []byte
			var plain uint64
			if c.copies[k] {
				line = lines[i]
			} else if c.fields[k] != 0 && lines[i] != nil {
				plain = c.fields[k]
			}
			c.row(&r.Parts[k], i, line, plain)
		}
	}
	for ; ch < len(r.Chunks); ch++ {
		c.chunk(&r.Chunks[ch])
	}
	for ; bad < len(r.Bad); bad++ {
		c.badMark()
	}
	return nil
}

// chunk encodes the rows an operator made, in order.
func (c *encChunk) chunk(ch *executor.Chunk) {
	for _, i := range ch.Sel {
		c.row(&ch.Part, int(i), nil, 0)
	}
}

// badMark keeps the place of the next malformed row.
func (c *encChunk) badMark() {
	m := chunkMark{dest: c.errDest, k: c.nbad}
	if m.dest >= 0 {
		m.off = len(c.bufs[m.dest].b)
	}
	c.marks = append(c.marks, m)
	c.nbad++
}

// row encodes row i of part p as sink.row does for a line format (line and
// plain as there).
func (c *encChunk) row(p *executor.Part, i int, line []byte, plain uint64) {
	o := &c.outs[p.Output]
	d := o.dest
	if d < 0 {
		return
	}
	b := c.bufs[d].b
	if o.t.prefix && !o.seen {
		o.seen = true
		c.marks = append(c.marks, chunkMark{dest: d, off: len(b), k: p.Output, header: true})
	}
	start := len(b)
	b = c.s.appendLine(b, &o.t, p.Cols, i, line, plain)
	if c.s.line == linePlain && termtext.Needs(b[start:len(b)-1], termtext.Line) { // as sink.write (SPEC 4)
		c.esc = append(termtext.Append(c.esc[:0], b[start:len(b)-1], termtext.Line), '\n')
		b = append(b[:start], c.esc...)
	}
	c.bufs[d].b = b
}

// Reset implements executor.EncodedChunk.
func (c *encChunk) Reset() {
	for d := range c.bufs {
		c.bufs[d].b = c.bufs[d].b[:0]
	}
	for k := range c.outs {
		c.outs[k].seen = false
	}
	clear(c.totals)
	c.marks, c.nbad = c.marks[:0], 0
}

// WriteChunk implements executor.ChunkSink: each destination's bytes with
// what its marks say in between, the side files before stdout (SPEC 4: when
// stdout is closed early, the side files hold every row routed before the
// last one written to stdout); the malformed rows that go to a target of
// their own (stderr, their --side-dir file) in order.
func (s *sink) WriteChunk(ec executor.EncodedChunk, bad func(j int) *executor.ErrorRow) error {
	c := ec.(*encChunk)
	for k, n := range c.totals {
		s.outs[k].total += n
	}
	for _, m := range c.marks {
		if m.dest < 0 {
			if err := s.errorRow(c.errName, bad(m.k)); err != nil {
				return err
			}
		}
	}
	for d, w := range c.dests {
		if w != s.cfg.Stdout {
			if err := s.writeDest(c, d, bad); err != nil {
				return err
			}
		}
	}
	for d, w := range c.dests {
		if w == s.cfg.Stdout {
			return s.writeDest(c, d, bad)
		}
	}
	return nil
}

// writeDest writes destination d's bytes of c, and its marks at their places.
func (s *sink) writeDest(c *encChunk, d int, bad func(j int) *executor.ErrorRow) error {
	w, b, at := c.dests[d], c.bufs[d].b, 0
	for _, m := range c.marks {
		if m.dest != d {
			continue
		}
		if _, err := w.Write(b[at:m.off]); err != nil {
			return err
		}
		at = m.off
		if m.header {
			if t := s.outs[m.k]; t.header && t.prefix {
				s.writeHeader(t)
			}
			continue
		}
		if err := s.errorRow(c.errName, bad(m.k)); err != nil {
			return err
		}
	}
	_, err := w.Write(b[at:])
	return err
}
