// The aggregate's group table: the groups of a window by key (a small window's
// list, then a map; a cache of the last group per key hash), new groups from
// slabs (the group and its accumulators side by side, its key bytes from an arena), the
// state each costs, and freeing fired windows' groups for reuse. The
// accumulators themselves are executor/agg's (agg.State: each function's own
// size).

package aggregate

import (
	"encoding/binary"
	"math"
	"math/bits"
	"unsafe"

	"streamql/catalog"
	"streamql/executor/agg"
	"streamql/executor/vector"
	"streamql/executor/window"
)

// winState is one open window (or session, or the pseudo-window of GROUP BY
// without a window) with its groups in first-row order.
type winState struct {
	win    window.Win
	pkey   string
	groups []*aggGroup
	index  map[string]*aggGroup
	part   int32 // the partition of the row that opened it (a session's, for a replay)
}

// aggGroup is one group of a window: its key and accumulators, 96 bytes
// (issue 26 item 4: a group's state is what its functions need, no more).
// Its key values are kept once, as the key bytes it is found by (keyb,
// agg.Key's; writeRowTo decodes them), and what only a Kafka replay or the
// state TTL needs is in ext, allocated only for those.
type aggGroup struct {
	first int64 // arrival number of its first row
	// firstAt is the job-wide arrival number of its first row (Operator.row):
	// the groups of several aggregates fired by one step are ordered by it
	// (SPEC 2.4), first being each aggregate's own count
	firstAt int64
	hash    uint64 // keyHash(keyb): compared before the bytes
	// keyb is the grouping keys as agg.Key's bytes (framed by
	// agg.AppendKeyFramed for several keys), owned by the group: the
	// index's key (keyString) and the only copy of its key values
	keyb   []byte
	states []agg.State // the calls' accumulators, placed by aggOp.lay (groupCell.st's for one State)
	// an updating aggregate's (groupagg.go): the rows it holds net of
	// retractions; with mini-batch whether the batch being read touched it
	// (mark, cleared as the batch's changes go out), whether it held rows
	// before that batch and its row then (pre, in updState.pre)
	live int64
	pre  int32
	mark bool
	had  bool
	// ext is the part of a group that only a Kafka replay (aggOp.rep) or
	// 'table.exec.state.ttl' reads, nil without them (aggOp.keepsExt)
	ext *groupExt
}

// groupExt is what a group keeps for a Kafka replay and the state TTL
// (aggGroup.ext).
type groupExt struct {
	// with a replay (aggOp.rep): the partition of its first row and that
	// row's offset and watermark; more holds the first rows of other
	// partitions (nil unless the topic is not partitioned by the key)
	part int32
	held heldAt
	more map[int32]heldAt
	// gone are the partitions of its rows dropped (aggOp.dropped) since
	// they last gave it a row (heldOther), nil for none
	gone map[int32]bool
	// touched is when it last changed, for 'table.exec.state.ttl'
	// (groupagg.go's updState.stamp)
	touched int64
}

// noExt is the groupExt of a group that has none (aggGroup.x): no
// partition but 0, nothing held, never touched. It is never written.
var noExt groupExt

// x returns g's ext for reading (noExt when it has none).
func (g *aggGroup) x() *groupExt {
	if g.ext != nil {
		return g.ext
	}
	return &noExt
}

// keyString is g's key bytes as a string (the window index's key), sharing
// them: they change only once the group is freed, after it left every index.
func (g *aggGroup) keyString() string {
	if len(g.keyb) == 0 {
		return ""
	}
	return unsafe.String(&g.keyb[0], len(g.keyb))
}

// groupCell is a group with its one accumulator right after it: the groups
// of an aggregate with one call are allocated in slabs of them (newGroup),
// key, count and accumulator side by side, no allocation per group: 128
// bytes, two whole 64-byte cache lines in a slab (a large allocation:
// page-aligned), TestGroupCellLines.
type groupCell struct {
	g  aggGroup
	st [1]agg.State
}

// groupSlab is the number of groups (and their keys' values and
// accumulators) allocated at once (newGroup): a slab is 256 groups, never
// one; the state is charged per group as it is used.
const groupSlab = 256

// groupBytes is the state a new group costs before its accumulators grow: the
// group itself, its key bytes (keyLen, cut from an arena), its ext when it
// has one, its slots in the window's group list and index (a pointer and a
// map entry, with the slack their growth leaves; no map entry with a typed
// index, byIdx, whose tables updGroup charges as they grow), and each call's
// accumulator before it grows (agg.StateBytes). TestStateAccountingMatchesHeap
// checks it against the live heap (issue 30: the older sum counted about 0.7
// of it).
func (o *aggOp) groupBytes(keyLen int) int64 {
	n := groupSlotBytes + keyLen + o.statesBytes
	if !o.byIdx() {
		n += mapEntryBytes
	}
	if o.keepsExt() {
		n += extBytes
	}
	return int64(n)
}

// groupSlotBytes is an aggGroup with its group list slot, mapEntryBytes
// its entry in a window's map index, extBytes a groupExt.
const (
	groupSlotBytes = int(unsafe.Sizeof(aggGroup{})) + 16
	mapEntryBytes  = 48 // (a Go map of string keys: 35 to 56 bytes an entry as it grows, 1.26)
	extBytes       = int(unsafe.Sizeof(groupExt{}))
)

// byIdx reports whether o is an updating aggregate whose groups its typed
// index finds (updState.idx, and updState.null for the NULL key), so that
// its window's map holds none (lookup then finds a group only among a
// window's first smallWindow: findGroup is asked only for the groups the
// typed index has not).
func (o *aggOp) byIdx() bool { return o.upd != nil && o.upd.idx != nil }

// keepsExt reports whether o's groups keep a groupExt: with a Kafka
// replay, or an updating aggregate's state TTL.
func (o *aggOp) keepsExt() bool {
	return o.rep != nil || o.upd != nil && o.upd.ttl.ttl > 0
}

// extOf returns g's ext for writing, allocated (from a slab) when g has none.
func (o *aggOp) extOf(g *aggGroup) *groupExt {
	if g.ext == nil {
		if len(o.extSlab) == 0 {
			o.extSlab = make([]groupExt, groupSlab)
		}
		g.ext, o.extSlab = &o.extSlab[0], o.extSlab[1:]
	}
	return g.ext
}

// buildKey sets o.keyBuf to row i's group key (agg.Key; framed when there
// are several keys).
func (o *aggOp) buildKey(i int) {
	o.keyBuf = o.keyBuf[:0]
	if len(o.keys) == 1 { // one key needs no framing
		o.keyBuf = agg.Key(o.keyBuf, o.a.Keys[0].Type, o.keys[0], i)
		return
	}
	for k, v := range o.keys {
		o.keyBuf = agg.AppendKeyFramed(o.keyBuf, o.a.Keys[k].Type, v, i)
	}
}

// groupHash is the hash of a group's key bytes keyb that lookup compares
// first: for one key, keyHash of the value's bytes plus the NULL tag (so that
// findGroup computes it from the row's value without building the key), else
// keyHash of the framed keys.
func (o *aggOp) groupHash(keyb []byte) uint64 {
	if len(o.keys) == 1 && len(keyb) > 0 {
		return keyHash(keyb[1:]) + uint64(keyb[0])*0x9e3779b97f4a7c15
	}
	return keyHash(keyb)
}

// findGroup returns row i's group in ws (nil when ws has none yet) and the
// key's groupHash. With one VARCHAR, BIGINT, TIMESTAMP or DOUBLE key it hashes
// and compares the row's value where it is; other keys are built in o.keyBuf.
func (o *aggOp) findGroup(ws *winState, i int) (*aggGroup, uint64) {
	if len(o.keys) == 1 {
		v := o.keys[0]
		if !v.Null[i] {
			switch o.a.Keys[0].Type {
			case catalog.Varchar:
				s := v.S[i]
				if n := len(s); n > 0 && n < 8 { // the key's bytes are one word: compared in the cache entry
					w, kh := shortKey(s)
					e := &o.cache[kh%groupCacheSize]
					if e.ws == ws && e.w == w && e.n == int32(n) {
						return e.g, kh
					}
					if len(ws.groups) <= smallWindow {
						for _, h := range ws.groups {
							if h.hash == kh && len(h.keyb) == n+1 && h.keyb[0] == 1 && string(h.keyb[1:]) == string(s) {
								*e = groupCacheEntry{ws: ws, g: h, w: w, n: int32(n)}
								return h, kh
							}
						}
						return nil, kh
					}
					break // (the window's map, below)
				}
				kh := keyHash(s) + 0x9e3779b97f4a7c15
				e := &o.cache[kh%groupCacheSize]
				if h := e.g; e.ws == ws && h.hash == kh && len(h.keyb) == len(s)+1 && h.keyb[0] == 1 && string(h.keyb[1:]) == string(s) {
					return h, kh
				}
				if len(ws.groups) <= smallWindow {
					for _, h := range ws.groups {
						if h.hash == kh && len(h.keyb) == len(s)+1 && h.keyb[0] == 1 && string(h.keyb[1:]) == string(s) {
							*e = groupCacheEntry{ws: ws, g: h}
							return h, kh
						}
					}
					return nil, kh
				}
			case catalog.BigInt, catalog.Timestamp, catalog.Double:
				var u uint64
				if o.a.Keys[0].Type == catalog.Double {
					f := v.F[i]
					if math.IsNaN(f) {
						f = math.NaN() // as agg.Key: all NaNs one key
					}
					u = math.Float64bits(f)
				} else {
					u = uint64(v.I[i])
				}
				kh := wordHash(u) + 0x9e3779b97f4a7c15
				e := &o.cache[kh%groupCacheSize]
				if h := e.g; e.ws == ws && h.hash == kh && len(h.keyb) == 9 && h.keyb[0] == 1 && binary.BigEndian.Uint64(h.keyb[1:]) == u {
					return h, kh
				}
				if len(ws.groups) <= smallWindow {
					for _, h := range ws.groups {
						if h.hash == kh && len(h.keyb) == 9 && h.keyb[0] == 1 && binary.BigEndian.Uint64(h.keyb[1:]) == u {
							*e = groupCacheEntry{ws: ws, g: h}
							return h, kh
						}
					}
					return nil, kh
				}
			}
		}
	}
	o.buildKey(i)
	kh := o.groupHash(o.keyBuf)
	g := o.lookup(ws, kh, o.keyBuf)
	if g != nil && len(o.keys) == 1 {
		e := &o.cache[kh%groupCacheSize]
		*e = groupCacheEntry{ws: ws, g: g}
		if s := o.keyBuf[min(1, len(o.keyBuf)):]; o.a.Keys[0].Type == catalog.Varchar && len(o.keyBuf) > 1 && len(s) < 8 {
			e.w, e.n = shortWord(s), int32(len(s))
		}
	}
	return g, kh
}

// shortKey returns a single VARCHAR key s of 1 to 7 bytes as shortWord w,
// and its hash kh in aggOp.cache (keyHash's, moved).
func shortKey(s []byte) (w, kh uint64) {
	w = shortWord(s)
	h := (uint64(len(s))*0x9e3779b97f4a7c15 ^ w) * 0x94d049bb133111eb // shortHash, written out to keep shortKey inlined
	return w, (h ^ h>>29) + 0x9e3779b97f4a7c15
}

// addTo adds row i to its group of window ws.
func (o *aggOp) addTo(ws *winState, b *vector.Batch, i int) error {
	g, err := o.groupFor(ws, i)
	if err != nil {
		return err
	}
	if p := o.pend; p != nil { // (a partial of the parallel aggregate: its accumulators take the batch's rows at once, aggPartial.addBatch)
		p.states, p.rows, p.seqs = append(p.states, g.states), append(p.rows, int32(i)), append(p.seqs, o.seq)
		return nil
	}
	var grew int64
	for c, op := range o.callOps {
		grew += o.lay.Add(g.states, c, op, &o.a.Calls[c].Spec, o.args[c], i, o.seq)
	}
	if grew != 0 {
		return o.grow(grew)
	}
	return nil
}

// groupFor returns row i's group of window ws, made (and charged) when the
// row is its first.
func (o *aggOp) groupFor(ws *winState, i int) (*aggGroup, error) {
	g, kh := o.findGroup(ws, i)
	if g == nil {
		o.buildKey(i)
		g = o.newGroup(kh)
		o.insert(ws, g)
		if err := o.grow(o.groupBytes(len(g.keyb))); err != nil {
			return g, err
		}
	} else if o.rep != nil && o.fromOther(g) {
		o.heldOther(g)
	}
	return g, nil
}

// keyHash is a quick hash of a group key, 8 bytes at a time: only a filter
// before comparing the bytes of a window's few groups (lookup), so it needs no
// seed (the index past smallWindow groups is a Go map).
func keyHash(b []byte) uint64 {
	if len(b) == 8 {
		return wordHash(binary.BigEndian.Uint64(b))
	}
	if n := len(b); n > 0 && n < 8 {
		return shortHash(n, shortWord(b))
	}
	h := uint64(len(b)) * 0x9e3779b97f4a7c15
	for len(b) >= 8 {
		h = (h ^ binary.LittleEndian.Uint64(b)) * 0xbf58476d1ce4e5b9
		h ^= h >> 31
		b = b[8:]
	}
	if n := len(b); n > 0 {
		h = (h ^ shortWord(b)) * 0x94d049bb133111eb
		h ^= h >> 29
	}
	return h
}

// shortWord packs the 1 to 7 bytes of b into a word that, with len(b), is
// b's bytes (keyHash's tail: two 4-byte loads that overlap, or three bytes).
func shortWord(b []byte) uint64 {
	if n := len(b); n >= 4 {
		return uint64(binary.LittleEndian.Uint32(b))<<32 | uint64(binary.LittleEndian.Uint32(b[n-4:]))
	}
	return uint64(b[0])<<16 | uint64(b[len(b)/2])<<8 | uint64(b[len(b)-1])
}

// shortHash is keyHash of a key of n (1 to 7) bytes whose shortWord is w.
func shortHash(n int, w uint64) uint64 {
	h := (uint64(n)*0x9e3779b97f4a7c15 ^ w) * 0x94d049bb133111eb
	return h ^ h>>29
}

// wordHash is keyHash of the 8 bytes of u, big-endian (agg.Key's order).
func wordHash(u uint64) uint64 {
	h := 0xf1bbcdcbfa53e0a8 ^ bits.ReverseBytes64(u) // uint64(8) * 0x9e3779b97f4a7c15, as keyHash
	h *= 0xbf58476d1ce4e5b9
	return h ^ h>>31
}

// groupCacheSize is the number of entries of aggOp.cache (32 bytes each).
const groupCacheSize = 256

// groupCacheEntry is one entry of aggOp.cache: a group g of the open window
// ws; for a single VARCHAR key of 1 to 7 bytes, also its bytes as shortWord w
// and their number n (0 otherwise), so that a hit compares no bytes of g.
type groupCacheEntry struct {
	ws *winState
	g  *aggGroup
	w  uint64
	n  int32
}

// smallWindow is the number of groups up to which a window finds a group by
// scanning its groups' hashes; past it, ws.index (filled then) finds it.
const smallWindow = 16

// lookup returns the group of ws whose key is key (its hash kh), nil when none.
func (o *aggOp) lookup(ws *winState, kh uint64, key []byte) *aggGroup {
	if len(ws.groups) <= smallWindow {
		for _, h := range ws.groups {
			if h.hash == kh && string(h.keyb) == string(key) {
				return h
			}
		}
		return nil
	}
	return ws.index[string(key)]
}

// insert adds the new group g (not in ws) to ws's groups, and to its index
// once ws has more than smallWindow groups, unless the typed index of an
// updating aggregate finds them (byIdx).
func (o *aggOp) insert(ws *winState, g *aggGroup) {
	ws.groups = append(ws.groups, g)
	if o.byIdx() {
		return
	}
	switch n := len(ws.groups); {
	case n == smallWindow+1:
		for _, h := range ws.groups {
			ws.index[h.keyString()] = h
		}
	case n > smallWindow+1:
		ws.index[g.keyString()] = g
	}
}

// newGroup returns an empty group for the key in o.keyBuf (its hash kh), a
// freed one when there is one (its buffers reused).
func (o *aggOp) newGroup(kh uint64) *aggGroup {
	var g *aggGroup
	if n := len(o.freeGroups); n > 0 {
		g, o.freeGroups = o.freeGroups[n-1], o.freeGroups[:n-1]
		for c := range g.states {
			g.states[c].Reset()
		}
	} else {
		g = o.allocGroup()
		o.made++
	}
	o.maxGroups = max(o.maxGroups, o.made-int64(len(o.freeGroups)))
	g.first, g.firstAt, g.hash = o.seq, o.rowAt, kh
	g.live, g.mark = 0, false
	if o.keepsExt() {
		*o.extOf(g) = groupExt{part: o.rowPart, held: heldAt{o.rowOff, o.rowCw, o.rowCwSet}}
	}
	if n := len(o.keyBuf); cap(g.keyb) < n {
		g.keyb = o.keyBytes(n)
	}
	g.keyb = append(g.keyb[:0], o.keyBuf...)
	return g
}

// keyArenaSize is the size of the arena new groups' key bytes are cut from
// (newGroup), and keyArenaMax the longest key cut from it (a longer key
// has its own allocation).
const (
	keyArenaSize = 16 << 10
	keyArenaMax  = 256
)

// keyBytes returns an empty buffer of capacity n for a new group's key
// bytes, cut from o's arena when n is at most keyArenaMax.
func (o *aggOp) keyBytes(n int) []byte {
	if n > keyArenaMax {
		return make([]byte, 0, n)
	}
	if len(o.keyArena) < n {
		o.keyArena = make([]byte, keyArenaSize)
	}
	b := o.keyArena[:0:n]
	o.keyArena = o.keyArena[n:]
	return b
}

// allocGroup returns a new empty group with room for o's accumulators, from
// o's slabs (groupSlab): with one call a groupCell (the accumulator right
// after the group), else the accumulators cut from slabs of them.
func (o *aggOp) allocGroup() *aggGroup {
	nc := o.lay.Slots
	if nc == 1 {
		if len(o.cells) == 0 {
			o.cells = make([]groupCell, groupSlab)
		}
		c := &o.cells[0]
		o.cells = o.cells[1:]
		c.g.states = c.st[:]
		return &c.g
	}
	if len(o.groupSlab) == 0 {
		o.groupSlab = make([]aggGroup, groupSlab)
	}
	g := &o.groupSlab[0]
	o.groupSlab = o.groupSlab[1:]
	if len(o.stateSlab) < nc {
		o.stateSlab = make([]agg.State, groupSlab*nc)
	}
	g.states, o.stateSlab = o.stateSlab[:nc:nc], o.stateSlab[nc:]
	return g
}

// release frees the windows (and their groups) for reuse.
func (o *aggOp) release(wins []*winState) {
	o.lastWs = nil
	clear(o.cache[:])
	for _, ws := range wins {
		if ws.index == nil {
			continue // the one row of a global aggregate over no rows
		}
		o.freeGroups = append(o.freeGroups, ws.groups...)
		clear(ws.groups)
		ws.groups = ws.groups[:0]
		clear(ws.index)
		o.freeWins = append(o.freeWins, ws)
	}
}

func (o *aggOp) grow(n int64) error {
	o.bytes += n
	return o.acct.Grow(n)
}

// finish frees the windows take took, once emitted.
func (o *aggOp) finish(fired []*winState) {
	var freed int64
	for _, ws := range fired {
		for _, g := range ws.groups {
			freed += o.groupCost(g)
		}
	}
	freed = min(freed, o.bytes)
	o.bytes -= freed
	o.acct.Grow(-freed)
	o.release(fired)
	clear(fired)
}
