package op

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"streamql/catalog"
	"streamql/executor/vector"
)

// funcEmitter hands each emitted batch to emit.
type funcEmitter struct {
	emit func(b *vector.Batch) error
}

func (e *funcEmitter) Emit(_ context.Context, _ int, b *vector.Batch) error { return e.emit(b) }

func (e *funcEmitter) EmitWatermark(context.Context, int64) error { return nil }

// joinRows fills b (of joinTypes) with n rows: row i's key, time and text
// from row, its last column NULL.
func joinRows(b *vector.Batch, n int, row func(i int) (k, t int64, text []byte)) {
	b.Reset()
	for i := range n {
		k, t, text := row(i)
		b.Cols[0].I[i], b.Cols[1].I[i] = k, t
		b.Cols[2].SetString(i, text)
		b.Cols[3].Null[i] = true
	}
	b.N = n
}

// TestSwapJoinFillsTopN: a swapped lookup join (JoinSpec.Swap) kept past its
// end (KeepLeft) feeding a bounded Top-N by its left key that stores the
// left name NULL (what executor/rank does for plan.Rank.Thin) gives, with
// TopN.Fill from Join.LeftColumns, the final result of the same Top-N
// storing every column, row for row; the join lets its state go at Forget.
// When two left rows share a key (hold) LeftUnique is false and the state
// goes at the right input's end, as without KeepLeft.
func TestSwapJoinFillsTopN(t *testing.T) {
	for _, unique := range []bool{true, false} {
		t.Run(fmt.Sprintf("unique %v", unique), func(t *testing.T) {
			ctx := context.Background()
			types := append(slices.Clone(joinTypes), joinTypes...)
			run := func(thin bool) ([]string, *Join) {
				var out []string
				spec := TopNSpec{Types: types, Keys: []int{0}, Order: []SortKey{{Col: 5, Desc: true}}, N: 1, Func: RowNumber, PosOrder: true}
				top, err := NewTopN(spec, &funcEmitter{emit: func(b *vector.Batch) error {
					for i := range b.N {
						var row []byte
						for c := range types {
							if row = append(row, ','); b.Cols[c].Null[i] {
								row = append(row, "NULL"...) // (not the value behind the flag)
								continue
							}
							row = vector.AppendValue(row, types[c], b.Cols[c], i)
						}
						out = append(out, string(row))
					}
					return nil
				}}, nil)
				if err != nil {
					t.Fatal(err)
				}
				top.Quiet(true)
				var j *Join
				null := vector.NewVec(catalog.Varchar)
				for i := range null.Null {
					null.Null[i] = true
				}
				view := vector.Batch{Cols: make([]*vector.Vec, len(types))}
				j, err = NewJoin(JoinSpec{Kind: Inner, Types: [2][]catalog.Type{joinTypes, joinTypes}, Keys: [2][]int{{0}, {0}}, Time: [2]int{-1, -1}, Stamp: [2]int{-1, -1}, Lookup: true, Swap: true},
					&funcEmitter{emit: func(b *vector.Batch) error {
						if !thin {
							return top.Push(ctx, 0, b)
						}
						if !j.LeftUnique() {
							t.Fatal("LeftUnique false while joined rows come")
						}
						copy(view.Cols, b.Cols)
						view.Cols[2], view.N, view.Pos = null, b.N, b.Pos
						return top.Push(ctx, 0, &view)
					}}, nil)
				if err != nil {
					t.Fatal(err)
				}
				if thin {
					j.KeepLeft()
					top.Fill(func(b *vector.Batch, i int, pos int64) { j.LeftColumns(b, i, pos, []int{2}, []int{2}) })
				}
				b := vector.NewBatch(joinTypes)
				joinRows(b, 50, func(i int) (int64, int64, []byte) {
					k := int64(49 - i) // (the ordinals are not the keys' order)
					if !unique && i%10 == 0 {
						k = 7
					}
					return k, int64(i), fmt.Appendf(nil, "left%d-%s", i, "xxxxxxxxxx"[:i%10])
				})
				if err := j.Push(ctx, 0, b); err != nil {
					t.Fatal(err)
				}
				if err := j.Finish(ctx, 0); err != nil {
					t.Fatal(err)
				}
				if thin && j.LeftUnique() != unique {
					t.Fatalf("LeftUnique %v with unique keys %v", j.LeftUnique(), unique)
				}
				if thin && !unique {
					top.Fill(nil) // (what executor/rank does then: every column stored)
					thin = false
				}
				for n := range 3 {
					joinRows(b, 300, func(i int) (int64, int64, []byte) {
						return int64((i*31 + n) % 60), int64(i * 7 % 100), fmt.Appendf(nil, "right%d", n*300+i)
					})
					if err := j.Push(ctx, 1, b); err != nil {
						t.Fatal(err)
					}
				}
				if err := j.Finish(ctx, 1); err != nil {
					t.Fatal(err)
				}
				if kept := j.side[0].rows.Len() > 0; kept != (thin && unique) {
					t.Fatalf("the left rows kept after the right end: %v", kept)
				}
				if err := top.Final(ctx); err != nil {
					t.Fatal(err)
				}
				if err := j.Forget(); err != nil {
					t.Fatal(err)
				}
				if j.side[0].rows.Len() > 0 {
					t.Fatal("the left rows kept after Forget")
				}
				return out, j
			}
			want, _ := run(false)
			got, _ := run(true)
			if len(want) == 0 || !slices.Equal(got, want) {
				t.Fatalf("got\n%v\nwant\n%v", got, want)
			}
		})
	}
}
