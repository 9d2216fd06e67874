package render

import (
	"bufio"
	"io"
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
}

// cutLen is one entry of a side file's log: its rows tagged tag or less end
// at byte n of the file.
type cutLen struct {
	tag int
	n   int64
}

// length is the length t's file has with its buffered bytes (bytes).
func (t *target) length() int64 { return t.cw.N + int64(t.w.Buffered()) }

// keptAt is the length of t's file holding its rows tagged k or less
// (k = -1: none of its rows since its base).
func (t *target) keptAt(k int) int64 {
	if t.tag <= k {
		return t.length()
	}
	n := t.base
	for _, l := range t.log {
		if l.tag > k {
			break
		}
		n = l.n
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
		t.base = t.keptAt(j)
		n := 0
		for _, l := range t.log {
			if l.tag > j {
				t.log[n] = cutLen{tag: l.tag - (j + 1), n: l.n}
				n++
			}
		}
		t.log = t.log[:n]
		t.tag = max(0, t.tag-(j+1))
	}
	c.ends = c.ends[:copy(c.ends, c.ends[j+1:])]
}

// apply cuts every side file back to the rows routed before the last main
// row stdout accepted, when a write to stdout failed (after the side files
// were flushed), and returns the first error of ftruncate.
func (c *cutLog) apply() error {
	if c.out.Err == nil {
		return nil
	}
	k := c.accepted()
	var err error
	for _, t := range c.files {
		if t.file == nil {
			continue
		}
		if n := t.keptAt(k); n < t.cw.N {
			if terr := t.file.Truncate(n); terr != nil && err == nil {
				err = terr
			}
			t.cw.N = n
		}
	}
	return err
}
