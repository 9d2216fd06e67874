// Package chunked decodes a bounded csv or json lines file on several
// goroutines and gives its rows back in file order, with the same values, line
// numbers and malformed rows as one sequential decoder (SPEC 1), in bounded
// memory (issue 15 item 3; DESIGN: executor).
//
// # How
//
// The file is cut into chunks of about Options.ChunkSize bytes (256 KiB by
// default: small enough that the decoded rows of the chunks in flight stay in
// the CPU's caches until the job routes them; 1 MiB chunks measured no faster
// and took 10 MiB more memory). Chunk k covers [lineStart(k·S), lineStart((k+1)·S)), where
// lineStart(x) is the first offset at or after x that follows a LF (or the
// end of the file): each worker finds its chunk's two ends itself, with a
// small read around each, so no goroutine scans the file ahead of the others.
// A worker decodes its chunk with its own decoder (csvdec or jsondec,
// restarted on the chunk: records.Span), stopping before the first record
// that starts at or after the chunk's end (records.Config.Limit): a record
// that starts in the chunk is read whole, also past its end. Line numbers
// count from the chunk's start; the merge adds the lines of the chunks before.
//
// # Quotes that span lines: speculation and resynchronisation
//
// A chunk's start is a guess: the LF before it may be inside a quoted field
// (csv), or inside a record longer than 'max-record-size'. Each worker decodes
// as if its start were a record start (the speculation DuckDB's parallel csv
// reader makes), and records where its own decoding stopped (records.End:
// offset, line, header met). The merge, which takes chunks strictly in file
// order, knows where the previous chunk really ended, since that chunk's own
// start was checked the same way (chunk 0 starts at the file's start). When a
// chunk's start is not where the previous one ended (the previous chunk's last
// record ran past it), or the header line has not been met yet, the worker's
// rows of that chunk are dropped and the merge decodes the chunk again from
// the true record start, as the sequential decoder would; the chunk's end is
// then right again, so the next chunk is checked the same way. After
// Options.MaxRedo such chunks, when they are more than one in 8 (a file with
// many quoted line breaks, where the guess keeps failing), the rest of the
// file is decoded sequentially, and the workers stop. Rows, values, positions and malformed rows are thus those of
// the sequential decoder in every case; only the batch boundaries differ,
// which no result depends on (SPEC 2.3: watermarks advance per row).
//
// # Memory
//
// At most Workers+2 chunks are in flight (being decoded, decoded and waiting,
// or being merged; 2·Workers+4 with Options.Work, each of one batch: see
// InFlight); a worker waits for a free one. A chunk holds its rows as
// batches with their text copied into the batches' arenas (the decoders'
// buffers are reused), about 2.5 times the chunk's bytes for the sensor rows
// of the benchmark; each chunk in flight has the batches of a chunk of
// 16-byte rows from the start (17 for 256 KiB chunks, some 1.2 MiB for the
// sensor rows), more only for shorter rows: some 5 MiB with 2 workers and 22
// MiB with 16, plus each worker's 256 KiB read buffer. The batches, arenas and decoders are reused from chunk to chunk:
// in steady state nothing is allocated per row (nor per chunk).
//
// # What to expect on more cores
//
// For a job with state from row to row, the executor runs GOMAXPROCS-1
// workers, and only from 2 workers on (GOMAXPROCS >= 3; on 2 CPUs the
// decode-ahead goroutine of executor/prefetch.go stays, see
// executor/parallel.go). Decoding scales with
// the workers: chunks are independent but for the few mispredicted ones, the
// workers read with ReadAt in parallel, and nothing is shared but two
// channels per chunk. What stays on one goroutine is the merge (adding the
// line base to each row's position: about 1 ns a row) and all of the job
// after it: the errors policy, the watermark, routing, the expressions,
// encoding and the writer. On the split job of the benchmark (README,
// 2026-11-29, CPU-ns per row) decoding is about 43 ns a row, plus some 15% for
// the copy into the chunk's batches and the hand-off (BenchmarkDecode, one
// worker on one CPU against one decoder), and the job's goroutine about 45
// (route 6, csv encode 38, write). Decoding alone, BenchmarkDecode measured
// 320 MB/s for one decoder and 460 MB/s for 2 workers on 2 busy CPUs
// (2026-12-01, indicative). So:
//
//   - 1 CPU: no parallel decoding; about 90 ns a row.
//   - 2 CPUs: decode-ahead, bound by the job's goroutine: about 50 ns a row
//     (2 workers beside it measured 17% slower: they take CPU time from it).
//   - 8 CPUs (7 workers): decoding costs about 7 ns a row of wall time, the
//     job's goroutine still 45-50: the split job to csv runs no faster than
//     on 2 CPUs. Jobs whose decoding weighs more than their routing and
//     encoding gain up to the worker count: JSON input, wide rows of many
//     numbers, filters that keep few rows, a semi join's probe.
//   - 16 CPUs (15 workers): the same bound; decoding scales on until memory
//     bandwidth (about 2.5 bytes of batches written and read per input byte).
//
// That is for jobs that keep state from row to row (a WATERMARK, an
// aggregate, a LIMIT). For the others, Options.Work makes the workers do the
// whole per-row work: each worker decodes its chunk batch by batch
// (Chunk.Next, no copy into the chunk's batches: one batch per chunk in
// flight) and routes and encodes it in the same pass; the merge checks the
// chunks in file order as above and gives them whole (NextChunk), or gives
// the rows it decoded again itself. That is the executor's morsel pipeline
// (executor/morsel.go, from 2 CPUs on), whose package doc says what to
// expect on 8 and 16 CPUs there. The executor's parallel window aggregate
// (executor/paragg.go) works the same way, and gives back to the merge
// (Reader.Redo) the chunks whose worker's result it cannot use.
package chunked

import (
	"bytes"
	"errors"
	"io"
	"sync"
	"sync/atomic"

	"streamql/catalog"
	"streamql/executor/records"
	"streamql/executor/vector"
)

// Decoder is one input format's decoder restartable on a part of a file:
// csvdec.Decoder and jsondec.Decoder.
type Decoder interface {
	// Decode fills b with the next rows and appends malformed rows to *bad
	// (records.Reader.Decode); io.EOF at the end of the part.
	Decode(b *vector.Batch, bad *[]records.BadRow) error
	// Restart makes the decoder read r from its start as the part s says,
	// reusing its memory.
	Restart(r io.Reader, s records.Span)
	// End tells where the decoder stopped after io.EOF (offsets from r's start).
	End() records.End
}

// Preparer is a Decoder that keeps memory of its own in the batches it
// fills (csvdec: the number and record texts): Prepare makes it in b ahead of
// the first Decode, so the Reader can give every batch it makes up front its
// memory up front too.
type Preparer interface {
	Prepare(b *vector.Batch)
}

// DefaultChunkSize is the chunk size in bytes when Options.ChunkSize is 0.
const DefaultChunkSize = 256 << 10

// defaultMaxRedo is Options.MaxRedo when it is 0.
const defaultMaxRedo = 8

// readAhead is how much a worker reads at a time past its chunk's end, where
// only the record crossing the end is left to read.
const readAhead = 16 << 10

// Options say how a file is cut and what its format skips.
type Options struct {
	// ChunkSize is the chunk size in bytes (at least 16); 0 means
	// DefaultChunkSize.
	ChunkSize int64
	// Header says the first non-blank record is a header, skipped (csv.header,
	// SPEC 1); the decoders skip it themselves in chunk 0, and the merge checks
	// that it was met before a later chunk starts.
	Header bool
	// MaxRedo is how many chunks may start inside a record (decoded again by
	// the merge) before the rest of the file is decoded sequentially, once
	// they are also more than one chunk in 8; 0 means 8, < 0 means never.
	MaxRedo int
	// Overrun is how many bytes a worker may read past its chunk's end for
	// the record that crosses it (0 means DefaultOverrun). A worker that
	// needs more gives its chunk up, and the merge decodes the chunk itself:
	// so a worker whose guessed start put it out of phase with the quotes
	// (one record for many lines) neither reads the file to its end nor
	// grows its buffer to 'max-record-size'.
	Overrun int64
	// Work, when set, is called by the worker that claimed a chunk, on its
	// goroutine, to decode the chunk's rows (Chunk.Next) and use them before
	// the chunk is merged (the executor's morsel pipeline routes and encodes
	// them there, see executor/morsel.go); worker is the worker's index, 0 to
	// workers-1. The Reader then gives chunks with NextChunk instead of
	// batches with Next. The rows of a chunk whose start proves wrong, or
	// whose decoding failed, are not used: the merge decodes the chunk again
	// and gives its rows itself (NextChunk).
	Work func(worker int, c *Chunk)
	// NoText sets vector.Batch.NoText on every batch the Reader gives: its
	// user copies no source text, so the decoders need not keep it.
	NoText bool
	// PlainMarks sets vector.Batch.PlainMarks on every batch the Reader
	// gives: its decoders mark the VARCHAR values they know are plain.
	PlainMarks bool
}

// Chunk is one chunk of the file as Options.Work gets it: Work decodes its
// rows with Next, and the chunk is then given by NextChunk when its start
// proved right.
type Chunk struct {
	// Index is the chunk's number in the file, from 0.
	Index int64
	// Out belongs to Options.Work: it stays with the chunk's memory, reused
	// from chunk to chunk (the rows' encoded output); the Reader never
	// touches it.
	Out any

	res  *result
	dec  Decoder
	stop chan struct{}
	err  error // what Next returns from now on
}

// DefaultOverrun is Options.Overrun when it is 0: 1 MiB.
const DefaultOverrun = 1 << 20

// Reader is the parallel decoder of one file. Next and Close are called from
// one goroutine; BytesRead may be called from any.
type Reader struct {
	f       io.ReaderAt
	size    int64
	chunk   int64
	nchunks int64
	header  bool
	maxRedo int
	overrun int64
	types   []catalog.Type
	noText  bool // Options.NoText
	marks   bool // Options.PlainMarks
	workFn  func(worker int, c *Chunk)

	free  chan *result
	ring  []chan *result // chunk k's result arrives in ring[k%len(ring)]
	stop  chan struct{}
	wg    sync.WaitGroup
	claim atomic.Int64 // the next chunk a worker takes
	once  sync.Once

	// The merge, on the caller's goroutine.
	k     int64 // the next chunk to merge
	cur   *result
	ci    int   // the next batch of cur to give
	base  int64 // lines before the chunk being given
	off   int64 // where the chunk being given started: the true record start
	line  int64 // the line at off
	hdr   bool  // the header was met before off
	redos int
	err   error // what Next returns from now on
	done  atomic.Int64

	// The merge's own decoding (a chunk decoded again, or the sequential rest).
	redo    Decoder
	live    bool // giving rows from redo
	liveAt  int64
	liveB   *vector.Batch
	liveBad []records.BadRow
	liveRd  span
}

// result is one decoded chunk: batches b[:n] with their malformed rows, the
// error after them (nil when the chunk ended well), and where it stopped.
type result struct {
	k            int64
	start, limit int64 // the chunk's guessed start and its end (0: the file's end)
	b            []*vector.Batch
	bad          [][]records.BadRow
	n            int
	raw          []byte // backing of the malformed rows' Raw copies
	end          records.End
	err          error
	c            Chunk            // what Options.Work got, when it did
	worked       bool             // decoded by Options.Work (decodeWork)
	flat         []records.BadRow // with Work: the malformed rows, in order
}

// New returns a Reader of the size bytes of f, decoded by decs (one worker
// each, at least 2; they are Restarted on chunks) and redo (the merge's own
// decoder), into batches of types (the decoders' types first; further columns
// are left to the caller). It starts the workers; Close stops them.
func New(f io.ReaderAt, size int64, decs []Decoder, redo Decoder, types []catalog.Type, opts Options) *Reader {
	s := opts.ChunkSize
	if s <= 0 {
		s = DefaultChunkSize
	}
	s = max(s, 16)
	r := &Reader{
		f: f, size: size, chunk: s, nchunks: max((size+s-1)/s, 1),
		header: opts.Header, maxRedo: opts.MaxRedo, overrun: opts.Overrun, types: types, noText: opts.NoText, marks: opts.PlainMarks, workFn: opts.Work,
		stop: make(chan struct{}), redo: redo,
	}
	if r.maxRedo == 0 {
		r.maxRedo = defaultMaxRedo
	}
	if r.overrun <= 0 {
		r.overrun = DefaultOverrun
	}
	m := InFlight(len(decs), opts.Work != nil)
	r.free = make(chan *result, m)
	r.ring = make([]chan *result, m)
	// Every result gets the batches of a chunk of rows of 16 bytes up front,
	// so that a job's allocations do not depend on its input (a chunk of
	// shorter rows adds batches, once).
	per := int(min((s+15)/16/vector.Cap+1, 64))
	if opts.Work != nil {
		per = 1 // Work takes each batch as it is decoded
	}
	prep, _ := redo.(Preparer)
	for i := range r.ring {
		r.ring[i] = make(chan *result, 1)
		res := &result{}
		for range per {
			res.grow(types, r.noText, r.marks)
			if prep != nil {
				prep.Prepare(res.b[len(res.b)-1]) // (the decoders' memory too: not at a later chunk's first batch)
			}
		}
		r.free <- res
	}
	r.line = 1
	r.liveB = vector.NewBatch(types)
	r.liveB.NoText, r.liveB.PlainMarks = r.noText, r.marks
	r.wg.Add(len(decs))
	for i, d := range decs {
		go r.work(i, d)
	}
	return r
}

// InFlight returns how many chunks a Reader of workers workers holds at
// most, with Options.Work when work is set: its chunks' memory (Chunk.Out
// included) is that many, reused. Without Work, workers+2 (each chunk holds
// all of its decoded rows); with Work 2·workers+4 (a chunk holds one batch
// and Work's output): the slack lets the workers go on while the merge's
// goroutine waits to be scheduled, measured 10% faster on 2 busy CPUs than
// workers+2 (the split job, 10M rows, medians of 7: 1.35 s against 1.51).
func InFlight(workers int, work bool) int {
	if work {
		return 2*workers + 4
	}
	return workers + 2
}

// BytesRead returns how many bytes of the file the rows given so far cover,
// for progress reporting.
func (r *Reader) BytesRead() int64 { return r.done.Load() }

// Close stops the workers and waits for them. The file stays open (the
// caller's).
func (r *Reader) Close() {
	r.once.Do(func() { close(r.stop) })
	r.wg.Wait()
}

// Next returns the next batch of rows in file order and its malformed rows
// (BadRow.Index relative to the batch), valid until the next call of Next.
// Positions are the file's lines, as the sequential decoder numbers them. It
// returns io.EOF after the last batch, or a read error (after the rows before
// it); then it returns the same error again.
func (r *Reader) Next() (*vector.Batch, []records.BadRow, error) {
	_, b, bad, err := r.next()
	return b, bad, err
}

// NextChunk is Next for a Reader made with Options.Work. In file order, it
// returns either a chunk a worker decoded and gave to Work (c not nil), with
// base the number of the file's lines before the chunk's first (to add to its
// positions), or a batch b of rows the merge decoded itself, with the file's
// positions (c nil: a chunk that started inside a record or before the
// header, decoded again from where the previous one ended; the sequential
// rest of the file; or the rows before a worker's read error). What it
// returns is valid until the next call. After the last rows it returns
// io.EOF, or a read error, as Next does.
func (r *Reader) NextChunk() (c *Chunk, base int64, b *vector.Batch, bad []records.BadRow, err error) {
	c, b, bad, err = r.next()
	return c, r.base, b, bad, err
}

// Redo makes the merge decode again, itself, the chunk the last NextChunk
// gave whole (c not nil), from its true start: the next calls of NextChunk
// give its rows as batches (c nil), with the file's positions, as for a
// chunk that started inside a record, then go on with the next chunk. The
// caller must be done with the chunk (its Out included: the chunk's memory
// goes back to the workers). It is how a caller that cannot use a worker's
// result for a chunk (the executor's parallel window aggregate, when the
// watermark before the chunk makes the worker's guess wrong) falls back to
// the sequential decoder for that chunk alone; with rest, for the rest of
// the file (the workers stop: a caller that would give most chunks back).
// Without such a chunk it does nothing. It does not count against
// Options.MaxRedo.
func (r *Reader) Redo(rest bool) {
	res := r.cur
	if res == nil || !res.worked || r.ci != res.n {
		return
	}
	r.cur = nil
	limit := res.limit
	if rest {
		limit = 0
	}
	r.free <- res
	r.restart(limit)
}

// next is Next and NextChunk: a worked chunk is given whole (c), other rows
// batch by batch (b).
func (r *Reader) next() (*Chunk, *vector.Batch, []records.BadRow, error) {
	for r.err == nil {
		if r.live {
			b := r.liveB
			r.liveBad = r.liveBad[:0]
			err := r.redo.Decode(b, &r.liveBad)
			if err == nil {
				r.fix(b, r.liveBad)
				return nil, b, r.liveBad, nil
			}
			r.live = false
			if err != io.EOF {
				r.err = err
				break
			}
			end := r.redo.End()
			end.Offset += r.liveAt
			r.finish(end)
			continue
		}
		if r.cur != nil {
			if r.ci < r.cur.n {
				b, bad := r.cur.b[r.ci], r.cur.bad[r.ci]
				r.ci++
				r.fix(b, bad)
				return nil, b, bad, nil
			}
			res := r.cur
			r.cur = nil
			if res.err != nil {
				r.err = res.err
				break
			}
			r.finish(res.end)
			r.free <- res
			continue
		}
		if r.k >= r.nchunks {
			r.err = io.EOF
			break
		}
		res := <-r.ring[r.k%int64(len(r.ring))]
		r.k++
		r.base = r.line - 1
		if res.err != errOverrun && res.err != errLongLine && !(res.worked && res.err != nil) && (res.k == 0 || res.start == r.off && (r.hdr || !r.header)) {
			r.cur, r.ci = res, 0
			if res.worked {
				r.ci = res.n // its rows are given whole, once
				return &res.c, nil, nil, nil
			}
			continue
		}
		// The chunk started inside a record (or before the header), or its
		// worker gave it up: decode it again from where the previous one
		// really ended.
		limit := res.limit
		r.free <- res
		r.redos++
		if r.maxRedo >= 0 && r.redos > r.maxRedo && r.redos*8 > int(r.k) {
			limit = 0 // the rest, sequentially
		}
		r.restart(limit)
	}
	return nil, nil, nil, r.err
}

// restart makes the merge decode the file from r.off up to limit (0: its
// end, and the workers stop).
func (r *Reader) restart(limit int64) {
	if limit == 0 {
		r.Close()
		r.k = r.nchunks
	}
	if limit > 0 && r.off >= limit {
		return // the previous chunk's last record covered all of this one
	}
	sp := records.Span{Continues: r.off > 0, HeaderPending: r.header && !r.hdr}
	if limit > 0 {
		sp.Limit = limit - r.off
	}
	r.liveRd = span{f: r.f, off: r.off, limit: limit}
	r.redo.Restart(&r.liveRd, sp)
	r.live, r.liveAt = true, r.off
}

// finish moves the merge past a chunk that ended at end (offset absolute,
// line relative to the chunk's start).
func (r *Reader) finish(end records.End) {
	r.off = end.Offset
	r.line = r.base + end.Line
	r.hdr = r.hdr || end.HeaderDone
	r.done.Store(r.off)
}

// fix turns a chunk's line numbers into the file's.
func (r *Reader) fix(b *vector.Batch, bad []records.BadRow) {
	if base := r.base; base != 0 {
		for i := range b.N {
			b.Pos[i] += base
		}
		for j := range bad {
			bad[j].Line += base
		}
	}
}

// work is worker w: it takes a free result, claims the next chunk, decodes
// it and gives it to Options.Work, until no chunk is left or the Reader is
// closed.
func (r *Reader) work(w int, dec Decoder) {
	defer r.wg.Done()
	scan := make([]byte, 4<<10)
	var rd span
	for {
		var res *result
		select {
		case res = <-r.free:
		case <-r.stop:
			return
		}
		k := r.claim.Add(1) - 1
		if k >= r.nchunks {
			return
		}
		if r.workFn != nil {
			r.decodeWork(w, dec, res, k, scan, &rd)
		} else {
			r.decode(dec, res, k, scan, &rd)
		}
		r.ring[k%int64(len(r.ring))] <- res // never blocks: at most len(ring) chunks are claimed and not merged
	}
}

// open finds chunk k's two ends and restarts dec on it; it reports false
// when there is nothing to decode (no line starts in the chunk, or a read
// error, in res.err).
func (r *Reader) open(dec Decoder, res *result, k int64, scan []byte, rd *span) bool {
	res.k, res.n, res.raw, res.err = k, 0, res.raw[:0], nil
	var err error
	res.start, res.limit = 0, 0
	if k+1 < r.nchunks {
		// (first: a chunk given up for a long line is decoded again up to it)
		if res.limit, err = r.lineStart((k+1)*r.chunk, scan); err != nil && err != errLongLine {
			res.err = err
			return false
		}
	}
	if k > 0 {
		if res.start, err = r.lineStart(k*r.chunk, scan); err != nil {
			res.err = err // errLongLine: the merge decodes the chunk
			return false
		}
	}
	res.end = records.End{Offset: res.start, Line: 1, HeaderDone: k > 0}
	if res.limit > 0 && res.start >= res.limit {
		return false // no line starts in the chunk
	}
	sp := records.Span{Continues: k > 0}
	if res.limit > 0 {
		sp.Limit = res.limit - res.start
	}
	*rd = span{f: r.f, off: res.start, limit: res.limit, overrun: r.overrun}
	dec.Restart(rd, sp)
	return true
}

// decode decodes chunk k into res.
func (r *Reader) decode(dec Decoder, res *result, k int64, scan []byte, rd *span) {
	if !r.open(dec, res, k, scan, rd) {
		return
	}
	for {
		select {
		case <-r.stop:
			res.err = errStopped
			return
		default:
		}
		if res.n == len(res.b) {
			res.grow(r.types, r.noText, r.marks)
		}
		i := res.n
		res.bad[i] = res.bad[i][:0]
		if err := dec.Decode(res.b[i], &res.bad[i]); err != nil {
			if err != io.EOF {
				res.err = err
			}
			break
		}
		res.detach(i)
		res.n++
	}
	if res.err == nil {
		res.end = dec.End()
		res.end.Offset += res.start
	}
}

// decodeWork has Options.Work take chunk k's rows, batch by batch as it
// decodes them (Chunk.Next): no row is copied, the batch is still in the
// CPU's caches when Work routes it. The decoder then reads on to the chunk's
// end when Work stopped before it, so that where the chunk ends is known.
// A chunk whose decoding failed (a read error, a record too long for a
// worker) is decoded again by the merge, which gives its rows in order and
// then the error.
func (r *Reader) decodeWork(w int, dec Decoder, res *result, k int64, scan []byte, rd *span) {
	res.worked, res.flat = true, res.flat[:0]
	c := &res.c
	c.Index, c.res, c.dec, c.stop, c.err = k, res, dec, r.stop, nil
	if !r.open(dec, res, k, scan, rd) {
		if c.err = res.err; c.err == nil {
			c.err = io.EOF
		}
	}
	r.workFn(w, c)
	for c.err == nil {
		c.Next()
	}
	switch {
	case c.err == io.EOF && res.err == nil:
		if res.limit == 0 || res.start < res.limit {
			res.end = dec.End()
			res.end.Offset += res.start
		}
	case res.err == nil:
		res.err = c.err
	}
}

// Next decodes the chunk's next rows into a batch (positions counted from
// the chunk's first line) with their malformed rows (BadRow.Index relative
// to the batch; their Raw is copied and stays valid until the chunk is
// merged, as Bad does). The batch is valid until the next call. At the
// chunk's end it returns io.EOF; it returns another error when the chunk
// could not be decoded (the merge then decodes it again: its rows are not
// used).
func (c *Chunk) Next() (*vector.Batch, []records.BadRow, error) {
	if c.err != nil {
		return nil, nil, c.err
	}
	select {
	case <-c.stop:
		c.err = errStopped
		return nil, nil, c.err
	default:
	}
	res := c.res
	b := res.b[0]
	res.bad[0] = res.bad[0][:0]
	err := c.dec.Decode(b, &res.bad[0])
	bad := res.bad[0]
	if err != nil {
		c.err = err
		return nil, nil, err
	}
	res.raw = records.OwnRaw(res.raw, bad)
	from := len(res.flat)
	res.flat = append(res.flat, bad...)
	return b, res.flat[from:], nil
}

// Bad returns the malformed rows Next gave so far, in order, valid until the
// chunk is merged (its lines counted as Next's positions).
func (c *Chunk) Bad() []records.BadRow { return c.res.flat }

// grow adds a batch of types to res (vector.Batch.NoText: noText,
// vector.Batch.PlainMarks: marks).
func (res *result) grow(types []catalog.Type, noText, marks bool) {
	b := vector.NewBatch(types)
	b.NoText, b.PlainMarks = noText, marks
	for _, v := range b.Cols {
		if v.Type == catalog.Varchar {
			v.Arena = make([]byte, 0, 16<<10)
		}
	}
	res.b = append(res.b, b)
	res.bad = append(res.bad, nil)
}

// errStopped ends the decoding of a chunk when the Reader is closed; the merge
// never sees it.
var errStopped = errors.New("chunked: stopped")

// errOverrun is a worker's read past Options.Overrun bytes after its chunk's
// end; the merge decodes the chunk instead.
var errOverrun = errors.New("chunked: record past the chunk's end too long for a worker")

// detach copies what batch i still shares with its decoder (VARCHAR values,
// the malformed rows' raw text) into memory of the chunk, so the decoder may
// go on.
func (res *result) detach(i int) {
	res.b[i].OwnStrings()
	res.raw = records.OwnRaw(res.raw, res.bad[i])
}

// lineStart returns the first offset at or after x (x > 0) that follows a LF,
// or the file's size when none does. It reads at most Options.Overrun bytes
// (issue 30: every chunk of a long line searched to the line's end, with the
// whole search quadratic in the line): when no LF is among them it returns
// the offset after them, where no line starts either, with errLongLine (a
// chunk's end there is right; a chunk whose start is there is the merge's to
// decode). It returns errStopped once the Reader is closed.
func (r *Reader) lineStart(x int64, scan []byte) (int64, error) {
	if x >= r.size {
		return r.size, nil
	}
	pos := x - 1
	end := min(r.size, pos+r.overrun)
	for pos < end {
		select {
		case <-r.stop:
			return 0, errStopped
		default:
		}
		n, err := r.f.ReadAt(scan[:min(int64(len(scan)), end-pos)], pos)
		if i := bytes.IndexByte(scan[:n], '\n'); i >= 0 {
			return pos + int64(i) + 1, nil
		}
		pos += int64(n)
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, err
		}
	}
	if pos >= end && end < r.size {
		return end, errLongLine
	}
	return r.size, nil
}

// errLongLine is lineStart's when a chunk's first line starts more than
// Options.Overrun bytes into it; the merge decodes the chunk instead.
var errLongLine = errors.New("chunked: line too long for a worker to find the chunk's first record")

// span reads the file from off: up to limit first (when limit > 0), then
// readAhead bytes at a time (only the record crossing limit is read there),
// to the file's end, or with overrun > 0 to overrun bytes past limit, where
// it fails with errOverrun.
type span struct {
	f                   io.ReaderAt
	off, limit, overrun int64
}

func (s *span) Read(p []byte) (int, error) {
	if s.limit > 0 {
		if s.off < s.limit {
			p = p[:min(int64(len(p)), s.limit-s.off)]
		} else {
			if s.overrun > 0 && s.off >= s.limit+s.overrun {
				return 0, errOverrun
			}
			p = p[:min(len(p), readAhead)]
		}
	}
	n, err := s.f.ReadAt(p, s.off)
	s.off += int64(n)
	if err == io.EOF && n > 0 {
		err = nil // the next Read says it
	}
	return n, err
}
