package op

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"streamql/catalog"
	"streamql/executor/vector"
)

// limitAccount is an Account with a limit, as executor/state's: the charge
// stays, and a charge that takes the total past max returns errLimit.
type limitAccount struct {
	max, bytes int64
	charges    int // charges that grew the state
}

var errLimit = errors.New("state.max-bytes passed")

func (a *limitAccount) Grow(n int64) error {
	a.bytes += n
	if n > 0 {
		a.charges++
		if a.bytes > a.max {
			return errLimit
		}
	}
	return nil
}

// heldRowBytes bounds the bytes one held row of joinTypes may be charged:
// its fixed-width columns, NULL flags and per-row bookkeeping (generously),
// and its text.
func heldRowBytes(text int) int64 { return 128 + int64(text) }

// TestHeldRowsPassTheBudgetByOneBatchAtMost: the rows an event-time join
// holds (SPEC 1: held rows count against 'state.max-bytes') are charged a
// pushed batch at a time, so that every row of a batch stays held and a
// stopped job still routes them (SPEC 4): a job stops within one batch of
// its limit. For each operator that holds rows (the semi join's Hold mode,
// the join's aligner on its batch path and on its row-by-row path, taken
// when a batch holds a late row), over random batch sizes up to
// vector.Cap, texts and limits: the push that takes the state past the
// limit is the one that fails (no later one), and the state then passes
// the limit by less than that batch's rows could be charged (heldRowBytes),
// never by more than vector.Cap such rows.
func TestHeldRowsPassTheBudgetByOneBatchAtMost(t *testing.T) {
	ctx := context.Background()
	none := int64(math.MinInt64)
	for _, kind := range []string{"semi hold", "join batch", "join rows"} {
		for seed := range 40 {
			r := rand.New(rand.NewPCG(uint64(seed), 77))
			acct := &limitAccount{max: 1 + r.Int64N(400_000)}
			var push func(b *vector.Batch) error
			switch kind {
			case "semi hold":
				j := holdJoin(t, acct)
				push = func(b *vector.Batch) error { return j.Push(ctx, 0, b) }
			default: // (the right watermark never advances: every left row is held)
				j, err := NewJoin(JoinSpec{Kind: Inner, Types: [2][]catalog.Type{joinTypes, joinTypes}, Keys: [2][]int{{0}, {0}},
					Time: [2]int{1, 1}, Stamp: [2]int{3, 3}}, &countEmitter{}, acct)
				if err != nil {
					t.Fatal(err)
				}
				push = func(b *vector.Batch) error { return j.Push(ctx, 0, b) }
			}
			ts := int64(1000)
			for step := 0; ; step++ {
				n := 1 + r.IntN(vector.Cap)
				if r.IntN(3) == 0 {
					n = vector.Cap
				}
				text := r.IntN(300)
				rows := make([]testRow, n)
				for i := range rows {
					ts += r.Int64N(3)
					rows[i] = testRow{key: r.Int64N(50), t: ts, v: strings.Repeat("x", r.IntN(text+1)), stamp: none}
				}
				if kind == "join rows" { // a late row (below its stamp) sends the batch row by row
					rows[0].t, rows[0].stamp = ts-10_000, ts
				}
				before := acct.bytes
				err := push(batchOf(rows))
				if acct.bytes > acct.max && err == nil {
					t.Fatalf("%s, seed %d, push %d: the state is %d bytes, past the limit %d, and the push did not fail", kind, seed, step, acct.bytes, acct.max)
				}
				if err == nil {
					continue
				}
				if !errors.Is(err, errLimit) {
					t.Fatalf("%s, seed %d: %v", kind, seed, err)
				}
				if before > acct.max {
					t.Fatalf("%s, seed %d: the limit was passed before push %d", kind, seed, step)
				}
				if over, bound := acct.bytes-acct.max, int64(n)*heldRowBytes(text); over > bound || over > vector.Cap*heldRowBytes(text) {
					t.Fatalf("%s, seed %d: the state passed the limit by %d bytes, more than the batch's %d rows may take (%d)", kind, seed, over, n, bound)
				}
				break
			}
		}
	}
}
