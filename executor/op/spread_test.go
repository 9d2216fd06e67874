package op

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestSpreadKeepsProbesShort: spread keeps four keys that follow each
// other in one line of slots, the first at its end (so that an expiring
// key's delete finds the slot after it free), and the key index's linear
// probes short for every kind of key: sequential, strided by 10 and by
// every power of two to 2^62, random, hashes of two columns and of
// VARCHARs. A probe for a missing key and a backward-shift delete
// (keyIndex.del) walk the run of used slots they start in, so the measure
// is the mean length of the run a key's slot is in, over a sliding window
// of keys as an interval join keeps them (the oldest dropped as each new
// one comes: dropHead), and the longest probe of an add (-v prints both).
// Random homes give runs of about 4 slots and probes of up to 30-40 at
// 30,000 keys, sequential keys runs of 8 (lines of 4 full slots) and
// probes of 15; lines of 16 slots, or lines scattered by a mixing hash
// rather than by Fibonacci hashing (runs of 17, probes of 113), fail it.
func TestSpreadKeepsProbesShort(t *testing.T) {
	for v := int64(0); v < 1<<16; v += 4 {
		line := spread(hashInt(hashSeed, v), 1<<20-1) >> spreadBits
		for w := v; w < v+4; w++ {
			home := spread(hashInt(hashSeed, w), 1<<20-1)
			if home>>spreadBits != line {
				t.Fatalf("keys %d and %d (one line of slots) have homes in different lines", v, w)
			}
			if off := home & 3; off != uint64(3-w%4) {
				t.Fatalf("key %d at offset %d of its line, want %d (the line's keys in reverse order)", w, off, 3-w%4)
			}
		}
	}
	r := rand.New(rand.NewPCG(7, 11))
	type gen struct {
		name string
		key  func(i int) uint64
	}
	gens := []gen{
		{"random", func(int) uint64 { return hashInt(hashSeed, int64(r.Uint64())) }},
		{"two columns", func(i int) uint64 { return hashInt(hashInt(hashSeed, int64(i%97)), int64(i)) }},
		{"stride 10", func(i int) uint64 { return hashInt(hashSeed, int64(i)*10) }},
		{"VARCHAR user<i>", func(i int) uint64 { return hashBytes(hashSeed, fmt.Appendf(nil, "user%d", i)) }},
		{"VARCHAR dev-<i*4>", func(i int) uint64 { return hashBytes(hashSeed, fmt.Appendf(nil, "dev-%08d", i*4)) }},
	}
	for s := range 63 {
		gens = append(gens, gen{fmt.Sprintf("stride 2^%d", s), func(i int) uint64 { return hashInt(hashSeed, int64(i)<<s) }})
	}
	for _, g := range gens {
		for _, window := range []int{1000, 30000} {
			var x keyIndex
			x.init(16)
			hs := make([]uint64, 0, 3*window)
			runs, samples, longest := 0, 0, 0
			for i := range 3 * window {
				h := g.key(i)
				hs = append(hs, h)
				if p := probeLen(&x, h); p > longest {
					longest = p
				}
				x.add(h, int32(i), nil)
				if i >= window {
					if !x.dropHead(hs[i-window], int32(i-window)) {
						t.Fatalf("%s: row %d is not its chain's head", g.name, i-window)
					}
				}
				if i%997 == 0 && i >= window {
					runs += meanRun(&x)
					samples++
				}
			}
			mean := float64(runs) / float64(samples) / 100
			if testing.Verbose() {
				t.Logf("%s, %d keys: mean run %.1f slots, longest add probe %d", g.name, window, mean, longest)
			}
			if mean > 16 || longest > 64 {
				t.Errorf("%s, %d keys: mean run %.1f slots (at most 16), longest add probe %d (at most 64)", g.name, window, mean, longest)
			}
		}
	}
}

// probeLen returns how many slots add of hash h would probe past its home.
func probeLen(x *keyIndex, h uint64) int {
	n := 0
	for i := spread(h, x.mask); x.slots[i].head != slotFree && x.slots[i].h != h; i = (i + 1) & x.mask {
		n++
	}
	return n
}

// meanRun returns 100 times the mean length of the run of used slots that
// a used slot is in.
func meanRun(x *keyIndex) int {
	start := 0
	for x.slots[start].head != slotFree {
		start++
	}
	sum, used, run := 0, 0, 0
	for c := range len(x.slots) + 1 {
		if x.slots[(start+c)&int(x.mask)].head == slotFree {
			sum += run * run
			used += run
			run = 0
			continue
		}
		run++
	}
	if used == 0 {
		return 0
	}
	return 100 * sum / used
}
