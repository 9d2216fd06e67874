package op

import (
	"math"
	"math/bits"
	"slices"

	"streamql/catalog"
	"streamql/executor/vector"
)

// keyIndex is a join side's rows by key hash (Join's state index): a flat
// open-addressing table of hashes, each slot the head and tail of a chain of
// row indices (next, indexed by row), in the order the rows were added. It
// replaces a map of slices: a probe is one table slot and the chain, and
// adding a row allocates nothing once the arrays have grown. Rows of
// different keys whose hashes are equal share a chain (callers compare the
// keys). A chain emptied by unlink keeps its slot (reused by the next new
// hash that probes it) until the table is rebuilt (grow, remap).
type keyIndex struct {
	slots []keySlot // power-of-two length, linear probing
	mask  uint64
	shift uint8   // lineShift(mask)
	used  int     // slots not free (chains, empty ones too)
	next  []int32 // each row's successor in its chain, -1 for the last
	// over has a bit a line of 1<<spreadBits slots (spread's): set when a
	// slot in use may lie past the line's last slot while its hash's home
	// is at or before that slot (an add or place probed across the line's
	// end). A clear bit lets del and find stop at the line's end instead
	// of loading the next line's slots, whose line spread placed at
	// random: the interval join's expired key at a line's end no longer
	// costs a cache miss on an unrelated line (issue 23, performance). It
	// is conservative (a set bit may be stale): set by add and place,
	// cleared by init and by del when the slot after the line is free.
	over []uint64
	// spare and spareNext are the arrays of the table before the last
	// rebuild, reused by the next one (steady state allocates nothing).
	spare     []keySlot
	spareNext []int32
}

// keySlot is one hash's chain: head and tail rows (-1 for an emptied chain),
// or a free slot (head slotFree).
type keySlot struct {
	h          uint64
	head, tail int32
}

const slotFree = -2

// init makes the index empty with room for about n hashes.
func (x *keyIndex) init(n int) {
	size := 16
	if n > 8 {
		size = 1 << bits.Len(uint(n*2))
	}
	if cap(x.slots) >= size && cap(x.slots) <= 4*size {
		x.slots = x.slots[:cap(x.slots)]
	} else {
		x.slots = make([]keySlot, size)
	}
	for i := range x.slots {
		x.slots[i] = keySlot{head: slotFree, tail: slotFree}
	}
	words := (len(x.slots)>>spreadBits + 63) / 64
	x.over = slices.Grow(x.over[:0], words)[:words]
	clear(x.over)
	x.mask = uint64(len(x.slots) - 1)
	x.shift = lineShift(x.mask)
	x.used = 0
}

// keys returns the number of non-empty chains: the distinct key hashes of
// the rows indexed (a walk of the table).
func (x *keyIndex) keys() int {
	n := 0
	for i := range x.slots {
		if x.slots[i].head >= 0 {
			n++
		}
	}
	return n
}

// find returns the slot of hash h, -1 when it has none.
func (x *keyIndex) find(h uint64) int {
	if len(x.slots) == 0 {
		return -1
	}
	for i := x.home(h); ; i = (i + 1) & x.mask {
		s := &x.slots[i]
		if s.head == slotFree {
			return -1
		}
		if s.h == h && s.head != -1 {
			return int(i)
		}
		if !x.spills(i) {
			return -1 // (no slot past the line's end has its home at or before i)
		}
	}
}

// lineEnd is the mask of a slot's offset in its line: a slot i is its
// line's last when i&lineEnd == lineEnd.
const lineEnd = 1<<spreadBits - 1

// spills reports whether a probe from slot i must go on to slot i+1: i is
// not its line's last slot, or the line's over bit is set.
func (x *keyIndex) spills(i uint64) bool {
	if i&lineEnd != lineEnd {
		return true
	}
	l := i >> spreadBits
	return x.over[l/64]&(1<<(l%64)) != 0
}

// overflow sets the over bits of the lines a probe from slot home crossed
// the end of to reach slot at (none when both are in one line).
func (x *keyIndex) overflow(home, at uint64) {
	for l, e := home>>spreadBits, at>>spreadBits; l != e; l = (l + 1) & (x.mask >> spreadBits) {
		x.over[l/64] |= 1 << (l % 64)
	}
}

// spread returns hash h's home slot in a table of mask+1 slots (a power of
// two), for the key indexes' open addressing (keyIndex, lookupTable's hash
// table). A key hash of one BIGINT or TIMESTAMP column is mix(hashSeed,
// v), a bijection of v (TestOneColumnKeyHashIsTheKey), so spread first
// undoes mix (the fold is its own inverse; mixInverse undoes the
// multiply) to hashSeed ^ v, keeps 3 - v%4 (v's low spreadBits bits
// complemented) as the offset within a line of 1<<spreadBits slots (64 bytes of 16-byte
// keySlots: v%4 == 0 at the line's end, so that as keys expire in their
// order the backward-shift delete of each finds the slot after it free,
// but for a line's first: del's instructions -35%), and places the line
// by Fibonacci hashing of the rest (the high bits of its product with 2^64 over the golden ratio: lines that
// follow each other land far apart and evenly, not in runs). Keys that
// follow each other (an interval join's order ids, handled, probed and
// expired in about their order) so share a cache line four at a time: a
// fourth of the misses of a slot scattered per key (issue 23,
// performance). For keys that do not follow each other (random values,
// hashes of several columns or of VARCHARs, in which the undone value is
// as random as the hash) the home is as uniform as before. Lines of 16
// slots clustered the linear probes (backward-shift deletes scanning
// whole runs: 50% more CPU), and lines placed by a scrambling hash met
// (runs of 17 slots on average for sequential keys); neither was kept.
// TestSpreadKeepsProbesShort bounds the probes for sequential, strided and
// random keys.
func spread(h, mask uint64) uint64 { return spreadBy(h, mask, lineShift(mask)) }

// lineShift returns the shift of the line's hash that spread places a
// line by in a table of mask+1 slots (a power of two): 64 - log2 of its
// lines, at most 63 (a table of one line: the bit it leaves, past mask, is
// masked off). A table keeps it with its mask (keyIndex.shift,
// lookupTable.shift), so that a probe does not count the mask's bits again
// (a tenth of the interval join's key index instructions, issue 23).
func lineShift(mask uint64) uint8 { return uint8(min(63, 64-bits.Len64(mask>>spreadBits))) }

// spreadBy is spread with the table's lineShift(mask), shift.
func spreadBy(h, mask uint64, shift uint8) uint64 {
	u := (h ^ h>>32) * mixInverse
	l := u >> spreadBits
	l = (l ^ l>>32) * 0x9e3779b97f4a7c15
	return (l>>(shift&63)<<spreadBits | (u^^hashSeed)&(1<<spreadBits-1)) & mask
}

// home returns hash h's home slot in x (spread).
func (x *keyIndex) home(h uint64) uint64 { return spreadBy(h, x.mask, x.shift) }

// spreadBits is log2 of the slots of a line that spread keeps together.
const spreadBits = 2

// mixInverse is mix's multiplier's inverse modulo 2^64.
const mixInverse = 0xf1de83e19937733d

// add appends row k to hash h's chain; dead (indexed by row, nil: none) is
// the rows that no longer count, dropped from the chains if the table is
// rebuilt to make room.
func (x *keyIndex) add(h uint64, k int32, dead []bool) {
	if (x.used+1)*2 > len(x.slots) { // (at most half full: short probes)
		if dead != nil {
			x.purge(dead)
		}
		if (x.used+1)*4 > len(x.slots) { // (still a quarter full: grown, to twice its hashes)
			x.rebuild(nil, nil)
		}
	}
	for int(k) >= len(x.next) {
		x.next = append(x.next, -1)
	}
	x.next[k] = -1
	reuse := -1
	home := x.home(h)
	for i := home; ; i = (i + 1) & x.mask {
		s := &x.slots[i]
		if s.head == slotFree {
			if reuse < 0 {
				x.used++
				reuse = int(i)
			}
			break
		}
		if s.head == -1 {
			if reuse < 0 {
				reuse = int(i)
			}
			continue
		}
		if s.h == h {
			x.next[s.tail] = k
			s.tail = k
			return
		}
	}
	x.slots[reuse] = keySlot{h: h, head: k, tail: k}
	if uint64(reuse)>>spreadBits != home>>spreadBits {
		x.overflow(home, uint64(reuse))
	}
}

// trim lets go of what the index keeps for growing (the arrays of the table
// before its last rebuild, the spare capacity of its chains' links), for
// an index that no longer grows (a lookup join's right side once it has
// ended): the table stays as it is, for probes and unlink.
func (x *keyIndex) trim() {
	x.spare, x.spareNext = nil, nil
	if cap(x.next) > len(x.next)+len(x.next)/8 {
		x.next = slices.Clone(x.next)
	}
}

// unlink removes row o, whose predecessor in slot si's chain is prev (-1:
// o is the head), and returns o's successor.
func (x *keyIndex) unlink(si int, prev, o int32) int32 {
	s := &x.slots[si]
	nx := x.next[o]
	if prev < 0 {
		s.head = nx
	} else {
		x.next[prev] = nx
	}
	if s.tail == o {
		s.tail = prev
	}
	if s.head == -1 {
		s.tail = -1
	}
	return nx
}

// live walks slot si's chain from next (prev: the row before it, -1 at
// the head): it returns the first row from next on that is not dead
// (indexed by row; -1 at the chain's end), unlinking the dead ones it
// passes (the chain stays the size of the live rows), and the walk's
// prev and next after that row.
func (x *keyIndex) live(si int, prev, next int32, dead []bool) (o, nprev, nnext int32) {
	for next >= 0 {
		if dead[next] {
			next = x.unlink(si, prev, next)
			continue
		}
		return next, next, x.next[next]
	}
	return -1, prev, -1
}

// dropHead removes row k from hash h's chain when it is the chain's head
// (an interval join's row whose interval ended: a side's rows end in the
// order they were added, so the row ending is its chain's oldest), freeing
// the slot of a chain it empties (del), and reports whether it did. Rows
// dropped so never fill the table with emptied chains, which add would
// otherwise purge in passes over the whole table (unique keys leave one
// each).
func (x *keyIndex) dropHead(h uint64, k int32) bool {
	si := x.find(h)
	if si < 0 || x.slots[si].head != k {
		return false
	}
	s := &x.slots[si]
	if s.head = x.next[k]; s.head < 0 {
		x.del(uint64(si))
	}
	return true
}

// rebuild makes the table anew for its chains, in their order, without
// their dead rows (dead, indexed by row, nil: none), each kept row
// renumbered by moved (nil: kept as it is; -1: dropped); a chain left empty
// is dropped.
func (x *keyIndex) rebuild(moved []int, dead []bool) {
	old := x.slots
	live := 0
	for i := range old {
		if old[i].head >= 0 {
			live++
		}
	}
	oldNext := x.next
	x.next, x.spareNext = x.spareNext[:0], oldNext
	x.slots, x.spare = x.spare, nil
	x.init(max(2*live, len(old)/4)) // (room for as many new hashes as live ones before the next rebuild)
	for _, s := range old {
		if s.head < 0 {
			continue
		}
		ns := keySlot{h: s.h, head: -1, tail: -1}
		for o := s.head; o >= 0; o = oldNext[o] {
			to := int(o)
			if moved != nil {
				to = moved[o]
			}
			if to < 0 || dead != nil && dead[to] {
				continue
			}
			for to >= len(x.next) {
				x.next = append(x.next, -1)
			}
			x.next[to] = -1
			if ns.head < 0 {
				ns.head = int32(to)
			} else {
				x.next[ns.tail] = int32(to)
			}
			ns.tail = int32(to)
		}
		if ns.head >= 0 {
			x.place(ns)
		}
	}
	x.spare = old
}

// remap renumbers the table's rows in place by moved (Rows.Compact's: a
// row's new index, -1 for a row dropped; n rows are kept): each chain keeps
// its slot and its order, without its dropped rows, and a chain left empty
// frees its slot (del). Unlike rebuild, no slot moves but to fill a freed
// one, and the table keeps its size: a compaction costs a pass over the
// slots and the kept rows' chains, not a table made anew.
func (x *keyIndex) remap(moved []int, n int) {
	oldNext := x.next
	x.next, x.spareNext = slices.Grow(x.spareNext[:0], n)[:n], oldNext
	x.retain(oldNext, func(o int32) int32 { return int32(moved[o]) })
}

// purge drops the dead rows (indexed by row) from their chains in place,
// freeing the slots of the chains it empties (del): what add does before
// it grows the table, so that the slots of rows gone (an interval join's
// expired rows, never probed again) are used again.
func (x *keyIndex) purge(dead []bool) {
	x.retain(x.next, func(o int32) int32 {
		if dead[o] {
			return -1
		}
		return o
	})
}

// retain relinks every chain, read through oldNext, into x.next with each
// row o renumbered to(o) (-1: dropped), in order, and frees the slots of
// the chains left empty. One pass over the slots, from a free one (the
// table is at most half full): del moves slots back only within their run
// of used slots, and no run spans the pass's start, so a slot it moves back
// is one the pass has not relinked yet.
func (x *keyIndex) retain(oldNext []int32, to func(o int32) int32) {
	start := uint64(0)
	for x.slots[start].head != slotFree {
		start++
	}
	for c := range uint64(len(x.slots)) {
		i := (start + c) & x.mask
		for {
			s := &x.slots[i]
			if s.head >= 0 {
				head, tail := int32(-1), int32(-1)
				for o := s.head; o >= 0; {
					nx := oldNext[o] // (read first: x.next may be oldNext)
					if t := to(o); t >= 0 {
						x.next[t] = -1
						if head < 0 {
							head = t
						} else {
							x.next[tail] = t
						}
						tail = t
					}
					o = nx
				}
				s.head, s.tail = head, tail
			}
			if s.head != -1 {
				break
			}
			x.del(i) // (an emptied chain: slot i now holds the run's next slot, or is free)
		}
	}
}

// del frees slot i (an emptied chain's), moving back the slots after it
// that linear probing would no longer find (backward-shift deletion: the
// table has no tombstones, so probes stay short).
func (x *keyIndex) del(i uint64) {
	x.used--
	for {
		x.slots[i] = keySlot{head: slotFree, tail: slotFree}
		j := i
		for {
			if !x.spills(j) {
				return // (no slot past the line's end has its home at or before i)
			}
			j = (j + 1) & x.mask
			s := x.slots[j]
			if s.head == slotFree {
				if j&lineEnd == 0 { // (nothing past a free slot has its home before it)
					l := (j - 1) & x.mask >> spreadBits
					x.over[l/64] &^= 1 << (l % 64)
				}
				return
			}
			// slot j's chain moves to i unless its home k lies cyclically
			// in (i, j]
			k := x.home(s.h)
			if i <= j && (k <= i || k > j) || i > j && k <= i && k > j {
				x.slots[i] = s
				i = j
				break
			}
		}
	}
}

// place puts chain s into a free slot of its hash (rebuild: the hash is not
// in the table yet).
func (x *keyIndex) place(s keySlot) {
	home := x.home(s.h)
	i := home
	for x.slots[i].head != slotFree {
		i = (i + 1) & x.mask
	}
	x.slots[i] = s
	x.used++
	if i>>spreadBits != home>>spreadBits {
		x.overflow(home, i)
	}
}

// The key hash of SPEC 2.7's equality, the same for a stored row
// (Rows.keyHash) and a batch's row (batchKeyHash): mix of each key
// value, a NULL or a NaN never matching, -0.0 hashing as 0.0. A NULL in a
// null-safe key part (IS NOT DISTINCT FROM, nullSafe) matches a NULL
// there: it mixes nullMark in, which a value may hash alike, so its
// equality (keyEqual) compares the parts' NULL flags first.
const hashSeed = uint64(14695981039346656037)

// nullMark is what a NULL of a null-safe key part mixes into its key hash.
const nullMark = uint64(0x6e756c6c2d6b6579)

// nullSafe reports whether key part j compares by IS NOT DISTINCT FROM
// (Flink's null-safe join key: NULL matches NULL) rather than by =, ns
// being JoinSpec.NullSafe (nil: every part by =).
func nullSafe(ns []bool, j int) bool { return j < len(ns) && ns[j] }

// anyNullSafe reports whether any key part of ns is null-safe.
func anyNullSafe(ns []bool) bool { return slices.Contains(ns, true) }

func hashInt(h uint64, x int64) uint64 { return mix(h, uint64(x)) }

// hashFloat folds f in; ok is false for a NaN (it matches nothing).
func hashFloat(h uint64, f float64) (uint64, bool) {
	if math.IsNaN(f) {
		return 0, false
	}
	if f == 0 {
		f = 0 // (-0.0)
	}
	return mix(h, math.Float64bits(f)), true
}

func hashBool(h uint64, b bool) uint64 {
	x := uint64(0)
	if b {
		x = 1
	}
	return mix(h, x)
}

func hashBytes(h uint64, s []byte) uint64 {
	for _, ch := range s {
		h = (h ^ uint64(ch)) * 1099511628211
	}
	return mix(h, uint64(len(s)))
}

// batchKeyHash is Rows.keyHash for row i of batch b (ns: the null-safe
// key parts, nil none).
func batchKeyHash(b *vector.Batch, i int, cols []int, ns []bool) (uint64, bool) {
	h := hashSeed
	for j, c := range cols {
		v := b.Cols[c]
		if v.Null[i] {
			if nullSafe(ns, j) {
				h = mix(h, nullMark)
				continue
			}
			return 0, false
		}
		switch v.Type {
		case catalog.BigInt, catalog.Timestamp:
			h = hashInt(h, v.I[i])
		case catalog.Double:
			var ok bool
			if h, ok = hashFloat(h, v.F[i]); !ok {
				return 0, false
			}
		case catalog.Boolean:
			h = hashBool(h, v.B[i])
		case catalog.Varchar:
			h = hashBytes(h, v.S[i])
		}
	}
	return h, true
}

// batchKeyHashes appends batchKeyHash of every row of b (key columns cols,
// null-safe parts ns) to hs and ok, column by column.
func batchKeyHashes(b *vector.Batch, cols []int, ns []bool, hs []uint64, ok []bool) ([]uint64, []bool) {
	n := b.N
	at := len(hs)
	hs, ok = slices.Grow(hs, n)[:at+n], slices.Grow(ok, n)[:at+n]
	h, k := hs[at:], ok[at:]
	for i := range h {
		h[i] = hashSeed
	}
	for x := k; len(x) > 0; { // (a batch's worth a copy)
		x = x[copy(x, allTrue[:]):]
	}
	for j, c := range cols {
		v := b.Cols[c]
		if nullSafe(ns, j) && slices.Contains(v.Null[:n], true) {
			hashNullSafe(h, k, v)
			continue
		}
		for i, null := range v.Null[:n] {
			if null {
				k[i] = false
			}
		}
		switch v.Type {
		case catalog.BigInt, catalog.Timestamp:
			for i, x := range v.I[:n] {
				h[i] = hashInt(h[i], x)
			}
		case catalog.Double:
			for i, f := range v.F[:n] {
				var fine bool
				if h[i], fine = hashFloat(h[i], f); !fine {
					k[i] = false
				}
			}
		case catalog.Boolean:
			for i, x := range v.B[:n] {
				h[i] = hashBool(h[i], x)
			}
		case catalog.Varchar:
			for i, x := range v.S[:n] {
				h[i] = hashBytes(h[i], x)
			}
		}
	}
	for i := range h {
		if !k[i] {
			h[i] = 0
		}
	}
	return hs, ok
}

// hashNullSafe folds the rows of null-safe key column v into their hashes
// hs (one a row, from row 0): a NULL mixes nullMark in, and its slot's value
// is not read; a NaN sets the row's ok false.
func hashNullSafe(hs []uint64, ok []bool, v *vector.Vec) {
	for i := range hs {
		if v.Null[i] {
			hs[i] = mix(hs[i], nullMark)
		} else if h, fine := hashAt(hs[i], v, i); fine {
			hs[i] = h
		} else {
			ok[i] = false
		}
	}
}

// hashAt folds the non-NULL value of row i of v into h, as batchKeyHash
// does; ok is false for a NaN.
func hashAt(h uint64, v *vector.Vec, i int) (uint64, bool) {
	switch v.Type {
	case catalog.BigInt, catalog.Timestamp:
		return hashInt(h, v.I[i]), true
	case catalog.Double:
		return hashFloat(h, v.F[i])
	case catalog.Boolean:
		return hashBool(h, v.B[i]), true
	case catalog.Varchar:
		return hashBytes(h, v.S[i]), true
	}
	return h, true
}

// batchKeyEqual is keyEqual for row i of batch b (key columns bcols)
// against stored row k of r (key columns rcols; ns the null-safe parts).
func batchKeyEqual(b *vector.Batch, i int, bcols []int, r *Rows, k int, rcols []int, ns []bool) bool {
	for j, c := range bcols {
		v, d := b.Cols[c], rcols[j]
		if nullSafe(ns, j) {
			if bn, rn := v.Null[i], r.cols[d].isNull(k); bn || rn {
				if bn != rn {
					return false
				}
				continue
			}
		}
		switch v.Type {
		case catalog.BigInt, catalog.Timestamp:
			if v.I[i] != r.Int(k, d) {
				return false
			}
		case catalog.Double:
			if v.F[i] != r.Float(k, d) {
				return false
			}
		case catalog.Boolean:
			if v.B[i] != r.Bool(k, d) {
				return false
			}
		case catalog.Varchar:
			if string(v.S[i]) != string(r.Str(k, d)) {
				return false
			}
		}
	}
	return true
}
