package render

import (
	"bufio"
	"fmt"

	"streamql/executor/format"
	"streamql/internal/session"
	"streamql/internal/termtext"
)

// Encoding apart from writing (session.ChunkSink; the executor's morsel
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

// NewChunk implements session.ChunkSink: an empty chunk for the line
// formats, nil for table and markdown (and for an output shown only once a
// row reaches it, a windowed query's late rows). Each destination's buffer
// starts with room for size bytes and a quarter (an output's lines are
// about its input's size or less, but for json): made here, when the job
// starts, not while it runs.
func (s *sink) NewChunk(size int) session.EncodedChunk {
	if s.tabular || s.line == lineNone {
		return nil
	}
	c := &encChunk{s: &sink{cfg: s.cfg, line: s.line}, errDest: -1, totals: make([]int64, len(s.outs)), mainDest: -1, firstEnd: -1}
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
			// a late output opens at its first row (openLate), which a
			// chunk cannot do: a job whose rows may reach one takes no
			// chunk path (a morsel job has no WATERMARK; a lookup morsel
			// job's join makes no late row, plan.Job.LookupMorselable), and
			// Rows refuses such a row
			o.late = true
		case !t.sink:
			o.dest = dest(t.w)
		}
		switch t.track {
		case trackMain:
			c.mainDest = o.dest
		case trackSide:
			for len(c.sides) <= o.dest {
				c.sides = append(c.sides, nil)
			}
			c.sides[o.dest] = t
		}
		c.outs = append(c.outs, o)
	}
	if s.cut != nil { // (made here, not while it runs)
		// room for an epoch every 32 bytes of input: a chunk's log grows
		// while the job runs only on short rows that alternate
		n := max(64, size/32)
		c.ends, c.tags, c.first, c.logs = make([]int32, 0, n), make([]int, len(c.dests)), make([]int, len(c.dests)), make([]chunkLog, 0, n)
		for d := range c.tags {
			c.tags[d] = -1
		}
	}
	for k := range c.outs { // (copyLines and fieldLines read the outputs' columns)
		c.s.outs = append(c.s.outs, &c.outs[k].t)
	}
	c.copies, c.fields = make([]bool, 0, 2*len(c.outs)+4), make([]uint64, 0, 2*len(c.outs)+4) // (a part per output and branch: made here, not while it runs)
	if s.cfg.SideDir == "" && printerOf(s.cfg.Format).inlineSides {                           // the errors objects go to stdout, between the rows
		c.errDest = dest(s.cfg.Stdout)
	}
	return c
}

// encChunk is the encoded rows of one input chunk (session.EncodedChunk).
type encChunk struct {
	s       *sink // appendLine's format; it never writes
	merge   session.Merger
	outs    []chunkOut
	dests   []*bufio.Writer // the sink's writers, each once
	bufs    []chunkBuf      // per destination: the chunk's encoded lines
	marks   []chunkMark     // in encoding order
	totals  []int64         // rows per output
	nbad    int             // malformed rows so far
	errName string          // the errors side output's name (Batch.Errors.Name of the batches with malformed rows)
	errDest int             // the destination of the malformed rows' lines, -1: not one of dests
	esc     []byte
	copies  []bool   // per part of a batch: its rows' lines are the kept record texts (sink.copyLines)
	fields  []uint64 // per part: the values that are their fields' texts (sink.fieldLines)
	// The cut's log of this chunk (cut.go), when the sink keeps one, in the
	// chunk's own terms: the epochs' ends as offsets in the main output's
	// buffer (mainDest), the tags counting the chunk's own epochs. WriteChunk
	// adds them to the sink's log.
	mainDest int       // the main output's destination, -1: none tracked
	sides    []*target // per destination: the sink's side file it is, or nil (read by WriteChunk only)
	ends     []int32   // the chunk's epochs
	dirty    bool      // a side row since the chunk's last main row
	firstEnd int       // the end of the chunk's first main row, -1: none yet
	tags     []int     // per destination: the tag of its last row, -1: no row yet
	first    []int     // per destination: the tag of its first row
	logs     []chunkLog
}

// chunkLog is a side file's length at an epoch in a chunk: destination
// dest's rows tagged from end at offset n of its buffer, its next ones are
// tagged to.
type chunkLog struct {
	dest, from, to, n int32
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
	late bool   // a late output (NewChunk): no row may reach it
}

// chunkMark is something the writer writes itself at offset off of
// destination dest's buffer: output k's header when it is still due
// (header), else the chunk's k-th malformed row (dest -1: in order, on its
// own target).
type chunkMark struct {
	dest, off, k int
	tag          int // the cut's tag of the chunk's malformed row (encChunk.ends)
	header       bool
}

// Rows implements session.EncodedChunk: r's rows in input order, as
// sink.Rows writes them, with the places of its malformed rows.
func (c *encChunk) Rows(r *session.Batch) error {
	if len(r.Errors.Rows) > 0 { // (a lookup morsel job's malformed rows are its left input's, not the joined rows')
		c.errName = r.Errors.Name
	}
	for k := range r.Parts { // the rows each output gets (each port's rows)
		if err := c.noLate(r.Parts[k].Output, len(r.Parts[k].Sel)); err != nil {
			return err
		}
		c.totals[r.Parts[k].Output] += int64(len(r.Parts[k].Sel))
	}
	for k := range r.Chunks {
		if err := c.noLate(r.Chunks[k].Output, len(r.Chunks[k].Sel)); err != nil {
			return err
		}
		c.totals[r.Chunks[k].Output] += int64(len(r.Chunks[k].Sel))
	}
	c.copies, c.fields = c.s.lineModes(r, c.copies[:0], c.fields[:0]) // as sink.Rows
	lines := start(&c.merge, r)
	m := &c.merge
	for {
		seg, ok := m.Next()
		if !ok {
			break
		}
		if seg.Chunk != nil {
			c.chunk(seg.Chunk)
			continue
		}
		for range seg.Bad {
			c.badMark()
		}
		for i := seg.From; i < seg.To; i++ {
			if k := seg.Port[i]; k >= 0 {
				switch {
				case c.copies[k]:
					c.row(&r.Parts[k], i, lines[i], 0)
				case c.fields[k] != 0:
					var plain uint64
					if lines[i] != nil {
						plain = c.fields[k]
					}
					c.row(&r.Parts[k], i, nil, plain)
				default: // (no kept texts: the rows after it of its port encoded with it)
					c.row(&r.Parts[k], i, nil, 0)
					i = c.run(&r.Parts[k], seg.Port, i+1, seg.To) - 1
				}
			}
		}
	}
	return nil
}

// run encodes the rows from from on that go to part p as its row before
// them did (row, without kept texts: neither Rows' copies nor fields),
// until one of another port (ports: each row's port, Segment.Port) or to,
// where it returns, when p's output is a csv or tsv one that row writes
// with format.AppendCSVRow alone (no output name before the fields, no
// nested column): format.AppendCSVLines, the same bytes without row's
// work a row (a lookup join's joined rows, issue 23). Else it encodes
// nothing and returns from. The cut's log needs nothing for them: after
// a row of a destination, note changes nothing for the next row of it.
func (c *encChunk) run(p *session.Part, ports []int16, from, to int) int {
	o := &c.outs[p.Output]
	if o.dest < 0 || o.t.prefix || (c.s.line != lineCSV && c.s.line != lineTSV) || o.t.hasNested() {
		return from
	}
	end, k := from, ports[from-1]
	for end < to && ports[end] == k {
		end++
	}
	if end > from {
		c.bufs[o.dest].b = format.AppendCSVLines(c.bufs[o.dest].b, o.t.cols, p.Cols, from, end, c.s.line.delim())
	}
	return end
}

// chunk encodes the rows an operator made, in order.
func (c *encChunk) chunk(ch *session.Chunk) {
	for _, i := range ch.Sel {
		c.row(&ch.Part, int(i), nil, 0)
	}
}

// noLate returns an error when n > 0 rows reach output k and it is a late
// output, which a chunk cannot open (NewChunk): a job that takes a chunk
// path makes no late row, so this is a bug of the planner's choice, said
// as such rather than the rows dropped.
func (c *encChunk) noLate(k, n int) error {
	if n > 0 && c.outs[k].late {
		return fmt.Errorf("internal error: %d late row(s) for output %s reached a chunk encoder (a job with late rows must not take the morsel paths)", n, c.outs[k].t.name)
	}
	return nil
}

// badMark keeps the place of the next malformed row.
func (c *encChunk) badMark() {
	m := chunkMark{dest: c.errDest, k: c.nbad, tag: len(c.ends)}
	c.dirty = true // (a malformed row is a side row for the cut)
	if m.dest >= 0 {
		m.off = len(c.bufs[m.dest].b)
	}
	c.marks = append(c.marks, m)
	c.nbad++
}

// row encodes row i of part p as sink.row does for a line format (line and
// plain as there).
func (c *encChunk) row(p *session.Part, i int, line []byte, plain uint64) {
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
	if c.tags != nil {
		c.note(d, start, len(b))
	}
}

// note keeps the cut's log of a row of destination d at [start, end) of its
// buffer (cut.go: cutLog.sideRow and mainRow in the chunk's terms).
func (c *encChunk) note(d, start, end int) {
	if d == c.mainDest {
		if c.firstEnd < 0 {
			c.firstEnd = end
		}
		if c.dirty {
			c.ends, c.dirty = append(c.ends, int32(end)), false
		}
		return
	}
	tag := len(c.ends)
	switch old := c.tags[d]; {
	case old < 0:
		c.first[d] = tag
	case old != tag:
		c.logs = append(c.logs, chunkLog{dest: int32(d), from: int32(old), to: int32(tag), n: int32(start)})
	}
	c.tags[d] = tag
	c.dirty = true
}

// Reset implements session.EncodedChunk.
func (c *encChunk) Reset() {
	for d := range c.bufs {
		c.bufs[d].b = c.bufs[d].b[:0]
	}
	for k := range c.outs {
		c.outs[k].seen = false
	}
	clear(c.totals)
	c.marks, c.nbad = c.marks[:0], 0
	if c.tags != nil {
		c.ends, c.logs, c.dirty, c.firstEnd = c.ends[:0], c.logs[:0], false, -1
		for d := range c.tags {
			c.tags[d] = -1
		}
	}
}

// WriteChunk implements session.ChunkSink: each destination's bytes with
// what its marks say in between, the side files before stdout (SPEC 4: when
// stdout is closed early, the side files hold every row routed before the
// last one written to stdout); the malformed rows that go to a target of
// their own (stderr, their --side-dir file) in order.
func (s *sink) WriteChunk(ec session.EncodedChunk, bad func(j int) *session.ErrorRow) error {
	c := ec.(*encChunk)
	if err := s.enc.sync(); err != nil {
		return err
	}
	for k, n := range c.totals {
		s.outs[k].total += n
	}
	tag0 := 0 // the sink's tag of the chunk's tag 0
	if s.cut != nil && c.tags != nil {
		tag0 = s.addCut(c)
	}
	for _, m := range c.marks {
		if m.dest < 0 {
			if s.cut != nil {
				s.badTag = tag0 + m.tag
			}
			err := s.errorRow(c.errName, bad(m.k))
			s.badTag = -1
			if err != nil {
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

// addCut adds the cut's log of chunk c to the sink's (cut.go), before c's
// bytes are written, and returns the sink's tag of c's tag 0.
func (s *sink) addCut(c *encChunk) int {
	cut := s.cut
	cut.prune()
	mainAt := cut.out.N + int64(cut.w.Buffered()) // where c's main bytes will start on stdout
	tag0 := cut.tag()
	if cut.dirty && c.firstEnd >= 0 && (len(c.ends) == 0 || int(c.ends[0]) != c.firstEnd) {
		// side rows of the chunks before, then c's first main row: an epoch
		// (c has no side row before it)
		cut.ends = append(cut.ends, mainAt+int64(c.firstEnd))
		tag0++
	}
	for _, e := range c.ends {
		cut.ends = append(cut.ends, mainAt+int64(e))
	}
	if c.firstEnd >= 0 {
		cut.dirty = c.dirty
	} else {
		cut.dirty = cut.dirty || c.dirty
	}
	for d, t := range c.sides {
		if t == nil || c.tags[d] < 0 {
			continue
		}
		t.at = t.length() // where c's bytes of t will start
		if tag := tag0 + c.first[d]; t.tag != tag {
			t.log = append(t.log, cutLen{tag: t.tag, n: t.at})
			t.tag = tag
		}
	}
	for _, l := range c.logs {
		t := c.sides[l.dest]
		if t == nil { // (every destination but main's is a side file)
			continue
		}
		t.log = append(t.log, cutLen{tag: tag0 + int(l.from), n: t.at + int64(l.n)})
		t.tag = tag0 + int(l.to)
	}
	return tag0
}

// writeDest writes destination d's bytes of c, and its marks at their places.
func (s *sink) writeDest(c *encChunk, d int, bad func(j int) *session.ErrorRow) error {
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
