package op

import (
	"context"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"streamql/catalog"
	"streamql/executor/agg"
	"streamql/executor/vector"
)

// replayLog records an operator's output rows with their source positions
// and times (column 4).
type replayLog struct {
	rows []string
	pos  []int64
	t    []int64
	late int
}

func (l *replayLog) Emit(_ context.Context, port int, b *vector.Batch) error {
	for i := 0; i < b.N; i++ {
		if port != TimedOut {
			l.late++
			continue
		}
		l.rows = append(l.rows, rowText(b, i))
		l.pos = append(l.pos, b.Pos[i])
		l.t = append(l.t, b.Cols[4].I[i])
	}
	return nil
}

func (l *replayLog) EmitWatermark(context.Context, int64) error { return nil }

// replayable is an event-time operator a Kafka replay rebuilds.
type replayable interface {
	Operator
	DropWhere(drop func(pos int64) bool)
}

// TestTimedReplayRebuildsState: Dedup, Over and TimeSort over the rows of
// two "partitions" (even and odd source positions; each key on one), one
// of which is dropped mid-stream (DropWhere) and read again from its
// frontier (Over's and TimeSort's oldest held row, HeldRows; Dedup's first
// row), emit, once the rows a replay would not write again (even ones
// below the watermark at the drop) are left out, exactly the rows of one
// uninterrupted run. The rows read again lie below the operator's
// watermark: DropWhere must take it back, or they would be late.
func TestTimedReplayRebuildsState(t *testing.T) {
	ctx := context.Background()
	kinds := map[string]func(out Emitter) (replayable, error){
		"dedup": func(out Emitter) (replayable, error) {
			return NewDedup(DedupSpec{Types: rankTypes, Keys: []int{0}, Time: 4, Stamp: -1}, out, nil)
		},
		"over": func(out Emitter) (replayable, error) {
			return NewOver(OverSpec{Types: rankTypes, Keys: []int{0}, Time: 4, Stamp: -1, Preceding: 2,
				Aggs: []OverAgg{{Spec: agg.Spec{Func: agg.Sum, Arg: catalog.BigInt}, Arg: 3}}}, out, nil)
		},
		"over range": func(out Emitter) (replayable, error) {
			return NewOver(OverSpec{Types: rankTypes, Keys: []int{0}, Time: 4, Stamp: -1, Range: true, Preceding: 45,
				Aggs: []OverAgg{{Spec: agg.Spec{Func: agg.CountStar}}}}, out, nil)
		},
		"time sort": func(out Emitter) (replayable, error) {
			return NewTimeSort(TimeSortSpec{Types: rankTypes, Time: 4, Stamp: -1}, out, nil)
		},
	}
	const delay = 40
	for name, mk := range kinds {
		for seed := range uint64(60) {
			r := rand.New(rand.NewPCG(seed, 11))
			rows := make([]rankRow, 20+r.IntN(200))
			for i := range rows { // key i%4: keys 0 and 2 on the even positions; out of order by < delay
				rows[i] = rankRow{key: int64(i % 4), x: 1, s: "s", id: int64(i), t: int64(i*10 - r.IntN(30)), stamp: math.MinInt64}
			}
			var cuts []int // batch ends
			for at := 0; at < len(rows); {
				at = min(len(rows), at+1+r.IntN(20))
				cuts = append(cuts, at)
			}
			drive := func(o Operator, rs []rankRow, maxT *int64) int64 {
				if err := o.Push(ctx, 0, rankBatch(rs)); err != nil {
					t.Fatal(err)
				}
				for _, x := range rs {
					*maxT = max(*maxT, x.t)
				}
				if err := o.Watermark(ctx, 0, *maxT-delay); err != nil {
					t.Fatal(err)
				}
				return *maxT - delay
			}
			// one uninterrupted run
			ref := &replayLog{}
			o, err := mk(ref)
			if err != nil {
				t.Fatal(err)
			}
			maxT, from := int64(math.MinInt64), 0
			for _, c := range cuts {
				drive(o, rows[from:c], &maxT)
				from = c
			}
			if err := o.Finish(ctx, 0); err != nil {
				t.Fatal(err)
			}
			// the same, the even partition dropped after batch k and read again
			got := &replayLog{}
			o, err = mk(got)
			if err != nil {
				t.Fatal(err)
			}
			k := r.IntN(len(cuts))
			maxT, from = math.MinInt64, 0
			f := int64(math.MinInt64)
			for _, c := range cuts[:k+1] {
				f = drive(o, rows[from:c], &maxT)
				from = c
			}
			front := int64(0) // the first row taken
			if h, ok := o.(interface {
				HeldRows(c int, f func(pos, v int64, null bool))
			}); ok {
				front = math.MaxInt64
				h.HeldRows(4, func(pos, v int64, null bool) {
					if pos%2 == 0 {
						front = min(front, pos)
					}
				})
			}
			before := len(got.rows)
			o.DropWhere(func(pos int64) bool { return pos%2 == 0 })
			var again []rankRow
			for _, x := range rows[:from] {
				if x.id%2 == 0 && x.id >= front {
					again = append(again, x)
				}
			}
			if len(again) > 0 {
				if err := o.Push(ctx, 0, rankBatch(again)); err != nil {
					t.Fatal(err)
				}
			}
			for _, c := range cuts[k+1:] {
				drive(o, rows[from:c], &maxT)
				from = c
			}
			if err := o.Finish(ctx, 0); err != nil {
				t.Fatal(err)
			}
			kept := got.rows[:before]
			for j := before; j < len(got.rows); j++ {
				if got.pos[j]%2 == 0 && got.t[j] < f {
					continue // (written before the drop: a replay does not write it again)
				}
				kept = append(kept, got.rows[j])
			}
			want := slices.Clone(ref.rows)
			slices.Sort(want)
			slices.Sort(kept)
			if got.late != 0 || !slices.Equal(kept, want) {
				t.Fatalf("%s, seed %d (dropped after row %d, read again from %d, watermark %d): %d late rows; rows\n%s\nwant\n%s", name, seed, from, front, f, got.late, strings.Join(kept, "\n"), strings.Join(want, "\n"))
			}
		}
	}
}

// TestDedupTTLForgetsKeysWithStaleHeldRows: a key whose first held row was
// replaced by one of a smaller time leaves the replaced row's entry in the
// time heap until the watermark passes it; when the TTL forgets the key
// before that, the entry points at no key (-1), and a later sweep must keep
// it so (it indexed the sweep's table with -1 and panicked).
func TestDedupTTLForgetsKeysWithStaleHeldRows(t *testing.T) {
	ctx := context.Background()
	d, err := NewDedup(DedupSpec{Types: rankTypes, Keys: []int{0}, Time: 4, Stamp: -1, TTL: 100}, &replayLog{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var rows []rankRow
	for k := range 1100 { // (a sweep needs 1024 keys)
		rows = append(rows, rankRow{key: int64(k), s: "s", id: int64(2 * k), t: 10_000, stamp: math.MinInt64},
			rankRow{key: int64(k), s: "s", id: int64(2*k + 1), t: 0, stamp: math.MinInt64})
	}
	push := func(rows []rankRow) {
		for from := 0; from < len(rows); from += vector.Cap {
			if err := d.Push(ctx, 0, rankBatch(rows[from:min(len(rows), from+vector.Cap)])); err != nil {
				t.Fatal(err)
			}
		}
	}
	push(rows)
	if err := d.Watermark(ctx, 0, 200); err != nil { // each key emitted at t 0, then forgotten; the t 10000 entries stay
		t.Fatal(err)
	}
	rows = rows[:0]
	for k := range 1100 { // keys held past the next sweeps
		rows = append(rows, rankRow{key: int64(5000 + k), s: "s", id: int64(5000 + k), t: 5000, stamp: math.MinInt64})
	}
	push(rows)
	for wm := int64(300); wm <= 2000; wm += 100 {
		if err := d.Watermark(ctx, 0, wm); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Finish(ctx, 0); err != nil {
		t.Fatal(err)
	}
}

// TestWindowTopNDropWhere: a window Top-N's rows held for a replay
// (HeldRows) are the rows its windows rank, not those cut; DropWhere
// forgets one "partition" (odd source positions, key 1), so its windows
// fire with the other's top rows only, the reference's (a sort of each
// window's rows of key 0).
func TestWindowTopNDropWhere(t *testing.T) {
	ctx := context.Background()
	var rows []rankRow
	for id := range 60 { // key id%2; 10 rows a window (t 5*id, windows of 50), 5 of each key
		rows = append(rows, rankRow{key: int64(id % 2), x: float64(id * 7 % 13), s: "s", id: int64(id), t: int64(5 * id), stamp: math.MinInt64})
	}
	top2 := func(key int64) map[int64]bool { // the reference: each window's two largest x of key (ties: the first)
		byWin := map[int64][]rankRow{}
		for _, x := range rows {
			if x.key == key {
				byWin[winStart(x)] = append(byWin[winStart(x)], x)
			}
		}
		want := map[int64]bool{}
		for _, g := range byWin {
			slices.SortStableFunc(g, func(a, b rankRow) int { return int(b.x - a.x) })
			for _, x := range g[:2] {
				want[x.id] = true
			}
		}
		return want
	}
	got := &replayLog{}
	w, err := NewWindowTopN(WindowTopNSpec{Types: winTypes, Start: 6, End: 7, Keys: []int{0}, Order: []SortKey{{Col: 1, Desc: true}}, N: 2, Stamp: 5}, got, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Push(ctx, 0, winBatch(rows)); err != nil {
		t.Fatal(err)
	}
	held := map[int64]bool{}
	w.HeldRows(5, func(pos, _ int64, null bool) {
		if !null {
			t.Errorf("row %d: a stamp, want NULL", pos)
		}
		held[pos] = true
	})
	want := top2(0)
	for id := range top2(1) {
		want[id] = true
	}
	if !maps.Equal(held, want) {
		t.Fatalf("held rows %v, want the ranked ones %v", slices.Sorted(maps.Keys(held)), slices.Sorted(maps.Keys(want)))
	}
	w.DropWhere(func(pos int64) bool { return pos%2 == 1 })
	if err := w.Finish(ctx, 0); err != nil {
		t.Fatal(err)
	}
	fired := map[int64]bool{}
	for _, p := range got.pos {
		fired[p] = true
	}
	if want := top2(0); len(got.pos) != len(want) || !maps.Equal(fired, want) {
		t.Fatalf("fired rows %v, want key 0's top rows %v", got.pos, slices.Sorted(maps.Keys(want)))
	}
}
