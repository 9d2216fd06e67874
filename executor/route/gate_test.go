package route

import (
	"math/rand/v2"
	"slices"
	"testing"

	"streamql/catalog"
	"streamql/executor/vector"
	"streamql/planner/plan"
)

// fixedPred is a gate's predicate with given values (nil: Eval returns
// nil), recording the rows each Eval was offered.
type fixedPred struct {
	v   *vector.Vec
	got [][]int32
}

func (p *fixedPred) Eval(_ *vector.Batch, sel []int32) *vector.Vec {
	p.got = append(p.got, slices.Clone(sel))
	return p.v
}

// TestGatePending checks the router's gates, a MARK with Anti and an
// operator's decision (Gate.Pending), against first-match routing computed
// here row by row (SPEC 2.1): a row goes to the first branch whose gate
// passes it (TRUE, or FALSE with Anti; never NULL) or that has no gate; a
// row its branch's Pending says is not decided goes to no branch at all,
// this one or a later one. Each predicate is offered the rows that reach its
// branch, pending ones included (what its expressions do is observable),
// and the offered counts leave the pending rows out.
func TestGatePending(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 500 {
		nb := 1 + r.IntN(4)
		job := &plan.Job{Stream: &catalog.Stream{Config: &catalog.FileConfig{}}}
		for k := range nb {
			b := &plan.Branch{}
			if k == nb-1 {
				job.Main = b
			} else {
				job.Branches = append(job.Branches, b)
			}
		}
		n := 1 + r.IntN(vector.Cap)
		gates := make([]Gate, nb)
		marks := make([]*fixedPred, nb)
		pends := make([]*fixedPred, nb)
		for k := range gates {
			if r.IntN(4) == 0 {
				continue // no gate
			}
			marks[k] = &fixedPred{v: vector.NewVec(catalog.Boolean)}
			for i := range n {
				marks[k].v.B[i], marks[k].v.Null[i] = r.IntN(2) == 0, r.IntN(6) == 0
			}
			gates[k] = Gate{Pred: marks[k], Anti: r.IntN(2) == 0}
			if r.IntN(3) > 0 {
				pends[k] = &fixedPred{}
				if r.IntN(4) > 0 { // (otherwise nil: every row decided)
					pends[k].v = vector.NewVec(catalog.Boolean)
					for i := range n {
						pends[k].v.B[i] = r.IntN(5) == 0
					}
				}
				gates[k].Pending = pends[k]
			}
		}
		var sel []int32
		for i := range n {
			if r.IntN(4) > 0 {
				sel = append(sel, int32(i))
			}
		}
		// the reference: each row in turn through the branches
		want := make([][]int32, nb)
		offered := make([][]int32, nb) // the rows each gate is offered
		counted := make([]int64, nb)   // the rows each branch counts as offered
		for _, i := range sel {
			for k, g := range gates {
				if g.Pred == nil {
					counted[k]++
					want[k] = append(want[k], i)
					break
				}
				offered[k] = append(offered[k], i)
				if p := pends[k]; p != nil && p.v != nil && p.v.B[i] {
					break // not decided: no branch
				}
				counted[k]++
				m := marks[k].v
				if m.B[i] != g.Anti && !m.Null[i] {
					want[k] = append(want[k], i)
					break
				}
			}
		}
		rt := New(job, gates, nil)
		counts := make([]int64, 3*nb)
		rt.Wire(nil, counts)
		b := &vector.Batch{N: n}
		out := rt.Route(b, sel)
		for k := range nb {
			if !slices.Equal(out.Parts[k].Sel, want[k]) && (len(want[k]) > 0 || len(out.Parts[k].Sel) > 0) {
				t.Fatalf("branch %d took %v, want %v", k, out.Parts[k].Sel, want[k])
			}
			if counts[3*k] != counted[k] {
				t.Fatalf("branch %d counted %d offered, want %d", k, counts[3*k], counted[k])
			}
			if marks[k] == nil {
				continue
			}
			var got []int32
			if len(marks[k].got) > 0 {
				got = marks[k].got[0]
			}
			if !slices.Equal(got, offered[k]) && (len(got) > 0 || len(offered[k]) > 0) {
				t.Fatalf("branch %d's mark was offered %v, want %v", k, got, offered[k])
			}
			if p := pends[k]; p != nil && len(p.got) > 0 && !slices.Equal(p.got[0], got) {
				t.Fatalf("branch %d's Pending was offered %v, its mark %v", k, p.got[0], got)
			}
		}
	}
}
