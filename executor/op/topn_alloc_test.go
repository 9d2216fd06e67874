package op

import (
	"context"
	"fmt"
	"testing"

	"streamql/executor/vector"
)

// TestTopNAllocatesNothingPerBatch: once its partitions exist, a Top-N
// (1,000 partitions of 10, with and without the rank column, RANK, and the
// deduplication keeping the last row) allocates nothing per 1,024-row batch
// (issue 24: zero allocations per row in steady state), both when every row
// enters its partition's top (each ranks first and pushes the last out: its
// text, of varying length, overwrites a released row's) and when none does.
func TestTopNAllocatesNothingPerBatch(t *testing.T) {
	specs := []TopNSpec{
		{N: 10, Func: RowNumber},
		{N: 10, Func: RowNumber, RankNumber: true},
		{N: 10, Func: Rank},
		{N: 1, Func: RowNumber, NewerFirst: true},
	}
	for _, spec := range specs {
		for _, enter := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s N=%d rank column %v newer first %v every row enters %v", spec.Func, spec.N, spec.RankNumber, spec.NewerFirst, enter), func(t *testing.T) {
				spec.Types, spec.Keys, spec.Order = rankTypes, []int{0}, []SortKey{{Col: 1, Desc: true}}
				e := &countEmitter{}
				top, err := NewTopN(spec, e, nil)
				if err != nil {
					t.Fatal(err)
				}
				ctx := context.Background()
				b := vector.NewBatch(rankTypes)
				x := 0.0
				push := func() {
					b.Reset()
					for i := range vector.Cap {
						if enter {
							x++ // (the largest so far: it ranks first)
						} else {
							x-- // (below every row held: out)
						}
						b.Cols[0].I[i], b.Cols[0].Null[i] = int64(i%1000), false
						b.Cols[1].F[i], b.Cols[1].Null[i] = x, false
						b.Cols[2].SetString(i, []byte("row text "[:1+int(x)%9]))
						b.Cols[3].I[i], b.Cols[3].Null[i] = int64(x), false
						b.Cols[4].I[i], b.Cols[4].Null[i] = 0, false
						b.Cols[5].Null[i] = true
						b.Pos[i] = int64(x)
					}
					b.N = vector.Cap
					if err := top.Push(ctx, 0, b); err != nil {
						t.Fatal(err)
					}
				}
				if !enter {
					x = 1e9
				}
				for range 40 { // (the partitions fill, the stores grow)
					push()
				}
				before := e.rows
				if a := testing.AllocsPerRun(50, push); a != 0 {
					t.Fatalf("%v allocations per 1,024-row batch, want 0", a)
				}
				if emitted := e.rows - before; enter && emitted == 0 || !enter && emitted != 0 {
					t.Fatalf("%d changes emitted in steady state", emitted)
				}
			})
		}
	}
}

// TestRetractTopNAllocatesNothingPerBatch: a Top-N over an updating input
// (a running count per group, 1,000 groups in 10 partitions, every row the
// -U and +U of a group's count: the row taken back, the new one placed,
// the top's changes emitted) allocates nothing per 1,024-row batch once
// its groups exist.
func TestRetractTopNAllocatesNothingPerBatch(t *testing.T) {
	ctx, b := context.Background(), vector.NewBatch(retractTypes)
	b.Kinds = make([]vector.RowKind, vector.Cap)
	names := make([][]byte, 1000)
	for g := range names {
		names[g] = fmt.Appendf(nil, "g%d", g)
	}
	for _, spec := range []TopNSpec{{N: 3, Func: RowNumber}, {N: 3, Func: Rank, RankNumber: true}} {
		spec.Types, spec.Keys, spec.Order = retractTypes, []int{0}, []SortKey{{Col: 2, Desc: true}}
		top, err := NewRetractTopN(spec, &countEmitter{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		count := make([]int64, 1000)
		g := 0
		push := func() {
			b.Reset()
			for i := 0; i < vector.Cap; i += 2 {
				g = (g*7 + 3) % 1000
				for j, c := range []int64{count[g], count[g] + 1} {
					b.Cols[0].I[i+j], b.Cols[0].Null[i+j] = int64(g%10), false
					b.Cols[1].SetString(i+j, names[g])
					b.Cols[2].I[i+j], b.Cols[2].Null[i+j] = c, false
					b.Kinds[i+j] = []vector.RowKind{vector.UpdateBefore, vector.UpdateAfter}[j]
				}
				if count[g] == 0 {
					b.Kinds[i] = vector.Delete // (nothing held: taken back from no row)
				}
				count[g]++
			}
			b.N = vector.Cap
			if err := top.Push(ctx, 0, b); err != nil {
				t.Fatal(err)
			}
		}
		for range 20 {
			push()
		}
		if a := testing.AllocsPerRun(50, push); a != 0 {
			t.Fatalf("%s: %v allocations per 1,024-row batch, want 0", spec.Func, a)
		}
	}
}

// TestRetractTopNManyPartitionsAllocateNothing: a Top-N over an updating
// input with a partition per group (PARTITION BY the VARCHAR group, 4,096
// groups) allocates nothing per 1,024-row batch in steady state, both when
// its partitions stay and when the state TTL forgets them all along and
// their keys come back as new partitions (each batch's 512 groups are
// untouched for the next seven batches, the TTL three batches of
// processing time): a new partition reuses a forgotten one's id, key
// buffer and list, and the index is rebuilt in its table.
func TestRetractTopNManyPartitionsAllocateNothing(t *testing.T) {
	ctx, b := context.Background(), vector.NewBatch(retractTypes)
	b.Kinds = make([]vector.RowKind, vector.Cap)
	const groups = 4096
	names := make([][]byte, groups)
	for g := range names {
		names[g] = fmt.Appendf(nil, "group-%d", g)
	}
	for _, ttl := range []int64{0, 3} {
		now := int64(0)
		spec := TopNSpec{Types: retractTypes, Keys: []int{1}, Order: []SortKey{{Col: 2, Desc: true}}, N: 3, Func: Rank, RankNumber: true, TTL: ttl, Now: func() int64 { return now }}
		e := &countEmitter{}
		top, err := NewRetractTopN(spec, e, nil)
		if err != nil {
			t.Fatal(err)
		}
		count := make([]int64, groups)
		base := 0
		push := func() {
			b.Reset()
			now++
			for i := 0; i < vector.Cap; i += 2 {
				g := base + i/2
				for j, c := range []int64{count[g], count[g] + 1} {
					b.Cols[0].I[i+j], b.Cols[0].Null[i+j] = int64(g), false
					b.Cols[1].SetString(i+j, names[g])
					b.Cols[2].I[i+j], b.Cols[2].Null[i+j] = c, false
					b.Kinds[i+j] = []vector.RowKind{vector.UpdateBefore, vector.UpdateAfter}[j]
				}
				count[g]++
			}
			base = (base + vector.Cap/2) % groups
			b.N = vector.Cap
			if err := top.Push(ctx, 0, b); err != nil {
				t.Fatal(err)
			}
		}
		for range 40 { // (every group made, forgotten and made again)
			push()
		}
		before := e.rows
		if a := testing.AllocsPerRun(50, push); a != 0 {
			t.Fatalf("TTL %d: %v allocations per 1,024-row batch, want 0", ttl, a)
		}
		if e.rows == before {
			t.Fatalf("TTL %d: no change emitted in steady state", ttl)
		}
		if want := map[int64]int{0: groups, 3: 3 * vector.Cap / 2}[ttl]; top.Partitions() > want {
			t.Fatalf("TTL %d: %d partitions held, want at most %d", ttl, top.Partitions(), want)
		}
	}
}
