package route

import (
	"math/rand/v2"
	"slices"
	"testing"

	"streamql/catalog"
	"streamql/executor/vector"
	"streamql/planner/plan"
)

// fixedGate is a gate with a given decision per row: a mark (B, Null;
// passed when TRUE, or FALSE with anti, never NULL), and pending rows (nil:
// none), which it puts on neither port. It records the rows each Split was
// offered.
type fixedGate struct {
	mark    *vector.Vec
	anti    bool
	pending []bool
	got     [][]int32
}

func (g *fixedGate) Split(_ *vector.Batch, offered, pass, rest []int32) ([]int32, []int32) {
	g.got = append(g.got, slices.Clone(offered))
	for _, i := range offered {
		switch {
		case g.pending != nil && g.pending[i]:
		case g.mark.B[i] != g.anti && !g.mark.Null[i]:
			pass = append(pass, i)
		default:
			rest = append(rest, i)
		}
	}
	return pass, rest
}

// TestGatePending checks the router's stages, each with a gate operator
// (a MARK with anti, and rows it cannot decide yet) and a WHERE, against
// first-match routing computed here row by row (SPEC 2.1): a row goes to the
// first branch whose gate passes it (TRUE, or FALSE with anti; never NULL)
// or that has no gate, and whose WHERE is TRUE; a row a gate keeps pending
// goes to no branch at all, this one or a later one. Each gate is offered
// the rows that reach its branch, pending ones included (what its
// expressions do is observable), each WHERE only those its gate passed, and
// the offered counts leave the pending rows out.
func TestGatePending(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 2000 {
		nb := 1 + r.IntN(4)
		job := &plan.Job{Stream: &catalog.Stream{Config: &catalog.FileConfig{}}}
		n := 1 + r.IntN(vector.Cap)
		wheres := make([][]byte, nb) // per branch: nil (no WHERE) or each row's 0 FALSE, 1 TRUE, 2 NULL
		for k := range nb {
			b := &plan.Branch{}
			if r.IntN(2) == 0 {
				wheres[k] = make([]byte, n)
				for i := range n {
					wheres[k][i] = byte(r.IntN(3))
				}
				b.Where = whereCol(k)
			}
			if k == nb-1 {
				job.Main = b
			} else {
				job.Branches = append(job.Branches, b)
			}
		}
		gates := make([]Gate, nb)
		fixed := make([]*fixedGate, nb)
		for k := range gates {
			if r.IntN(4) == 0 {
				continue // no gate
			}
			g := &fixedGate{mark: vector.NewVec(catalog.Boolean), anti: r.IntN(2) == 0}
			for i := range n {
				g.mark.B[i], g.mark.Null[i] = r.IntN(2) == 0, r.IntN(6) == 0
			}
			if r.IntN(3) > 0 {
				g.pending = make([]bool, n)
				for i := range n {
					g.pending[i] = r.IntN(5) == 0
				}
			}
			gates[k], fixed[k] = g, g
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
		passed := make([]int64, nb)    // the rows each branch's gate passed
		for _, i := range sel {
			for k := range nb {
				if g := fixed[k]; g != nil {
					offered[k] = append(offered[k], i)
					if g.pending != nil && g.pending[i] {
						break // not decided: no branch
					}
					counted[k]++
					if g.mark.B[i] == g.anti || g.mark.Null[i] {
						continue
					}
				} else {
					counted[k]++
				}
				passed[k]++
				if wheres[k] == nil || wheres[k][i] == 1 {
					want[k] = append(want[k], i)
					break
				}
			}
		}
		wb := &vector.Batch{N: n}
		for k := range nb {
			v := vector.NewVec(catalog.Boolean)
			if wheres[k] != nil {
				for i := range n {
					v.B[i], v.Null[i] = wheres[k][i] == 1, wheres[k][i] == 2
				}
			}
			wb.Cols = append(wb.Cols, v)
		}
		rt := New(job, gates, nil)
		counts := make([]int64, 3*nb)
		rt.Wire(nil, counts)
		out := rt.Route(wb, sel)
		for k := range nb {
			if !slices.Equal(out.Parts[k].Sel, want[k]) && (len(want[k]) > 0 || len(out.Parts[k].Sel) > 0) {
				t.Fatalf("branch %d took %v, want %v", k, out.Parts[k].Sel, want[k])
			}
			if counts[3*k] != counted[k] || counts[3*k+1] != passed[k] || counts[3*k+2] != int64(len(want[k])) {
				t.Fatalf("branch %d counted %v offered, passed, taken; want %d %d %d", k, counts[3*k:3*k+3], counted[k], passed[k], len(want[k]))
			}
			if fixed[k] == nil {
				continue
			}
			var got []int32
			if len(fixed[k].got) > 0 {
				got = fixed[k].got[0]
			}
			if !slices.Equal(got, offered[k]) && (len(got) > 0 || len(offered[k]) > 0) {
				t.Fatalf("branch %d's gate was offered %v, want %v", k, got, offered[k])
			}
		}
	}
}

// whereCol is a WHERE reading BOOLEAN column c.
func whereCol(c int) *plan.Expr {
	return &plan.Expr{Op: plan.OpCol, Type: catalog.Boolean, Col: c}
}

// TestFanout checks the router of a job whose rows fan out to every branch
// (plan.Job.Fanout, the planner's ruleFuseRankAggSides) against a
// reference computed here row by row: each branch takes every live row its
// WHERE is TRUE for (every one without a WHERE), whatever the branches
// before it took, in order, and counts every live row as offered.
func TestFanout(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 1000 {
		nb := 1 + r.IntN(4)
		job := &plan.Job{Stream: &catalog.Stream{Config: &catalog.FileConfig{}}, Fanout: true}
		n := 1 + r.IntN(vector.Cap)
		wb := &vector.Batch{N: n}
		wheres := make([][]byte, nb) // per branch: nil (no WHERE) or each row's 0 FALSE, 1 TRUE, 2 NULL
		for k := range nb {
			b := &plan.Branch{}
			v := vector.NewVec(catalog.Boolean)
			if r.IntN(3) > 0 {
				wheres[k] = make([]byte, n)
				for i := range n {
					wheres[k][i] = byte(r.IntN(3))
					v.B[i], v.Null[i] = wheres[k][i] == 1, wheres[k][i] == 2
				}
				b.Where = whereCol(k)
			}
			wb.Cols = append(wb.Cols, v)
			if k == nb-1 {
				job.Main = b
			} else {
				job.Branches = append(job.Branches, b)
			}
		}
		var sel []int32
		for i := range n {
			if r.IntN(4) > 0 {
				sel = append(sel, int32(i))
			}
		}
		rt := New(job, nil, nil)
		counts := make([]int64, 3*nb)
		rt.Wire(nil, counts)
		out := rt.Route(wb, sel)
		for k := range nb {
			var want []int32
			for _, i := range sel {
				if wheres[k] == nil || wheres[k][i] == 1 {
					want = append(want, i)
				}
			}
			if !slices.Equal(out.Parts[k].Sel, want) && (len(want) > 0 || len(out.Parts[k].Sel) > 0) {
				t.Fatalf("branch %d took %v, want %v", k, out.Parts[k].Sel, want)
			}
			if counts[3*k] != int64(len(sel)) || counts[3*k+2] != int64(len(want)) {
				t.Fatalf("branch %d counted %v offered, passed, taken; want %d offered, %d taken", k, counts[3*k:3*k+3], len(sel), len(want))
			}
		}
	}
}
