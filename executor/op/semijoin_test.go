package op

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"streamql/catalog"
	"streamql/executor/vector"
)

// TestSemiJoinDeterministic: SemiJoin's output, the left rows that pass in
// left order, equals a batch computation over the whole inputs written from
// SPEC 2.2 alone, for random inputs (NULL keys, out-of-order and late right
// rows), every interleaving and batch size feed makes: SEMI and ANTI with an
// unbounded right side (a left row at t has a partner when an on-time right
// row of its key has time <= t), and SEMI, ANTI and NOT IN (NullAware) with a
// bounded one (the right side has no event time: every right row counts).
func TestSemiJoinDeterministic(t *testing.T) {
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 2))
		d := int64(r.IntN(40))
		in := [2][]testRow{genSide(r, "l", r.IntN(40), d), genSide(r, "r", r.IntN(40), d)}
		if r.IntN(8) == 0 {
			in[1] = nil // (an empty right side: NOT IN lets every row pass)
		}
		bounded := seed%2 == 1
		spec := SemiSpec{Anti: seed%4 >= 2, Types: [2][]catalog.Type{joinTypes, joinTypes}, Keys: [2][]int{{0}, {0}}, Cond: -1, Time: [2]int{1, 1}, Stamp: 3}
		if bounded {
			spec.Time[1], spec.Stamp = -1, -1
			spec.NullAware = spec.Anti && seed%8 >= 4
		}
		want := referenceSemi(spec, in)
		for run := range 3 {
			e := &logEmitter{}
			j, err := NewSemiJoin(spec, e, nil)
			if err != nil {
				t.Fatal(err)
			}
			feed(t, j, in, nil, d, rand.New(rand.NewPCG(seed, uint64(run)+10)))
			if !slices.Equal(e.out, want) {
				t.Fatalf("seed %d run %d, %+v:\nleft %v\nright %v\ngot  %q\nwant %q", seed, run, spec, in[0], in[1], e.out, want)
			}
			if c := j.Counts(); c.In[0] != int64(len(in[0])) || c.In[1] != int64(len(in[1])) {
				t.Fatalf("seed %d: counts %+v", seed, c)
			}
		}
	}
}

// referenceSemi is SPEC 2.2 over the whole inputs: the right rows that count
// (all of a bounded side; the on-time ones, by their stamps, of an unbounded
// one), then each left row in order, kept by SEMI when one of them has its
// (non-NULL) key and, unbounded, a time <= its own; by ANTI otherwise; by NOT
// IN as SQL's three-valued rule says.
func referenceSemi(spec SemiSpec, in [2][]testRow) []string {
	var right []testRow
	rightNull := false
	for _, x := range in[1] {
		if spec.Time[1] >= 0 && x.late() {
			continue
		}
		right = append(right, x)
		rightNull = rightNull || x.key < 0
	}
	var out []string
	for _, l := range in[0] {
		match := false
		for _, x := range right {
			if l.key >= 0 && x.key == l.key && (spec.Time[1] < 0 || x.t <= l.t) {
				match = true
			}
		}
		pass := match
		switch {
		case !spec.Anti:
		case spec.NullAware && len(right) == 0:
			pass = true
		case spec.NullAware:
			pass = !match && l.key >= 0 && !rightNull
		default:
			pass = !match
		}
		if pass {
			out = append(out, fmt.Sprintf("+I %s", l.text()))
		}
	}
	return out
}

// TestSemiJoinCondition: a condition on the left row alone (Cond, SPEC 2.2:
// an ON term that reads the left side only) takes part in the match: a left
// row whose condition is not TRUE (FALSE or NULL) has no partner, so SEMI
// drops it and ANTI and NOT IN keep it (NOT IN: the subquery, after its own
// WHERE, is empty for that row).
func TestSemiJoinCondition(t *testing.T) {
	lt := []catalog.Type{catalog.BigInt, catalog.BigInt, catalog.Boolean}
	rt := []catalog.Type{catalog.BigInt, catalog.BigInt}
	left := vector.NewBatch(lt)
	for i, x := range []struct {
		key        int64
		cond, null bool
	}{{1, true, false}, {1, false, false}, {1, false, true}, {2, true, false}} {
		left.Cols[0].I[i], left.Cols[1].I[i] = x.key, int64(i)
		left.Cols[2].B[i], left.Cols[2].Null[i] = x.cond, x.null
		left.N++
	}
	right := vector.NewBatch(rt)
	right.Cols[0].I[0], right.N = 1, 1
	for _, c := range []struct {
		anti, nullAware bool
		want            []string // the left rows kept, by their time
	}{
		{false, false, []string{"+I 1,0,true"}},
		{true, false, []string{"+I 1,1,false", "+I 1,2,NULL", "+I 2,3,true"}},
		{true, true, []string{"+I 1,1,false", "+I 1,2,NULL", "+I 2,3,true"}},
	} {
		e := &logEmitter{}
		j, err := NewSemiJoin(SemiSpec{Anti: c.anti, NullAware: c.nullAware, Types: [2][]catalog.Type{lt, rt}, Keys: [2][]int{{0}, {0}}, Cond: 2, Time: [2]int{-1, -1}, Stamp: -1}, e, nil)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		for _, step := range []func() error{
			func() error { return j.Push(ctx, 1, right) },
			func() error { return j.Finish(ctx, 1) },
			func() error { return j.Push(ctx, 0, left) },
			func() error { return j.Finish(ctx, 0) },
		} {
			if err := step(); err != nil {
				t.Fatal(err)
			}
		}
		if !slices.Equal(e.out, c.want) {
			t.Errorf("anti %v, NOT IN %v: %q, want %q", c.anti, c.nullAware, e.out, c.want)
		}
	}
}
