package sinkstream

import (
	"testing"

	"streamql/catalog"
	"streamql/executor/connector"
	"streamql/executor/flow"
	"streamql/executor/vector"
)

type countWriter struct{ rows, flushes int }

func (w *countWriter) Write(cols []*vector.Vec, i int) error { w.rows++; return nil }
func (w *countWriter) Flush() error                          { w.flushes++; return nil }
func (w *countWriter) Close() error                          { return nil }

type countSink struct{ rows int }

func (s *countSink) Rows(r *flow.Step) error {
	for k := range r.Parts {
		s.rows += len(r.Parts[k].Sel)
	}
	return nil
}
func (s *countSink) Errors(string, []flow.ErrorRow) error { return nil }
func (s *countSink) Flush() error                         { return nil }
func (s *countSink) Close() error                         { return nil }

// TestStreamSinksAllocs: routing a batch's rows to a sink stream allocates
// nothing per row; the sink stream gets its rows, the frontend sees all of
// them (to count), and the writer is flushed once per batch (whole rows).
func TestStreamSinksAllocs(t *testing.T) {
	b := vector.NewBatch([]catalog.Type{catalog.BigInt})
	w := &countWriter{}
	inner := &countSink{}
	cw := &connector.Sink{SinkWriter: w}
	s := &streamSinks{inner: inner, outW: []*connector.Sink{nil, cw}, all: []*connector.Sink{cw}}
	r := &flow.Step{N: vector.Cap, Parts: []flow.Part{{Output: 0, Cols: b.Cols}, {Output: 1, Cols: b.Cols}}}
	for i := range vector.Cap {
		r.Parts[i%2].Sel = append(r.Parts[i%2].Sel, int32(i))
	}
	allocs := testing.AllocsPerRun(20, func() {
		if err := s.Rows(r); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 0 || w.rows != 21*vector.Cap/2 || inner.rows != 21*vector.Cap || w.flushes != 21 {
		t.Fatalf("%v allocations per batch; sink rows %d, frontend rows %d, flushes %d", allocs, w.rows, inner.rows, w.flushes)
	}
}
