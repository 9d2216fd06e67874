package window

import (
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
