package window

import (
	"math"
	"math/big"
	"math/rand/v2"
	"reflect"
	"testing"
)

// walk returns the windows of t, Count of them by Nth, and fails t when
// Next does not step from each to the next or First is not the first.
func walk(tt *testing.T, k Kind, size, slide, offset, t int64) []Win {
	tt.Helper()
	var ws []Win
	for j := range Count(k, size, slide, offset, t) {
		w := Nth(k, size, slide, offset, t, j)
		if j > 0 && Next(k, ws[j-1], slide) != w {
			tt.Fatalf("%v size %d slide %d offset %d t %d: Next(%v) = %v, Nth(%d) = %v", k, size, slide, offset, t, ws[j-1], Next(k, ws[j-1], slide), j, w)
		}
		ws = append(ws, w)
	}
	if first, n := First(k, size, slide, offset, t); n > 0 && first != ws[0] {
		tt.Fatalf("%v size %d slide %d offset %d t %d: First = %v, Nth(0) = %v", k, size, slide, offset, t, first, ws[0])
	}
	return ws
}

// TestAssign: SPEC 2.4's table, k any integer (negative times align to the
// epoch too), offsets, rows exactly at window bounds.
func TestAssign(t *testing.T) {
	cases := []struct {
		name                string
		k                   Kind
		size, slide, offset int64
		t                   int64
		want                []Win
	}{
		{"tumble", Tumble, 10, 10, 0, 15, []Win{{10, 20}}},
		{"tumble at start", Tumble, 10, 10, 0, 10, []Win{{10, 20}}},
		{"tumble at end-1", Tumble, 10, 10, 0, 9, []Win{{0, 10}}},
		{"tumble negative", Tumble, 10, 10, 0, -1, []Win{{-10, 0}}},
		{"tumble negative bound", Tumble, 10, 10, 0, -10, []Win{{-10, 0}}},
		{"tumble offset", Tumble, 10, 10, 3, 2, []Win{{-7, 3}}},
		{"tumble negative offset", Tumble, 10, 10, -3, 7, []Win{{7, 17}}},
		{"hop", Hop, 10, 5, 0, 7, []Win{{0, 10}, {5, 15}}},
		{"hop at bound", Hop, 10, 5, 0, 5, []Win{{0, 10}, {5, 15}}},
		{"hop negative", Hop, 10, 5, 0, -1, []Win{{-10, 0}, {-5, 5}}},
		{"hop size = slide", Hop, 5, 5, 0, 4, []Win{{0, 5}}},
		{"hop offset", Hop, 6, 2, 1, 4, []Win{{-1, 5}, {1, 7}, {3, 9}}},
		{"cumulate", Cumulate, 10, 2, 0, 5, []Win{{0, 6}, {0, 8}, {0, 10}}},
		{"cumulate at step bound", Cumulate, 10, 2, 0, 4, []Win{{0, 6}, {0, 8}, {0, 10}}},
		{"cumulate first step", Cumulate, 10, 2, 0, 0, []Win{{0, 2}, {0, 4}, {0, 6}, {0, 8}, {0, 10}}},
		{"cumulate negative offset", Cumulate, 10, 5, -2, -3, []Win{{-12, -2}}},
	}
	for _, c := range cases {
		if got := walk(t, c.k, c.size, c.slide, c.offset, c.t); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: the windows of t=%d (Count, Nth) = %v, want %v", c.name, c.t, got, c.want)
		}
	}
}

// TestAssignBruteForce compares Count and Nth with the definitions, by scanning every
// candidate start.
func TestAssignBruteForce(t *testing.T) {
	for _, p := range []struct {
		k                   Kind
		size, slide, offset int64
	}{
		{Tumble, 7, 7, 0}, {Tumble, 7, 7, -3}, {Hop, 12, 4, 0}, {Hop, 12, 3, 5}, {Cumulate, 12, 4, 0}, {Cumulate, 12, 3, -5},
	} {
		for tv := int64(-50); tv <= 50; tv++ {
			var want []Win
			step := p.slide
			if p.k == Cumulate || p.k == Tumble {
				step = p.size
			}
			for s := int64(-252) + p.offset; s <= 252; s += step { // -252: a multiple of every step
				switch p.k {
				case Cumulate:
					for e := s + p.slide; e <= s+p.size; e += p.slide {
						if s <= tv && tv < e {
							want = append(want, Win{s, e})
						}
					}
				default:
					if s <= tv && tv < s+p.size {
						want = append(want, Win{s, s + p.size})
					}
				}
			}
			if got := walk(t, p.k, p.size, p.slide, p.offset, tv); !reflect.DeepEqual(got, want) {
				t.Fatalf("%+v t=%d: got %v, want %v", p, tv, got, want)
			}
		}
	}
}

// bigWins is the windows of t by SPEC 2.4's definition, in big integers:
// TUMBLE's [k·size + offset, + size) holding t, HOP's every [k·slide +
// offset, + size) holding t by start, CUMULATE's [k·size + offset, + j·step)
// by end, SESSION's [t, t + gap).
func bigWins(k Kind, size, slide, offset, gap, t int64) [][2]*big.Int {
	bt, bo := big.NewInt(t), big.NewInt(offset)
	floorStart := func(m int64) *big.Int { // the latest offset + k·m <= t
		d := new(big.Int).Sub(bt, bo)
		d.Mod(d, big.NewInt(m))
		return d.Sub(bt, d)
	}
	add := func(a *big.Int, n int64) *big.Int { return new(big.Int).Add(a, big.NewInt(n)) }
	var out [][2]*big.Int
	switch k {
	case Tumble:
		s := floorStart(size)
		out = append(out, [2]*big.Int{s, add(s, size)})
	case Hop:
		last := floorStart(slide)
		for j := size/slide - 1; j >= 0; j-- {
			s := add(last, -j*slide)
			out = append(out, [2]*big.Int{s, add(s, size)})
		}
	case Cumulate:
		s := floorStart(size)
		for e := add(s, slide); e.Cmp(add(s, size)) <= 0; e = add(e, slide) {
			if e.Cmp(bt) > 0 {
				out = append(out, [2]*big.Int{s, e})
			}
		}
	case Session:
		out = append(out, [2]*big.Int{bt, add(bt, gap)})
	}
	return out
}

// TestRangeAndWindowsAtInt64Ends (issue 30 item 14): for random sizes,
// slides, offsets (any int64) and gaps, Range's bounds are exact (at lo and
// hi every window of SPEC 2.4's definition is in int64; at lo - 1 and hi + 1
// one is not), and for times in them, near the ends and anywhere, First, Nth
// and Next give exactly those windows, never a wrapped one.
func TestRangeAndWindowsAtInt64Ends(t *testing.T) {
	r := rand.New(rand.NewPCG(30, 14))
	minI, maxI := big.NewInt(math.MinInt64), big.NewInt(math.MaxInt64)
	fits := func(ws [][2]*big.Int) bool {
		for _, w := range ws {
			if w[0].Cmp(minI) < 0 || w[1].Cmp(maxI) > 0 {
				return false
			}
		}
		return true
	}
	pick := func() int64 { // small, day-like or huge
		switch r.IntN(3) {
		case 0:
			return 1 + r.Int64N(10)
		case 1:
			return 1 + r.Int64N(86_400_000)
		}
		return 1 + r.Int64N(math.MaxInt64/4)
	}
	for it := 0; it < 3000; it++ {
		k := Kind(r.IntN(4))
		slide := pick()
		size := slide * (1 + r.Int64N(20))
		if size <= 0 || size/slide > 20 || size%slide != 0 {
			continue // overflowed
		}
		if k == Tumble {
			slide = size
		}
		offset := r.Int64() - r.Int64()
		gap := pick()
		lo, hi := Range(k, size, slide, offset, gap)
		if lo > hi || uint64(hi)-uint64(lo) == math.MaxUint64 {
			t.Fatalf("%v size %d slide %d offset %d gap %d: empty range [%d, %d]", k, size, slide, offset, gap, lo, hi)
		}
		if lo > math.MinInt64 && fits(bigWins(k, size, slide, offset, gap, lo-1)) {
			t.Fatalf("%v size %d slide %d offset %d: lo %d, but lo-1's windows fit", k, size, slide, offset, lo)
		}
		if hi < math.MaxInt64 && fits(bigWins(k, size, slide, offset, gap, hi+1)) {
			t.Fatalf("%v size %d slide %d offset %d: hi %d, but hi+1's windows fit", k, size, slide, offset, hi)
		}
		if k == Session {
			continue // sessions are made by the operator: Range only
		}
		for _, tm := range []int64{lo, hi, lo + r.Int64N(100), hi - r.Int64N(100), int64(uint64(lo) + r.Uint64N(uint64(hi)-uint64(lo)+1)), 0} {
			if tm < lo || tm > hi {
				continue
			}
			want := bigWins(k, size, slide, offset, gap, tm)
			if !fits(want) {
				t.Fatalf("%v size %d slide %d offset %d: t %d in [%d, %d] has a window outside int64", k, size, slide, offset, tm, lo, hi)
			}
			w, n := First(k, size, slide, offset, tm)
			if n != int64(len(want)) {
				t.Fatalf("%v size %d slide %d offset %d t %d: %d windows, want %d", k, size, slide, offset, tm, n, len(want))
			}
			for j := range n {
				if nth := Nth(k, size, slide, offset, tm, j); nth != w {
					t.Fatalf("%v size %d slide %d offset %d t %d: Nth(%d) %v, walked %v", k, size, slide, offset, tm, j, nth, w)
				}
				if w.Start != want[j][0].Int64() || w.End != want[j][1].Int64() {
					t.Fatalf("%v size %d slide %d offset %d t %d: window %d is %v, want [%v, %v)", k, size, slide, offset, tm, j, w, want[j][0], want[j][1])
				}
				if j+1 < n {
					w = Next(k, w, slide)
				}
			}
		}
	}
}
