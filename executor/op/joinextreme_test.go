package op

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"streamql/catalog"
)

// peakAccount records the most bytes a join's state held.
type peakAccount struct{ now, peak int64 }

func (a *peakAccount) Grow(n int64) error {
	a.now += n
	a.peak = max(a.peak, a.now)
	return nil
}

// windowExtremes is the TUMBLE window aggregate MAX (or MIN) of key over
// rows, computed over the whole input as a batch: per window of size from
// offset, the extreme key of the rows the aggregate takes (SPEC 2.4: a row
// is late for it when its window's end is at most its CURRENT_WATERMARK),
// as rows of the aggregate's output (key: the extreme; t: window_end +
// delta), in window order, none late.
func windowExtremes(rows []testRow, size, offset, delta int64, isMax bool) []testRow {
	best := map[int64]int64{}
	for _, x := range rows {
		if x.key < 0 {
			continue
		}
		k := int64(math.Floor(float64(x.t-offset) / float64(size)))
		end := (k+1)*size + offset
		if x.stamp != math.MinInt64 && end <= x.stamp {
			continue // late for the window
		}
		if b, ok := best[k]; !ok || isMax && x.key > b || !isMax && x.key < b {
			best[k] = x.key
		}
	}
	ks := make([]int64, 0, len(best))
	for k := range best {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	out := make([]testRow, len(ks))
	for i, k := range ks {
		out[i] = testRow{key: best[k], t: (k+1)*size + offset + delta, v: fmt.Sprintf("w%d", k), stamp: math.MinInt64}
	}
	return out
}

// TestJoinExtremeAgainstReference checks JoinSpec.Extreme (Nexmark q7's
// join of a stream with its windows' MAX): over random streams (out of
// order, some rows late, keys with ties and NULLs) joined with their own
// TUMBLE windows' MAX or MIN, computed separately over the whole input,
// the join that drops the rows that cannot equal it gives exactly the
// rows, order and counts of the same join without it, which equal the
// nested-loop reference; and it holds less state (under half with 100 rows a window).
func TestJoinExtremeAgainstReference(t *testing.T) {
	empty := 0
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 7))
		size := []int64{50, 100, 200, 1000}[r.IntN(4)]
		offset := []int64{0, 0, 30}[r.IntN(3)]
		delta := []int64{0, -1, -size}[r.IntN(3)] // window_end, window_time, window_start
		isMax := r.IntN(2) == 0
		side := r.IntN(2) // the stream's input
		stream := genSide(r, "s", 300+r.IntN(300), 20)
		for i := range stream {
			if stream[i].key >= 0 {
				stream[i].key = r.Int64N(1000) // (values: few ties; genSide's keys are small)
			}
			if r.IntN(50) == 0 {
				stream[i].key = r.Int64N(3) // (and some equal ones)
			}
		}
		agg := windowExtremes(stream, size, offset, delta, isMax)
		var in [2][]testRow
		in[side], in[1-side] = stream, agg
		// the stream's t minus window_end in [-size, 0]: its window (and the
		// one ending at its time), as Nexmark q7's BETWEEN; or another
		// interval, of up to two windows
		elo, ehi := -size, int64(0)
		if r.IntN(3) == 0 {
			elo = r.Int64N(4*size) - 3*size
			ehi = elo + r.Int64N(2*size)
		}
		lo, hi := elo-delta, ehi-delta // (the aggregate's time is window_end + delta)
		spec := JoinSpec{Kind: Inner, Types: [2][]catalog.Type{joinTypes, joinTypes}, Keys: [2][]int{{0}, {0}}, Time: [2]int{1, 1}, Stamp: [2]int{3, 3}, Interval: true, Lo: lo, Hi: hi}
		if side == 1 {
			spec.Lo, spec.Hi = -hi, -lo
		}
		plain := spec
		spec.Extreme = JoinExtreme{Side: side, Col: 0, Max: isMax, Size: size, Offset: offset, Lo: elo, Hi: ehi}
		var accts [2]peakAccount
		var logs [2]*logEmitter
		for v, sp := range []JoinSpec{plain, spec} {
			e := &logEmitter{}
			j, err := NewJoin(sp, e, &accts[v])
			if err != nil {
				t.Fatal(err)
			}
			feed(t, j, in, nil, 20, rand.New(rand.NewPCG(seed, 9)))
			e.counts = j.Counts()
			logs[v] = e
		}
		if !slices.Equal(logs[0].out, logs[1].out) {
			t.Fatalf("seed %d (size %d offset %d delta %d max %v side %d): with the filter\n%v\nwithout\n%v", seed, size, offset, delta, isMax, side, logs[1].out, logs[0].out)
		}
		if logs[0].counts.Partnered != logs[1].counts.Partnered || logs[0].counts.Late != logs[1].counts.Late {
			t.Fatalf("seed %d: counts %+v with the filter, %+v without", seed, logs[1].counts, logs[0].counts)
		}
		want, _, _ := referenceJoin(plain, in)
		got := finalTable(t, logs[1].out)
		if !slices.Equal(got, want) {
			t.Fatalf("seed %d: got\n%v\nwant (reference)\n%v", seed, got, want)
		}
		if len(want) == 0 {
			empty++
		}
		if size == 1000 && elo == -size && accts[1].peak*2 > accts[0].peak || accts[1].peak > accts[0].peak {
			t.Fatalf("seed %d: the filtered join held %d bytes at most, the plain one %d: not less (half with 100 rows a window)", seed, accts[1].peak, accts[0].peak)
		}
	}
	if empty > 30 {
		t.Fatalf("%d of 300 inputs joined nothing: the test tests little", empty)
	}
}
