package agg

import "math/bits"

// wordSet is COUNT(DISTINCT x)'s set of the values of a fixed-width type,
// each as one word (word: two values share a word exactly when grouping
// compares them equal). While it holds at most listMax words they are a
// sorted list, of exactly the room it needs give or take a quarter; then an
// open-addressing hash table (linear probing, at most three quarters
// full). Words are stored in 4 bytes each while every one fits in 32 bits
// (ids, counts: issue 26's q16 keeps 2.3 million bidder and auction ids in
// 10,000 groups' eight sets), in 8 once one does not. The zero value is an
// empty set; it allocates nothing until its first word.
type wordSet struct {
	w4     []uint32 // the list or table of 4-byte words (while !w64)
	w8     []uint64 // the list or table of 8-byte words (once w64)
	n      int32    // words held
	w64    bool     // a word of 32 bits or more came: w8 holds the words
	hashed bool     // more than listMax words: w4 or w8 is a table whose empty slots are 0
	zero   bool     // (hashed) the word 0 is held
}

// listMax is the most distinct words a wordSet keeps in a sorted list: a
// set of more moves into a hash table, where an insertion does not move the
// words after it.
const listMax = 512

// wordMul is the multiplier of a wordSet table's hash (2^64 / φ): the slot
// of word k is the top bits of k * wordMul.
const wordMul = 0x9E3779B97F4A7C15

// len returns the number of words held.
func (s *wordSet) len() int { return int(s.n) }

// bytes returns the bytes of the set's buffers (their capacity), which a
// State counts for 'state.max-bytes' (SPEC 1).
func (s *wordSet) bytes() int64 { return int64(4*cap(s.w4) + 8*cap(s.w8)) }

// emptied returns the set emptied, keeping a list's buffers for reuse (a
// table's too: a list reads only its length).
func (s *wordSet) emptied() wordSet { return wordSet{w4: s.w4[:0], w8: s.w8[:0]} }

// add adds k and reports whether it was new.
func (s *wordSet) add(k uint64) bool {
	if !s.w64 && k>>32 != 0 {
		s.to64()
	}
	var added bool
	switch {
	case s.hashed && s.w64:
		added = s.put8(k)
	case s.hashed:
		added = s.put4(uint32(k))
	case s.w64:
		s.w8, added = insertSorted(s.w8, k)
	default:
		s.w4, added = insertSorted(s.w4, uint32(k))
	}
	if !added {
		return false
	}
	s.n++
	if !s.hashed && s.n > listMax {
		s.toTable()
	}
	return true
}

// grown returns the capacity a list of n words grows to: a quarter more,
// at least 4.
func grown(n int) int { return n + max(4, n/4) }

// insertSorted adds k to the sorted list l and returns the list and
// whether k was new; a full list grows by grown.
func insertSorted[W uint32 | uint64](l []W, k W) ([]W, bool) {
	lo, hi := 0, len(l)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if l[m] < k {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(l) && l[lo] == k {
		return l, false
	}
	if len(l) == cap(l) {
		nl := make([]W, len(l), grown(len(l)))
		copy(nl, l)
		l = nl
	}
	l = l[:len(l)+1]
	copy(l[lo+1:], l[lo:])
	l[lo] = k
	return l, true
}

// slot returns the first slot of word k in a table of 2^b slots.
func slot(k uint64, b int) int { return int((k * wordMul) >> (64 - b)) }

// put4 and put8 add k to the table of 4- or 8-byte words, growing it
// first when it would be more than three quarters full, and report whether
// k was new.
func (s *wordSet) put4(k uint32) bool {
	if k != 0 && 4*(int(s.n)+1) > 3*len(s.w4) {
		s.rehash(2*len(s.w4), false)
	}
	return putWord(s.w4, k, &s.zero)
}

func (s *wordSet) put8(k uint64) bool {
	if k != 0 && 4*(int(s.n)+1) > 3*len(s.w8) {
		s.rehash(2*len(s.w8), false)
	}
	return putWord(s.w8, k, &s.zero)
}

// putWord adds k to the table t (a power of two of slots, 0 empty, not
// full; zero: whether the word 0 is held) and reports whether it was new.
func putWord[W uint32 | uint64](t []W, k W, zero *bool) bool {
	if k == 0 {
		was := *zero
		*zero = true
		return !was
	}
	m := len(t) - 1
	for i := slot(uint64(k), bits.TrailingZeros(uint(len(t)))); ; i = (i + 1) & m {
		switch t[i] {
		case k:
			return false
		case 0:
			t[i] = k
			return true
		}
	}
}

// each calls f with every word held (a list in order, a table in slot
// order).
func (s *wordSet) each(f func(uint64)) {
	if s.hashed && s.zero {
		f(0)
	}
	for _, k := range s.w4 {
		if k != 0 || !s.hashed {
			f(uint64(k))
		}
	}
	for _, k := range s.w8 {
		if k != 0 || !s.hashed {
			f(k)
		}
	}
}

// to64 moves the words into 8-byte storage (a word of 32 bits or more
// came), keeping the list or table form.
func (s *wordSet) to64() {
	old := s.w4
	s.w64 = true
	s.w4 = nil
	if s.hashed {
		s.w8 = make([]uint64, len(old))
		fill(s.w8, old, &s.zero, false)
		return
	}
	s.w8 = make([]uint64, len(old), max(cap(old), 4))
	for i, k := range old {
		s.w8[i] = uint64(k)
	}
}

// toTable moves the sorted list (listMax+1 words) into a table.
func (s *wordSet) toTable() {
	size := 1
	for 4*int(s.n) > 3*size {
		size *= 2
	}
	s.rehash(size, true)
	s.hashed = true
}

// rehash moves the words (a list when fromList, else a table) into a table
// of size slots (a power of two, room for the words held).
func (s *wordSet) rehash(size int, fromList bool) {
	if s.w64 {
		old := s.w8
		s.w8 = make([]uint64, size)
		fill(s.w8, old, &s.zero, fromList)
	} else {
		old := s.w4
		s.w4 = make([]uint32, size)
		fill(s.w4, old, &s.zero, fromList)
	}
}

// fill puts the words of src, a list (fromList) or a table whose 0s are
// empty slots, into the empty table dst, which has room for them.
func fill[D, S uint32 | uint64](dst []D, src []S, zero *bool, fromList bool) {
	for _, k := range src {
		if k != 0 || fromList {
			putWord(dst, D(k), zero)
		}
	}
}
