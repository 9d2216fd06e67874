package cli

import (
	"io"
	"math/rand/v2"
	"testing"

	"streamql/catalog"
	"streamql/executor/vector"
	"streamql/internal/session"
)

// rowsSource gives n rows (column 0 = its number, position = number + 1) in
// batches of 100, and a malformed row after row 10.
type rowsSource struct{ n, at int }

func (s *rowsSource) Next(b *session.Columns, bad *[]session.BadRow) error {
	b.Reset()
	if s.at >= s.n {
		return io.EOF
	}
	for ; s.at < s.n && b.N < 100; s.at++ {
		if s.at == 11 {
			*bad = append(*bad, session.BadRow{Index: b.N, Line: 1000, Raw: []byte("x"), Reason: "bad"})
		}
		b.Cols[0].I[b.N], b.Cols[0].Null[b.N], b.Pos[b.N] = int64(s.at), false, int64(s.at+1)
		b.N++
	}
	return nil
}
func (s *rowsSource) Position(line int64) string    { return "" }
func (s *rowsSource) Progress() (read, total int64) { return 0, 0 }
func (s *rowsSource) Close() error                  { return nil }

// TestReshuffledInterleaves: a split source hands out every row once, each
// partition's rows in order, in batches no larger than the variant's, the
// partitions interleaved; read in order it gives the source's order.
func TestReshuffledInterleaves(t *testing.T) {
	for _, inOrder := range []bool{false, true} {
		s := &partitioned{&reshuffled{Source: &rowsSource{n: 500}, rng: rand.New(rand.NewPCG(1, 2)), maxBatch: 7, parts: 3, inOrder: inOrder}}
		b := vector.NewBatch([]catalog.Type{catalog.BigInt})
		var got []int64
		nbad := 0
		for {
			var bad []session.BadRow
			err := s.Next(b, &bad)
			if err == io.EOF {
				break
			}
			if b.N > 7 {
				t.Fatalf("a batch of %d rows, want at most 7", b.N)
			}
			nbad += len(bad)
			for i := 0; i < b.N; i++ {
				got = append(got, b.Cols[0].I[i])
				if p := s.Partition(b.Pos[i]); int(p) != int(b.Cols[0].I[i])*3/501 && int(p) != (int(b.Cols[0].I[i])+1)*3/501 {
					t.Fatalf("row %d in partition %d", b.Cols[0].I[i], p)
				}
			}
		}
		if len(got) != 500 || nbad != 1 {
			t.Fatalf("%d rows and %d malformed, want 500 and 1", len(got), nbad)
		}
		last := map[int32]int64{}
		swaps := 0
		for k, v := range got {
			p := s.Partition(v + 1)
			if prev, ok := last[p]; ok && v < prev {
				t.Fatalf("partition %d out of order: %d after %d", p, v, prev)
			}
			last[p] = v
			if k > 0 && v < got[k-1] {
				swaps++
			}
		}
		if inOrder != (swaps == 0) {
			t.Errorf("inOrder %v: %d places where a row came before an earlier one", inOrder, swaps)
		}
		if ps := s.Partitions(nil); len(ps) != 0 {
			t.Errorf("partitions %v left after every row was asked for", ps)
		}
	}
}

// TestCompareRunsErrorsByStream: a rerun's errors.csv equals the first run's
// when each stream's rows are in the same order, however the streams'
// rows interleave (SPEC 2.7: their order across streams is not specified),
// and differs when one stream's rows are in another order or a row is lost.
func TestCompareRunsErrorsByStream(t *testing.T) {
	const head = "stream,position,raw,error\n"
	first := caseRun{sides: map[string]string{"errors.csv": head +
		"l,l.csv:2,\"a,x\",bad\nr,r.csv:1,\"b,\n,y\",bad\nl,l.csv:5,c,bad\nr,r.csv:4,d,bad\n"}}
	for _, tc := range []struct {
		errors string
		same   bool
	}{
		{"l,l.csv:2,\"a,x\",bad\nl,l.csv:5,c,bad\nr,r.csv:1,\"b,\n,y\",bad\nr,r.csv:4,d,bad\n", true},
		{"r,r.csv:1,\"b,\n,y\",bad\nr,r.csv:4,d,bad\nl,l.csv:2,\"a,x\",bad\nl,l.csv:5,c,bad\n", true},
		{"r,r.csv:1,\"b,\n,y\",bad\nl,l.csv:2,\"a,x\",bad\nr,r.csv:4,d,bad\nl,l.csv:5,c,bad\n", true},
		{"l,l.csv:5,c,bad\nr,r.csv:1,\"b,\n,y\",bad\nl,l.csv:2,\"a,x\",bad\nr,r.csv:4,d,bad\n", false},
		{"l,l.csv:2,\"a,x\",bad\nr,r.csv:1,\"b,\n,y\",bad\nl,l.csv:5,c,bad\n", false},
		{"l,l.csv:2,\"a,x\",bad\nr,r.csv:1,\"b,\n,y\",bad\nl,l.csv:5,c,bad\nr,r.csv:4,d,bad\nr,r.csv:4,d,bad\n", false},
	} {
		again := caseRun{sides: map[string]string{"errors.csv": head + tc.errors}}
		if d := compareRuns(first, again, false); (len(d) == 0) != tc.same {
			t.Errorf("errors.csv\n%s: same %v, want %v (%q)", tc.errors, len(d) == 0, tc.same, d)
		}
	}
	// (other outputs are still compared line by line)
	a := caseRun{stdout: "v\n1\n2\n"}
	if d := compareRuns(a, caseRun{stdout: "v\n2\n1\n"}, false); len(d) == 0 {
		t.Error("main.csv in another order compared equal")
	}
}
