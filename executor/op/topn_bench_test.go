package op

import (
	"context"
	"math/rand/v2"
	"testing"

	"streamql/catalog"
	"streamql/executor/vector"
)

// BenchmarkTopN10kKeys is the Top-N operator alone in issue 24's Top-10
// per key (benchsuite's "Top-10 per key (changelog)"): 10,000 BIGINT keys,
// ORDER BY a random DOUBLE DESC, N 10, ROW_NUMBER without the rank
// column. One op is one batch of 1024 rows.
//
//	go test ./executor/op -run XXX -bench TopN10kKeys -benchtime 2000x
func BenchmarkTopN10kKeys(b *testing.B) {
	types := []catalog.Type{catalog.BigInt, catalog.BigInt, catalog.Double}
	top, err := NewTopN(TopNSpec{Types: types, Keys: []int{0}, Order: []SortKey{{Col: 2, Desc: true}}, N: 10}, discard{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	batches := make([]*vector.Batch, min(b.N, 2000)) // (fresh values: a batch pushed again would enter nowhere)
	r := rand.New(rand.NewPCG(1, 2))
	ts := int64(0)
	for j := range batches {
		bt := vector.NewBatch(types)
		for i := range vector.Cap {
			bt.Cols[0].I[i], bt.Cols[1].I[i], bt.Cols[2].F[i] = ts%10000, ts, r.Float64()*100
			bt.Pos[i] = ts
			ts++
		}
		bt.N = vector.Cap
		batches[j] = bt
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for n := range b.N {
		bt := batches[n%len(batches)]
		if err := top.Push(ctx, 0, bt); err != nil {
			b.Fatal(err)
		}
	}
}
