package session

import (
	"fmt"
	"strings"
	"testing"

	"streamql/catalog"
	"streamql/executor"
	"streamql/executor/vector"
)

// orderSink writes each row it is given as "output:value" in the order its
// Merger walks the batches, malformed rows as "errors:raw".
type orderSink struct {
	m   Merger
	out []string
}

func (s *orderSink) Rows(b *Batch) error {
	s.m.Reset(b)
	for {
		seg, ok := s.m.Next()
		if !ok {
			return nil
		}
		switch {
		case seg.Chunk != nil:
			for _, i := range seg.Chunk.Sel {
				s.out = append(s.out, fmt.Sprintf("%d:%s", seg.Chunk.Output, seg.Chunk.Cols[0].S[i]))
			}
		case seg.Bad != nil:
			for _, e := range seg.Bad {
				s.out = append(s.out, b.Errors.Name+":"+string(e.Raw))
			}
		default:
			for i := seg.From; i < seg.To; i++ {
				if k := seg.Port[i]; k >= 0 {
					p := &b.Parts[k]
					s.out = append(s.out, fmt.Sprintf("%d:%s", p.Output, p.Cols[0].S[i]))
				}
			}
		}
	}
}
func (s *orderSink) Errors(string, []ErrorRow) error { return nil }
func (s *orderSink) Flush() error                    { return nil }
func (s *orderSink) Close() error                    { return nil }

// countSink counts the rows its Merger gives.
type countSink struct {
	orderSink
	rows int
}

func (s *countSink) Rows(b *Batch) error {
	s.m.Reset(b)
	for {
		seg, ok := s.m.Next()
		if !ok {
			return nil
		}
		s.rows += len(seg.Bad)
		for i := seg.From; i < seg.To; i++ {
			if seg.Port[i] >= 0 {
				s.rows++
			}
		}
		if seg.Chunk != nil {
			s.rows += len(seg.Chunk.Sel)
		}
	}
}

// chunkOrderSink is an orderSink that can encode chunks apart.
type chunkOrderSink struct{ orderSink }

func (s *chunkOrderSink) NewChunk(int) EncodedChunk { return &orderChunk{} }
func (s *chunkOrderSink) WriteChunk(c EncodedChunk, _ func(int) *ErrorRow) error {
	s.out = append(s.out, c.(*orderChunk).out...)
	return nil
}

type orderChunk struct{ orderSink }

func (c *orderChunk) Reset() { c.out = c.out[:0] }

// TestEngineSink: the executor's sink EngineSink makes hands each step to
// the frontend's sink as a Batch whose Merger gives the step's ports, chunks
// and errors port in SPEC 4's order (the same as a Merger over the step),
// without an allocation per batch once its sink has grown; a ChunkSink stays
// one, encoding through its own chunks, and a plain Sink does not become one.
func TestEngineSink(t *testing.T) {
	in := vector.NewVec(catalog.Varchar)
	made := vector.NewVec(catalog.Varchar)
	for i, v := range []string{"r0", "r1", "r2", "r3"} {
		in.SetString(i, []byte(v))
		made.SetString(i, []byte(strings.ToUpper(v)))
	}
	step := &executor.Step{N: 4,
		Parts:  []Part{{Output: 1, Sel: []int32{0, 3}, Cols: []*Vec{in}}, {Output: 0, Sel: []int32{1}, Cols: []*Vec{in}}},
		Chunks: []Chunk{{At: 2, Part: Part{Output: 2, Sel: []int32{0, 1}, Cols: []*Vec{made}}}},
		Errors: ErrorPort{Name: "errors", Rows: []ErrorRow{{Raw: []byte("bad"), At: 2}}},
	}
	want := "1:r0 0:r1 2:R0 2:R1 errors:bad 1:r3"

	plain := &orderSink{}
	es := EngineSink(plain)
	if _, ok := es.(executor.ChunkSink); ok {
		t.Errorf("EngineSink of a plain Sink is a ChunkSink")
	}
	if err := es.Rows(step); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(plain.out, " "); got != want {
		t.Errorf("Rows gave %s, want %s", got, want)
	}
	counts := &countSink{}
	es = EngineSink(counts)
	if allocs := testing.AllocsPerRun(20, func() { es.Rows(step) }); allocs > 0 || counts.rows != 21*6 {
		t.Errorf("%v allocations per batch, %d rows seen", allocs, counts.rows)
	}

	cs := &chunkOrderSink{}
	ec, ok := EngineSink(cs).(executor.ChunkSink)
	if !ok {
		t.Fatal("EngineSink of a ChunkSink is not an executor.ChunkSink")
	}
	c := ec.NewChunk(1 << 10)
	if err := c.Rows(step); err != nil {
		t.Fatal(err)
	}
	if err := ec.WriteChunk(c, nil); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(cs.out, " "); got != want {
		t.Errorf("a chunk gave %s, want %s", got, want)
	}
}
