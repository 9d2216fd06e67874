package flow

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"streamql/executor/vector"
)

// TestMergerOrder: Merger gives every port's input row, chunk and malformed
// row of a routed batch once, in SPEC 4's output order, which the test
// computes by sorting instead: by place (a chunk or malformed row at At
// comes before input row At, and a row's place is its index), then chunks
// before malformed rows before the input row, each kind in its own order.
// Random batches whose rows go to random ports (or none), chunks and
// malformed rows at random places (some after the last row, as a batch of
// fired windows alone has them), and empty ones; every 25th seed's batch
// is larger than a Merger's own scratch (more than vector.Cap rows). One Merger serves every batch, as a sink keeps one.
func TestMergerOrder(t *testing.T) {
	type item struct {
		place, kind, k int // kind 0 chunk, 1 malformed row, 2 input row; k its index (an input row's: its port)
	}
	var m Merger
	for seed := range uint64(500) {
		r := rand.New(rand.NewPCG(seed, 7))
		n, ports := r.IntN(12), r.IntN(4)
		if seed%25 == 24 {
			n, ports = vector.Cap+r.IntN(100), 10+r.IntN(20)
		}
		var rt Step
		rt.N = n
		rt.Parts = make([]Part, ports)
		port := make([]int, n)
		for i := range n {
			port[i] = -1
			if len(rt.Parts) > 0 && r.IntN(5) > 0 {
				port[i] = r.IntN(len(rt.Parts))
				rt.Parts[port[i]].Sel = append(rt.Parts[port[i]].Sel, int32(i))
			}
		}
		var at []int
		for range r.IntN(5) {
			at = append(at, r.IntN(n+2))
		}
		slices.Sort(at)
		for _, a := range at {
			rt.Chunks = append(rt.Chunks, Chunk{At: a})
		}
		at = at[:0]
		for range r.IntN(6) {
			at = append(at, r.IntN(n+1))
		}
		slices.Sort(at)
		for _, a := range at {
			rt.Errors.Rows = append(rt.Errors.Rows, ErrorRow{At: a})
		}
		var want []item
		for k, c := range rt.Chunks {
			want = append(want, item{c.At, 0, k})
		}
		for k, b := range rt.Errors.Rows {
			want = append(want, item{b.At, 1, k})
		}
		for i := range n {
			if port[i] >= 0 {
				want = append(want, item{i, 2, port[i]})
			}
		}
		slices.SortStableFunc(want, func(x, y item) int {
			if x.place != y.place {
				return cmp.Compare(x.place, y.place)
			}
			return cmp.Compare(x.kind, y.kind)
		})
		var got []item
		m.Reset(&rt)
		for {
			seg, ok := m.Next()
			if !ok {
				break
			}
			set := 0
			switch {
			case seg.Chunk != nil:
				set++
				k := slices.IndexFunc(rt.Chunks, func(c Chunk) bool { return &c == seg.Chunk })
				for j := range rt.Chunks {
					if &rt.Chunks[j] == seg.Chunk {
						k = j
					}
				}
				got = append(got, item{seg.Chunk.At, 0, k})
			case seg.Bad != nil:
				set++
				k0 := cap(rt.Errors.Rows) - cap(seg.Bad) // (seg.Bad is a window of rt.Bad)
				for k := range seg.Bad {
					got = append(got, item{seg.Bad[k].At, 1, k0 + k})
				}
			}
			if seg.To > seg.From {
				set++
				for i := seg.From; i < seg.To; i++ {
					if k := seg.Port[i]; k >= 0 {
						got = append(got, item{i, 2, int(k)})
					}
				}
			}
			if set != 1 {
				t.Fatalf("seed %d: segment %+v sets %d of chunk, malformed rows, input rows", seed, seg, set)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("seed %d: N=%d chunks at %v, malformed at %v:\ngot  %v\nwant %v", seed, n, chunkAts(rt.Chunks), badAts(rt.Errors.Rows), got, want)
		}
	}
}

func chunkAts(cs []Chunk) (at []int) {
	for _, c := range cs {
		at = append(at, c.At)
	}
	return at
}

func badAts(bs []ErrorRow) (at []int) {
	for _, b := range bs {
		at = append(at, b.At)
	}
	return at
}
