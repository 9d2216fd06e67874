package op

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"streamql/catalog"
)

// TestKeyIndexAgainstReference: a keyIndex under random adds, deaths,
// probes that unlink dead rows (as Join.handle's), rebuilds as it grows and
// compactions that renumber its rows (remap, with its backward-shift
// deletion of emptied chains) and trims (what a lookup join's ended right
// side lets go of) gives, for every hash, its live rows in the
// order they were added, as a reference of plain lists does; and a slot in
// use is found from its hash's home slot (no free slot between them).
func TestKeyIndexAgainstReference(t *testing.T) {
	seeds := uint64(seedCount(t, 100, 20))
	for seed := range seeds {
		r := rand.New(rand.NewPCG(seed, 7))
		hashes := 1 + r.IntN(200) // (few: long chains; many: a sparse table)
		var x keyIndex
		x.init(r.IntN(40))
		ref := map[uint64][]int{} // each hash's rows, in order added (dead ones too)
		var dead []bool
		var hashOf []uint64
		for step := range 1000 {
			switch op := r.IntN(20); {
			case op < 10: // a new row
				h := uint64(r.IntN(hashes)) * 0x9e3779b97f4a7c15
				k := len(dead)
				dead, hashOf = append(dead, false), append(hashOf, h)
				x.add(h, int32(k), dead)
				ref[h] = append(ref[h], k)
			case op < 13: // a row dies
				if len(dead) > 0 {
					dead[r.IntN(len(dead))] = true
				}
			case op < 15: // a row dies and leaves its chain when it is the head (an interval join's expiry: dropHead)
				if len(dead) > 0 {
					k := r.IntN(len(dead))
					h := hashOf[k]
					head := -1
					for _, o := range ref[h] {
						if !dead[o] {
							head = o
							break
						}
					}
					dead[k] = true
					if head == k {
						// (the dead rows before it in the chain go first, as a probe unlinks them)
						if si := x.find(h); si >= 0 {
							for o := x.slots[si].head; o >= 0 && o != int32(k) && dead[o]; o = x.slots[si].head {
								x.unlink(si, -1, o)
							}
						}
						if !x.dropHead(h, int32(k)) {
							t.Fatalf("seed %d step %d: row %d, its hash's first live row, is not its chain's head", seed, step, k)
						}
					}
				}
			case op < 18: // a probe of a hash, unlinking the dead rows it meets
				h := uint64(r.IntN(hashes)) * 0x9e3779b97f4a7c15
				if si := x.find(h); si >= 0 {
					prev, next := int32(-1), x.slots[si].head
					for next >= 0 {
						if dead[next] {
							next = x.unlink(si, prev, next)
							continue
						}
						prev, next = next, x.next[next]
					}
				}
			case op == 18 && r.IntN(3) == 0: // a trim (as a lookup join's right side has ended): it goes on as before
				x.trim()
				if x.spare != nil || x.spareNext != nil || cap(x.next) > len(x.next)+len(x.next)/8+8 {
					t.Fatalf("seed %d step %d: trim kept %d spare slots, %d spare links, %d links' room for %d", seed, step, cap(x.spare), cap(x.spareNext), cap(x.next), len(x.next))
				}
			default: // a compaction: live rows renumbered in order
				moved := make([]int, len(dead))
				n := 0
				for k := range dead {
					moved[k] = -1
					if !dead[k] {
						moved[k] = n
						n++
					}
				}
				x.remap(moved, n)
				newHash := make([]uint64, n)
				for h, rows := range ref {
					var kept []int
					for _, k := range rows {
						if moved[k] >= 0 {
							kept = append(kept, moved[k])
							newHash[moved[k]] = h
						}
					}
					ref[h] = kept
				}
				dead, hashOf = make([]bool, n), newHash
			}
			for h, rows := range ref {
				var want, got []int
				for _, k := range rows {
					if !dead[k] {
						want = append(want, k)
					}
				}
				if si := x.find(h); si >= 0 {
					for o := x.slots[si].head; o >= 0; o = x.next[o] {
						if hashOf[o] != h {
							t.Fatalf("seed %d step %d: row %d of hash %x in the chain of %x", seed, step, o, hashOf[o], h)
						}
						if !dead[o] {
							got = append(got, int(o))
						}
					}
				}
				if !slices.Equal(got, want) {
					t.Fatalf("seed %d step %d: hash %x has live rows %v, want %v", seed, step, h, got, want)
				}
			}
			used := 0
			for i, s := range x.slots {
				if s.head == slotFree {
					continue
				}
				used++
				for j := spread(s.h, x.mask); j != uint64(i); j = (j + 1) & x.mask {
					if x.slots[j].head == slotFree {
						t.Fatalf("seed %d step %d: slot %d (hash %x) not reachable from its home: slot %d is free", seed, step, i, s.h, j)
					}
					if l := j >> spreadBits; j&lineEnd == lineEnd && x.over[l/64]&(1<<(l%64)) == 0 {
						t.Fatalf("seed %d step %d: slot %d (hash %x) lies past the end of line %d, whose over bit is clear", seed, step, i, s.h, l)
					}
				}
			}
			if used != x.used {
				t.Fatalf("seed %d step %d: %d slots in use, the index counts %d", seed, step, used, x.used)
			}
		}
	}
}

// TestPendingQueueOrder: items pushed into a pendingQueue in batches of
// one side (pushSorted: times a little out of order, or spread over the
// whole int64 range, which its one-word sort cannot take) and one at a time
// (push), with pops in between, each come out as the least, by (time, side,
// arrival), of the items held then (a plain list, searched whole).
func TestPendingQueueOrder(t *testing.T) {
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 11))
		var q pendingQueue
		var held []pendingItem
		var seq int64
		base := [2]int64{0, 0}
		wide := r.IntN(4) == 0
		pop := func() bool {
			at, _ := q.least()
			if at < 0 {
				if len(held) > 0 {
					t.Fatalf("seed %d: the queue is empty, %d items held", seed, len(held))
				}
				return false
			}
			got := q.popAt(at)
			m := 0
			for i, x := range held {
				if x.before(held[m]) {
					m = i
				}
			}
			if got != held[m] {
				t.Fatalf("seed %d: popped %+v, want %+v", seed, got, held[m])
			}
			held = slices.Delete(held, m, m+1)
			return true
		}
		for range 60 {
			switch r.IntN(3) {
			case 0: // a batch of one side
				s := int8(r.IntN(2))
				var xs []pendingItem
				for range r.IntN(300) {
					seq++
					tm := base[s] + r.Int64N(50) - 20
					if wide {
						tm = r.Int64() - r.Int64()
					}
					base[s] += r.Int64N(3)
					xs = append(xs, pendingItem{t: tm, seq: seq, row: int32(seq), side: s})
				}
				held = append(held, xs...)
				q.pushSorted(xs)
			case 1: // one item
				seq++
				s := int8(r.IntN(2))
				x := pendingItem{t: base[s] + r.Int64N(30) - 10, seq: seq, row: int32(seq), side: s}
				held = append(held, x)
				q.push(x)
			default:
				for range r.IntN(100) {
					if !pop() {
						break
					}
				}
			}
		}
		for pop() {
		}
	}
}

// TestRadixSort: radixSort gives what slices.Sort gives, for keys of every
// width from 1 to 64 bits, with and without repeated bytes (passes
// skipped), the buffers reused from one sort to the next.
func TestRadixSort(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 23))
	var keys, tmp []uint64
	for width := uint(1); width <= 64; width++ {
		for try := range 8 {
			keys = keys[:0]
			n := 64 + r.IntN(2000)
			for range n {
				k := r.Uint64()
				if width < 64 {
					k &= 1<<width - 1
				}
				if try%2 == 1 { // (the middle bytes the same in every key)
					k &^= 0xffff00
				}
				keys = append(keys, k)
			}
			want := slices.Sorted(slices.Values(keys))
			if keys, tmp = radixSort(keys, tmp, 0, width); !slices.Equal(keys, want) {
				t.Fatalf("width %d, %d keys: not sorted as slices.Sort sorts them", width, n)
			}
			// keys whose low from bits rise already (pendingQueue.sort's
			// words: the index below the time), sorted by the bits above
			if width < 12 {
				continue
			}
			from := uint(bits.Len(uint(n - 1)))
			for i := range keys {
				keys[i] = keys[i]>>from<<from | uint64(i)
			}
			r.Shuffle(n, func(a, b int) { keys[a], keys[b] = keys[b], keys[a] })
			for i := range keys { // (the indexes in order again, the high bits shuffled)
				keys[i] = keys[i]>>from<<from | uint64(i)
			}
			want = slices.Sorted(slices.Values(keys))
			if keys, tmp = radixSort(keys, tmp, from, width); !slices.Equal(keys, want) {
				t.Fatalf("width %d, %d keys, the low %d bits rising: not sorted as slices.Sort sorts them", width, n, from)
			}
		}
	}
}

// TestOneColumnKeyHashIsTheKey: Join skips comparing the keys of the rows
// of a key chain when hashIsKey says that the key hash of a one-column
// BIGINT, TIMESTAMP, DOUBLE or BOOLEAN key determines the key. The hash of
// a BIGINT is undone here step by step (the fold of the high half is its own
// inverse, the multiply is undone by its odd constant's inverse modulo
// 2^64), so that distinct values never share a hash, for random values and
// the edges (0, -1, the int64 range's ends, values equal in their low or
// high 32 bits); a DOUBLE's hash is its bits' (-0.0 as 0.0, which it
// equals; NaN has none); a BOOLEAN's 0 or 1's; and the key types that may
// collide (two columns, VARCHAR) are not taken.
func TestOneColumnKeyHashIsTheKey(t *testing.T) {
	const k = 0x9e3779b97f4a7c15
	inv := uint64(1) // k's inverse modulo 2^64, by Newton's iteration
	for range 6 {
		inv *= 2 - k*inv
	}
	if inv*k != 1 {
		t.Fatalf("no inverse: %x", inv)
	}
	undo := func(h uint64) int64 {
		h ^= h >> 32
		return int64(h*inv ^ hashSeed)
	}
	r := rand.New(rand.NewPCG(3, 5))
	vals := []int64{0, -1, 1, math.MinInt64, math.MaxInt64, 1 << 32, 1<<32 + 1, -1 << 32, 0xffffffff}
	for range 100000 {
		vals = append(vals, int64(r.Uint64()), int64(r.IntN(1<<20)), int64(r.Uint64())&^0xffffffff)
	}
	for _, x := range vals {
		if got := undo(hashInt(hashSeed, x)); got != x {
			t.Fatalf("the hash of %d undoes to %d: not a bijection", x, got)
		}
	}
	for _, f := range []float64{0, 1, -1.5, math.Inf(1), math.MaxFloat64, math.SmallestNonzeroFloat64} {
		h, ok := hashFloat(hashSeed, f)
		if !ok || undo(h) != int64(math.Float64bits(f)) {
			t.Errorf("the hash of %v is not its bits'", f)
		}
	}
	if z, _ := hashFloat(hashSeed, math.Copysign(0, -1)); z != hashInt(hashSeed, 0) {
		t.Errorf("-0.0 hashes apart from 0.0")
	}
	if _, ok := hashFloat(hashSeed, math.NaN()); ok {
		t.Errorf("NaN has a hash")
	}
	if hashBool(hashSeed, true) == hashBool(hashSeed, false) {
		t.Errorf("TRUE and FALSE share a hash")
	}
	for _, c := range []struct {
		types []catalog.Type
		keys  []int
		want  bool
	}{
		{[]catalog.Type{catalog.BigInt}, []int{0}, true},
		{[]catalog.Type{catalog.Varchar, catalog.Timestamp}, []int{1}, true},
		{[]catalog.Type{catalog.Double}, []int{0}, true},
		{[]catalog.Type{catalog.Boolean}, []int{0}, true},
		{[]catalog.Type{catalog.Varchar}, []int{0}, false},
		{[]catalog.Type{catalog.BigInt, catalog.BigInt}, []int{0, 1}, false},
	} {
		if got := hashIsKey(c.types, c.keys); got != c.want {
			t.Errorf("hashIsKey(%v, %v) = %v, want %v", c.types, c.keys, got, c.want)
		}
	}
}
