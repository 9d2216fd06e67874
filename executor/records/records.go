// Package records owns what the line-oriented input formats of SPEC 1 (csv in
// executor/csvdec, json in executor/jsondec) share: cutting the input into
// records, batch by batch, and reporting the malformed ones.
//
// A Reader runs the per-batch record loop over an inbuf.Buffer: it skips a
// leading UTF-8 BOM, numbers lines, skips blank records (and a header), skips a
// record longer than 'max-record-size' as it arrives (keeping its first
// inbuf.RawPrefix bytes for raw), asks the 'encoding' layer (LineChecker) about
// each record, collects BadRows, and keeps what Rest hands back to a later
// reader of the same source. A format supplies only what a record is: how its
// end is found (Format.Scan) and how its fields are decoded (Format.Record).
//
// The loop is on the hot path: it allocates nothing per batch.
package records

import (
	"bytes"
	"fmt"
	"io"

	"streamql/catalog"
	"streamql/executor/inbuf"
	"streamql/executor/vector"
)

// BadRow is a malformed record (SPEC 1, "Bad input"), as every input format
// reports it.
type BadRow struct {
	// Index is the number of good rows already in the batch before this bad row,
	// so a caller can route rows [0, Index) and then stop (errors='fail').
	Index int
	// Line is the 1-based line where the record starts.
	Line int64
	// Raw is the record's whole text without its final line end (and without a
	// leading BOM). It points into the decoder's buffer and is valid until the next
	// call of Decode.
	Raw []byte
	// Reason says what is wrong, e.g. `column temperature: "abc" is not a valid
	// DOUBLE`, `expected 3 fields, got 2`, `quote never closed`.
	Reason string
}

// OwnRaw copies the Raw texts of bad, which point into a decoder's buffer,
// into arena (appended) and points them there, so they outlive the decoder's
// next call; it returns arena. Decoding ahead and in chunks use it
// (executor/prefetch.go, executor/chunked); arena is reset and reused.
func OwnRaw(arena []byte, bad []BadRow) []byte {
	off := len(arena)
	for _, x := range bad {
		arena = append(arena, x.Raw...)
	}
	for j := range bad {
		n := len(bad[j].Raw)
		bad[j].Raw = arena[off : off+n : off+n]
		off += n
	}
	return arena
}

// LineChecker reports input lines found malformed before decoding (by the
// 'encoding' layer, textenc.Reader). Check is called once per record, in input
// order, with the record's first and last line and its text without its final
// line end; bad means the record is malformed, with raw as its raw text.
type LineChecker interface {
	Check(first, last int64, text []byte) (raw []byte, reason string, bad bool)
}

// Format is what an input format supplies to a Reader: how a record's end is
// found and how a record is decoded. Its methods are called from Decode only.
type Format interface {
	// Scan finds the end of the record at the start of data, the buffered input
	// not consumed yet; base is data[0]'s position in the buffer (inbuf
	// Buffer.Start, valid until Refilled) and eof reports that the input ends
	// with data. It returns the length of the record's text without its line
	// end, the number of bytes to consume, what the record is (Multiline,
	// Blank), and ok = false when the record is not complete yet: Scan may then
	// keep how far it got and resume there on the next call (see Dropped). At
	// eof a non-empty data is always a complete record.
	Scan(data []byte, base int, eof bool) (recLen, adv int, kind Kind, ok bool)
	// Dropped says that the Reader consumed all of the data the last Scan saw
	// (the start of a record longer than 'max-record-size', skipped); a resume
	// position in it goes back to 0, other scan state stays.
	Dropped()
	// Refilled says that the buffer is about to be filled: every position base
	// gave is invalid from now on.
	Refilled()
	// Record decodes rec, the record the last Scan found (its text without its
	// line end, except at the end of input), as row b.N of b. It returns "" on
	// success, else the reason rec is malformed.
	Record(b *vector.Batch, rec []byte) string
}

// PlainFormat is a Format that can also decode a run of plain records at
// once, for speed: records that need none of the Reader's care, each one line
// ending in a LF, not blank, not longer than 'max-record-size', and a good
// row. The Reader asks it when it has no record, header, line check or
// skipped record pending, and reads whatever it stops at the usual way.
type PlainFormat interface {
	Format
	// Plain decodes the records at the start of data (base is data[0]'s
	// buffer position, as for Scan) as rows b.N, b.N+1, ... of b, at most
	// rows of them, none starting at or after index starts of data (Config.Limit)
	// nor longer than maxRec bytes without its line end, and stops at the first record that is not plain (as it sees it: Scan
	// and Record decide it; a row it stored nothing of is left as it was). It
	// leaves b.N and b.Pos to the Reader, sets ends[k] to the buffer position
	// after row b.N+k's line end, and returns how many rows it decoded and
	// the bytes of data they took.
	Plain(b *vector.Batch, data []byte, base, rows, starts, maxRec int, ends []int) (n, used int)
}

// Kind says what a record Format.Scan found is: a set of the flags below.
type Kind uint8

// The flags of a Kind.
const (
	// Multiline: the record may span lines; the Reader counts the LFs in its
	// text for the line numbers of the records after it.
	Multiline Kind = 1 << iota
	// Blank: the record is a blank line, skipped (unless it is the end of a
	// record longer than 'max-record-size', which is malformed).
	Blank
)

// Config is what a Reader reads with, from the stream's options (SPEC 1).
type Config struct {
	// Name prefixes the Reader's errors ("csv", "json").
	Name string
	// Types are the types of the batch's first columns, which Decode checks.
	Types []catalog.Type
	// BufSize is the size in bytes of the buffer to start with.
	BufSize int
	// Header skips the first non-blank record (csv.header).
	Header bool
	// Lines, when set, is asked about every record before it is decoded; nil =
	// no check.
	Lines LineChecker
	// MaxRecord is 'max-record-size' in bytes; 0 means inbuf.DefaultMaxRecord.
	MaxRecord int
	// Err, when set, is an invalid configuration, which every Decode returns.
	Err error
	// Continues says the input goes on where an earlier reader of the same
	// source stopped (the session's stdin, SPEC 1): a BOM or header is only at
	// the very start of the source, so neither is skipped.
	Continues bool
	// HeaderPending, with Continues, says the header (Header) has not been met
	// yet where this input starts: a chunk of a file read in parallel
	// (executor/chunked) that follows chunks of blank lines only.
	HeaderPending bool
	// Limit, when > 0, ends the input before the first record (or blank line)
	// that starts at or after Limit bytes of it, counted from the reader's
	// first byte: Decode returns io.EOF there, and End tells where it
	// stopped. A record that starts before Limit is read whole, past it. It is
	// how a chunk of a file is decoded on its own (executor/chunked).
	Limit int64
}

// Span is where a decoder restarted on a part of a file reads (a chunk,
// executor/chunked): its Config's Continues, HeaderPending and Limit.
type Span struct {
	Continues     bool  // the part starts after the file's first byte: no BOM, no header unless HeaderPending
	HeaderPending bool  // with Continues: the header line is still to come
	Limit         int64 // stop before the first record starting at or after Limit bytes (0: none)
}

// End is where a Reader stopped: the input offset in bytes of the first
// record it did not read (at Config.Limit or past it, or the end of input),
// that record's 1-based line, and whether the header line was met.
type End struct {
	Offset     int64
	Line       int64
	HeaderDone bool
}

// Reader is the record loop of one input: a field of its decoder (used in
// place, after Init). It is not safe for concurrent use.
type Reader struct {
	f          Format
	plain      PlainFormat // f, when it is one
	name       string
	types      []catalog.Type
	header     bool
	lines      LineChecker
	err        error
	maxRec     int
	in         inbuf.Buffer // in.Data() is the input not yet consumed
	line       int64        // line number of the record starting at in.Data()
	headerDone bool
	limit      int64 // Config.Limit
	stopped    bool  // the next record starts at or after limit

	// An oversized record being skipped (longer than maxRec): its first bytes,
	// its first line and the lines it has spanned so far.
	over      bool
	overRaw   []byte
	overLine  int64
	overLines int64
	overUsed  bool // a bad row of the current batch has overRaw as raw

	// Buffer positions (in.Start()) for Rest: where the last batch's input
	// starts, and after the record of each of its good rows and of each of its
	// malformed rows (badEnds, batchBad of them).
	batchStart int
	batchN     int
	ends       [vector.Cap]int
	batchBad   int
	badEnds    [vector.Cap]int
}

// Init makes r read src with format f and configuration c. A Reader used
// before may be Init again: its buffer is reused when it is large enough, so
// the rows and raw texts it gave are invalid from then on.
func (r *Reader) Init(src io.Reader, f Format, c Config) {
	in := r.in
	*r = Reader{f: f, name: c.Name, types: c.Types, header: c.Header, lines: c.Lines, err: c.Err, line: 1, in: in, limit: c.Limit}
	r.plain, _ = f.(PlainFormat)
	r.maxRec = c.MaxRecord
	if r.maxRec <= 0 {
		r.maxRec = inbuf.DefaultMaxRecord
	}
	r.in.Init(src, c.BufSize, c.Name)
	r.in.SetMax(r.maxRec + 2) // a record of maxRec bytes and its CRLF
	if c.Continues {
		r.in.SkipBOM(nil)
		r.headerDone = !c.HeaderPending
	}
}

// End returns where r stopped (see End); meaningful once Decode returned
// io.EOF.
func (r *Reader) End() End {
	return End{Offset: r.in.BytesRead() - int64(len(r.in.Data())), Line: r.line, HeaderDone: r.headerDone}
}

// BytesRead returns the number of bytes read from the source so far (a BOM
// included), for progress reporting.
func (r *Reader) BytesRead() int64 { return r.in.BytesRead() }

// Decode resets b and fills it with up to vector.Cap good rows: typed values in
// b.Cols and b.Pos[i] = the line where row i's record starts. The first columns
// of b must have the configured types; further columns belong to the caller and
// are left untouched. Malformed records met meanwhile are appended to *bad,
// which the caller resets; their Index keeps their order relative to the good
// rows.
//
// Decode returns as soon as it holds at least one row (good or bad) and no
// complete record remains in its buffer, without reading again, so rows from a
// live source show at once. It returns io.EOF only when it returns no rows and
// no bad rows and the input is exhausted; other errors are read errors, a batch
// of the wrong shape or Config.Err, returned once the rows read before them are
// decoded.
func (r *Reader) Decode(b *vector.Batch, bad *[]BadRow) error {
	b.Reset()
	if r.err != nil {
		return r.err
	}
	if len(b.Cols) < len(r.types) { // extra trailing columns (e.g. the watermark column) are the caller's
		return fmt.Errorf("%s: batch has %d columns, decoder needs %d", r.name, len(b.Cols), len(r.types))
	}
	for j, t := range r.types {
		if b.Cols[j].Type != t {
			return fmt.Errorf("%s: batch column %d is %s, decoder reads %s", r.name, j+1, b.Cols[j].Type, t)
		}
	}
	badStart := len(*bad)
	r.batchStart, r.batchN, r.overUsed = r.in.Start(), 0, false
	r.batchBad = 0
	for {
		for b.N < vector.Cap && len(*bad)-badStart < vector.Cap {
			if !r.next(b, bad) {
				break
			}
			if k := len(*bad) - badStart; k > r.batchBad { // (next adds at most one)
				r.badEnds[r.batchBad] = r.in.Start()
				r.batchBad = k
			}
		}
		r.batchN = b.N
		if b.N > 0 || len(*bad) > badStart {
			// Return the rows before reading again: they point into the buffer,
			// which Fill moves, and on a live source the next read may block.
			return nil
		}
		if r.stopped {
			return io.EOF
		}
		r.f.Refilled()
		err := r.in.Fill()
		r.batchStart = r.in.Start()
		if err != nil {
			return err // io.EOF, a read error, or a broken reader
		}
	}
}

// Rest returns the input read from the source that the caller did not use,
// when it used only the first rows good rows of the batch the last Decode gave
// (rows < 0: all of them, and the malformed rows after them): the text from
// the end of row rows-1 (the batch's start for rows = 0) to the end of what was
// read, byte for byte as the source gave it. It is valid until the next Decode.
func (r *Reader) Rest(rows int) []byte {
	if rows < 0 {
		return r.in.Data()
	}
	return r.RestAfter(rows, 0)
}

// RestAfter is Rest when the caller used the first rows good rows and the
// first bad malformed rows of the last batch (a job with 'errors'='fail'
// stops at its first malformed row, which it used: SPEC 1): the text after
// the later of the two ends, all that was read when either is past the
// batch. It is valid until the next Decode.
func (r *Reader) RestAfter(rows, bad int) []byte {
	if rows < 0 || rows > r.batchN || bad < 0 || bad > r.batchBad {
		return r.in.Data()
	}
	pos := r.batchStart
	if rows > 0 {
		pos = r.ends[rows-1]
	}
	if bad > 0 {
		pos = max(pos, r.badEnds[bad-1])
	}
	return r.in.Since(pos)
}

// RestLine returns the 1-based input line where RestAfter(rows, bad) starts
// (rows < 0: Rest(-1), the line after all that was decoded): a later reader
// of the same source numbers its lines on from there (SPEC 1, stdin:line).
func (r *Reader) RestLine(rows, bad int) int64 {
	return r.in.LineOf(r.RestAfter(rows, bad), r.line)
}

// next decodes the next record in the buffer into b or *bad, skipping blank
// lines and the header. It reports false when no complete record remains in the
// buffer (at EOF, when the buffer is used up).
func (r *Reader) next(b *vector.Batch, bad *[]BadRow) bool {
	if !r.in.SkipBOM(inbuf.UTF8BOM) {
		return false // cannot tell yet
	}
	for {
		data := r.in.Data()
		if r.limit > 0 && !r.over && r.in.BytesRead()-int64(len(data)) >= r.limit {
			r.stopped = true
			return false
		}
		if len(data) == 0 && (!r.over || !r.in.EOF()) {
			return false // (the input's end still ends a record being skipped)
		}
		if r.plain != nil && !r.over && r.headerDone && r.lines == nil {
			starts := len(data)
			if r.limit > 0 {
				starts = int(min(int64(starts), r.limit-(r.in.BytesRead()-int64(len(data)))))
			}
			if n, used := r.plain.Plain(b, data, r.in.Start(), vector.Cap-b.N, starts, r.maxRec, r.ends[b.N:]); n > 0 {
				for k := range n {
					b.Pos[b.N+k] = r.line + int64(k)
				}
				b.N += n
				r.line += int64(n)
				r.in.Consume(used)
				return true
			}
		}
		recLen, adv, kind, ok := r.f.Scan(data, r.in.Start(), r.in.EOF())
		if !ok {
			if r.over || len(data) > r.maxRec+1 {
				if !r.over && r.overUsed {
					return false // overRaw is a bad row's raw in this batch: return it first
				}
				r.skipOver(data)
			}
			return false
		}
		rec := data[:recLen]
		line := r.line
		lines := int64(1)
		if kind&Multiline != 0 {
			lines += int64(bytes.Count(rec, []byte{'\n'}))
		}
		over := r.over
		if over { // the end of an oversized record
			r.over = false
			r.overRaw = inbuf.AppendPrefix(r.overRaw, rec)
			line = r.overLine
			lines += r.overLines
		}
		r.in.Consume(adv)
		r.line += lines
		tooLong := over || recLen > r.maxRec
		if !tooLong && kind&Blank != 0 {
			continue
		}
		if !r.headerDone {
			r.headerDone = true
			if r.header {
				continue
			}
		}
		if tooLong {
			raw := r.overRaw
			r.overUsed = r.overUsed || over
			if !over {
				k := min(len(rec), inbuf.RawPrefix)
				raw = rec[:k:k]
			}
			*bad = append(*bad, BadRow{Index: b.N, Line: line, Raw: raw, Reason: inbuf.TooLong(r.maxRec)})
			return true
		}
		if r.lines != nil {
			if raw, reason, isBad := r.lines.Check(line, line+lines-1, trimLineEnd(rec)); isBad {
				*bad = append(*bad, BadRow{Index: b.N, Line: line, Raw: raw, Reason: reason})
				return true
			}
		}
		if reason := r.f.Record(b, rec); reason != "" {
			raw := trimLineEnd(rec) // (an unclosed quote's record may end in one)
			*bad = append(*bad, BadRow{Index: b.N, Line: line, Raw: raw[:len(raw):len(raw)], Reason: reason})
			return true
		}
		b.Pos[b.N] = line
		r.ends[b.N] = r.in.Start()
		b.N++
		return true
	}
}

// skipOver drops data, the scanned start (or a further part) of a record longer
// than maxRec, keeping its first bytes for raw and counting its lines. The
// format's scan state stays (but for its resume position), so the record's end
// is still found where the format's rules (quotes) allow it.
func (r *Reader) skipOver(data []byte) {
	if !r.over {
		r.over = true
		r.overLine = r.line
		r.overLines = 0
		r.overRaw = r.overRaw[:0]
	}
	if n := len(data); data[n-1] == '\r' {
		data = data[:n-1] // may be a CRLF's CR: scanned again with its LF
	}
	r.overRaw = inbuf.AppendPrefix(r.overRaw, data)
	r.overLines += int64(bytes.Count(data, []byte{'\n'}))
	r.in.Consume(len(data))
	r.f.Dropped()
}

// trimLineEnd returns b without a final LF or CRLF.
func trimLineEnd(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
		if n := len(b); n > 0 && b[n-1] == '\r' {
			b = b[:n-1]
		}
	}
	return b
}
