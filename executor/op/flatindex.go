package op

import "math/bits"

// FlatIndex is an index of the state of an updating operator by one 64-bit
// key word per entry (a BIGINT key's value, or a seeded hash of a key's
// bytes): a flat open-addressing table with linear probing, a power of two
// of slots, at most half full, each slot the word and the entry. A lookup
// reads about one slot of 16 bytes where a Go map reads its control word,
// slot and key (issue 24: the unbounded GROUP BY's groups,
// executor/aggregate/groupagg.go, and the partitions of the Top-N over an
// updating input, topnretract.go; the Top-N has its own, whose slots also
// hold each partition's bound: topn.go). It never deletes one
// entry: an operator that frees some rebuilds it (Reset, then Put of the
// rest). Lookups probe it themselves (Home, Mask, Slot), so that comparing
// a key costs no call.
type FlatIndex[T any] struct {
	slots []flatSlot[T]
	used  int
	mixed bool   // the words are hashes already: a word is its own home
	seed  uint64 // mixes a word that is a value into its home
}

type flatSlot[T any] struct {
	k uint64
	v *T
}

// NewFlatIndex returns an empty index; hashed says that the key words are
// hashes (used as they are), else values (mixed with seed, any odd number,
// so that an input cannot choose keys that share slots).
func NewFlatIndex[T any](hashed bool, seed uint64) *FlatIndex[T] {
	return &FlatIndex[T]{slots: make([]flatSlot[T], 64), mixed: hashed, seed: seed | 1}
}

// Home is the first slot to probe for key word k (then Home+1, ...,
// each masked with Mask).
func (x *FlatIndex[T]) Home(k uint64) uint64 {
	if x.mixed {
		return k
	}
	hi, lo := bits.Mul64(k^x.seed, 0x9e3779b97f4a7c15)
	return hi ^ lo
}

// Slots is the number of slots (FlatSlotBytes each), for the state the
// index's owner charges.
func (x *FlatIndex[T]) Slots() int { return len(x.slots) }

// Doubles returns the number of slots of the table the next Put makes (0
// when it makes none), so that its owner can charge the table before it
// exists.
func (x *FlatIndex[T]) Doubles() int {
	if 2*(x.used+1) > len(x.slots) {
		return 2 * len(x.slots)
	}
	return 0
}

// FlatSlotBytes is the size of one slot of a FlatIndex: the key word and
// the entry's pointer.
const FlatSlotBytes = 16

// Mask is the number of slots less one.
func (x *FlatIndex[T]) Mask() uint64 { return uint64(len(x.slots) - 1) }

// Slot returns slot p's key word and entry (nil: the slot is empty, and
// the probe for a key ends there without it).
func (x *FlatIndex[T]) Slot(p uint64) (uint64, *T) {
	s := &x.slots[p]
	return s.k, s.v
}

// Put adds entry v of key word k (not in x), doubling the table when it
// would be more than half full.
func (x *FlatIndex[T]) Put(k uint64, v *T) {
	if 2*(x.used+1) > len(x.slots) {
		old := x.slots
		x.slots = make([]flatSlot[T], 2*len(old))
		x.used = 0
		for _, s := range old {
			if s.v != nil {
				x.Put(s.k, s.v)
			}
		}
	}
	mask := x.Mask()
	p := x.Home(k) & mask
	for x.slots[p].v != nil {
		p = (p + 1) & mask
	}
	x.slots[p] = flatSlot[T]{k, v}
	x.used++
}

// Reset empties x, keeping its table.
func (x *FlatIndex[T]) Reset() {
	clear(x.slots)
	x.used = 0
}
