package session

import "streamql/executor"

// Batch is one batch of a job's output rows, what a frontend's Sink
// receives: the ports that one input batch (of N rows) fed, read in output
// order (SPEC 4) with a Merger. Its slices are valid until Sink.Rows (or
// EncodedChunk.Rows) returns.
type Batch struct {
	// N is the number of input rows the batch came from: the arrival
	// ordinals of Parts' rows are below it.
	N int
	// Parts are the output ports' rows taken from the input rows, one per
	// side branch in declaration order, then the main query's, then the
	// late ports (a window's late rows, SPEC 2.4); a port may have no rows.
	Parts []Part
	// Chunks are rows operators made (an aggregate's fired windows, a join's
	// rows), each placed At an arrival ordinal.
	Chunks []Chunk
	// Errors is the errors port: the malformed rows bound for the errors
	// side output it names, each placed At the number of good rows before
	// it (SPEC 1).
	Errors ErrorPort
	// In is the decoded input batch, whose kept record texts
	// (Columns.Line) a csv line may reuse; nil for a batch of made rows.
	In *Columns
}

// Merger walks a Batch in output order (executor.Merger, the one merge of
// the ports that the library and the sink streams read through too). Keep
// one per consumer: it reuses its scratch, so nothing is allocated per batch
// once it has grown. The zero value is ready: Reset, then Next.
type Merger struct {
	m executor.Merger
	r executor.Step
}

// Reset points m at b, from its start.
func (m *Merger) Reset(b *Batch) {
	m.r = executor.Step{N: b.N, Parts: b.Parts, Chunks: b.Chunks, Errors: b.Errors, In: b.In}
	m.m.Reset(&m.r)
}

// Next returns the batch's next segment in output order, and false after
// the last one. The segment's slices are the batch's.
func (m *Merger) Next() (Segment, bool) { return m.m.Next() }

// Sink receives a job's output: Rows per Batch, Errors for a build side's
// malformed rows (the probe stream's come in Batch.Errors), Flush whenever the
// source waits for input (so live rows show at once), Close once at the end,
// also after a failure. Calls come from one goroutine, in order; an error
// ends the job with it.
type Sink interface {
	Rows(b *Batch) error
	Errors(name string, rows []ErrorRow) error
	Flush() error
	Close() error
}

// ChunkSink is a Sink that encodes a bounded file's chunks on the job's
// workers and writes them in file order (the morsel pipeline,
// executor.ChunkSink): NewChunk returns an empty EncodedChunk for chunks of
// about size bytes, or nil when the sink cannot encode apart from writing
// (a table); WriteChunk writes a chunk on the job's goroutine, bad(j)
// giving the j-th malformed row whose place the chunk kept.
type ChunkSink interface {
	Sink
	NewChunk(size int) EncodedChunk
	WriteChunk(c EncodedChunk, bad func(j int) *ErrorRow) error
}

// EncodedChunk is one chunk's encoded rows (ChunkSink.NewChunk): Rows
// encodes a batch into it as Sink.Rows would write it (keeping only the
// places of its malformed rows), on a worker's goroutine; Reset empties it,
// keeping its memory.
type EncodedChunk interface {
	Rows(b *Batch) error
	Reset()
}

// EngineSink returns s as the executor's sink: each executor batch is
// handed to s as a Batch (the same slices, no copy of rows), and a ChunkSink
// stays one. RunFunc's runner calls it on the sinks a frontend makes; a
// frontend's tests that call the executor call it too.
func EngineSink(s Sink) executor.Sink {
	if cs, ok := s.(ChunkSink); ok {
		return &engineChunkSink{engineSink: engineSink{s: s}, cs: cs}
	}
	return &engineSink{s: s}
}

// engineSink is a Sink as an executor.Sink (EngineSink).
type engineSink struct {
	s Sink
	b Batch
}

// batchOf sets b to r's output rows.
func batchOf(b *Batch, r *executor.Step) {
	*b = Batch{N: r.N, Parts: r.Parts, Chunks: r.Chunks, Errors: r.Errors, In: r.In}
}

func (e *engineSink) Rows(r *executor.Step) error {
	batchOf(&e.b, r)
	return e.s.Rows(&e.b)
}
func (e *engineSink) Errors(name string, rows []ErrorRow) error { return e.s.Errors(name, rows) }
func (e *engineSink) Flush() error                              { return e.s.Flush() }
func (e *engineSink) Close() error                              { return e.s.Close() }

// engineChunkSink is a ChunkSink as an executor.ChunkSink.
type engineChunkSink struct {
	engineSink
	cs ChunkSink
}

func (e *engineChunkSink) NewChunk(size int) executor.EncodedChunk {
	c := e.cs.NewChunk(size)
	if c == nil {
		return nil
	}
	return &engineChunk{c: c}
}

func (e *engineChunkSink) WriteChunk(c executor.EncodedChunk, bad func(j int) *ErrorRow) error {
	return e.cs.WriteChunk(c.(*engineChunk).c, bad)
}

// engineChunk is an EncodedChunk as an executor.EncodedChunk.
type engineChunk struct {
	c EncodedChunk
	b Batch
}

func (e *engineChunk) Rows(r *executor.Step) error {
	batchOf(&e.b, r)
	return e.c.Rows(&e.b)
}
func (e *engineChunk) Reset() { e.c.Reset() }
