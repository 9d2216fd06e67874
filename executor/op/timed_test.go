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
	"streamql/executor/agg"
	"streamql/executor/vector"
)

// driveTimed pushes rows to o in random batch sizes, each batch followed by
// the watermark after it (the largest time so far minus delay, SPEC 2.3, as
// the rows' stamps were made), then ends the input.
func driveTimed(t testing.TB, r *rand.Rand, o Operator, rows []rankRow, delay int64) {
	ctx := context.Background()
	maxT := int64(math.MinInt64)
	for len(rows) > 0 {
		n := min(len(rows), 1+r.IntN(40))
		if err := o.Push(ctx, 0, rankBatch(rows[:n])); err != nil {
			t.Fatal(err)
		}
		for _, x := range rows[:n] {
			maxT = max(maxT, x.t)
		}
		if err := o.Watermark(ctx, 0, maxT-delay); err != nil {
			t.Fatal(err)
		}
		rows = rows[n:]
	}
	if err := o.Finish(ctx, 0); err != nil {
		t.Fatal(err)
	}
}

// onTime splits rows into those on time and the late ones' texts.
func onTime(rows []rankRow) ([]rankRow, []string) {
	var ok []rankRow
	var late []string
	for _, x := range rows {
		if x.late() {
			late = append(late, refText(x))
			continue
		}
		ok = append(ok, x)
	}
	return ok, late
}

func byTime(a, b rankRow) int { return cmp.Compare(a.t, b.t) } // (stable sorts: ties in arrival order)

func equalRows(t *testing.T, what string, seed uint64, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		at := 0
		for at < min(len(got), len(want)) && got[at] == want[at] {
			at++
		}
		t.Fatalf("seed %d: %s differ from row %d (%d rows, want %d)\n%s\nwant\n%s", seed, what, at, len(got), len(want), strings.Join(got[at:min(len(got), at+5)], "\n"), strings.Join(want[at:min(len(want), at+5)], "\n"))
	}
}

// TestDedupAgainstReference: deduplication keeping the first row by event
// time emits, in (time, arrival) order, each key's row of smallest time
// among the rows on time (a smaller time arriving later wins), for random
// out-of-order inputs within the watermark delay and random batch sizes;
// the late rows go to the late port (SPEC 2.9).
func TestDedupAgainstReference(t *testing.T) {
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 11))
		delay := r.Int64N(40)
		rows := restamp(genRankRows(r, 1+r.IntN(300), delay+r.Int64N(10)), delay)
		log := newChangelog(t)
		d, err := NewDedup(DedupSpec{Types: rankTypes, Keys: []int{0}, Time: 4, Stamp: 5}, log, nil)
		if err != nil {
			t.Fatal(err)
		}
		driveTimed(t, r, d, rows, delay)
		ok, late := onTime(rows)
		first := map[int64]rankRow{}
		for _, x := range ok {
			if f, seen := first[x.key]; !seen || x.t < f.t {
				first[x.key] = x
			}
		}
		var want []rankRow
		for _, x := range ok {
			if first[x.key].id == x.id {
				want = append(want, x)
			}
		}
		slices.SortStableFunc(want, byTime)
		var wantText []string
		for _, x := range want {
			wantText = append(wantText, refText(x))
		}
		equalRows(t, "deduplicated rows", seed, log.appends, wantText)
		equalRows(t, "late rows", seed, log.late, late)
		if log.kinds {
			t.Fatalf("seed %d: the dedup keeping the first row is append-only, but its batches have kinds", seed)
		}
	}
}

// TestDedupLastAgainstReference: deduplication keeping the last row (ORDER
// BY t DESC, rn = 1) is a Top-N of one row, newer rows first on equal times:
// its changelog applied gives each key's row of largest time, the last to
// arrive among equal times.
func TestDedupLastAgainstReference(t *testing.T) {
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 13))
		rows := genRankRows(r, 1+r.IntN(300), 30)
		log := newChangelog(t)
		top, err := NewTopN(TopNSpec{Types: rankTypes, Keys: []int{0}, Order: []SortKey{{Col: 4, Desc: true}}, N: 1, NewerFirst: true}, log, nil)
		if err != nil {
			t.Fatal(err)
		}
		pushInBatches(t, r, top, rows)
		last := map[int64]rankRow{}
		for _, x := range rows {
			if l, seen := last[x.key]; !seen || x.t >= l.t {
				last[x.key] = x
			}
		}
		var want []string
		for _, x := range last {
			want = append(want, refText(x))
		}
		slices.Sort(want)
		equalRows(t, "final table", seed, log.rows(), want)
	}
}

// TestTimeSortAgainstReference: ORDER BY the event time over an unbounded
// input releases every on-time row in (time, arrival) order; late rows go to
// the late port.
func TestTimeSortAgainstReference(t *testing.T) {
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 17))
		delay := r.Int64N(40)
		rows := restamp(genRankRows(r, 1+r.IntN(400), delay+r.Int64N(10)), delay)
		log := newChangelog(t)
		s, err := NewTimeSort(TimeSortSpec{Types: rankTypes, Time: 4, Stamp: 5}, log, nil)
		if err != nil {
			t.Fatal(err)
		}
		driveTimed(t, r, s, rows, delay)
		ok, late := onTime(rows)
		slices.SortStableFunc(ok, byTime)
		var want []string
		for _, x := range ok {
			want = append(want, refText(x))
		}
		equalRows(t, "sorted rows", seed, log.appends, want)
		equalRows(t, "late rows", seed, log.late, late)
	}
}

// TestSortAgainstReference: ORDER BY x [DESC] [LIMIT n] over a bounded input
// gives the rows sorted at the end (NULLs first for ASC, last for DESC; equal
// rows in arrival order), the first n with a LIMIT.
func TestSortAgainstReference(t *testing.T) {
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 19))
		rows := genRankRows(r, r.IntN(400), 5)
		desc := r.IntN(2) == 0
		limit := int64(-1)
		if r.IntN(2) == 0 {
			limit = r.Int64N(20)
		}
		log := newChangelog(t)
		s, err := NewSort(SortSpec{Types: rankTypes, Order: []SortKey{{Col: 1, Desc: desc}}, Limit: limit}, log, nil)
		if err != nil {
			t.Fatal(err)
		}
		pushInBatches(t, r, s, rows)
		want := slices.Clone(rows)
		slices.SortStableFunc(want, func(a, b rankRow) int {
			if desc {
				return refCmpX(b, a)
			}
			return refCmpX(a, b)
		})
		if limit >= 0 && int64(len(want)) > limit {
			want = want[:limit]
		}
		var wantText []string
		for _, x := range want {
			wantText = append(wantText, refText(x))
		}
		equalRows(t, fmt.Sprintf("sorted (desc %v, limit %d)", desc, limit), seed, log.appends, wantText)
	}
}

// The window Top-N tests' layout: the ranking rows with a tumbling window's
// bounds appended.
var winTypes = append(slices.Clone(rankTypes), catalog.BigInt, catalog.BigInt)

const winSize = 50

func winBatch(rows []rankRow) *vector.Batch {
	src := rankBatch(rows)
	b := vector.NewBatch(winTypes)
	b.AppendRows(src, 0, src.N)
	for i, x := range rows {
		start := x.t - ((x.t%winSize)+winSize)%winSize
		b.Cols[6].I[i], b.Cols[6].Null[i] = start, false
		b.Cols[7].I[i], b.Cols[7].Null[i] = start+winSize, false
	}
	b.N = len(rows)
	return b
}

func winStart(x rankRow) int64 { return x.t - ((x.t%winSize)+winSize)%winSize }

// winFeed adapts an operator over winTypes to driveTimed's rankRow batches.
type winFeed struct{ Operator }

func (w winFeed) Push(ctx context.Context, port int, b *vector.Batch) error {
	rows := make([]rankRow, b.N)
	for i := range rows {
		rows[i] = rankRow{key: b.Cols[0].I[i], x: b.Cols[1].F[i], xNull: b.Cols[1].Null[i], s: string(b.Cols[2].S[i]),
			id: b.Cols[3].I[i], t: b.Cols[4].I[i], stamp: b.Cols[5].I[i]}
		if b.Cols[0].Null[i] {
			rows[i].key = -1
		}
		if b.Cols[5].Null[i] {
			rows[i].stamp = math.MinInt64
		}
	}
	return w.Operator.Push(ctx, port, winBatch(rows))
}

// TestWindowTopNAgainstReference: a window Top-N over a tumbling window TVF
// emits, when each window fires, each partition's ranked top rows; windows
// in end order, partitions in the order of their first rows; rows of fired
// windows are late (SPEC 2.9, 2.4).
func TestWindowTopNAgainstReference(t *testing.T) {
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 23))
		delay := r.Int64N(40)
		rows := restamp(genRankRows(r, 1+r.IntN(300), delay+r.Int64N(30)), delay)
		fn := RankFunc(r.IntN(3))
		n := 1 + r.Int64N(3)
		desc, rankCol := r.IntN(2) == 0, r.IntN(2) == 0
		log := newChangelog(t)
		w, err := NewWindowTopN(WindowTopNSpec{Types: winTypes, Start: 6, End: 7, Keys: []int{0}, Order: []SortKey{{Col: 1, Desc: desc}},
			N: n, Func: fn, RankNumber: rankCol, Stamp: 5}, log, nil)
		if err != nil {
			t.Fatal(err)
		}
		driveTimed(t, r, winFeed{w}, rows, delay)
		// The reference: a row is late when its window's end is at or below
		// its stamp; the others group by (window, key).
		type part struct {
			start, first int64
			key          int64
			rows         []rankRow
		}
		var parts []*part
		byKey := map[[2]int64]*part{}
		var late []string
		for _, x := range rows {
			st := winStart(x)
			if x.stamp != math.MinInt64 && st+winSize <= x.stamp {
				late = append(late, refText(x))
				continue
			}
			k := [2]int64{st, max(x.key, -1)}
			p := byKey[k]
			if p == nil {
				p = &part{start: st, first: x.id, key: k[1]}
				byKey[k] = p
				parts = append(parts, p)
			}
			p.rows = append(p.rows, x)
		}
		slices.SortStableFunc(parts, func(a, b *part) int { return cmp.Compare(a.start, b.start) })
		var want []string
		for _, p := range parts {
			g := slices.Clone(p.rows)
			slices.SortStableFunc(g, func(a, b rankRow) int {
				if desc {
					return refCmpX(b, a)
				}
				return refCmpX(a, b)
			})
			rank, dense := int64(0), int64(0)
			for j, x := range g {
				if j == 0 || refCmpX(g[j-1], x) != 0 {
					rank, dense = int64(j)+1, dense+1
				}
				rn := map[RankFunc]int64{RowNumber: int64(j) + 1, Rank: rank, DenseRank: dense}[fn]
				if rn > n {
					break
				}
				extra := []string{fmt.Sprint(p.start), fmt.Sprint(p.start + winSize)}
				if rankCol {
					extra = append(extra, fmt.Sprint(rn))
				}
				want = append(want, refText(x, extra...))
			}
		}
		equalRows(t, fmt.Sprintf("fired rows (%s, N=%d, desc %v, rank column %v)", fn, n, desc, rankCol), seed, log.appends, want)
		if got := len(log.late); got != len(late) {
			t.Fatalf("seed %d: %d late rows, want %d", seed, got, len(late))
		}
	}
}

// TestOverAgainstReference: OVER aggregation with ROWS and RANGE frames gives
// each on-time row one output row, in (time, arrival) order, with COUNT(*),
// SUM, MIN and MAX over its frame computed by a separately written loop over
// the sorted partition (SPEC 2.9); late rows go to the late port.
func TestOverAgainstReference(t *testing.T) {
	aggs := []OverAgg{
		{Spec: agg.Spec{Func: agg.CountStar}},
		{Spec: agg.Spec{Func: agg.Sum, Arg: catalog.BigInt}, Arg: 3},
		{Spec: agg.Spec{Func: agg.Min, Arg: catalog.Varchar}, Arg: 2},
		{Spec: agg.Spec{Func: agg.Max, Arg: catalog.BigInt}, Arg: 4},
	}
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 29))
		delay := r.Int64N(40)
		rows := restamp(genRankRows(r, 1+r.IntN(300), delay+r.Int64N(10)), delay)
		for i := range rows { // equal times, for RANGE's peers
			if r.IntN(4) == 0 && i > 0 {
				rows[i].t = rows[i-1].t
			}
		}
		rows = restamp(rows, delay)
		isRange := r.IntN(2) == 0
		prec := r.Int64N(5)
		if isRange {
			prec = r.Int64N(60)
		}
		log := newChangelog(t)
		o, err := NewOver(OverSpec{Types: rankTypes, Keys: []int{0}, Time: 4, Stamp: 5, Range: isRange, Preceding: prec, Aggs: aggs}, log, nil)
		if err != nil {
			t.Fatal(err)
		}
		driveTimed(t, r, o, rows, delay)
		ok, late := onTime(rows)
		sorted := slices.Clone(ok)
		slices.SortStableFunc(sorted, byTime)
		byKey := map[int64][]rankRow{}
		var want []string
		for _, x := range sorted {
			k := max(x.key, -1)
			byKey[k] = append(byKey[k], x)
		}
		pos := map[int64]int{}
		for _, x := range sorted {
			k := max(x.key, -1)
			g := byKey[k]
			j := pos[k]
			pos[k]++
			var frame []rankRow
			for y, z := range g {
				in := y <= j && int64(j-y) <= prec
				if isRange {
					in = z.t <= x.t && z.t >= x.t-prec
				}
				if in {
					frame = append(frame, z)
				}
			}
			var sum, maxT int64
			minS := frame[0].s
			maxT = frame[0].t
			for _, z := range frame {
				sum += z.id
				minS = min(minS, z.s)
				maxT = max(maxT, z.t)
			}
			want = append(want, refText(x, fmt.Sprint(len(frame)), fmt.Sprint(sum), minS, fmt.Sprint(maxT)))
		}
		equalRows(t, fmt.Sprintf("OVER rows (range %v, preceding %d)", isRange, prec), seed, log.appends, want)
		equalRows(t, "late rows", seed, log.late, late)
	}
}

// restamp recomputes the rows' CURRENT_WATERMARK stamps after their times
// changed.
func restamp(rows []rankRow, delay int64) []rankRow {
	maxT := int64(math.MinInt64)
	for i := range rows {
		rows[i].stamp = math.MinInt64
		if maxT != math.MinInt64 {
			rows[i].stamp = maxT - delay
		}
		maxT = max(maxT, rows[i].t)
	}
	return rows
}

// TestTimedStateReleased: once the input ends, the event-time operators
// hold no state: everything they charged is released.
func TestTimedStateReleased(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	rows := genRankRows(r, 3000, 20)
	for name, mk := range map[string]func(Account) (Operator, error){
		"time sort": func(a Account) (Operator, error) {
			return NewTimeSort(TimeSortSpec{Types: rankTypes, Time: 4, Stamp: 5}, discard{}, a)
		},
		"window top-n": func(a Account) (Operator, error) {
			w, err := NewWindowTopN(WindowTopNSpec{Types: winTypes, Start: 6, End: 7, Order: []SortKey{{Col: 1}}, N: 2, Stamp: 5}, discard{}, a)
			return winFeed{w}, err
		},
	} {
		acct := &countAccount{}
		o, err := mk(acct)
		if err != nil {
			t.Fatal(err)
		}
		driveTimed(t, r, o, rows, 20)
		if acct.n != 0 || acct.peak == 0 {
			t.Errorf("%s: %d bytes still charged at the end (peak %d)", name, acct.n, acct.peak)
		}
	}
}
