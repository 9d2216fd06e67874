package op

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"streamql/catalog"
	"streamql/executor/vector"
)

// holdJoin returns a semi join in Hold mode over joinTypes (time column 1).
func holdJoin(t testing.TB, acct Account) *SemiJoin {
	j, err := NewSemiJoin(SemiSpec{Hold: true, Types: [2][]catalog.Type{joinTypes, nil}, Time: [2]int{1, -1}}, nil, acct)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// TestSemiHoldReleasesInOrder: in Hold mode the rows come out whole, in
// arrival order, the decided prefix only (time below the right watermark,
// or all once the right input ended), whatever the batch sizes; dropped
// rows never come out; the Account holds exactly the held rows' bytes.
// The reference is the arrival list itself.
func TestSemiHoldReleasesInOrder(t *testing.T) {
	ctx := context.Background()
	for seed := range 200 {
		r := rand.New(rand.NewPCG(uint64(seed), 5))
		in := genSide(r, "l", r.IntN(200), 0)
		acct := &countingAccount{}
		j := holdJoin(t, acct)
		out := vector.NewBatch(joinTypes)
		var got []string
		wm := int64(math.MinInt64)
		at := 0
		for at < len(in) || j.Held() > 0 {
			switch op := r.IntN(4); {
			case op == 0 && at < len(in):
				n := min(1+r.IntN(9), len(in)-at)
				b := batchOf(in[at : at+n])
				for i := range n {
					b.Pos[i] = int64(at + i)
				}
				if err := j.Push(ctx, 0, b); err != nil {
					t.Fatal(err)
				}
				at += n
			case op == 1:
				wm += r.Int64N(80)
				if err := j.Watermark(ctx, 1, wm); err != nil {
					t.Fatal(err)
				}
			case op == 2 && j.Held() > 0 && r.IntN(8) == 0: // a partition's rows: every third position
				j.DropHeld(func(pos int64) bool { return pos%3 == 0 })
			default:
				if at == len(in) {
					if err := j.Finish(ctx, 1); err != nil {
						t.Fatal(err)
					}
				}
				n := j.Decided(vector.Cap)
				for i := range n { // the prefix is decided, the next row is not
					if x, _ := j.HeldInt(i, 1); !j.done[1] && x >= wm {
						t.Fatalf("seed %d: row %d of the prefix at %d is not below the watermark %d", seed, i, x, wm)
					}
				}
				if n < j.Held() && !j.done[1] {
					if x, _ := j.HeldInt(n, 1); x < wm {
						t.Fatalf("seed %d: row %d at %d is decided but not released", seed, n, x)
					}
				}
				j.Take(out, n)
				for i := range n {
					got = append(got, string(out.Cols[2].S[i]))
				}
				j.Done(n)
			}
			if acct.bytes != j.HeldBytes() {
				t.Fatalf("seed %d: the account holds %d bytes, the held rows %d", seed, acct.bytes, j.HeldBytes())
			}
		}
		// the reference: the input in arrival order, without the rows
		// dropped (by position, every third)
		var want []string
		released := map[string]bool{}
		for _, v := range got {
			released[v] = true
		}
		for _, x := range in {
			if released[x.v] {
				want = append(want, x.v)
			}
		}
		if len(got) != len(want) {
			t.Fatalf("seed %d: %d rows released, want %d", seed, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("seed %d: released %q at %d, want %q (arrival order)", seed, got[i], i, want[i])
			}
		}
		for pos, x := range in {
			if !released[x.v] && pos%3 != 0 {
				t.Fatalf("seed %d: row %d (%s) was neither released nor dropped", seed, pos, x.v)
			}
		}
	}
}

// TestSemiHoldAllocatesNothingPerRow: holding, deciding, taking and
// dropping rows, and malformed rows on the errors port, in steady state
// allocates nothing per row.
func TestSemiHoldAllocatesNothingPerRow(t *testing.T) {
	ctx := context.Background()
	j := holdJoin(t, nil)
	rows := make([]testRow, vector.Cap)
	for i := range rows {
		rows[i] = testRow{key: int64(i % 7), t: int64(i), v: "value", stamp: math.MinInt64}
	}
	out := vector.NewBatch(joinTypes)
	eb := vector.NewBatch(HeldErrorTypes) // 4 malformed rows a batch, on the errors port
	txt := []byte("a,malformed")
	round := func() {
		b := batchOf(rows)
		o := j.Gone()
		_ = j.Push(ctx, 0, b)
		eb.Reset()
		for i := range 4 {
			for _, c := range []int{HeldErrPosition, HeldErrRaw, HeldErrReason} {
				eb.Cols[c].SetString(i, txt)
			}
			eb.Cols[HeldErrEmit].B[i], eb.Cols[HeldErrAt].I[i], eb.Pos[i] = true, o+int64(i*200), int64(i)
		}
		eb.N = 4
		_ = j.Push(ctx, HoldErrors, eb)
		_ = j.Watermark(ctx, 1, int64(vector.Cap))
		n := j.Decided(vector.Cap)
		j.Take(out, n)
		nb := j.ErrorsUpTo(o + int64(n))
		for i := range nb {
			_ = j.HeldError(i)
		}
		j.DoneErrors(nb)
		j.Done(n)
	}
	for range 3 {
		round()
	}
	if a := testing.AllocsPerRun(50, round); a > 0 {
		t.Errorf("%.1f allocations per batch of %d rows, want 0", a, vector.Cap)
	}
}

// TestSemiHoldErrorsPortKeepsArrivalOrder: the malformed rows pushed on
// Hold mode's errors port (HoldErrors), each at its ordinal, leave with the
// left rows they came before, so that releasing in the executor's way (the
// decided left rows, and the malformed rows up to the ordinal after them,
// each placed before the left row of its ordinal) gives the arrival order
// of good and malformed rows together, whatever the batch sizes, the
// watermarks and the partitions dropped (every position that is a multiple
// of 3, good or malformed). The reference is the arrival list itself,
// without the dropped positions.
func TestSemiHoldErrorsPortKeepsArrivalOrder(t *testing.T) {
	ctx := context.Background()
	for seed := range 300 {
		r := rand.New(rand.NewPCG(uint64(seed), 11))
		j := holdJoin(t, nil)
		out := vector.NewBatch(joinTypes)
		eb := vector.NewBatch(HeldErrorTypes)
		type item struct {
			name string
			pos  int64
		}
		var arrived, got []item
		dropped := map[int64]bool{}
		wm := int64(-100)
		pos, tm, total := int64(0), int64(0), 1+r.IntN(120)
		for steps := 0; len(arrived) < total || j.Held()+j.HeldErrors() > 0; steps++ {
			if steps > 100000 {
				t.Fatalf("seed %d: stuck with %d rows and %d malformed rows held (first at %d, gone %d), %d of %d arrived", seed, j.Held(), j.HeldErrors(), j.HeldError(0).At, j.Gone(), len(arrived), total)
			}
			switch op := r.IntN(5); {
			case op <= 1 && len(arrived) < total: // one source batch: good rows and malformed rows among them
				var good []testRow
				eb.Reset()
				for range 1 + r.IntN(9) {
					if r.IntN(3) == 0 {
						name := fmt.Sprintf("bad%d", pos)
						i := eb.N
						eb.Cols[HeldErrPosition].SetString(i, []byte("p"+name))
						eb.Cols[HeldErrRaw].SetString(i, []byte("raw"+name))
						eb.Cols[HeldErrReason].SetString(i, []byte("why"+name))
						eb.Cols[HeldErrEmit].B[i] = r.IntN(2) == 0
						eb.Cols[HeldErrAt].I[i] = j.Gone() + int64(j.Held()+len(good))
						eb.Pos[i] = pos
						eb.N++
						arrived = append(arrived, item{name, pos})
					} else {
						name := fmt.Sprintf("good%d", pos)
						good = append(good, testRow{t: tm + r.Int64N(40), v: name, stamp: math.MinInt64})
						arrived = append(arrived, item{name, pos})
					}
					tm += 10
					pos++
				}
				// (the left rows first: a malformed row's ordinal is at most the next left row's)
				b := batchOf(good)
				for i, x := range good {
					fmt.Sscanf(x.v, "good%d", &b.Pos[i])
				}
				if err := j.Push(ctx, 0, b); err != nil {
					t.Fatal(err)
				}
				if err := j.Push(ctx, HoldErrors, eb); err != nil {
					t.Fatal(err)
				}
			case op == 2:
				wm += r.Int64N(60)
				if err := j.Watermark(ctx, 1, wm); err != nil {
					t.Fatal(err)
				}
			case op == 3 && r.IntN(6) == 0:
				j.DropHeld(func(p int64) bool {
					if p%3 == 0 {
						dropped[p] = true
					}
					return p%3 == 0
				})
			default:
				if len(arrived) >= total {
					_ = j.Finish(ctx, 1)
				}
				n := j.Decided(vector.Cap)
				if n == 0 && j.Held() > 0 {
					continue
				}
				o := j.Gone()
				j.Take(out, n)
				nb := j.ErrorsUpTo(o + int64(n))
				k := 0
				for i := 0; i <= n; i++ {
					for ; k < nb && j.HeldError(k).At <= o+int64(i); k++ {
						e := j.HeldError(k)
						name := string(e.Raw[len("raw"):])
						if string(e.Position) != "p"+name || string(e.Reason) != "why"+name || fmt.Sprintf("bad%d", e.Pos) != name {
							t.Fatalf("seed %d: malformed row %q comes back as %q, %q at %d", seed, name, e.Position, e.Reason, e.Pos)
						}
						got = append(got, item{name, e.Pos})
					}
					if i < n {
						got = append(got, item{string(out.Cols[2].S[i]), out.Pos[i]})
					}
				}
				j.DoneErrors(nb)
				j.Done(n)
			}
		}
		var want []item
		for _, x := range arrived {
			if !dropped[x.pos] {
				want = append(want, x)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("seed %d: released\n%v\nwant (arrival order, without the dropped partition)\n%v", seed, got, want)
		}
	}
}
