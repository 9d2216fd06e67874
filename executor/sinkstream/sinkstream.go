// Package sinkstream writes the outputs of a job that go to sink streams
// (SPEC 2.5: INSERT INTO, INTO STREAM) and its dead letters (a stream's
// 'errors.stream', SPEC 1) through their connectors' SinkWriters, and passes
// everything else on to the frontend's sink: Open wraps the frontend's
// flow.Sink, Abort tells the writers of a failed job before it closes.
//
// It imports executor/flow (the Sink contract and the Merger that orders a
// step), the connector registry, catalog and planner/plan, and must never
// import the executor itself, an operator package or the planner
// (layering_test.go).
package sinkstream

import (
	"context"

	"streamql/catalog"
	"streamql/executor/connector"
	"streamql/executor/flow"
	"streamql/executor/vector"
	"streamql/planner/plan"
)

// streamSinks writes the outputs of a job that go to sink streams (SPEC 2.5:
// INSERT INTO, INTO STREAM) and its dead letters ('errors.stream') through
// their connectors' SinkWriters, and passes everything else on to the
// frontend's sink (which counts sink outputs but does not print them).
type streamSinks struct {
	inner  flow.Sink
	outW   []*connector.Sink          // per job output; nil for stdout and side outputs
	dead   map[string]*connector.Sink // source stream name -> its dead-letter writer
	all    []*connector.Sink          // each open writer once
	r      flow.Step                  // scratch: the batch passed on, without the dead letters
	bad    []flow.ErrorRow            // scratch for r.Bad
	text   []*vector.Vec              // scratch: one dead-letter row as four VARCHARs
	closed bool
	m      flow.Merger // the batch's output order
}

// Open opens the sink streams of job through their connectors, each
// stream once (a truncated file is replaced here, when the job starts), and
// returns the sink that writes them and gives the rest to inner. A job with
// no sink stream gets inner itself. On an error the writers opened so far are
// closed. env is what the connectors' drivers get (the executor's Env).
func Open(ctx context.Context, job *plan.Job, env *connector.Env, inner flow.Sink) (flow.Sink, error) {
	if len(job.DeadLetters) == 0 {
		any := false
		for _, o := range job.Outputs {
			any = any || o.Sink != nil
		}
		if !any {
			return inner, nil
		}
	}
	s := &streamSinks{inner: inner, outW: make([]*connector.Sink, len(job.Outputs))}
	byStream := map[*catalog.Stream]*connector.Sink{}
	open := func(st *catalog.Stream) (*connector.Sink, error) {
		if w := byStream[st]; w != nil {
			return w, nil
		}
		w, err := connector.OpenSink(ctx, st, env) // with the capabilities st declares
		if err != nil {
			return nil, err
		}
		byStream[st] = w
		s.all = append(s.all, w)
		return w, nil
	}
	fail := func(err error) (flow.Sink, error) {
		for _, w := range s.all {
			w.Close()
		}
		return nil, err
	}
	for k, o := range job.Outputs {
		if o.Sink == nil {
			continue
		}
		w, err := open(o.Sink)
		if err != nil {
			return fail(err)
		}
		s.outW[k] = w
	}
	for _, src := range job.Streams() {
		dlq := job.DeadLetters[src]
		if dlq == nil {
			continue
		}
		w, err := open(dlq)
		if err != nil {
			return fail(err)
		}
		if s.dead == nil {
			s.dead = map[string]*connector.Sink{}
			for range 4 {
				s.text = append(s.text, vector.NewVec(catalog.Varchar))
			}
		}
		s.dead[src.Name] = w
	}
	return s, nil
}

// Rows implements flow.Sink: rows for sink streams are written in input order and
// flushed at the end of the batch, so a sink file always ends on a whole row.
func (s *streamSinks) Rows(r *flow.Step) error {
	for seg := range s.m.Segments(r) {
		if seg.Chunk != nil {
			if err := s.chunk(seg.Chunk); err != nil {
				return err
			}
			continue
		}
		for i := seg.From; i < seg.To; i++ { // (malformed rows: to the inner sink, or their dead-letter stream, below)
			k := seg.Port[i]
			if k < 0 {
				continue
			}
			p := &r.Parts[k]
			if w := s.outW[p.Output]; w != nil {
				if err := s.write(w, p.Cols, i, p.Kinds); err != nil {
					return err
				}
			}
		}
	}
	pass := r
	if len(r.Errors.Rows) > 0 && s.dead != nil {
		rest, err := s.deadLetters(r.Errors.Rows)
		if err != nil {
			return err
		}
		s.r = *r
		s.r.Errors.Rows = rest
		pass = &s.r
	}
	if err := s.flush(); err != nil {
		return err
	}
	return s.inner.Rows(pass)
}

// write writes row i of cols to w, with its kind kinds[i] when the rows
// carry kinds (an updating relation) and w's stream declares that it takes
// changes (SPEC 2.8, catalog.CapSinkKinds: connector.Sink.Kinds).
func (s *streamSinks) write(w *connector.Sink, cols []*vector.Vec, i int, kinds []vector.RowKind) error {
	if kinds != nil && w.Kinds != nil {
		return w.Kinds.WriteKind(cols, i, kinds[i])
	}
	return w.Write(cols, i)
}

// chunk writes the rows an operator made that go to a sink stream.
func (s *streamSinks) chunk(c *flow.Chunk) error {
	w := s.outW[c.Output]
	if w == nil {
		return nil
	}
	for _, i := range c.Sel {
		if err := s.write(w, c.Cols, int(i), c.Kinds); err != nil {
			return err
		}
	}
	return nil
}

// deadLetters writes the rows whose stream has a dead-letter stream and
// returns the others (for the errors side output).
func (s *streamSinks) deadLetters(rows []flow.ErrorRow) ([]flow.ErrorRow, error) {
	s.bad = s.bad[:0]
	for k := range rows {
		e := &rows[k]
		w := s.dead[e.Stream]
		if w == nil {
			s.bad = append(s.bad, *e)
			continue
		}
		if w.DeadLetters != nil { // catalog.CapDeadLetters
			if err := w.DeadLetters.WriteDeadLetter(e.Stream, e.Position, e.Raw, e.Error); err != nil {
				return nil, err
			}
			continue
		}
		for c, f := range [4][]byte{[]byte(e.Stream), []byte(e.Position), e.Raw, []byte(e.Error)} {
			s.text[c].ResetArena()
			s.text[c].SetString(0, f)
		}
		if err := w.Write(s.text, 0); err != nil {
			return nil, err
		}
	}
	return s.bad, nil
}

// Errors implements flow.Sink: a build side's malformed rows go to its
// dead-letter stream when it has one.
func (s *streamSinks) Errors(name string, rows []flow.ErrorRow) error {
	rest, err := s.deadLetters(rows)
	if err != nil {
		return err
	}
	if err := s.flush(); err != nil {
		return err
	}
	if len(rest) == 0 {
		return nil
	}
	return s.inner.Errors(name, rest)
}

func (s *streamSinks) flush() error {
	for _, w := range s.all {
		if err := w.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// Flush implements flow.Sink.
func (s *streamSinks) Flush() error {
	err := s.flush()
	if ierr := s.inner.Flush(); err == nil {
		err = ierr
	}
	return err
}

// Close implements flow.Sink: the frontend's sink first, then every sink stream
// (flushed and synced: SPEC 2.5), each even when an earlier one failed.
func (s *streamSinks) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	err := s.inner.Close()
	for _, w := range s.all {
		if cerr := w.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// Abort tells the sink streams of a job that failed (sink as Open
// returned it) that it failed, before Close: a writer that can take back what
// it wrote since its last commit (its stream declares catalog.CapAbort:
// an exactly-once Kafka sink's open transaction) does so.
func Abort(sink flow.Sink) {
	s, ok := sink.(*streamSinks)
	if !ok {
		return
	}
	for _, w := range s.all {
		if w.Aborter != nil {
			w.Aborter.Abort()
		}
	}
}
