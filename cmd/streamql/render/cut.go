package render

import (
	"bufio"
	"io"
	"math"
	"os"
	"slices"
)

// Cutting the side files back when stdout is closed early (SPEC 4: "every
// --side-dir file holds its header and the rows routed before the last row
// written to stdout, ending on a whole row").
//
// A row is written to stdout when all its bytes were accepted by write(2) on
// stdout: WriteCounter, the writer under stdout's buffers, counts them (a
// failing write reports how many bytes got through; os.File.Write returns
// that count with its error). Stdout's bytes are numbered in that count's
// coordinates: a main row's end is the count plus what the buffers above it
// hold when the row has been handed to them.
//
// The side files are written as the rows come (their bytes may reach the
// files before the main rows before them reach stdout), and when stdout's
// write fails, Close cuts every side file back (ftruncate) to its length
// just before the first of its rows routed after the last main row written.
// To know that length, the sink keeps a small log (cutLog): the end of each
// main row that follows a side row (an epoch), and per side file the length
// it had at each epoch its rows crossed. A main row that follows a main row
// costs a flag test, a side row a comparison. Epochs whose main row stdout
// accepted are folded into each file's base from time to time (prune), so
// the log holds only the epochs of the bytes stdout's buffers still hold.
// Side files are regular files (FileSet.open refuses anything else): a named
// pipe could not be cut back.
//
// Tables (--format table and markdown). A table's rows are buffered and
// drawn in chunks (sink.renderTables: main's table first, then the side
// files'), so a main row is written to stdout when its line in main's table
// is (every byte of it up to its LF accepted), and a side row reaches its
// file only when its table is drawn. The epochs are noted as the rows are
// routed (tableMainRow, tableSideRow), their ends once main's table is drawn,
// and each side file's log as its table is drawn (tableDrawn), from the ends
// of the row lines writeTable notes (tableRows.track). A side file holds
// tables, each whole: header and bottom border (or a pipe table's blank
// line). Cut after a row inside one, the file is closed again by that
// table's bottom border (writeTableEnd: its columns as wide as the rows it was
// drawn with made them, which may be wider than the rows kept need: a valid,
// closed table all the same, and the bytes of every row kept are the bytes
// drawn); cut before the first row of a table, the file ends with the table
// before; cut before its first row, a file this job created holds its header
// as an empty table, as a side output with no rows does (SPEC 4: every side
// file holds its header). In the line formats the errors and late outputs'
// files, which exist only once a row reaches them (SPEC 1, 2.4), are
// removed instead when this run made them and none of their rows is kept.

// WriteCounter is the writer under stdout's buffers (and under each side
// file's): it passes each Write to W and counts in N the bytes W accepted,
// also those of a Write that failed. Err is the first error W returned.
// SPEC 4: the main rows written to stdout are those all of whose bytes were
// counted here.
type WriteCounter struct {
	W   io.Writer
	N   int64 // bytes accepted by W
	Err error // W's first error, nil while every write succeeded
}

// Write implements io.Writer: W.Write(p), counted.
func (c *WriteCounter) Write(p []byte) (int, error) {
	n, err := c.W.Write(p)
	c.N += int64(n)
	if err != nil && c.Err == nil {
		c.Err = err
	}
	return n, err
}

// How a target takes part in the cut (target.track).
const (
	trackNone uint8 = iota
	trackMain       // the main output on stdout
	trackSide       // a --side-dir file
)

// cutLog is the sink's record of how its side files' rows interleave with
// the main rows on stdout (see above). Tags number the epochs: a side row
// tagged k was routed before the main row that ends at ends[k] (and after
// the one at ends[k-1]).
type cutLog struct {
	out   *WriteCounter // under stdout's buffers
	w     *bufio.Writer // the sink's stdout (Config.Stdout), right above out
	ends  []int64       // the epochs: the ends of the main rows that follow a side row, ascending
	dirty bool          // a side row since the last main row
	files []*target     // the side files, each once
	// table is the format of tables ("table" or "markdown"), "" for a line
	// format; pend the epochs whose main row waits in main's table, their
	// ends unwritten until it is drawn.
	table string
	pend  []pendEpoch
}

// cutLen is one entry of a side file's log: its rows tagged tag or less end
// at byte n of the file. inTable, when not 0, says that n is inside a table
// (after one of its rows), which a cut there closes (writeTableEnd); for a box
// table the table's column widths are then the file's boxes[inTable-1:]
// (len(cols) of them).
type cutLen struct {
	tag     int
	n       int64
	inTable int32
}

// pendEpoch is an epoch whose main row is row of the table being gathered:
// ends[epoch] is unwritten until the table is drawn.
type pendEpoch struct{ row, epoch int }

// unwritten is the end of an epoch whose main row did not reach stdout's
// buffer: no count of accepted bytes reaches it.
const unwritten = math.MaxInt64

// length is the length t's file has with its buffered bytes (bytes).
func (t *target) length() int64 { return t.cw.N + int64(t.w.Buffered()) }

// kept is the length of t's file holding its rows tagged k or less (k = -1:
// none of its rows since its base), with what closes a table cut there
// (cutLen.inTable; its tag is not k's).
func (t *target) kept(k int) cutLen {
	if t.tag <= k {
		return cutLen{n: t.length()}
	}
	n := t.base
	for _, l := range t.log {
		if l.tag > k {
			break
		}
		n = l
	}
	return n
}

// tag is the tag of a side row routed now.
func (c *cutLog) tag() int { return len(c.ends) }

// sideRow notes, before a row of side file t tagged tag is written, where
// t's rows of the earlier tags end.
func (c *cutLog) sideRow(t *target, tag int) {
	if t.tag != tag {
		t.log = append(t.log, cutLen{tag: t.tag, n: t.length()})
		t.tag = tag
	}
	c.dirty = true
}

// mainRow notes, after a main row was handed to stdout's buffer, its end
// when a side row came before it. After a failed write nothing is noted:
// that row, and any after it, was not written.
func (c *cutLog) mainRow() {
	if !c.dirty || c.out.Err != nil {
		return
	}
	c.dirty = false
	if len(c.ends) == cap(c.ends) {
		c.prune()
	}
	c.ends = append(c.ends, c.out.N+int64(c.w.Buffered()))
}

// accepted returns the index of the last epoch whose main row stdout
// accepted whole, -1 when none.
func (c *cutLog) accepted() int {
	i, found := slices.BinarySearch(c.ends, c.out.N)
	if found {
		return i
	}
	return i - 1
}

// prune folds the epochs whose main row stdout accepted into each side
// file's base: those rows stay whatever comes.
func (c *cutLog) prune() {
	j := c.accepted()
	if j < 0 {
		return
	}
	for _, t := range c.files {
		t.base = t.kept(j)
		n := 0
		for _, l := range t.log {
			if l.tag > j {
				l.tag -= j + 1
				t.log[n] = l
				n++
			}
		}
		t.log = t.log[:n]
		t.tag = max(0, t.tag-(j+1))
		if len(t.boxes) > 0 {
			t.pruneBoxes()
		}
	}
	for i := range c.pend {
		c.pend[i].epoch -= j + 1
	}
	c.ends = c.ends[:copy(c.ends, c.ends[j+1:])]
}

// pruneBoxes drops the column widths of the box tables no entry of t's log
// (its base included) is inside any more.
func (t *target) pruneBoxes() {
	lo := int32(len(t.boxes)) + 1
	if t.base.inTable > 0 {
		lo = t.base.inTable
	}
	for _, l := range t.log {
		if l.inTable > 0 {
			lo = min(lo, l.inTable)
		}
	}
	t.boxes = t.boxes[:copy(t.boxes, t.boxes[min(int(lo-1), len(t.boxes)):])]
	if t.base.inTable > 0 {
		t.base.inTable -= lo - 1
	}
	for i := range t.log {
		if t.log[i].inTable > 0 {
			t.log[i].inTable -= lo - 1
		}
	}
}

// apply cuts every side file back to the rows routed before the last main
// row stdout accepted, when a write to stdout failed (after the side files
// were flushed), a table's file ending on a whole table (see above), and
// returns the first error of ftruncate or of the file's writes.
func (c *cutLog) apply() error {
	if c.out.Err == nil {
		return nil
	}
	k := c.accepted()
	var err error
	keep := func(e error) {
		if e != nil && err == nil {
			err = e
		}
	}
	for _, t := range c.files {
		kept := t.kept(k)
		if t.file == nil || kept.n >= t.cw.N {
			continue
		}
		if t.isErrors && t.created && kept == t.base && c.table == "" {
			// errors and late exist once a row reaches them (SPEC 1, 2.4):
			// with none of this run's kept, the file this run made goes
			// (a table's rows may still be drawn after the cut: kept)
			keep(os.Remove(t.path))
			continue
		}
		if terr := t.file.Truncate(kept.n); terr != nil {
			keep(terr)
			continue
		}
		t.cw.N = kept.n
		if c.table == "" {
			continue
		}
		// the table's file is written on from the cut (its offset was at its old end)
		if _, serr := t.file.Seek(kept.n, io.SeekStart); serr != nil {
			keep(serr)
			continue
		}
		switch {
		case kept.inTable > 0:
			box := t.boxes[kept.inTable-1:]
			writeTableEnd(t.w, c.table, box[:min(len(t.cols), len(box))])
		case kept.n == 0 && t.created:
			keep(writeTable(t.w, c.table, "", t.cols, &tableRows{}))
		}
		keep(t.w.Flush())
	}
	return err
}

// tableMainRow notes the main row just buffered as row r of its table: an
// epoch when a side row came before it, its end unwritten until the table
// is drawn (tableDrawn).
func (c *cutLog) tableMainRow(r int) {
	if !c.dirty {
		return
	}
	c.dirty = false
	c.pend = append(c.pend, pendEpoch{row: r, epoch: len(c.ends)})
	c.ends = append(c.ends, unwritten)
}

// tableSideRow notes a row of side file t buffered for its table, tagged tag.
func (c *cutLog) tableSideRow(t *target, tag int) {
	t.rowTags = append(t.rowTags, tag)
	c.dirty = true
}

// tableStart returns where t's next table starts: the byte of stdout (main;
// -1 once a write to stdout failed: its rows are not written) or of t's file.
func (c *cutLog) tableStart(t *target) int64 {
	if t.track == trackMain {
		if c.out.Err != nil {
			return -1
		}
		return c.out.N + int64(c.w.Buffered())
	}
	return t.length()
}

// tableDrawn notes t's table just drawn from byte start (tableStart), its
// row lines ending at tr.lineEnds: main's epochs get their ends; a side
// file's log gets its length before the first row of each tag, with its
// table's end when that is inside the table.
func (c *cutLog) tableDrawn(t *target, start int64, tr *tableRows) {
	if t.track == trackMain {
		for _, p := range c.pend {
			if start < 0 {
				break // (stdout failed: those rows were not written, their ends stay unwritten)
			}
			c.ends[p.epoch] = start + tr.lineEnds[p.row]
		}
		c.pend = c.pend[:0]
		return
	}
	var in int32 // the table's cutLen.inTable, once an entry is inside it
	for r, tag := range t.rowTags {
		if tag == t.tag {
			continue
		}
		l := cutLen{tag: t.tag, n: start}
		if r > 0 {
			if in == 0 {
				in = int32(len(t.boxes)) + 1
				t.boxes = append(t.boxes, tr.box...) // (none for a pipe table)
			}
			l.n, l.inTable = start+tr.lineEnds[r-1], in
		}
		t.log = append(t.log, l)
		t.tag = tag
	}
	t.rowTags = t.rowTags[:0]
}
