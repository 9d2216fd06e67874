package op

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"streamql/catalog"
	"streamql/executor/vector"
)

// preparedJoin is a Join whose batches are pushed with their HoldPrep
// (Join.Preparer, as the pipelined join's input readers compute them):
// one HoldPrep an input, reused from batch to batch as a reader's are.
type preparedJoin struct {
	*Join
	prep [2]func(*vector.Batch, *HoldPrep) *HoldPrep
	p    [2]*HoldPrep
}

func (j *preparedJoin) Push(ctx context.Context, port int, b *vector.Batch) error {
	if j.prep[port] == nil {
		return j.Join.Push(ctx, port, b)
	}
	j.p[port] = j.prep[port](b, j.p[port])
	return j.PushPrepared(ctx, port, b, j.p[port])
}

// TestJoinPreparedSameRows: a join given each batch's key hashes and time
// order computed ahead (HoldPrep, Join.PushPrepared) gives the same joined
// rows in the same order, the same late rows and counts as Push, for
// interval and regular joins of every kind, inputs in order, a little out
// of it or out of it by hundreds of rows (the radix sort's), random batch
// sizes and interleavings; a HoldPrep computed for a batch of another
// count of rows is left aside.
func TestJoinPreparedSameRows(t *testing.T) {
	seeds := seedCount(t, 200, 40)
	for seed := range seeds {
		r := rand.New(rand.NewPCG(uint64(seed), 29))
		d := r.Int64N(40)
		spread := []int64{1, 61, 3000}[seed%3]
		gen := func(name string) []testRow {
			return genRows(name, r.IntN(400), d+spread, func(i int) (int64, int64) { return int64(i*10) + r.Int64N(spread), r.Int64N(40) - 1 })
		}
		in := [2][]testRow{gen("l"), gen("r")}
		interval := seed%4 != 0
		for _, kind := range []JoinKind{Inner, Left, Right, Full} {
			spec := JoinSpec{Kind: kind, Types: [2][]catalog.Type{joinTypes, joinTypes}, Keys: [2][]int{{0}, {0}}, Time: [2]int{1, 1}, Stamp: [2]int{3, 3}, Interval: interval, Lo: -200, Hi: []int64{0, 50}[seed%2]}
			if !interval {
				spec.TTL = 300
			}
			name := fmt.Sprintf("seed %d %s (interval %v, spread %d)", seed, kind, interval, spread)
			run := func(prepared bool) *logEmitter {
				e := &logEmitter{}
				j, err := NewJoin(spec, e, nil)
				if err != nil {
					t.Fatal(err)
				}
				var o Operator = j
				if prepared {
					pj := &preparedJoin{Join: j}
					for s := range 2 {
						pj.prep[s] = j.Preparer(s, seed%2 == 0) // (the rows carry their stamps: either way)
						if pj.prep[s] == nil {
							t.Fatalf("%s: no Preparer for input %d", name, s)
						}
					}
					o = pj
				}
				feedSized(t, o, in, nil, d+spread, 300, rand.New(rand.NewPCG(uint64(seed), 3)), func(err error) error { return err })
				e.counts = j.Counts()
				return e
			}
			want, got := run(false), run(true)
			if !slices.Equal(got.out, want.out) {
				t.Fatalf("%s: prepared\n%s\nwant (Push)\n%s", name, strings.Join(got.out, "\n"), strings.Join(want.out, "\n"))
			}
			if !slices.Equal(got.late[0], want.late[0]) || !slices.Equal(got.late[1], want.late[1]) || got.counts != want.counts {
				t.Fatalf("%s: prepared: late %q, counts %+v; want %q, %+v", name, got.late, got.counts, want.late, want.counts)
			}
		}
	}
	// a HoldPrep of another count of rows (the errors policy cut the batch) is not used
	spec := JoinSpec{Kind: Inner, Types: [2][]catalog.Type{joinTypes, joinTypes}, Keys: [2][]int{{0}, {0}}, Time: [2]int{1, 1}, Stamp: [2]int{-1, -1}, Interval: true, Lo: -100, Hi: 100}
	e := &logEmitter{}
	j, err := NewJoin(spec, e, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rows := genRows("l", 10, 0, func(i int) (int64, int64) { return int64(100 - i), int64(i) })
	p := j.Preparer(0, false)(batchOf(rows), nil)
	if err := j.PushPrepared(ctx, 0, batchOf(rows[:4]), p); err != nil {
		t.Fatal(err)
	}
	if err := j.Push(ctx, 1, batchOf(genRows("r", 10, 0, func(i int) (int64, int64) { return int64(100 - i), int64(i) }))); err != nil {
		t.Fatal(err)
	}
	for s := range 2 {
		if err := j.Finish(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	if len(e.out) != 4 {
		t.Fatalf("a batch of 4 rows pushed with the HoldPrep of 10 joined %d rows, want 4:\n%s", len(e.out), strings.Join(e.out, "\n"))
	}
}

// sourcesEmitter is a logEmitter that also records each joined row's
// position (vector.Batch.Pos) and its input rows' (Join.Sources).
type sourcesEmitter struct {
	logEmitter
	j   *Join
	pos []string
}

func (e *sourcesEmitter) Emit(ctx context.Context, port int, b *vector.Batch) error {
	if port == JoinOut {
		l, r := e.j.Sources()
		for i := range b.N {
			e.pos = append(e.pos, fmt.Sprintf("%d %d %d", b.Pos[i], l[i], r[i]))
		}
	}
	return e.logEmitter.Emit(ctx, port, b)
}

// TestDropRightSourcesSameRows: an interval join told that no one reads
// its right rows' source positions (Join.DropRightSources, the pipelined
// join's) gives the same joined rows, late rows and counts, each joined
// row's position and its left row's source, and -1 for its right row's
// source, for INNER and LEFT joins of random inputs, batch sizes and
// interleavings; a RIGHT or FULL join, whose padded right rows take their
// positions from them, keeps them.
func TestDropRightSourcesSameRows(t *testing.T) {
	for seed := range seedCount(t, 100, 20) {
		r := rand.New(rand.NewPCG(uint64(seed), 31))
		d := r.Int64N(40)
		gen := func(name string) []testRow {
			return genRows(name, r.IntN(400), d+61, func(i int) (int64, int64) { return int64(i*10) + r.Int64N(61), r.Int64N(40) - 1 })
		}
		in := [2][]testRow{gen("l"), gen("r")}
		for _, kind := range []JoinKind{Inner, Left, Right, Full} {
			spec := JoinSpec{Kind: kind, Types: [2][]catalog.Type{joinTypes, joinTypes}, Keys: [2][]int{{0}, {0}}, Time: [2]int{1, 1}, Stamp: [2]int{3, 3}, Interval: true, Lo: -200, Hi: []int64{0, 50}[seed%2]}
			name := fmt.Sprintf("seed %d %s", seed, kind)
			run := func(drop bool) *sourcesEmitter {
				e := &sourcesEmitter{}
				j, err := NewJoin(spec, e, nil)
				if err != nil {
					t.Fatal(err)
				}
				e.j = j
				if dropped := drop && j.DropRightSources(); dropped != (drop && (kind == Inner || kind == Left)) {
					t.Fatalf("%s: DropRightSources %v", name, dropped)
				}
				feedSized(t, j, in, nil, d+61, 300, rand.New(rand.NewPCG(uint64(seed), 5)), func(err error) error { return err })
				e.counts = j.Counts()
				return e
			}
			want, got := run(false), run(true)
			if !slices.Equal(got.out, want.out) || !slices.Equal(got.late[0], want.late[0]) || !slices.Equal(got.late[1], want.late[1]) || got.counts != want.counts {
				t.Fatalf("%s: without the right sources\n%s\nwant\n%s", name, strings.Join(got.out, "\n"), strings.Join(want.out, "\n"))
			}
			for i, p := range got.pos {
				var pos, l, r, wpos, wl, wr int64
				fmt.Sscan(p, &pos, &l, &r)
				fmt.Sscan(want.pos[i], &wpos, &wl, &wr)
				if dropped := kind == Inner || kind == Left; pos != wpos || l != wl || dropped && r != -1 || !dropped && r != wr {
					t.Fatalf("%s: joined row %d (%s): position, sources %q, want %q (the right one -1: %v)", name, i, got.out[i], p, want.pos[i], dropped)
				}
			}
		}
	}
}

// TestTimeOrderAgainstStableSort: timeOrder (the Preparer's order of a
// batch's rows) gives the indexes of the times sorted stably by time, for
// batches in order, out of order by a few places (insertion), by hundreds
// (the words' radix sort; the batches after one such take it straight) and
// of a range too wide for words (int64's ends), of 1 to 1,024 rows, one
// timeOrder reused for them all.
func TestTimeOrderAgainstStableSort(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 41))
	var o timeOrder
	for try := range 3000 {
		n := 1 + r.IntN(vector.Cap)
		if try%3 == 0 {
			n = vector.Cap
		}
		ts := make([]int64, n)
		spread := []int64{0, 2, 30, 5000, 1 << 40}[r.IntN(5)]
		for i := range ts {
			ts[i] = int64(i)*7 + 1_000_000
			if spread > 0 {
				ts[i] += r.Int64N(spread)
			}
			if r.IntN(50) == 0 { // (equal times)
				ts[i] = ts[max(0, i-1)]
			}
		}
		if try%97 == 0 {
			ts[r.IntN(n)] = []int64{math.MinInt64, math.MaxInt64}[r.IntN(2)]
		}
		want := make([]int32, n)
		for i := range want {
			want[i] = int32(i)
		}
		slices.SortStableFunc(want, func(a, b int32) int { return cmp.Compare(ts[a], ts[b]) })
		got := make([]int32, n)
		o.order(ts, got)
		if !slices.Equal(got, want) {
			t.Fatalf("try %d, %d rows, spread %d: order %v, want %v", try, n, spread, got, want)
		}
	}
}
