package agg

import (
	"encoding/binary"
	"math"
	"sort"
	"unsafe"

	"streamql/catalog"
	"streamql/executor/vector"
)

// The accumulators that keep the values a retraction needs (SPEC 2.8: "MIN,
// MAX, FIRST_VALUE, LAST_VALUE and LISTAGG keep the values they need"), used
// when the aggregate reads an updating input (plan.AggSpec.Retracting):
//
//   - MIN and MAX keep the multiset of their values (each distinct value
//     with its count, sorted), so the next extreme is at hand when the
//     current one is taken back (Flink's MinWithRetractAggFunction keeps a
//     map of value to count and scans it);
//   - COUNT(DISTINCT x) keeps the same multiset and counts its values;
//   - FIRST_VALUE, LAST_VALUE and LISTAGG keep their values in arrival
//     order. A retraction of a value takes back its earliest occurrence
//     still held, as Flink's FirstValueWithRetractAggFunction and
//     LastValueWithRetractAggFunction do (their valueToOrderMap's first
//     order) and ListAggWithRetractAggFunction (List.remove of the first
//     equal element). Flink orders FIRST/LAST by the wall clock's
//     milliseconds; here the arrival number orders them, so the result
//     does not depend on timing.
//
// A retraction of a value the state does not hold is ignored (Flink keeps
// a negative count for it; a changelog that retracts only what it added
// never makes one). Values are held as keys that order as the function
// compares them (keptKey), so one sorted list serves every type.

// kept is the part of a State that keeps values (State.kept, nil until the
// first value of a Retracting spec).
type kept struct {
	// MIN, MAX, COUNT(DISTINCT): the distinct values by keptKey order, each
	// with how many times it is held
	vals []keptVal
	// FIRST_VALUE, LAST_VALUE, LISTAGG: the values in arrival order, taken
	// back ones marked dead; head and tail index the first and last live
	// ones; pos holds each value's live indices into items, ascending
	items      []keptItem
	head, tail int
	dead       int
	pos        map[string][]int32
	bytes      int64       // what the lists and the map hold (State.caps)
	one        *vector.Vec // LISTAGG of a type other than VARCHAR: one value, to print
}

type keptVal struct {
	key string
	n   int64
}

type keptItem struct {
	key  string
	dead bool
}

// keeps reports whether sp's state keeps its values (State.kept): a
// Retracting MIN, MAX, FIRST_VALUE, LAST_VALUE, LISTAGG or COUNT(DISTINCT).
func keeps(sp *Spec) bool {
	if !sp.Retracting {
		return false
	}
	switch sp.Func {
	case Min, Max, First, Last, ListAgg:
		return true
	case Count:
		return sp.Distinct
	}
	return false
}

// keptKey appends row i of v (not NULL) as a key whose bytes order as SPEC
// 2.4's MIN and MAX compare (BIGINT and TIMESTAMP as signed integers, DOUBLE
// as Java's Double.compare with every NaN one value, BOOLEAN false first,
// VARCHAR by bytes) and that are equal exactly when grouping's keys are.
func keptKey(dst []byte, t catalog.Type, v *vector.Vec, i int) []byte {
	switch t {
	case catalog.BigInt, catalog.Timestamp:
		return binary.BigEndian.AppendUint64(dst, uint64(v.I[i])^1<<63)
	case catalog.Double:
		f := v.F[i]
		if math.IsNaN(f) {
			f = math.NaN()
		}
		u := math.Float64bits(f)
		if u>>63 == 1 {
			u = ^u
		} else {
			u ^= 1 << 63
		}
		return binary.BigEndian.AppendUint64(dst, u)
	case catalog.Boolean:
		if v.B[i] {
			return append(dst, 1)
		}
		return append(dst, 0)
	}
	return append(dst, v.S[i]...)
}

// keptValue writes the value of key (keptKey's, of type t) into row i of
// out; a VARCHAR is copied into out's arena.
func keptValue(t catalog.Type, key string, out *vector.Vec, i int) {
	out.Null[i] = false
	switch t {
	case catalog.BigInt, catalog.Timestamp:
		out.I[i] = int64(binary.BigEndian.Uint64([]byte(key)) ^ 1<<63)
	case catalog.Double:
		u := binary.BigEndian.Uint64([]byte(key))
		if u>>63 == 1 {
			u ^= 1 << 63
		} else {
			u = ^u
		}
		out.F[i] = math.Float64frombits(u)
	case catalog.Boolean:
		out.B[i] = key[0] == 1
	default:
		start := len(out.Arena)
		out.Arena = append(out.Arena, key...)
		out.S[i] = out.Arena[start:len(out.Arena):len(out.Arena)]
	}
}

// the bytes a kept value costs besides its key: a vals slot, an items slot,
// a pos entry (map slot, slice header) and an index
const (
	keptValBytes  = int64(unsafe.Sizeof(keptVal{}))
	keptItemBytes = int64(unsafe.Sizeof(keptItem{}))
	keptPosBytes  = 48 + 24
)

// keepAdd adds row i of v (not NULL) to the kept values and returns the
// bytes the state grew by.
func (st *State) keepAdd(sp *Spec, v *vector.Vec, i int, scratch []byte) int64 {
	if st.kept == nil {
		st.kept = &kept{}
	}
	k := st.kept
	key := keptKey(scratch, sp.Arg, v, i)
	before := k.bytes
	switch sp.Func {
	case First, Last, ListAgg:
		if k.pos == nil {
			k.pos = map[string][]int32{}
		}
		ps, ok := k.pos[string(key)]
		var s string
		if ok && len(ps) > 0 {
			s = k.items[ps[0]].key // (shares the held copy)
		} else {
			s = string(key)
			k.bytes += int64(len(s)) + keptPosBytes
		}
		if len(k.items) == 0 || k.live() == 0 {
			k.head = len(k.items)
		}
		k.tail = len(k.items)
		k.pos[s] = append(ps, int32(len(k.items)))
		k.items = append(k.items, keptItem{key: s})
		k.bytes += keptItemBytes + 4
		st.n++
	default: // MIN, MAX, COUNT(DISTINCT)
		at := sort.Search(len(k.vals), func(j int) bool { return k.vals[j].key >= string(key) })
		if at < len(k.vals) && k.vals[at].key == string(key) {
			k.vals[at].n++
		} else {
			k.vals = append(k.vals, keptVal{})
			copy(k.vals[at+1:], k.vals[at:])
			k.vals[at] = keptVal{key: string(key), n: 1}
			k.bytes += int64(len(key)) + keptValBytes
		}
		if sp.Distinct {
			st.n = int64(len(k.vals))
		} else {
			st.n++
		}
	}
	return k.bytes - before
}

// live is the number of items not taken back.
func (k *kept) live() int { return len(k.items) - k.dead }

// keepRetract takes row i of v (not NULL) back out of the kept values and
// returns the bytes the state grew by (negative: it shrank).
func (st *State) keepRetract(sp *Spec, v *vector.Vec, i int, scratch []byte) int64 {
	k := st.kept
	if k == nil {
		return 0
	}
	key := keptKey(scratch, sp.Arg, v, i)
	before := k.bytes
	switch sp.Func {
	case First, Last, ListAgg:
		ps := k.pos[string(key)]
		if len(ps) == 0 {
			return 0 // never added: ignored
		}
		at := ps[0]
		if len(ps) == 1 {
			k.bytes -= int64(len(key)) + keptPosBytes
			delete(k.pos, string(key))
		} else {
			k.pos[string(key)] = ps[1:]
		}
		k.items[at].dead = true
		k.bytes -= 4
		k.dead++
		st.n--
		for k.head < len(k.items) && k.items[k.head].dead {
			k.head++
		}
		for k.tail >= 0 && k.tail < len(k.items) && k.items[k.tail].dead {
			k.tail--
		}
		if k.dead > 32 && k.dead > k.live() {
			k.compact()
		}
	default:
		at := sort.Search(len(k.vals), func(j int) bool { return k.vals[j].key >= string(key) })
		if at == len(k.vals) || k.vals[at].key != string(key) {
			return 0 // never added: ignored
		}
		if k.vals[at].n--; k.vals[at].n == 0 {
			k.bytes -= int64(len(key)) + keptValBytes
			copy(k.vals[at:], k.vals[at+1:])
			k.vals[len(k.vals)-1] = keptVal{}
			k.vals = k.vals[:len(k.vals)-1]
		}
		if sp.Distinct {
			st.n = int64(len(k.vals))
		} else {
			st.n--
		}
	}
	return k.bytes - before
}

// compact drops the dead items and renumbers pos.
func (k *kept) compact() {
	live := k.items[:0]
	for _, it := range k.items {
		if !it.dead {
			live = append(live, it)
		}
	}
	clear(k.items[len(live):])
	k.bytes -= int64(len(k.items)-len(live)) * keptItemBytes
	k.items, k.dead, k.head, k.tail = live, 0, 0, len(live)-1
	for key := range k.pos {
		k.pos[key] = k.pos[key][:0]
	}
	for j, it := range k.items {
		k.pos[it.key] = append(k.pos[it.key], int32(j))
	}
}

// keptResult writes the result of the kept values into row i of out (the
// state holds at least one value).
func (st *State) keptResult(sp *Spec, out *vector.Vec, i int) {
	k := st.kept
	switch sp.Func {
	case Min:
		keptValue(sp.Arg, k.vals[0].key, out, i)
	case Max:
		keptValue(sp.Arg, k.vals[len(k.vals)-1].key, out, i)
	case First:
		keptValue(sp.Arg, k.items[k.head].key, out, i)
	case Last:
		keptValue(sp.Arg, k.items[k.tail].key, out, i)
	case ListAgg:
		start := len(out.Arena)
		if k.one == nil && sp.Arg != catalog.Varchar {
			k.one = &vector.Vec{Type: sp.Arg, Null: []bool{false}, I: []int64{0}, F: []float64{0}, B: []bool{false}, S: [][]byte{nil}}
		}
		sep := false
		for _, it := range k.items[k.head : k.tail+1] {
			if it.dead {
				continue
			}
			if sep {
				out.Arena = append(out.Arena, sp.Sep...)
			}
			sep = true
			if sp.Arg == catalog.Varchar {
				out.Arena = append(out.Arena, it.key...)
				continue
			}
			keptValue(sp.Arg, it.key, k.one, 0)
			out.Arena = vector.AppendValue(out.Arena, sp.Arg, k.one, 0)
		}
		out.S[i] = out.Arena[start:len(out.Arena):len(out.Arena)]
	}
}
