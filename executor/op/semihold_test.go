package op

import (
	"context"
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
				j.DropHeld(func(i int) bool { return j.HeldPos(i)%3 == 0 })
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
// dropping rows in steady state allocates nothing per row.
func TestSemiHoldAllocatesNothingPerRow(t *testing.T) {
	ctx := context.Background()
	j := holdJoin(t, nil)
	rows := make([]testRow, vector.Cap)
	for i := range rows {
		rows[i] = testRow{key: int64(i % 7), t: int64(i), v: "value", stamp: math.MinInt64}
	}
	out := vector.NewBatch(joinTypes)
	round := func() {
		b := batchOf(rows)
		_ = j.Push(ctx, 0, b)
		_ = j.Watermark(ctx, 1, int64(vector.Cap))
		n := j.Decided(vector.Cap)
		j.Take(out, n)
		j.Done(n)
	}
	for range 3 {
		round()
	}
	if a := testing.AllocsPerRun(50, round); a > 0 {
		t.Errorf("%.1f allocations per batch of %d rows, want 0", a, vector.Cap)
	}
}
