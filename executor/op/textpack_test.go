package op

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"streamql/catalog"
	"streamql/executor/vector"
)

// packValues returns n random values of one of several shapes: urls of one
// site, lowercase words, bytes of any value, empty ones, and a mix whose
// alphabet grows past the codes after the training.
func packValues(r *rand.Rand, shape, n int) [][]byte {
	word := func(alpha string, lo, hi int) []byte {
		b := make([]byte, lo+r.IntN(hi-lo+1))
		for i := range b {
			b[i] = alpha[r.IntN(len(alpha))]
		}
		return b
	}
	out := make([][]byte, n)
	for i := range out {
		switch shape {
		case 0: // urls of one site, some with another ending
			v := "https://www.nexmark.com/" + string(word("abcdefghijklmnopqrstuvwxyz_/", 3, 20)) + "/item.htm?query=1"
			if r.IntN(10) == 0 {
				v += "&channel_id=" + fmt.Sprint(r.IntN(1e6))
			}
			out[i] = []byte(v)
		case 1:
			out[i] = word("abcdefghijklmnopqrstuvwxyz", 0, 90)
		case 2:
			b := make([]byte, r.IntN(40))
			for j := range b {
				b[j] = byte(r.IntN(256))
			}
			out[i] = b
		case 3: // few bytes first, then more than a code width holds
			if i < 400 {
				out[i] = word("abc", 1, 8)
			} else {
				out[i] = word("abcdefghijklmnopqrstuvwxyz0123456789ABCDEF", 1, 30)
			}
		default: // a prefix that is also the whole value, and suffix overlaps
			out[i] = []byte("prefix-prefix"[:r.IntN(14)])
		}
	}
	return out
}

// TestTextPackRoundTrip: every value packed (before, during and after the
// training, of every shape) reads back as it was, and values of one site's
// urls and of lowercase words take less than their bytes.
func TestTextPackRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 9))
	for shape := range 5 {
		p := newTextPack()
		vals := packValues(r, shape, 3000)
		var enc [][]byte
		raw, packed := 0, 0
		for _, v := range vals {
			if len(v) == 0 {
				enc = append(enc, nil)
				continue
			}
			e := p.encode(nil, v)
			enc = append(enc, e)
			raw += len(v)
			packed += len(e)
		}
		for i, v := range vals {
			if got := p.decode([]byte("x"), enc[i]); !bytes.Equal(got[1:], v) {
				t.Fatalf("shape %d value %d: %q read back as %q", shape, i, v, got[1:])
			}
		}
		if (shape == 0 || shape == 1) && packed*10 > raw*7 {
			t.Errorf("shape %d: %d bytes packed in %d, want at most 70%%", shape, raw, packed)
		}
	}
}

// TestRowsPackedText: a Rows store whose VARCHAR column packs gives, through
// Add, Set, Free, Compact, CopyTo, gatherTo and Str, what a store that does
// not pack gives, over random operations.
func TestRowsPackedText(t *testing.T) {
	types := []catalog.Type{catalog.BigInt, catalog.Varchar, catalog.Varchar}
	r := rand.New(rand.NewPCG(3, 4))
	for shape := range 5 {
		plain, packed := NewRows(types), NewRows(types)
		packed.packText([]int{1, 2})
		b := vector.NewBatch(types)
		vals := packValues(r, shape, 5000)
		live := []int{}
		for i, v := range vals {
			b.Reset()
			b.Cols[0].I[0] = int64(i)
			b.Cols[1].Null[0] = r.IntN(20) == 0
			b.Cols[1].S[0] = v
			b.Cols[2].SetString(0, vals[(i*7)%len(vals)])
			switch {
			case len(live) > 0 && r.IntN(3) == 0:
				k := live[r.IntN(len(live))]
				plain.Set(k, b, 0)
				packed.Set(k, b, 0)
			case len(live) > 0 && r.IntN(5) == 0:
				x := r.IntN(len(live))
				plain.Free(live[x])
				packed.Free(live[x])
				live = append(live[:x], live[x+1:]...)
			default:
				k, _ := plain.Add(b, 0)
				packed.Add(b, 0)
				live = append(live, k)
			}
			if i%1000 == 999 {
				keep := map[int]bool{}
				for _, k := range live {
					keep[k] = true
				}
				moved := plain.Compact(func(k int) bool { return keep[k] })
				packed.Compact(func(k int) bool { return keep[k] })
				for x, k := range live {
					live[x] = moved[k]
				}
			}
		}
		out1, out2 := vector.NewBatch(types), vector.NewBatch(types)
		ks := make([]int32, 0, 8)
		for x, k := range live {
			for c := 1; c < 3; c++ {
				if string(plain.Str(k, c)) != string(packed.Str(k, c)) {
					t.Fatalf("shape %d row %d col %d: Str %q, packed %q", shape, k, c, plain.Str(k, c), packed.Str(k, c))
				}
			}
			out1.Reset()
			out2.Reset()
			plain.CopyTo(out1, 0, 0, k)
			packed.CopyTo(out2, 0, 0, k)
			ks = append(ks[:0], int32(k), -1, int32(live[x/2]))
			plain.gatherTo(out1, 1, 0, ks)
			packed.gatherTo(out2, 1, 0, ks)
			for i := range 4 {
				for c := 1; c < 3; c++ {
					v1, v2 := out1.Cols[c], out2.Cols[c]
					if v1.Null[i] != v2.Null[i] || !v1.Null[i] && string(v1.S[i]) != string(v2.S[i]) {
						t.Fatalf("shape %d row %d out %d col %d: %q, packed %q", shape, k, i, c, v1.S[i], v2.S[i])
					}
				}
			}
		}
	}
}

// BenchmarkTextPack measures packing and unpacking nexmark-like values (a
// bid's url and extra), against copying them (SetBytes: the values' bytes).
func BenchmarkTextPack(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	vals := append(packValues(r, 0, 512), packValues(r, 1, 512)...)
	size := 0
	for _, v := range vals {
		size += len(v)
	}
	// each: f over every input, SetBytes the values' bytes
	each := func(name string, in [][]byte, f func(dst, x []byte) []byte) {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(size))
			var dst []byte
			for range b.N {
				for _, x := range in {
					dst = f(dst[:0], x)
				}
			}
		})
	}
	each("copy", vals, func(dst, x []byte) []byte { return append(dst, x...) })
	p := newTextPack()
	enc := make([][]byte, len(vals))
	for i, v := range vals {
		enc[i] = p.encode(nil, v)
	}
	each("encode", vals, p.encode)
	each("decode", enc, p.decode)
}

// TestIntColumnNarrow: an intColumn reads back every value pushed or set,
// whatever their spread (ids near each other, event times, int64's ends,
// values that make a narrow block wide), after truncates as well, and holds
// values within 2^31 of each other in 4 bytes each.
func TestIntColumnNarrow(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	gens := []func() int64{
		func() int64 { return 1_000_000 + r.Int64N(60_000) },
		func() int64 { return 1436918400000 + r.Int64N(100_000_000) },
		func() int64 {
			return []int64{math.MinInt64, math.MaxInt64, 0, -1, math.MinInt32, math.MaxInt32}[r.IntN(6)]
		},
		func() int64 { return int64(r.Uint64()) },
	}
	for g, gen := range gens {
		var c intColumn
		var want []int64
		for range 20_000 {
			switch op := r.IntN(10); {
			case op < 6 || len(want) == 0:
				x := gen()
				c.push(x)
				want = append(want, x)
			case op < 9:
				k, x := r.IntN(len(want)), gen()
				c.set(k, x)
				want[k] = x
			default:
				n := r.IntN(len(want) + 1)
				c.truncate(n)
				want = want[:n]
			}
		}
		for k, x := range want {
			if got := c.get(k); got != x {
				t.Fatalf("generator %d: value %d is %d, want %d", g, k, got, x)
			}
		}
		if g < 2 && c.bytes() > 4*len(c.base)*colBlock {
			t.Errorf("generator %d: %d values take %d bytes, want 4 a value", g, len(want), c.bytes())
		}
	}
}
