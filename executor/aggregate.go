package executor

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sort"
	"strconv"
	"unsafe"

	"streamql/catalog"
	"streamql/executor/agg"
	"streamql/executor/connector"
	"streamql/executor/expr"
	"streamql/executor/format"
	"streamql/executor/vector"
	"streamql/executor/window"
	"streamql/planner/plan"
)

// aggOp is the window/aggregate operator of one branch (SPEC 2.4): it keeps per
// window × group accumulators (never the rows), fires a window once when the
// watermark of its stream reaches the window's end, right after the row that
// moved it, in (window_end, window_start, group's first row) order, and sends
// rows whose windows all fired to the late output. GROUP BY without a window and
// global aggregates keep one pseudo-window that fires at the stream's end. A
// window TVF without aggregation emits each row once per window as it arrives.
type aggOp struct {
	br      *plan.Branch
	a       *plan.Aggregate
	kind    window.Kind
	latePt  int // index of the late part in the router's Step, -1 without a window
	acct    *StateAccount
	seq     int64
	open    []*winState // unsorted; minEnd is at most the smallest end
	minEnd  int64
	byWin   map[window.Win]*winState
	bySess  map[string][]*winState // SESSION: open sessions per partition key
	keyBuf  []byte
	pkBuf   []byte
	keys    []*vector.Vec // per batch: the keys of the taken rows
	args    []*vector.Vec
	pkeys   []*vector.Vec
	row     *vector.Batch // aggregate rows (or windowed rows) to emit
	sel     []int32
	fireBuf []*winState
	bytes   int64 // state charged to acct
	// the chunks of fired rows made in the current batch (aggOperator)
	outTypes []catalog.Type
	bufs     []*vector.Batch
	bufSel   [][]int32
	used     int
	lateIdx  int // index of its late part among the late parts, -1 without
	// freed windows and groups, reused so that the steady state allocates nothing
	freeWins   []*winState
	freeGroups []*aggGroup
	// the slabs new groups come from (allocGroup): the groups (with their
	// accumulator, for one call), and the rest of the accumulators, key
	// values and key bytes of other shapes
	cells     []groupCell
	groupSlab []aggGroup
	stateSlab []agg.State
	valSlab   []plan.Value
	keyArena  []byte
	lastWs    *winState // the window of the last row (TUMBLE, HOP), nil after a firing
	// for EXPLAIN ANALYZE (Analysis), counted per batch, per window opened and
	// per group made, never per row: the rows the branch took, the most
	// windows open at once, the groups made (new, not reused) and the most in
	// use at once
	rowsIn, maxOpen, made, maxGroups int64
	// rowAt is the job-wide arrival number of the row being added (a new
	// group's firstAt)
	rowAt   int64
	rowsOut int64 // rows emitted (EXPLAIN ANALYZE)
	// tlo and thi are the times whose windows can be represented
	// (window.Range); a row at another time is malformed (errWindowRange)
	tlo, thi int64
	// the kernels of the plan's expressions (executor/expr): the keys, the
	// calls' arguments (nil for COUNT(*)) and SESSION's partition keys over the
	// source batch; HAVING (nil: none) and the projection over the aggregate row
	keyK, argK, pkeyK []*expr.Kernel
	havingK           *expr.Kernel
	projK             []*expr.Kernel
	callOps           []agg.Op // each call's accumulator path (agg.OpOf)
	// cache holds, by key hash, the last group found of a window (findGroup's
	// single-key paths); cleared whenever a group leaves a window (release,
	// mergeSession), so an entry's group is in its window
	cache [groupCacheSize]groupCacheEntry
	// batched: the rows' accumulators are added per batch (a partial of the
	// parallel aggregate, paragg.go): addTo keeps each row's group states,
	// row and arrival number here
	batched    bool
	pendStates [][]agg.State
	pendRows   []int32
	pendSeqs   []int64
	// a Kafka group source's replay (replay.go; nil: none), and the row being
	// added: its partition, offset and CURRENT_WATERMARK, which a new group
	// (and a new session) keeps for the hold frontier
	rep      *replay
	rowPart  int32
	rowOff   int64
	rowCw    int64
	rowCwSet bool
	sessBuf  []*winState // fire: the sessions to emit
	upd      *updState   // an updating aggregate's changes (groupagg.go), nil for others
}

// heldAt is the first row of a partition in a group: its offset and the
// watermark of its partition before it (the hold frontier, replay.go).
type heldAt struct {
	off   int64
	cw    int64
	cwSet bool
}

// winState is one open window (or session, or the pseudo-window of GROUP BY
// without a window) with its groups in first-row order.
type winState struct {
	win    window.Win
	pkey   string
	groups []*aggGroup
	index  map[string]*aggGroup
	part   int32 // the partition of the row that opened it (a session's, for a replay)
}

// aggGroup is one group of a window: its key values and accumulators.
type aggGroup struct {
	first int64 // arrival number of its first row
	// firstAt is the job-wide arrival number of its first row (aggOperator.row):
	// the groups of several aggregates fired by one step are ordered by it
	// (SPEC 2.4), first being each aggregate's own count
	firstAt int64
	hash    uint64 // keyHash(keyb): compared before the bytes
	key     string // keyb as a string (the index's key), valid while the group is in use
	keyb    []byte
	// with a replay (aggOp.rep): the partition of its first row and that
	// row's offset and watermark; more holds the first rows of other
	// partitions (nil unless the topic is not partitioned by the key)
	part int32
	held heldAt
	more map[int32]heldAt
	// the hot fields, side by side at the end (a row's change reads them
	// and, in a groupCell, the first accumulator right after them)
	vals   []plan.Value // the grouping keys' values, owned by the group (val0's for one key)
	states []agg.State  // the calls' accumulators (groupCell.st's for one call)
	// an updating aggregate's (groupagg.go): the rows the group holds net of
	// retractions, and with mini-batch the batch that last touched it, whether
	// it held rows before that batch and its row then (in updState.pre)
	live int64
	mark int64
	had  bool
	pre  int32
	// touched is when it last changed, for 'table.exec.state.ttl'
	// (groupagg.go's updState.stamp)
	touched int64
	// val0 holds the value of a single grouping key (vals is val0[:1]), so
	// that a group with one key needs no allocation of its own for it
	val0 [1]plan.Value
}

// groupCell is a group with its one accumulator right after it: the groups
// of an aggregate with one call are allocated in slabs of them (newGroup),
// key value, count and accumulator side by side, no allocation per group.
type groupCell struct {
	g  aggGroup
	st [1]agg.State
}

// groupSlab is the number of groups (and their keys' values and
// accumulators) allocated at once (newGroup): a slab is 256 groups, never
// one; the state is charged per group as it is used.
const groupSlab = 256

// groupBytes is the state a new group costs before its accumulators grow: the
// group itself, its key bytes (the group's copy, and the key values' own text,
// with their allocations' rounding), its key values, its slots in the window's
// index and group list (a map entry and a pointer, with the slack their growth
// leaves), and a fixed-size accumulator per call. TestStateAccountingMatchesHeap
// checks it against the live heap (issue 30: the older sum counted about 0.7 of it).
func (o *aggOp) groupBytes(keyLen int) int64 {
	return int64(groupSlotBytes + 2*keyLen + 16 + len(o.a.Keys)*valueBytes + len(o.a.Calls)*agg.FixedBytes)
}

// groupSlotBytes is an aggGroup with its index entry and list slot;
// valueBytes one grouping key's plan.Value.
const (
	groupSlotBytes = int(unsafe.Sizeof(aggGroup{})) - int(unsafe.Sizeof([1]plan.Value{})) + 48 // (val0: counted as the key's valueBytes)
	valueBytes     = int(unsafe.Sizeof(plan.Value{}))
)

func newAggOp(br *plan.Branch, budget *StateBudget) *aggOp {
	a := br.Agg
	o := &aggOp{br: br, a: a, latePt: -1, byWin: map[window.Win]*winState{}, bySess: map[string][]*winState{}, minEnd: math.MaxInt64}
	if w := a.Window; w != nil {
		o.kind = window.KindOf(w.Func)
		o.tlo, o.thi = window.Range(o.kind, w.Size, w.Slide, w.Offset, w.Gap)
	}
	what := "groups (GROUP BY without a window)"
	switch {
	case a.Window != nil && o.kind == window.Session:
		what = "open sessions × groups"
	case a.Window != nil:
		what = "open windows × groups"
	}
	o.acct = budget.Account("the aggregate of "+br.Text, what)
	o.row = vector.NewBatch(a.RowTypes)
	o.sel = make([]int32, 0, vector.Cap)
	for _, e := range br.Project { // (a Rank's hidden columns too, SPEC 2.9)
		o.outTypes = append(o.outTypes, e.Type)
	}
	o.lateIdx = -1
	for k := range a.Calls {
		o.callOps = append(o.callOps, agg.OpOf(&a.Calls[k].Spec))
	}
	return o
}

// windowedTypes sets the layout of the windowed batch of a TVF without
// aggregation: the source batch's types, then the three window columns.
func (o *aggOp) windowedTypes(batch []catalog.Type) {
	types := append(append([]catalog.Type{}, batch...), o.a.Window.TimeType, o.a.Window.TimeType, o.a.Window.TimeType)
	o.row = vector.NewBatch(types)
}

// prepare evaluates the keys and arguments for the rows the branch took.
func (o *aggOp) prepare(b *vector.Batch, taken []int32) {
	o.keys = o.keys[:0]
	for _, k := range o.keyK {
		o.keys = append(o.keys, k.Eval(b, taken))
	}
	o.args = o.args[:0]
	for _, k := range o.argK {
		if k == nil {
			o.args = append(o.args, nil)
			continue
		}
		o.args = append(o.args, k.Eval(b, taken))
	}
	o.pkeys = o.pkeys[:0]
	for _, k := range o.pkeyK {
		o.pkeys = append(o.pkeys, k.Eval(b, taken))
	}
}

// add takes row i of b (taken by the branch); cw is CURRENT_WATERMARK of the
// row (cwSet false before the first). It reports whether the row is late (SPEC
// 2.4: all its windows fired, or its t is NULL), and returns a state error.
func (o *aggOp) add(b *vector.Batch, i int, cw int64, cwSet bool) (bool, error) {
	o.seq++
	if o.rep != nil {
		o.rowPart, o.rowOff = connector.KafkaPartitionOf(b.Pos[i])
		o.rowCw, o.rowCwSet = cw, cwSet
	}
	a := o.a
	if a.Window == nil {
		return false, o.addTo(o.pseudo(), b, i)
	}
	tv := b.Cols[a.Window.TimeCol]
	if tv.Null[i] {
		return true, nil
	}
	t := tv.I[i]
	w := a.Window
	if t < o.tlo || t > o.thi {
		return false, errWindowRange
	}
	if o.kind == window.Session {
		return o.addSession(b, i, t, cw, cwSet)
	}
	if o.kind == window.Tumble {
		// one window per row: the last row's when t falls in it (rows come
		// mostly in time order), else the one window.Nth gives
		ws := o.lastWs
		if ws == nil || t < ws.win.Start || t >= ws.win.End {
			win := window.Nth(window.Tumble, w.Size, w.Slide, w.Offset, t, 0)
			if cwSet && win.End <= cw {
				return true, nil // its window fired
			}
			if o.rep != nil && o.rep.firedBy(o.rowPart, win.End) {
				return false, nil // emitted before the partition came here (I4)
			}
			if ws = o.byWin[win]; ws == nil {
				ws = o.openWindow(win, "")
				o.byWin[win] = ws
			}
			o.lastWs = ws
		} else if cwSet && ws.win.End <= cw {
			return true, nil
		} else if o.rep != nil && o.rep.firedBy(o.rowPart, ws.win.End) {
			return false, nil
		}
		return false, o.addTo(ws, b, i)
	}
	// (walked, not made: a HOP of size/slide windows per row may have
	// millions, whose groups count against 'state.max-bytes' as they come)
	took := false
	win, n := window.First(o.kind, w.Size, w.Slide, w.Offset, t)
	for j := int64(0); j < n; j, win = j+1, window.Next(o.kind, win, w.Slide) {
		if cwSet && win.End <= cw {
			continue // fired: the row joins the open ones only
		}
		took = true
		if o.rep != nil && o.rep.firedBy(o.rowPart, win.End) {
			continue // emitted before the partition came here (I4)
		}
		ws := o.lastWs
		if ws == nil || ws.win != win {
			if ws = o.byWin[win]; ws == nil {
				ws = o.openWindow(win, "")
				o.byWin[win] = ws
			}
			o.lastWs = ws
		}
		if err := o.addTo(ws, b, i); err != nil {
			return false, err
		}
	}
	return !took, nil
}

// tumbleRun is add for the rows of taken that need nothing but their
// group's accumulators, in a loop without add's calls (the parallel
// aggregate's partials: o.batched, TUMBLE, no replay): each row falls in the
// window of the row before (o.lastWs), which its CURRENT_WATERMARK (wm's
// value at the row, never lower than the row before's; nil: none) has not
// fired, and its group there is found.
// It returns how many rows of taken it added, stopping at the first other
// one, which add then takes.
func (o *aggOp) tumbleRun(b *vector.Batch, taken []int32, wm *vector.Vec) int {
	ws := o.lastWs
	if ws == nil || !o.batched || o.kind != window.Tumble || o.rep != nil {
		return 0
	}
	tv := b.Cols[o.a.Window.TimeCol]
	start, end := ws.win.Start, ws.win.End
	var key *vector.Vec // a single VARCHAR key: findGroup's cache probe, here
	if len(o.keys) == 1 && o.a.Keys[0].Type == catalog.Varchar {
		key = o.keys[0]
	}
	if wm != nil && len(taken) > 0 {
		if l := taken[len(taken)-1]; wm.Null[l] || wm.I[l] < end {
			// The stamps never go down from row to row (one watermark: a
			// file's), so none of these rows' windows has fired.
			wm = nil
		}
	}
	// (the pending rows and the arrival number in locals, kept in o at the end)
	states, rows, seqs, seq := o.pendStates, o.pendRows, o.pendSeqs, o.seq
	k := 0
	for ; k < len(taken); k++ {
		i := taken[k]
		if tv.Null[i] {
			break
		}
		if t := tv.I[i]; t < start || t >= end {
			break
		}
		if wm != nil && !wm.Null[i] && end <= wm.I[i] {
			break // late
		}
		var g *aggGroup
		if key != nil && !key.Null[i] {
			if s := key.S[i]; len(s) > 0 && len(s) < 8 {
				w, kh := shortKey(s)
				if e := &o.cache[kh%groupCacheSize]; e.ws == ws && e.w == w && e.n == int32(len(s)) {
					g = e.g
				}
			}
		}
		if g == nil {
			if g, _ = o.findGroup(ws, int(i)); g == nil {
				break
			}
		}
		seq++
		states, rows, seqs = append(states, g.states), append(rows, i), append(seqs, seq)
	}
	o.pendStates, o.pendRows, o.pendSeqs, o.seq = states, rows, seqs, seq
	return k
}

func (o *aggOp) openWindow(win window.Win, pkey string) *winState {
	var ws *winState
	if n := len(o.freeWins); n > 0 {
		ws, o.freeWins = o.freeWins[n-1], o.freeWins[:n-1]
		ws.win, ws.pkey = win, pkey
	} else {
		ws = &winState{win: win, pkey: pkey, index: map[string]*aggGroup{}}
	}
	ws.part = o.rowPart
	o.open = append(o.open, ws)
	o.maxOpen = max(o.maxOpen, int64(len(o.open)))
	o.minEnd = min(o.minEnd, win.End)
	return ws
}

// pseudo returns the one window of GROUP BY without a window.
func (o *aggOp) pseudo() *winState {
	if len(o.open) == 0 {
		o.openWindow(window.Win{Start: math.MaxInt64, End: math.MaxInt64}, "")
	}
	return o.open[0]
}

// addSession adds row i at time t to the sessions of its partition key (SPEC
// 2.4): [t, t + gap) merges every open session of the key it overlaps or touches;
// a row that touches none and has t + gap <= CURRENT_WATERMARK is late.
func (o *aggOp) addSession(b *vector.Batch, i int, t, cw int64, cwSet bool) (bool, error) {
	o.pkBuf = o.pkBuf[:0]
	for k, v := range o.pkeys {
		o.pkBuf = agg.AppendKeyFramed(o.pkBuf, o.a.Window.Partition[k].Type, v, i)
	}
	end := t + o.a.Window.Gap
	list := o.bySess[string(o.pkBuf)]
	var into *winState
	kept := list[:0]
	for _, s := range list {
		// A session that the row's partition's watermark passed is closed
		// for the row even before it fires (the other partitions hold the
		// stream back): merging is then a function of the partition's rows
		// alone (SPEC 2.4, 2.5), as a replay needs.
		if s.win.Start <= end && t <= s.win.End && !(cwSet && s.win.End <= cw) {
			if into == nil {
				into = s
			} else {
				o.mergeSession(into, s)
				continue
			}
		}
		kept = append(kept, s)
	}
	if into == nil {
		if cwSet && end <= cw {
			return true, nil
		}
		pk := string(o.pkBuf)
		into = o.openWindow(window.Win{Start: t, End: end}, pk)
		kept = append(kept, into)
		o.bySess[pk] = kept
	} else {
		o.bySess[into.pkey] = kept
		into.win.Start = min(into.win.Start, t)
		into.win.End = max(into.win.End, end)
	}
	return false, o.addTo(into, b, i)
}

// mergeSession merges the open session s into into and drops s.
func (o *aggOp) mergeSession(into, s *winState) {
	clear(o.cache[:]) // s's groups move to into or are freed
	into.win.Start = min(into.win.Start, s.win.Start)
	into.win.End = max(into.win.End, s.win.End)
	for _, g := range s.groups {
		if h := o.lookup(into, g.hash, g.keyb); h != nil {
			for c := range h.states {
				h.states[c].Merge(&o.a.Calls[c].Spec, &g.states[c])
			}
			h.first = min(h.first, g.first)
			h.firstAt = min(h.firstAt, g.firstAt)
			mergeHeld(h, g)
			o.freeGroups = append(o.freeGroups, g)
			continue
		}
		o.insert(into, g)
	}
	s.groups = s.groups[:0]
	clear(s.index)
	o.freeWins = append(o.freeWins, s)
	slices.SortFunc(into.groups, func(x, y *aggGroup) int { return cmp.Compare(x.first, y.first) })
	for k, w := range o.open {
		if w == s {
			o.open = append(o.open[:k], o.open[k+1:]...)
			break
		}
	}
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
	if o.batched { // (a partial of the parallel aggregate: its accumulators take the batch's rows at once, addBatch)
		o.pendStates, o.pendRows, o.pendSeqs = append(o.pendStates, g.states), append(o.pendRows, int32(i)), append(o.pendSeqs, o.seq)
		return nil
	}
	var grew int64
	for c, op := range o.callOps {
		grew += g.states[c].AddOp(op, &o.a.Calls[c].Spec, o.args[c], i, o.seq)
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
		for k, v := range o.keys {
			kv := plan.Value{Null: v.Null[i]}
			if k < len(g.vals) {
				kv.S = g.vals[k].S[:0] // reuse a freed group's buffer
			}
			if !kv.Null {
				switch o.a.Keys[k].Type {
				case catalog.BigInt, catalog.Timestamp:
					kv.I = v.I[i]
				case catalog.Double:
					kv.F = v.F[i]
				case catalog.Boolean:
					kv.B = v.B[i]
				case catalog.Varchar:
					if cap(kv.S) < len(v.S[i]) {
						kv.S = o.keyBytes(len(v.S[i]))
					}
					kv.S = append(kv.S, v.S[i]...)
				}
			}
			if k < len(g.vals) {
				g.vals[k] = kv
			} else {
				g.vals = append(g.vals, kv)
			}
		}
		o.insert(ws, g)
		if err := o.grow(o.groupBytes(len(g.key))); err != nil {
			return g, err
		}
	} else if o.rep != nil && g.part != o.rowPart {
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
// once ws has more than smallWindow groups.
func (o *aggOp) insert(ws *winState, g *aggGroup) {
	ws.groups = append(ws.groups, g)
	switch n := len(ws.groups); {
	case n == smallWindow+1:
		for _, h := range ws.groups {
			ws.index[h.key] = h
		}
	case n > smallWindow+1:
		ws.index[g.key] = g
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
	g.live, g.mark = 0, 0
	g.part, g.held, g.more = o.rowPart, heldAt{o.rowOff, o.rowCw, o.rowCwSet}, nil
	if n := len(o.keyBuf); cap(g.keyb) < n {
		g.keyb = o.keyBytes(n)
	}
	g.keyb = append(g.keyb[:0], o.keyBuf...)
	g.key = ""
	if len(g.keyb) > 0 {
		// the index's key shares the group's bytes: they change only once the
		// group is freed, after it left every index
		g.key = unsafe.String(&g.keyb[0], len(g.keyb))
	}
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
// bytes or a VARCHAR key's value, cut from o's arena when n is at most
// keyArenaMax.
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

// allocGroup returns a new empty group with room for o's keys' values and
// accumulators, from o's slabs (groupSlab): with one call a groupCell (the
// accumulator right after the group), the key's value in the group's val0
// when there is one key, and other shapes' values and accumulators cut from
// slabs of them.
func (o *aggOp) allocGroup() *aggGroup {
	nk, nc := len(o.a.Keys), len(o.a.Calls)
	var g *aggGroup
	if nc == 1 {
		if len(o.cells) == 0 {
			o.cells = make([]groupCell, groupSlab)
		}
		c := &o.cells[0]
		o.cells = o.cells[1:]
		g = &c.g
		g.states = c.st[:]
	} else {
		if len(o.groupSlab) == 0 {
			o.groupSlab = make([]aggGroup, groupSlab)
		}
		g = &o.groupSlab[0]
		o.groupSlab = o.groupSlab[1:]
		if len(o.stateSlab) < nc {
			o.stateSlab = make([]agg.State, groupSlab*nc)
		}
		g.states, o.stateSlab = o.stateSlab[:nc:nc], o.stateSlab[nc:]
	}
	if nk <= 1 {
		g.vals = g.val0[:0:nk]
	} else {
		if len(o.valSlab) < nk {
			o.valSlab = make([]plan.Value, groupSlab*nk)
		}
		g.vals, o.valSlab = o.valSlab[:0:nk], o.valSlab[nk:]
	}
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

// due reports whether a watermark of wm fires a window.
func (o *aggOp) due(wm int64) bool { return o.a.Window != nil && wm >= o.minEnd }

// take takes out of the state the windows a watermark of wm fires (every
// open one when all), sorted by end and then start (the pseudo-window of a
// global aggregate over no rows too, at the stream's end), and returns them
// with those of them to emit (a replay leaves out the sessions emitted
// before, I4); ok is false when none fires. finish frees them once emitted.
func (o *aggOp) take(wm int64, all bool) (fired, emitted []*winState, ok bool) {
	fired = o.fireBuf[:0]
	kept := o.open[:0]
	o.minEnd = math.MaxInt64
	for _, ws := range o.open {
		if all || ws.win.End <= wm {
			fired = append(fired, ws)
			continue
		}
		kept = append(kept, ws)
		o.minEnd = min(o.minEnd, ws.win.End)
	}
	clear(o.open[len(kept):])
	o.open = kept
	o.fireBuf = fired[:0]
	if len(fired) == 0 && !(all && o.a.Window == nil && len(o.a.Keys) == 0) {
		return nil, nil, false
	}
	slices.SortFunc(fired, func(x, y *winState) int {
		if c := cmp.Compare(x.win.End, y.win.End); c != 0 {
			return c
		}
		return cmp.Compare(x.win.Start, y.win.Start)
	})
	for _, ws := range fired {
		o.unindex(ws)
	}
	if all && o.a.Window == nil && len(o.a.Keys) == 0 && len(fired) == 0 {
		// a global aggregate over no rows gives one row (COUNT 0)
		fired = append(fired, &winState{win: window.Win{Start: math.MaxInt64, End: math.MaxInt64}, groups: []*aggGroup{{states: make([]agg.State, len(o.a.Calls))}}})
	}
	emitted = fired
	if o.rep != nil && o.kind == window.Session {
		// a session of a partition that ended before it came here was
		// emitted by its previous owner (I4)
		emitted = o.sessBuf[:0]
		for _, ws := range fired {
			if !o.rep.firedBy(ws.part, ws.win.End) {
				emitted = append(emitted, ws)
			}
		}
		o.sessBuf = emitted[:0]
	}
	return fired, emitted, true
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

// writeRow writes group g of window win as row n of o.row.
func (o *aggOp) writeRow(n int, win window.Win, g *aggGroup) {
	a := o.a
	cols := o.row.Cols
	if a.Window != nil {
		for k, v := range [3]int64{win.Start, win.End, win.End - 1} {
			cols[k].I[n], cols[k].Null[n] = v, false
		}
	}
	for k, kv := range g.vals {
		expr.SetValue(cols[a.KeyBase+k], n, a.Keys[k].Type, kv)
	}
	for k := range a.Calls {
		g.states[k].Result(&a.Calls[k].Spec, cols[a.CallBase+k], n)
	}
	o.row.N = n + 1
}

// chunk projects the first n rows of o.row (HAVING applied) into the next of o's chunk buffers, which the chunk's Part
// points at until the next batch, and returns it with its number of rows.
func (o *aggOp) chunk(n int) (Part, int64) {
	sel := o.sel[:0]
	for i := 0; i < n; i++ {
		sel = append(sel, int32(i))
	}
	if h := o.havingK; h != nil {
		v := h.Eval(o.row, sel)
		kept := sel[:0]
		for _, i := range sel {
			if v.B[i] && !v.Null[i] {
				kept = append(kept, i)
			}
		}
		sel = kept
	}
	o.sel = sel
	if len(sel) == 0 {
		return Part{}, 0
	}
	if o.used == len(o.bufs) {
		o.bufs = append(o.bufs, vector.NewBatch(o.outTypes))
		o.bufSel = append(o.bufSel, make([]int32, 0, vector.Cap))
	}
	dst := o.bufs[o.used]
	dsel := o.bufSel[o.used][:0]
	o.used++
	dst.Reset()
	for c, e := range o.projK {
		copyRows(dst.Cols[c], e.Eval(o.row, sel), sel)
	}
	for k := range sel {
		dsel = append(dsel, int32(k))
	}
	dst.N = len(sel)
	return Part{Output: o.br.Output, Sel: dsel, Cols: dst.Cols}, int64(len(sel))
}

// copyRows copies the rows sel of src into rows 0, 1, ... of dst (strings into
// dst's arena).
func copyRows(dst, src *vector.Vec, sel []int32) {
	for k, i := range sel {
		copyValue(dst, k, src, int(i))
	}
}

// copyValue copies value i of src into value k of dst (a string into dst's
// arena; an ARRAY, MAP or ROW value's elements into dst's child vectors,
// SPEC 2.10).
func copyValue(dst *vector.Vec, k int, src *vector.Vec, i int) {
	if dst.Null[k] = src.Null[i]; !src.Null[i] {
		dst.CopyValue(k, src, i)
	}
}

// windowRows fills o.row with row i of b once per window of its time (SPEC 2.4:
// a window TVF without aggregation, in window-start order), for the windows
// from, from+1, ... up to vector.Cap of them, and returns how many it filled
// and whether windows are left after them (the caller calls again from
// from+n). A row whose t is NULL gives none (it is late).
func (o *aggOp) windowRows(b *vector.Batch, i int, from int64) (n int, more bool) {
	w := o.a.Window
	tv := b.Cols[w.TimeCol]
	if tv.Null[i] {
		return 0, false
	}
	t := tv.I[i]
	win, count := window.First(o.kind, w.Size, w.Slide, w.Offset, t)
	if from > 0 {
		win = window.Nth(o.kind, w.Size, w.Slide, w.Offset, t, from)
	}
	o.row.N = 0
	for _, c := range o.row.Cols {
		c.ResetArena()
	}
	base := o.a.WindowBase
	for k := 0; k < vector.Cap && from+int64(k) < count; k, win = k+1, window.Next(o.kind, win, w.Slide) {
		o.row.AppendRows(b, i, i+1)
		for c, v := range [3]int64{win.Start, win.End, win.End - 1} {
			o.row.Cols[base+c].I[k], o.row.Cols[base+c].Null[k] = v, false
		}
	}
	return o.row.N, from+int64(o.row.N) < count
}

// LateRows counts the late rows of one windowed query of a job (SPEC 2.4: stderr
// gets a line per query with late rows).
type LateRows struct {
	Query  string // the query's text
	Output string // the late output's name
	Rows   int64
	// Script, Line and Column are the query's statement position
	// (plan.Branch's; Line 0 when unknown)
	Script       string
	Line, Column int
}

// aggOperator is the operator (operator.go) that runs a job's aggregates after
// the router: it reads the rows each aggregating branch took (its part's Sel)
// and the watermark marks, lets each aggOp take its rows in input order and fire
// right after the row that moved the watermark, and pushes the router's batch on
// with the late rows routed to their late outputs and the fired rows as Chunks
// at their places (SPEC 2.4, SPEC 4).
type aggOperator struct {
	job   *plan.Job
	live  *Live // the session's live status, given to the sink that counts late rows (nil: none; set at build)
	ops   []*aggOp
	at    []int // the router branch (part) of each operator
	pos   []int // per operator: next index into its taken rows
	taken [][]int32
	main  *aggOp
	// flushMain pushes the main query's rows on as soon as they are made
	// (flush): the chain's LIMIT (limitOp) may end the job at any of them,
	// and nothing after that point is made then (SPEC 2.4); the builder sets
	// it when the main query has a LIMIT
	flushMain bool
	inBatch   bool  // in Push (flush pushes the rows before at1), not in fireAll
	oneChunk  bool  // the batch's changes go out as one chunk per flush (alone)
	stop      error // a flush's push failed, or the LIMIT ended the job there: the operator stops
	counts    []*LateRows
	out       Step
	parts     []Part
	lateSel   [][]int32
	chunks    []Chunk
	down      *Emitter
	ncols     int // the stream's columns (a late row's columns)
	nb        int // the router's parts (its branches)
	at1       int // At of the chunks being made
	// derive: no marks come (behind an event-time join); the watermark after a
	// row is the next released row's stamped CURRENT_WATERMARK, and after the
	// last row of a batch it is known at the next batch (pending)
	derive  bool
	pending bool
	fired   Step   // the batch of fireAll
	src     Source // for the positions of malformed rows (malformed), nil in tests
	stats   *Stats
	// pre and preParts are pushBefore's batch; pushed is the number of the
	// batch's input rows it pushed on (taken out of its ports after the push)
	pre      Step
	preParts []Part
	pushed   int
	// row counts the rows the operator saw, job-wide (aggOp.rowAt); fire
	// and fireItems are fireAll's scratch
	row       int64
	fire      []firing
	fireItems []fireItem
}

// firing is one aggregate's share of a firing step (fireAll): the windows it
// fired and those of them it emits.
type firing struct {
	o              *aggOp
	fired, emitted []*winState
}

// fireItem is one group to emit in a firing of several aggregates: its
// aggregate (an index into aggOperator.fire), window and group.
type fireItem struct {
	op  int
	win window.Win
	g   *aggGroup
}

// ReadsMarks implements MarkReader: windows fire after the row that moved the
// watermark.
func (*aggOperator) ReadsMarks() {}

func newAggOperator(job *plan.Job, budget *StateBudget, stats *Stats, down *Emitter) *aggOperator {
	ao := &aggOperator{job: job, down: down, ncols: len(job.Stream.Columns), nb: len(job.Branches), stats: stats}
	branches := job.AllBranches()
	ao.nb = len(branches)
	for k, br := range branches {
		if br.Agg == nil {
			continue
		}
		o := buildAggOp(br, budget)
		if o.upd != nil {
			o.upd.ttl.event = job.WatermarkCol >= 0 // ('table.exec.state.ttl': the watermark is its clock)
		}
		if !br.Agg.Grouped {
			o.windowedTypes(job.BatchTypes)
		}
		var lr *LateRows
		if br.Agg.Window != nil {
			o.lateIdx = len(ao.lateSel)
			o.latePt = ao.nb + o.lateIdx
			ao.lateSel = append(ao.lateSel, make([]int32, 0, vector.Cap))
			lr = &LateRows{Query: br.Text, Output: br.Agg.Late, Script: br.Script, Line: br.Line, Column: br.Column}
			stats.Late = append(stats.Late, lr)
		}
		ao.counts = append(ao.counts, lr)
		ao.ops = append(ao.ops, o)
		ao.at = append(ao.at, k)
		ao.pos = append(ao.pos, 0)
		ao.taken = append(ao.taken, nil)
		if br == job.Main {
			ao.main = o
		}
	}
	return ao
}

// Push implements Operator: r is the router's batch.
func (ao *aggOperator) Push(ctx context.Context, port Port, r *Step) error {
	ao.pushed, ao.inBatch, ao.stop = 0, true, nil
	out := &ao.out
	*out = *r
	ao.parts = append(ao.parts[:0], r.Parts...)
	for k, o := range ao.ops {
		if o.lateIdx >= 0 {
			ao.lateSel[o.lateIdx] = ao.lateSel[o.lateIdx][:0]
		}
		ao.taken[k] = r.Parts[ao.at[k]].Sel
		o.rowsIn += int64(len(ao.taken[k]))
		ao.parts[ao.at[k]].Sel = nil // the rows are the aggregate's, not output rows
		ao.pos[k] = 0
		o.used = 0
		o.prepare(r.In, ao.taken[k])
		if o.upd != nil {
			o.prefind(ao.taken[k])
		}
	}
	ao.chunks = append(ao.chunks[:0], r.Chunks...)
	ao.oneChunk = ao.alone(r)
	b := r.In
	var wmv *vector.Vec
	if c := ao.job.WatermarkCol; c >= 0 {
		wmv = b.Cols[c]
	}
	mi := 0
	count := r.N // every input row in order: the live ones are those some branch took or that moved the watermark
	if ao.derive {
		count = len(r.Sel) // the released rows
		if ao.pending && count > 0 && wmv != nil && !wmv.Null[r.Sel[0]] {
			// the watermark after the previous batch's last row
			ao.pending = false
			ao.at1 = int(r.Sel[0])
			if err := ao.fireStep(ctx, port, wmv.I[r.Sel[0]], false); err != nil {
				return err
			}
		}
	}
	for idx := 0; idx < count; idx++ {
		i := idx
		if ao.derive {
			i = int(r.Sel[idx])
		}
		cw, cwSet := int64(0), false
		if wmv != nil {
			cw, cwSet = wmv.I[i], !wmv.Null[i]
		}
		ao.at1 = i + 1
		ao.row++
		for k, o := range ao.ops {
			taken := ao.taken[k]
			if ao.pos[k] >= len(taken) || int(taken[ao.pos[k]]) != i {
				continue
			}
			ao.pos[k]++
			o.rowAt = ao.row
			if !o.a.Grouped {
				if o.rep != nil && o.rep.active && o.rep.replayed(b.Pos[i]) {
					continue // its windowed rows were written already (I3)
				}
				if t := b.Cols[o.a.Window.TimeCol]; !t.Null[i] && (t.I[i] < o.tlo || t.I[i] > o.thi) {
					if err := ao.malformed(o, b, i); err != nil {
						return err
					}
					continue
				}
				n, more := o.windowRows(b, i, 0)
				if n == 0 {
					ao.markLate(o, i)
					continue
				}
				for from := int64(0); ; {
					if ao.emitRows(ctx, port, o, n) {
						return ao.stop
					}
					if !more {
						break
					}
					if o.used >= windowedChunks {
						if err := ao.pushBefore(ctx, port, i, i); err != nil {
							return err
						}
					}
					from += int64(n)
					n, more = o.windowRows(b, i, from)
				}
				continue
			}
			if o.upd != nil { // (SPEC 2.8: GROUP BY without a window over an unbounded or updating input)
				if err := ao.change(o, b, i, cw, cwSet); err != nil {
					return err
				}
				continue
			}
			late, err := o.add(b, i, cw, cwSet)
			if err == errWindowRange {
				err = ao.malformed(o, b, i)
			}
			if err != nil {
				return err
			}
			if late {
				ao.markLate(o, i)
			}
		}
		moved, wm := false, int64(0)
		for mi < len(r.Marks) && r.Marks[mi].At <= i+1 {
			moved, wm = true, r.Marks[mi].Value
			mi++
		}
		if ao.derive && wmv != nil {
			if idx+1 < count {
				j := r.Sel[idx+1]
				moved, wm = !wmv.Null[j], wmv.I[j]
			} else {
				ao.pending = true
			}
		}
		if !moved {
			continue
		}
		if err := ao.fireStep(ctx, port, wm, false); err != nil {
			return err
		}
	}
	ao.flushChanges(r.N)
	ao.finishParts()
	return ao.down.Push(ctx, port, out)
}

// alone reports whether the changes of the batch r can go out as one
// chunk per flush instead of one per input row (SPEC 2.8's order kept): the
// operator is one updating aggregate, not flushed row by row (a LIMIT),
// and r holds nothing else for the outputs (no other part's rows, no
// chunks, no malformed rows), so nothing comes between two changes.
func (ao *aggOperator) alone(r *Step) bool {
	if len(ao.ops) != 1 || ao.ops[0].upd == nil || ao.flushMain || len(r.Chunks) > 0 || len(r.Errors.Rows) > 0 {
		return false
	}
	for k := range r.Parts {
		if k != ao.at[0] && len(r.Parts[k].Sel) > 0 {
			return false
		}
	}
	return true
}

// errWindowRange is aggOp.add's error for a row whose time has a window that
// cannot be represented (outside aggOp.tlo .. thi): aggOperator.malformed
// makes the row malformed.
var errWindowRange = errors.New("a window outside int64")

// malformed makes row i of b, taken by o, malformed (SPEC 2.4, issue 30): its
// time has a window whose start or end is not an int64 (a BIGINT of
// milliseconds, or a TIMESTAMP), which would wrap. The stream's 'errors'
// policy applies: the job fails with a *RowError, the row is skipped, or it
// goes to the errors output in its place, with a message that names the
// column and the value and gives the times allowed.
func (ao *aggOperator) malformed(o *aggOp, b *vector.Batch, i int) error {
	st := ao.job.Stream
	w := o.a.Window
	tv := b.Cols[w.TimeCol]
	col := catalog.Column{Name: "event time", Type: tv.Type}
	if w.TimeCol < len(st.Columns) {
		col = st.Columns[w.TimeCol]
	}
	val := func(t int64) string {
		v := vector.NewVec(tv.Type)
		v.I[0] = t
		return string(format.AppendCSVValue(nil, tv.Type, v, 0, ','))
	}
	reason := fmt.Sprintf("column %s: %s has a %s window that does not fit in a %s (would wrap); its times must be from %s to %s", col.Name, string(format.AppendCSVValue(nil, tv.Type, tv, i, ',')), w.Func, tv.Type, val(o.tlo), val(o.thi))
	pos := strconv.FormatInt(b.Pos[i], 10)
	if ao.src != nil {
		pos = ao.src.Position(b.Pos[i])
	}
	es := ao.stats.stream(st)
	es.Malformed++
	switch es.Policy {
	case "fail":
		return &RowError{Stream: st.Name, Position: pos, Reason: reason}
	case "skip":
		return nil
	}
	var raw []byte
	if b.Line != nil && b.Line[i] != nil {
		raw = append(raw, b.Line[i]...)
	} else {
		raw = format.AppendCSVRow(nil, st.Columns, b.Cols[:len(st.Columns)], i, ',')
	}
	e := ErrorRow{Stream: st.Name, Position: pos, Raw: raw, Error: reason, At: i}
	bad := append([]ErrorRow(nil), ao.out.Errors.Rows...) // (the router's: not appended to in place)
	at := sort.Search(len(bad), func(k int) bool { return bad[k].At > i })
	ao.out.Errors.Rows = slices.Insert(bad, at, e)
	return nil
}

// windowedChunks is the most chunks (of vector.Cap rows) of one window TVF
// without aggregation that a batch holds: past it, what is routed so far is
// pushed on (pushBefore), so memory does not depend on how many windows one
// input row has (a HOP of 1 ms over a day has 86,400,000).
const windowedChunks = 8

// pushBefore pushes on, as a batch of its own, what the batch being routed
// holds before its input row i: the rows before i with their marks, the
// malformed rows up to At bad (bad is i when row i's windowed rows are being
// made, i-1 when a firing after row i-1 is: the malformed rows at At i come
// after that firing's rows), the late rows, and every chunk made so far
// (row i's windows, or the firing's rows, among them, which come after the
// rows before i). Those are then taken out of the batch, which goes on with
// row i: the outputs see the same rows in the same order, and row i counts
// as passed only with the rest of the batch.
func (ao *aggOperator) pushBefore(ctx context.Context, port Port, i, bad int) error {
	ao.finishParts()
	pre := &ao.pre
	*pre = ao.out
	pre.N = i
	ao.preParts = ao.preParts[:0]
	for _, p := range ao.parts {
		n := sort.Search(len(p.Sel), func(k int) bool { return int(p.Sel[k]) >= i })
		p.Sel = p.Sel[:n]
		ao.preParts = append(ao.preParts, p)
	}
	pre.Parts = ao.preParts
	nb := sort.Search(len(ao.out.Errors.Rows), func(k int) bool { return ao.out.Errors.Rows[k].At > bad })
	pre.Errors.Rows = ao.out.Errors.Rows[:nb]
	nm := sort.Search(len(ao.out.Marks), func(k int) bool { return ao.out.Marks[k].At > i })
	pre.Marks = ao.out.Marks[:nm]
	err := ao.down.Push(ctx, port, pre)
	// take it out of the batch (the parts' rows before i, below)
	ao.pushed = i
	for k := range ao.parts[:ao.nb] {
		p := &ao.parts[k]
		p.Sel = p.Sel[sort.Search(len(p.Sel), func(k int) bool { return int(p.Sel[k]) >= i }):]
	}
	for k, sel := range ao.lateSel {
		n := sort.Search(len(sel), func(k int) bool { return int(sel[k]) >= i })
		ao.lateSel[k] = append(sel[:0], sel[n:]...)
	}
	ao.out.Errors.Rows = ao.out.Errors.Rows[nb:]
	ao.out.Marks = ao.out.Marks[nm:]
	ao.chunks = ao.chunks[:0]
	for _, o := range ao.ops {
		o.used = 0
	}
	return err
}

// fireStep fires, as one step, the windows a watermark of wm makes due in
// every aggregate (all: every open one, and the GROUP BY and global
// aggregates' rows, at the stream's end), their rows as chunks at ao.at1, in
// SPEC 2.4's order across the aggregates (emitMerged). It returns ao.stop: a
// flush (flushMain) ended the job in the step, or failed.
func (ao *aggOperator) fireStep(ctx context.Context, port Port, wm int64, all bool) error {
	due := ao.fire[:0]
	for _, o := range ao.ops {
		if !all && !o.due(wm) || all && !o.a.Grouped || o.upd != nil { // (an updating aggregate emitted its changes already)
			continue
		}
		if fired, emitted, ok := o.take(wm, all); ok {
			due = append(due, firing{o, fired, emitted})
		}
	}
	ao.fire = due
	ao.emitMerged(ctx, port, due)
	for k := range due {
		due[k].o.finish(due[k].fired)
		due[k] = firing{}
	}
	return ao.stop
}

// finishParts sets the pushed batch's parts (the router's, then the late
// parts) and chunks.
func (ao *aggOperator) finishParts() {
	ao.parts = ao.parts[:ao.nb]
	for _, o := range ao.ops {
		if o.lateIdx >= 0 {
			ao.parts = append(ao.parts, Part{Output: o.a.LateOutput, Sel: ao.lateSel[o.lateIdx], Cols: ao.out.In.Cols[:ao.ncols]})
		}
	}
	ao.out.Parts = ao.parts
	ao.out.Chunks = ao.chunks
}

// lateRows returns the count of each late part (LateRows, by lateIdx: the
// parts after the router's), for the sink to count the late rows that reach
// it (sinkOp.countLate).
func (ao *aggOperator) lateRows() []*LateRows {
	var rows []*LateRows
	for k, o := range ao.ops {
		if o.lateIdx >= 0 {
			rows = append(rows, ao.counts[k])
		}
	}
	return rows
}

// markLate routes row i, late for o, to o's late part (counted where it
// reaches the sink: sinkOp).
func (ao *aggOperator) markLate(o *aggOp, i int) {
	ao.lateSel[o.lateIdx] = append(ao.lateSel[o.lateIdx], int32(i))
}

// emitRows turns the n aggregate (or windowed) rows in o.row into a Chunk at
// ao.at1, HAVING applied; the main query's rows are pushed on at once with
// flushMain. It reports whether the operator stops (ao.stop: the LIMIT ended
// the job there, or the push failed).
func (ao *aggOperator) emitRows(ctx context.Context, port Port, o *aggOp, n int) bool {
	part, got := o.chunk(n)
	o.rowsOut += got
	if got > 0 {
		ao.chunks = append(ao.chunks, Chunk{At: ao.at1, Part: part})
		if o == ao.main && ao.flushMain {
			ao.flush(ctx, port)
		}
	}
	return ao.stop != nil
}

// flush pushes on, at once, what the operator holds up to the chunks made so
// far (flushMain): in Push, the batch's rows before ao.at1 with their
// malformed rows, late rows and chunks (pushBefore); in fireAll, the chunks.
// An error (the LIMIT's end, errLimitReached, or a failure) is kept in ao.stop.
func (ao *aggOperator) flush(ctx context.Context, port Port) {
	if ao.inBatch {
		ao.stop = ao.pushBefore(ctx, port, ao.at1, ao.at1-1)
		return
	}
	ao.stop = ao.pushFired(ctx, port)
}

// pushFired pushes the chunks made so far as a batch of chunks alone, and
// starts the next ones in the chunk buffers again.
func (ao *aggOperator) pushFired(ctx context.Context, port Port) error {
	for _, o := range ao.ops {
		o.rep.changed() // the fired windows left the state: torn until their rows reach the sinks (replay.go)
	}
	ao.fired = Step{Chunks: ao.chunks, Errors: ErrorPort{Name: ao.out.Errors.Name}} // (reused: the parallel aggregate fires here all along, paragg.go)
	err := ao.down.Push(ctx, port, &ao.fired)
	ao.chunks = ao.chunks[:0]
	for _, o := range ao.ops {
		o.used = 0
	}
	return err
}

// Watermark implements Operator: windows fire at the rows that moved the
// watermark (marks, or the stamped column behind an event-time join, whose
// events come when rows arrive, before they are released), so an event only
// passes on; the Final one (the stream's end) is left to Finish.
func (ao *aggOperator) Watermark(ctx context.Context, wm Watermark) error {
	return ao.down.Watermark(ctx, wm)
}

// fireAll fires the due windows of every operator (all of them when all) and
// pushes their rows as a batch of chunks alone.
func (ao *aggOperator) fireAll(ctx context.Context, port Port, wm int64, all bool) error {
	ao.chunks = ao.chunks[:0]
	ao.at1, ao.inBatch, ao.stop = 0, false, nil
	for _, o := range ao.ops {
		o.used = 0
	}
	if err := ao.fireStep(ctx, port, wm, all); err != nil {
		return err
	}
	if len(ao.chunks) == 0 {
		return nil
	}
	return ao.pushFired(ctx, port)
}

// emitMerged emits the windows the aggregates fire in one step (SPEC 2.4):
// query by query in declaration order (side branches, then the main query:
// due is in ao.ops' order), each ordered by window_end, then window_start,
// then the first row of each group in its window (firstAt), each run of one
// aggregate's groups as one chunk of its rows; it stops where a flush stopped
// the operator (the main query's LIMIT, which so leaves the side rows of the
// step emitted).
func (ao *aggOperator) emitMerged(ctx context.Context, port Port, due []firing) {
	items := ao.fireItems[:0]
	for k, f := range due {
		for _, ws := range f.emitted {
			for _, g := range ws.groups {
				items = append(items, fireItem{k, ws.win, g})
			}
		}
	}
	sorted := true // (each aggregate's windows by end and start, each's groups in first-row order)
	for _, f := range due {
		for k := 1; sorted && k < len(f.emitted); k++ {
			sorted = f.emitted[k].win != f.emitted[k-1].win // (sessions of several keys may share bounds)
		}
	}
	if !sorted {
		ao.sortItems(items)
	}
	n, cur := 0, -1
	flush := func() bool {
		if n == 0 {
			return false
		}
		o := due[cur].o
		stop := ao.emitRows(ctx, port, o, n)
		for _, c := range o.row.Cols {
			c.ResetArena()
		}
		n = 0
		return stop
	}
	for _, it := range items {
		if it.op != cur {
			if flush() {
				break
			}
			cur = it.op
		}
		due[cur].o.writeRow(n, it.win, it.g)
		n++
		if n == vector.Cap && flush() {
			break
		}
	}
	flush()
	clear(items)
	ao.fireItems = items[:0]
}

// sortItems orders a firing's groups query by query (the aggregates in
// declaration order), then by window_end, window_start and first row (SPEC
// 2.4), stably.
func (ao *aggOperator) sortItems(items []fireItem) {
	slices.SortStableFunc(items, func(x, y fireItem) int {
		if c := cmp.Compare(x.op, y.op); c != 0 {
			return c
		}
		if c := cmp.Compare(x.win.End, y.win.End); c != 0 {
			return c
		}
		if c := cmp.Compare(x.win.Start, y.win.Start); c != 0 {
			return c
		}
		return cmp.Compare(x.g.firstAt, y.g.firstAt)
	})
}

// Finish implements Operator: the stream's end (watermark +∞) fires every open
// window, and GROUP BY without a window and global aggregates emit (SPEC 2.4).
func (ao *aggOperator) Finish(ctx context.Context) error {
	if err := ao.fireAll(ctx, Port{}, math.MaxInt64, true); err != nil {
		return err
	}
	return ao.down.Finish(ctx)
}

// hasAggregates reports whether a branch of job aggregates or reads a window TVF.

// groupCost is the state group g is charged for.
func (o *aggOp) groupCost(g *aggGroup) int64 {
	n := o.groupBytes(len(g.key))
	for c := range g.states {
		n += g.states[c].Bytes()
	}
	return n
}

// heldOther notes the row being added as the first of its partition in g
// when g has none of it yet (a topic not partitioned by the key: the
// group's rows come from several partitions).
func (o *aggOp) heldOther(g *aggGroup) {
	if _, ok := g.more[o.rowPart]; ok {
		return
	}
	if g.more == nil {
		g.more = map[int32]heldAt{}
	}
	g.more[o.rowPart] = heldAt{o.rowOff, o.rowCw, o.rowCwSet}
}

// mergeHeld keeps in h, into which g is merged (sessions), the first row of
// each partition of both.
func mergeHeld(h, g *aggGroup) {
	add := func(p int32, x heldAt) {
		if p == h.part {
			if x.off < h.held.off {
				h.held = x
			}
			return
		}
		if y, ok := h.more[p]; ok && y.off <= x.off {
			return
		}
		if h.more == nil {
			h.more = map[int32]heldAt{}
		}
		h.more[p] = x
	}
	add(g.part, g.held)
	for p, x := range g.more {
		add(p, x)
	}
}

// heldAll lowers, in dst, each partition's first row held (the smallest
// offset) to that of o's open state (replay.go: the hold frontier).
func (o *aggOp) heldAll(dst map[int32]heldAt) {
	note := func(p int32, x heldAt) {
		if h, ok := dst[p]; !ok || x.off < h.off {
			dst[p] = x
		}
	}
	for _, ws := range o.open {
		for _, g := range ws.groups {
			note(g.part, g.held)
			for p, x := range g.more {
				note(p, x)
			}
		}
	}
}

// drop frees the groups of partition p (revoked, or rebuilt by a replay:
// replay.go), and the windows and sessions left without groups. A group that
// also holds rows of other partitions stays (the topic is not partitioned by
// the grouping key, which SPEC 2.5 requires of a scaled-out aggregate).
func (o *aggOp) drop(p int32) {
	o.lastWs = nil
	clear(o.cache[:])
	defer o.reindexUpd()
	var freed int64
	kept := o.open[:0]
	o.minEnd = math.MaxInt64
	for _, ws := range o.open {
		gs := ws.groups[:0]
		for _, g := range ws.groups {
			if g.part == p && len(g.more) == 0 {
				freed += o.groupCost(g)
				o.freeGroups = append(o.freeGroups, g)
				continue
			}
			gs = append(gs, g)
		}
		ws.keepGroups(gs)
		if len(gs) == 0 && o.a.Window != nil {
			o.unindex(ws)
			o.freeWins = append(o.freeWins, ws)
			continue
		}
		kept = append(kept, ws)
		o.minEnd = min(o.minEnd, ws.win.End)
	}
	clear(o.open[len(kept):])
	o.open = kept
	freed = min(freed, o.bytes)
	o.bytes -= freed
	o.acct.Grow(-freed)
}

// unindex takes the window (or session) ws, leaving the open state, out of
// byWin (or its key's sessions in bySess); the pseudo-window of GROUP BY
// without a window is in neither.
func (o *aggOp) unindex(ws *winState) {
	switch {
	case o.a.Window == nil:
	case o.kind == window.Session:
		list := o.bySess[ws.pkey]
		for k, s := range list {
			if s == ws {
				list = append(list[:k], list[k+1:]...)
				break
			}
		}
		if len(list) == 0 {
			delete(o.bySess, ws.pkey)
		} else {
			o.bySess[ws.pkey] = list
		}
	default:
		delete(o.byWin, ws.win)
	}
}
